#include "codec/item_validation.h"

#include <gtest/gtest.h>

#include <string>

namespace engram {
namespace {

constexpr ItemLimits kLimits{.max_content_bytes = 64, .max_metadata_bytes = 32};

MemoryItem ValidItem() {
  MemoryItem m;
  m.id = "mem_01";
  m.scope = {.tenant = "acme", .user_id = "u1"};
  m.content = "lives in Berlin";
  m.created_at = m.updated_at = m.valid_from = 1'717'200'000'000;  // 2024-06-01
  return m;
}

TEST(ItemValidationTest, AcceptsAWellFormedItem) {
  EXPECT_TRUE(ValidateItem(ValidItem(), kLimits).ok());
}

TEST(ItemValidationTest, EachRuleNamesTheField) {
  struct Case {
    void (*change)(MemoryItem*);
    std::string field;
  };
  const Case cases[] = {
      {[](MemoryItem* m) { m->id = "has space"; }, "id"},
      {[](MemoryItem* m) { m->scope.user_id.clear(); }, "user_id"},
      {[](MemoryItem* m) { m->scope.agent_id = "a\nb"; }, "agent_id"},
      {[](MemoryItem* m) { m->content.clear(); }, "content"},
      {[](MemoryItem* m) { m->content = std::string(65, 'x'); }, "content"},
      {[](MemoryItem* m) { m->content = "bad \xE6\x88"; }, "content"},
      {[](MemoryItem* m) { m->tags = {""}; }, "tags"},
      {[](MemoryItem* m) { m->metadata = "[1]"; }, "metadata"},
      {[](MemoryItem* m) { m->metadata = R"({"k":")" + std::string(40, 'v') + "\"}"; }, "metadata"},
      {[](MemoryItem* m) { m->importance = 1.5; }, "importance"},
      {[](MemoryItem* m) { m->supersedes = "no spaces allowed"; }, "id"},
      {[](MemoryItem* m) { m->access_count = -1; }, "access_count"},
      {[](MemoryItem* m) { m->valid_to = m->valid_from - 1; }, "valid_to"},
  };
  for (const Case& c : cases) {
    MemoryItem m = ValidItem();
    c.change(&m);
    Status st = ValidateItem(m, kLimits);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(st.message().rfind(c.field + " ", 0), 0u) << st.message();
  }
}

TEST(ItemValidationTest, CanonicalMetadataIsCompactAndEmptyMeansAnEmptyObject) {
  EXPECT_EQ(CanonicalMetadata(R"({ "a" : 1 })", 100).value(), R"({"a":1})");
  EXPECT_EQ(CanonicalMetadata("", 100).value(), "{}");
  EXPECT_FALSE(CanonicalMetadata("{", 100).ok());
}

}  // namespace
}  // namespace engram
