#include "api/responses.h"

#include <gtest/gtest.h>

#include "codec/item_json.h"

namespace engram::api {
namespace {

using json = nlohmann::json;

MemoryItem Item(const std::string& id, const std::string& content) {
  MemoryItem m;
  m.id = id;
  m.scope = {"t", "u", "", ""};
  m.content = content;
  m.tags = {"x"};
  m.created_at = m.updated_at = m.valid_from = 1'700'000'000'000;
  return m;
}

TEST(ResponsesTest, HitsTextHasEachHitWithItsMemoryScoreAndOptionalExplain) {
  SearchHit a{Item("m1", "likes \"green\" tea"), 0.75, {}};
  a.explain.keyword = 0.5;
  a.explain.keyword_rank = 2;
  SearchHit b{Item("m2", "去了京都"), 0.25, {}};
  const json plain = json::parse(HitsJsonText({a, b}, false));
  ASSERT_EQ(plain["results"].size(), 2u);
  EXPECT_EQ(plain["results"][0]["id"], "m1");
  EXPECT_EQ(plain["results"][0]["memory"], ItemToJson(a.item));
  EXPECT_EQ(plain["results"][0]["score"].get<double>(), 0.75);
  EXPECT_EQ(plain["results"][1]["memory"]["content"], "去了京都");
  EXPECT_FALSE(plain["results"][0].contains("explain"));
  const json explained = json::parse(HitsJsonText({a}, true));
  EXPECT_EQ(explained["results"][0]["explain"]["keyword"].get<double>(), 0.5);
  EXPECT_EQ(explained["results"][0]["explain"]["keyword_rank"], 2);
  // graph and graph_rank always; graph_via and graph_hops only for a memory the graph reached.
  EXPECT_EQ(explained["results"][0]["explain"].size(), 14u);
  EXPECT_FALSE(explained["results"][0]["explain"].contains("graph_via"));
  EXPECT_EQ(HitsToJson({a}, true), explained);
  a.explain.graph = 0.4;
  a.explain.graph_rank = 3;
  a.explain.graph_via = "张伟";
  a.explain.graph_hops = 1;
  const json reached = json::parse(HitsJsonText({a}, true))["results"][0]["explain"];
  EXPECT_EQ(reached.size(), 16u);
  EXPECT_EQ(reached["graph"].get<double>(), 0.4);
  EXPECT_EQ(reached["graph_rank"], 3);
  EXPECT_EQ(reached["graph_via"], "张伟");
  EXPECT_EQ(reached["graph_hops"], 1);
  EXPECT_EQ(json::parse(HitsJsonText({}, false)), json::parse(R"({"results":[]})"));
}

TEST(ResponsesTest, AddedAndPageTexts) {
  const std::vector<MemoryItem> items = {Item("m1", "one"), Item("m2", "two")};
  const json added = json::parse(AddedJsonText(items));
  ASSERT_EQ(added["results"].size(), 2u);
  EXPECT_EQ(added["results"][1]["id"], "m2");
  EXPECT_EQ(added["results"][1]["event"], "ADD");
  EXPECT_EQ(added["results"][1]["memory"], ItemToJson(items[1]));
  EXPECT_EQ(AddedToJson(items), added);

  ListPage page;
  page.items = items;
  json listed = json::parse(PageJsonText(page));
  EXPECT_TRUE(listed["next_cursor"].is_null());
  EXPECT_EQ(listed["results"][0], ItemToJson(items[0]));
  page.next_cursor = "c\"1";
  listed = json::parse(PageJsonText(page));
  EXPECT_EQ(listed["next_cursor"], "c\"1");
  EXPECT_EQ(PageToJson(page), listed);
}

}  // namespace
}  // namespace engram::api
