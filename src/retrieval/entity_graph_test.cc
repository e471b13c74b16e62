// Retrieval's graph channel over a hand-built graph: which entities a query names, how far the
// walk goes and what it credits, and its bounds.
#include "retrieval/entity_graph.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace engram {
namespace {

GraphRows::Entity Ent(std::string id, std::string name, EntityKind kind, std::vector<int64_t> items,
                      std::vector<std::string> aliases = {}) {
  GraphRows::Entity e;
  e.id = std::move(id);
  e.name = name;
  e.kind = kind;
  e.norms.push_back(name);
  for (std::string& a : aliases) e.norms.push_back(std::move(a));
  e.items = std::move(items);
  return e;
}

GraphRows::Edge Rel(std::string s, std::string p, std::string o, std::vector<int64_t> items,
                    bool active = true) {
  return {std::move(s), std::move(o), std::move(p), active, std::move(items)};
}

// alice (the user) ─partner→ Anna Lee ─works_at→ Google ─located_in→ Boston; 张伟 leads 项目A.
GraphRows People() {
  GraphRows rows;
  rows.entities = {Ent("u", "alice", EntityKind::kUser, {}),
                   Ent("anna", "Anna Lee", EntityKind::kPerson, {1, 2}, {"wife"}),
                   Ent("google", "Google", EntityKind::kOrganization, {2, 3}),
                   Ent("boston", "Boston", EntityKind::kPlace, {4}),
                   Ent("zw", "张伟", EntityKind::kPerson, {5}),
                   Ent("pa", "项目A", EntityKind::kProject, {5, 6}),
                   Ent("wang", "王", EntityKind::kPerson, {7})};
  rows.edges = {Rel("u", "partner", "anna", {1}), Rel("anna", "works_at", "google", {2}),
                Rel("google", "located_in", "boston", {8}), Rel("zw", "leads", "pa", {5})};
  return rows;
}

std::vector<std::string> SeedNames(const EntityGraph& g, const std::string& text) {
  std::vector<GraphSeed> seeds;
  g.FindSeeds(text, 1.0, &seeds);
  std::vector<std::string> names;
  for (const GraphSeed& s : seeds) names.push_back(g.name(s.entity));
  std::sort(names.begin(), names.end());
  return names;
}

const GraphCredit* Credit(const GraphWalkResult& walk, int64_t seq) {
  for (const GraphCredit& c : walk.credits) {
    if (c.seq == seq) return &c;
  }
  return nullptr;
}

TEST(EntityGraphTest, NameUnitsSplitWordsAndCjkCharacters) {
  EXPECT_EQ(NameUnits("What does Anna Lee's team do?"),
            (std::vector<std::string>{"what", "does", "anna", "lee", "s", "team", "do"}));
  EXPECT_EQ(NameUnits("张伟在Google上班"),
            (std::vector<std::string>{"张", "伟", "在", "google", "上", "班"}));
  EXPECT_TRUE(NameUnits("  ?! ").empty());
}

TEST(EntityGraphTest, SeedsAreWholeNamesAndAliasesNeverTheUserNorOneCharacter) {
  const EntityGraph g(People());
  EXPECT_EQ(SeedNames(g, "what does anna lee do at GOOGLE?"),
            (std::vector<std::string>{"Anna Lee", "Google"}));
  EXPECT_EQ(SeedNames(g, "where does my wife work"), (std::vector<std::string>{"Anna Lee"}));
  EXPECT_EQ(SeedNames(g, "张伟最近忙什么"), (std::vector<std::string>{"张伟"}));
  EXPECT_EQ(SeedNames(g, "项目A什么时候交付"), (std::vector<std::string>{"项目A"}));
  // Part of a name, a name inside a word, the user's own id, a one-character name: nothing.
  EXPECT_TRUE(SeedNames(g, "anna").empty());
  EXPECT_TRUE(SeedNames(g, "googleplex bostonian").empty());
  EXPECT_TRUE(SeedNames(g, "what did alice say").empty());
  EXPECT_TRUE(SeedNames(g, "王先生来了").empty());
}

TEST(EntityGraphTest, WalkCreditsByDistanceAndStopsAtTheHopLimit) {
  const EntityGraph g(People());
  std::vector<GraphSeed> seeds;
  g.FindSeeds("Anna Lee", 1.0, &seeds);
  const GraphWalkResult one = g.Walk(seeds, 1, 100, 100);
  ASSERT_NE(Credit(one, 3), nullptr);  // mentions Google, one relation away
  EXPECT_EQ(g.name(Credit(one, 3)->via), "Google");
  EXPECT_EQ(Credit(one, 3)->hops, 1);
  EXPECT_EQ(Credit(one, 4), nullptr);  // Boston is two away
  EXPECT_EQ(Credit(one, 8), nullptr);  // and so is the statement Google is in Boston
  const GraphWalkResult two = g.Walk(seeds, 2, 100, 100);
  ASSERT_NE(Credit(two, 4), nullptr);
  ASSERT_NE(Credit(two, 8), nullptr);
  EXPECT_EQ(Credit(two, 4)->hops, 2);
  // Nearer is worth more: the seed's own mention, then one hop, then two.
  EXPECT_GT(Credit(two, 1)->score, Credit(two, 3)->score);
  EXPECT_GT(Credit(two, 3)->score, Credit(two, 4)->score);
  // Item 2 names Anna and Google and states the relation between them: the best.
  EXPECT_EQ(two.credits.front().seq, 2);
  // The user is reached (partner) but not walked through: nothing of 张伟 or 项目A.
  EXPECT_EQ(Credit(two, 5), nullptr);
  EXPECT_EQ(Credit(two, 6), nullptr);
}

TEST(EntityGraphTest, RelationsThatEndedAreNotWalked) {
  GraphRows rows = People();
  rows.edges[1].active = false;  // Anna left Google
  const EntityGraph g(rows);
  std::vector<GraphSeed> seeds;
  g.FindSeeds("Anna Lee", 1.0, &seeds);
  const GraphWalkResult walk = g.Walk(seeds, 2, 100, 100);
  EXPECT_EQ(Credit(walk, 3), nullptr);
  EXPECT_EQ(Credit(walk, 4), nullptr);
  ASSERT_NE(Credit(walk, 2), nullptr);  // still mentions Anna
}

TEST(EntityGraphTest, OftenNamedEntitiesCreditLess) {
  GraphRows rows;
  std::vector<int64_t> many;
  for (int64_t i = 100; i < 300; ++i) many.push_back(i);
  rows.entities = {Ent("hub", "Melanie", EntityKind::kPerson, many),
                   Ent("rare", "Bailey", EntityKind::kPet, {1})};
  for (int64_t i = 2; i < 50; ++i) {
    rows.entities.push_back(
        Ent("e" + std::to_string(i), "Name" + std::to_string(i), EntityKind::kPerson, {i}));
  }
  const EntityGraph g(rows);
  std::vector<GraphSeed> seeds;
  g.FindSeeds("melanie and bailey", 1.0, &seeds);
  const GraphWalkResult walk = g.Walk(seeds, 2, 100, 1000);
  ASSERT_FALSE(walk.credits.empty());
  EXPECT_EQ(walk.credits.front().seq, 1);
  ASSERT_NE(Credit(walk, 299), nullptr);
  EXPECT_LT(Credit(walk, 299)->score, 0.5 * Credit(walk, 1)->score);
  // Only a hub's newest mentions are listed, but any of its memories gets its credit.
  EXPECT_EQ(Credit(walk, 100), nullptr);
  EXPECT_NEAR(g.CreditOf(100, walk).score, Credit(walk, 299)->score, 1e-12);
  EXPECT_EQ(g.CreditOf(5, walk).score, 0);  // names nothing the walk reached
}

TEST(EntityGraphTest, TheNodeCapBoundsTheWalkWhateverTheGraph) {
  GraphRows rows;
  rows.entities.push_back(Ent("c", "Centre", EntityKind::kPerson, {1}));
  for (int i = 0; i < 2000; ++i) {
    const std::string id = "n" + std::to_string(i);
    rows.entities.push_back(Ent(id, "Leaf" + std::to_string(i), EntityKind::kPerson, {i + 10}));
    rows.edges.push_back(Rel("c", "knows", id, {i + 10}));
    // A second ring, so that two hops would reach 4,000 entities.
    rows.entities.push_back(
        Ent(id + "b", "Far" + std::to_string(i), EntityKind::kPerson, {i + 5000}));
    rows.edges.push_back(Rel(id, "knows", id + "b", {i + 5000}));
  }
  const EntityGraph g(rows);
  std::vector<GraphSeed> seeds;
  g.FindSeeds("Centre", 1.0, &seeds);
  const GraphWalkResult walk = g.Walk(seeds, 2, 50, 30);
  EXPECT_LE(walk.visited, 50);
  EXPECT_TRUE(walk.truncated);
  EXPECT_LE(walk.credits.size(), 30u);
  const GraphWalkResult all = g.Walk(seeds, 2, 1000, 30);
  EXPECT_EQ(all.visited, 1000);
}

TEST(EntityGraphTest, NoSeedsNoCredits) {
  const EntityGraph g(People());
  const GraphWalkResult walk = g.Walk({}, 2, 100, 100);
  EXPECT_TRUE(walk.credits.empty());
  EXPECT_EQ(walk.visited, 0);
  const EntityGraph empty{GraphRows{}};
  std::vector<GraphSeed> seeds;
  empty.FindSeeds("Anna Lee", 1.0, &seeds);
  EXPECT_TRUE(seeds.empty());
}

}  // namespace
}  // namespace engram
