#include "codec/item_json.h"

#include <gtest/gtest.h>

#include "testing/record_support.h"

namespace engram {
namespace {

TEST(StringListJsonTest, RoundTripsTrickyStrings) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"a"},
      {"a,b", "c"},
      {"quote \" inside", "back\\slash"},
      {"绿茶", "emoji 😀"},
      {"], [", "\"", ""},
      {"new\nline", "tab\t"},
  };
  for (const auto& list : cases) {
    std::string text = StringListToJsonText(list);
    auto back = StringListFromJsonText(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, list) << text;
  }
}

TEST(StringListJsonTest, CorruptStoredListsAreReported) {
  for (const char* bad : {"[1,2]", "{\"a\":1}", "[\"unterminated]", "nope"}) {
    auto r = StringListFromJsonText(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

TEST(ItemJsonTest, UnknownFieldsAndWrongTypesAreNamed) {
  auto j = nlohmann::json::parse(R"({"id":"a","user_id":"u","content":"c","colour":"red"})");
  auto r = ItemFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("colour"), std::string::npos);
  j = nlohmann::json::parse(R"({"id":"a","user_id":"u","content":"c","importance":"high"})");
  r = ItemFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("importance"), std::string::npos);
  j = nlohmann::json::parse(R"({"id":"a","user_id":"u","content":"c","created_at":"yesterday"})");
  EXPECT_FALSE(ItemFromJson(j).ok());
  j = nlohmann::json::parse(R"({"id":"a","content":"c"})");
  r = ItemFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("user_id"), std::string::npos);
}

TEST(ItemJsonTest, VectorBase64RejectsGarbage) {
  EXPECT_FALSE(DecodeVectorBase64("abc").ok());       // length not a multiple of 4
  EXPECT_FALSE(DecodeVectorBase64("AAAAAAA=").ok());  // 5 bytes: not whole floats
  EXPECT_FALSE(DecodeVectorBase64("AAA*").ok());      // not base64
  auto one = DecodeVectorBase64("AACAPw==");          // 1.0f little-endian
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<float>{1.0f});
}

TEST(ItemJsonTest, TextRoundTripsEveryField) {
  const MemoryItem m = testing::EveryFieldItem();
  const std::string text = ItemJsonText(m);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.dump(), text);  // keys in nlohmann's order, numbers written alike
  auto back = ItemFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, m);
  EXPECT_EQ(j["metadata"]["nested"]["k"][1], "two");
  EXPECT_EQ(j["valid_to"], "2025-06-15T15:06:40.000Z");
}

TEST(ItemJsonTest, EmptyOptionalsAreNullAndBadMetadataIsAnEmptyObject) {
  MemoryItem m;
  m.id = "a";
  m.scope.user_id = "u";
  m.content = "c";
  m.metadata = "{not json";
  const nlohmann::json j = nlohmann::json::parse(ItemJsonText(m));
  EXPECT_TRUE(j["valid_to"].is_null());
  EXPECT_TRUE(j["last_accessed"].is_null());
  EXPECT_TRUE(j["supersedes"].is_null());
  EXPECT_TRUE(j["superseded_by"].is_null());
  EXPECT_EQ(j["metadata"], nlohmann::json::object());
  EXPECT_TRUE(j["importance"].is_number_float());
  EXPECT_EQ(j, ItemToJson(m));
}

}  // namespace
}  // namespace engram
