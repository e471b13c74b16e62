// Retrieval through the public Engine API on real SQLite files: relevance in English and
// Chinese, every filter, index maintenance on writes and restarts, scoring and explain, MMR,
// access statistics, query validation, scope isolation, and re-embedding.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "engram/engine.h"
#include "retrieval/scope_index.h"
#include "retrieval/searcher.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;
using testing::Text;

constexpr TimestampMs kT0 = 1'700'000'000'000;
constexpr TimestampMs kDay = 86'400'000;

SearchQuery Query(std::string text, int k = 10) {
  SearchQuery q;
  q.text = std::move(text);
  q.k = k;
  return q;
}

std::vector<std::string> Ids(const std::vector<SearchHit>& hits) {
  std::vector<std::string> ids;
  for (const SearchHit& h : hits) ids.push_back(h.item.id);
  return ids;
}

std::set<std::string> IdSet(const std::vector<SearchHit>& hits) {
  std::set<std::string> ids;
  for (const SearchHit& h : hits) ids.insert(h.item.id);
  return ids;
}

const SearchHit* FindHit(const std::vector<SearchHit>& hits, const std::string& id) {
  for (const SearchHit& h : hits) {
    if (h.item.id == id) return &h;
  }
  return nullptr;
}

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("search.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
  }

  std::string AddOk(const NewMemory& m, const Scope& scope) {
    auto item = engine_->Add(scope, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? item->id : "";
  }
  std::string AddOk(const NewMemory& m) { return AddOk(m, alice_); }
  std::string AddOk(const std::string& content) { return AddOk(Text(content), alice_); }

  std::vector<SearchHit> Find(const SearchQuery& q, const Scope& scope) {
    auto hits = engine_->Search(scope, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::vector<SearchHit>{};
  }
  std::vector<SearchHit> Find(const SearchQuery& q) { return Find(q, alice_); }
  std::vector<SearchHit> Find(const std::string& text) { return Find(Query(text), alice_); }

  std::string TopId(const std::string& text) {
    auto hits = Find(text);
    return hits.empty() ? "" : hits[0].item.id;
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
  Scope bob_{"default", "bob", "", ""};
};

TEST_F(SearchTest, FindsTheRightItemInEnglish) {
  const std::string beijing = AddOk("I live in Beijing with my family");
  const std::string cat = AddOk("My cat likes to eat fish");
  const std::string job = AddOk("Works as a software engineer at Google");
  const std::string allergy = AddOk("Allergic to peanuts and shellfish");
  const std::string tea = AddOk("Favorite drink is green tea");
  const std::string dinner = AddOk("Had dinner at an Italian restaurant downtown");

  EXPECT_EQ(TopId("Beijing"), beijing);
  EXPECT_EQ(TopId("where does the user live?"), beijing);
  EXPECT_EQ(TopId("cats"), cat);              // stemming: cats → cat
  EXPECT_EQ(TopId("engineering jobs"), job);  // engineering → engin ← engineer
  EXPECT_EQ(TopId("PEANUT allergies"), allergy);
  EXPECT_EQ(TopId("what does she like to drink"), tea);

  // A misspelled word matches no keyword; the vector channel still finds the item.
  SearchQuery typo = Query("restaurnat");
  typo.explain = true;
  auto hits = Find(typo);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, dinner);
  EXPECT_EQ(hits[0].explain.keyword_rank, 0);
  EXPECT_EQ(hits[0].explain.vector_rank, 1);
  EXPECT_GT(hits[0].explain.vector, 0.1);
}

TEST_F(SearchTest, RecentTurnsJoinTheQueryAtTheirWeight) {
  const std::string marathon = AddOk("Training for the Berlin marathon in September");
  const std::string piano = AddOk("Practising piano scales every evening");
  // The latest line alone says nothing about either memory; the earlier turn names the topic.
  SearchQuery q = Query("how is that going?");
  q.recent_turns = {"I keep thinking about the marathon in Berlin"};
  auto hits = Find(q);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, marathon);
  const double with_turns = hits[0].score;
  // With the turns weighted out, the memory keeps only chance similarity to the query.
  q.recent_turn_weight = 0;
  double without_turns = 0;
  for (const SearchHit& h : Find(q)) {
    if (h.item.id == marathon) without_turns = h.score;
  }
  EXPECT_LT(without_turns + 0.1, with_turns);
  // The query text outweighs an older turn that points elsewhere.
  SearchQuery both = Query("piano scales");
  both.recent_turns = {"the marathon"};
  EXPECT_EQ(Find(both)[0].item.id, piano);
}

TEST_F(SearchTest, BadRecentTurnsAreRejected) {
  AddOk("anything");
  SearchQuery q = Query("x");
  q.recent_turns.assign(65, "turn");
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
  q.recent_turns = {"bad \xff byte"};
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
  q.recent_turns = {"fine"};
  q.recent_turn_weight = 1.5;
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
  q.recent_turn_weight = 0.5;
  q.mmr_similarity_floor = -0.1;
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SearchTest, FindsTheRightItemInChinese) {
  const std::string beijing = AddOk("我住在北京");
  const std::string tea = AddOk("我喜欢喝绿茶");
  const std::string cat = AddOk("我的猫喜欢吃鱼");
  const std::string job = AddOk("我在谷歌当工程师");

  EXPECT_EQ(TopId("北京"), beijing);
  EXPECT_EQ(TopId("用户住在哪里"), beijing);
  EXPECT_EQ(TopId("绿茶"), tea);
  EXPECT_EQ(TopId("喝茶"), tea);
  EXPECT_EQ(TopId("猫"), cat);
  EXPECT_EQ(TopId("工程师"), job);
  // Mixed-language queries reach Chinese content too.
  EXPECT_EQ(TopId("green tea 绿茶"), tea);
}

TEST_F(SearchTest, ResultsAreActiveItemsOfTheScopeOnly) {
  const std::string mine = AddOk("project kickoff on Monday");
  AddOk(Text("project kickoff on Monday"), bob_);
  const std::string gone = AddOk("project kickoff moved");
  ASSERT_TRUE(engine_->Delete(alice_, gone).ok());
  auto hits = Find("project kickoff");
  EXPECT_EQ(Ids(hits), std::vector<std::string>{mine});
  // A query of stop words only carries no evidence: importance alone is not a match.
  EXPECT_TRUE(Find("the and of it").empty());
  for (const SearchHit& h : hits) {
    EXPECT_EQ(h.item.status, ItemStatus::kActive);
    EXPECT_EQ(h.item.scope.user_id, "alice");
    EXPECT_EQ(h.item.content, "project kickoff on Monday");  // the full stored item comes back
  }
}

class SearchFilterTest : public SearchTest {
 protected:
  void SetUp() override {
    SearchTest::SetUp();
    NewMemory a = Text("project alpha notes");
    a.type = MemoryType::kPreference;
    a.tier = Tier::kSemantic;
    a.tags = {"work", "urgent"};
    a.entities = {"Acme"};
    a.metadata = R"({"n":3,"city":"bj"})";
    a.created_at = kT0 - 3 * kDay;
    a_ = AddOk(a);
    NewMemory b = Text("project beta meeting");
    b.type = MemoryType::kEvent;
    b.tier = Tier::kEpisodic;
    b.tags = {"work"};
    b.entities = {"Acme", "Bob"};
    b.metadata = R"({"n":"3","city":"sh"})";
    b.created_at = kT0 - 2 * kDay;
    b_ = AddOk(b);
    NewMemory c = Text("project gamma budget");
    c.type = MemoryType::kFact;
    c.tier = Tier::kSemantic;
    c.metadata = R"({"n":3.0})";
    c.created_at = kT0 - 1 * kDay;
    c_ = AddOk(c);
    NewMemory d = Text("project delta launch");
    d.type = MemoryType::kFact;
    d.tier = Tier::kKnowledge;
    d.tags = {"urgent"};
    d.metadata = R"({"n":4,"flag":true})";
    d.created_at = kT0;
    d_ = AddOk(d);
  }

  std::set<std::string> With(const std::function<void(SearchFilters&)>& set_filter) {
    SearchQuery q = Query("project");
    set_filter(q.filters);
    return IdSet(Find(q));
  }
  std::set<std::string> S(std::initializer_list<std::string> ids) { return ids; }

  std::string a_, b_, c_, d_;
};

TEST_F(SearchFilterTest, NoFilterReturnsEverything) {
  EXPECT_EQ(With([](SearchFilters&) {}), S({a_, b_, c_, d_}));
}

TEST_F(SearchFilterTest, TypeAndTier) {
  EXPECT_EQ(With([](SearchFilters& f) { f.types = {MemoryType::kPreference}; }), S({a_}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.types = {MemoryType::kEvent, MemoryType::kFact};
            }),
            S({b_, c_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.types = {MemoryType::kSkill}; }), S({}));
  EXPECT_EQ(With([](SearchFilters& f) { f.tiers = {Tier::kEpisodic}; }), S({b_}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.tiers = {Tier::kKnowledge, Tier::kSemantic};
            }),
            S({a_, c_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.tiers = {Tier::kSemantic};
              f.types = {MemoryType::kFact};
            }),
            S({c_}));
}

TEST_F(SearchFilterTest, CreatedTimeRange) {
  // created_after is inclusive, created_before exclusive.
  EXPECT_EQ(With([](SearchFilters& f) { f.created_after = kT0 - 2 * kDay; }), S({b_, c_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.created_after = kT0 - 2 * kDay + 1; }), S({c_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.created_before = kT0 - kDay; }), S({a_, b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.created_before = kT0 - kDay + 1; }), S({a_, b_, c_}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.created_after = kT0 - 2 * kDay;
              f.created_before = kT0;
            }),
            S({b_, c_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.created_after = kT0 + 1; }), S({}));
}

TEST_F(SearchFilterTest, TagsAndEntitiesMustAllBePresent) {
  EXPECT_EQ(With([](SearchFilters& f) { f.tags = {"work"}; }), S({a_, b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.tags = {"urgent"}; }), S({a_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.tags = {"work", "urgent"}; }), S({a_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.tags = {"Work"}; }), S({}));  // exact match
  EXPECT_EQ(With([](SearchFilters& f) { f.entities = {"Acme"}; }), S({a_, b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.entities = {"Acme", "Bob"}; }), S({b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.entities = {"Carol"}; }), S({}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.tags = {"work"};
              f.entities = {"Bob"};
            }),
            S({b_}));
}

TEST_F(SearchFilterTest, MetadataEquality) {
  // Numbers compare by value (3 == 3.0); the string "3" is not the number 3.
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"n", int64_t{3}}}; }), S({a_, c_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"n", 3.0}}; }), S({a_, c_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"n", std::string("3")}}; }), S({b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"n", int64_t{4}}}; }), S({d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"city", std::string("bj")}}; }), S({a_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"flag", true}}; }), S({d_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"flag", false}}; }), S({}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata = {{"missing", std::string("x")}}; }), S({}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.metadata = {{"n", int64_t{3}}, {"city", std::string("bj")}};
            }),
            S({a_}));
}

TEST_F(SearchFilterTest, MetadataIn) {
  using In = SearchFilters::MetadataIn;
  EXPECT_EQ(With([](SearchFilters& f) {
              f.metadata_in = {In{"n", {int64_t{4}, std::string("3")}}};
            }),
            S({b_, d_}));
  EXPECT_EQ(With([](SearchFilters& f) {
              f.metadata_in = {In{"city", {std::string("bj"), std::string("sh")}}};
            }),
            S({a_, b_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata_in = {In{"n", {3.0}}}; }), S({a_, c_}));
  // Every condition must hold.
  EXPECT_EQ(With([](SearchFilters& f) {
              f.metadata_in = {In{"n", {int64_t{3}, int64_t{4}}},
                               In{"city", {std::string("bj"), std::string("sh")}}};
            }),
            S({a_}));
  EXPECT_EQ(With([](SearchFilters& f) { f.metadata_in = {In{"nope", {int64_t{1}}}}; }), S({}));
}

TEST_F(SearchTest, StatusFilter) {
  const std::string active = AddOk("project active item");
  const std::string archived = AddOk("project archived item");
  const std::string deleted = AddOk("project deleted item");
  MemoryPatch archive;
  archive.status = ItemStatus::kArchived;
  ASSERT_TRUE(engine_->Update(alice_, archived, archive).ok());
  ASSERT_TRUE(engine_->Delete(alice_, deleted).ok());
  // A superseded item can only be written through Import.
  MemoryRecord sup;
  sup.item.id = "superseded-item-1";
  sup.item.scope = alice_;
  sup.item.content = "project superseded item";
  sup.item.status = ItemStatus::kSuperseded;
  sup.item.created_at = sup.item.updated_at = sup.item.valid_from = kT0;
  ASSERT_TRUE(engine_->Import({sup}, OnConflict::kFail).ok());
  const std::string superseded = sup.item.id;

  auto with = [&](std::vector<ItemStatus> statuses) {
    SearchQuery q = Query("project item");
    q.filters.statuses = std::move(statuses);
    return IdSet(Find(q));
  };
  EXPECT_EQ(IdSet(Find("project item")), std::set<std::string>{active});
  EXPECT_EQ(with({ItemStatus::kActive}), std::set<std::string>{active});
  EXPECT_EQ(with({ItemStatus::kArchived}), std::set<std::string>{archived});
  EXPECT_EQ(with({ItemStatus::kDeleted}), std::set<std::string>{deleted});
  EXPECT_EQ(with({ItemStatus::kSuperseded}), std::set<std::string>{superseded});
  EXPECT_EQ(with({ItemStatus::kActive, ItemStatus::kDeleted}),
            (std::set<std::string>{active, deleted}));
  EXPECT_EQ(with({}), (std::set<std::string>{active, archived, deleted, superseded}));
  for (const SearchHit& h : Find([&] {
         SearchQuery q = Query("project item");
         q.filters.statuses = {ItemStatus::kDeleted};
         return q;
       }())) {
    EXPECT_EQ(h.item.status, ItemStatus::kDeleted);
  }
}

TEST_F(SearchTest, AgentAndSessionNarrowResults) {
  const Scope a1s1{"default", "alice", "agent-1", "s1"};
  const Scope a1s2{"default", "alice", "agent-1", "s2"};
  const Scope a2s1{"default", "alice", "agent-2", "s1"};
  const std::string x = AddOk(Text("trip to Paris"), a1s1);
  const std::string y = AddOk(Text("trip to Rome"), a1s2);
  const std::string z = AddOk(Text("trip to Tokyo"), a2s1);
  const std::string w = AddOk(Text("trip to Lima"), alice_);

  EXPECT_EQ(IdSet(Find(Query("trip"), alice_)), (std::set<std::string>{x, y, z, w}));
  EXPECT_EQ(IdSet(Find(Query("trip"), Scope{"default", "alice", "agent-1", ""})),
            (std::set<std::string>{x, y}));
  EXPECT_EQ(IdSet(Find(Query("trip"), Scope{"default", "alice", "", "s1"})),
            (std::set<std::string>{x, z}));
  EXPECT_EQ(IdSet(Find(Query("trip"), a1s1)), std::set<std::string>{x});
  EXPECT_EQ(IdSet(Find(Query("trip"), Scope{"default", "alice", "agent-3", ""})),
            std::set<std::string>{});
  for (const SearchHit& h : Find(Query("trip"), Scope{"default", "alice", "agent-2", ""})) {
    EXPECT_EQ(h.item.scope.agent_id, "agent-2");
  }
}

TEST_F(SearchTest, UpdatesReindex) {
  AddOk("I like hiking in the mountains");
  AddOk("Works at a bakery");
  const std::string car = AddOk("I drive a red Toyota");
  SearchQuery toyota = Query("Toyota");
  toyota.explain = true;
  auto before = Find(toyota);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before[0].item.id, car);
  EXPECT_EQ(before[0].explain.keyword_rank, 1);

  MemoryPatch patch;
  patch.content = "I ride a blue bicycle";
  ASSERT_TRUE(engine_->Update(alice_, car, patch).ok());

  // The old content no longer matches as a keyword, and barely as a vector.
  for (const SearchHit& h : Find(toyota)) {
    if (h.item.id != car) continue;
    EXPECT_EQ(h.explain.keyword_rank, 0);
    EXPECT_LT(h.explain.vector, 0.2);
  }
  SearchQuery bicycle = Query("bicycle");
  bicycle.explain = true;
  auto after = Find(bicycle);
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after[0].item.id, car);
  EXPECT_EQ(after[0].item.content, "I ride a blue bicycle");
  EXPECT_EQ(after[0].explain.keyword_rank, 1);
  EXPECT_GT(after[0].explain.vector, 0.3);

  // A change without new content keeps the item's text and vector indexed.
  MemoryPatch tags;
  tags.tags = std::vector<std::string>{"vehicle"};
  ASSERT_TRUE(engine_->Update(alice_, car, tags).ok());
  bicycle.filters.tags = {"vehicle"};
  auto tagged = Find(bicycle);
  ASSERT_EQ(tagged.size(), 1u);
  EXPECT_EQ(tagged[0].item.id, car);
  EXPECT_EQ(tagged[0].explain.keyword_rank, 1);
  EXPECT_GT(tagged[0].explain.vector_rank, 0);
  EXPECT_GT(tagged[0].explain.vector, 0.3);
}

TEST_F(SearchTest, DeleteAndPurgeRemoveFromResults) {
  const std::string keep = AddOk("favorite color is blue");
  const std::string del = AddOk("favorite color is green");
  const std::string purge = AddOk("favorite color is purple");
  EXPECT_EQ(IdSet(Find("favorite color")), (std::set<std::string>{keep, del, purge}));

  ASSERT_TRUE(engine_->Delete(alice_, del).ok());
  EXPECT_EQ(IdSet(Find("favorite color")), (std::set<std::string>{keep, purge}));
  EXPECT_EQ(FindHit(Find("green"), del), nullptr);

  ASSERT_TRUE(engine_->Purge(alice_, purge).ok());
  SearchQuery any = Query("favorite color purple");
  any.filters.statuses = {};
  EXPECT_EQ(IdSet(Find(any)), (std::set<std::string>{keep, del}));
  EXPECT_EQ(engine_->Get(alice_, purge).status().code(), StatusCode::kNotFound);
}

TEST_F(SearchTest, PurgeScopeEmptiesOnlyThatScope) {
  AddOk("Lives in Shanghai");
  AddOk("Plays the violin");
  const std::string bobs = AddOk(Text("Lives in Shanghai too"), bob_);
  ASSERT_EQ(Find("Shanghai").size(), 1u);  // the index is loaded now
  auto removed = engine_->PurgeScope(Scope{"default", "alice", "agent-x", ""});
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2);
  SearchQuery any = Query("Shanghai violin");
  any.filters.statuses = {};
  EXPECT_TRUE(Find(any).empty());
  EXPECT_EQ(Ids(Find(Query("Shanghai"), bob_)), std::vector<std::string>{bobs});
  // The scope is usable again afterwards.
  const std::string fresh = AddOk("Moved to Shenzhen");
  EXPECT_EQ(Ids(Find("Shenzhen")), std::vector<std::string>{fresh});
}

TEST_F(SearchTest, ExplainIsFilledOnlyOnRequestAndMatchesTheScore) {
  NewMemory tea = Text("Favorite drink is green tea");
  tea.importance = 0.8;
  tea.created_at = kT0 - 30 * kDay;  // one half-life ago
  const std::string tea_id = AddOk(tea);
  NewMemory hz = Text("Bought green tea in Hangzhou");
  hz.importance = 0.2;
  const std::string hz_id = AddOk(hz);
  AddOk("Drinks black coffee every morning");

  SearchQuery q = Query("green tea");
  auto plain = Find(q);
  ASSERT_GE(plain.size(), 2u);
  for (const SearchHit& h : plain) {
    EXPECT_EQ(h.explain.keyword, 0);
    EXPECT_EQ(h.explain.vector, 0);
    EXPECT_EQ(h.explain.relevance, 0);
    EXPECT_EQ(h.explain.recency, 0);
    EXPECT_EQ(h.explain.importance, 0);
    EXPECT_EQ(h.explain.keyword_rank, 0);
    EXPECT_EQ(h.explain.vector_rank, 0);
    EXPECT_GT(h.score, 0);
  }

  q.explain = true;
  auto explained = Find(q);
  ASSERT_EQ(explained.size(), plain.size());
  bool saw_top_keyword = false;
  for (size_t i = 0; i < explained.size(); ++i) {
    const SearchHit& h = explained[i];
    const ScoreExplain& e = h.explain;
    EXPECT_EQ(h.item.id, plain[i].item.id);
    EXPECT_NEAR(h.score, plain[i].score, 1e-9);
    EXPECT_NEAR(h.score,
                (0.6 * e.relevance + 0.3 * e.importance + 0.1 * e.recency) * e.retention_factor,
                1e-9);
    EXPECT_NEAR(e.retention_factor, 1 - 0.1 * (1 - e.retention), 1e-12);
    // No item has a session, so relevance is the keyword/vector blend alone.
    EXPECT_NEAR(e.relevance, q.keyword_weight * e.keyword + (1 - q.keyword_weight) * e.vector,
                1e-9);
    EXPECT_DOUBLE_EQ(e.importance, h.item.importance);
    EXPECT_NEAR(e.recency, std::pow(0.5, (kT0 - h.item.created_at) / (30.0 * kDay)), 1e-9);
    EXPECT_GE(e.keyword, 0);
    EXPECT_LE(e.keyword, 1 + 1e-12);
    EXPECT_GE(e.vector, 0);
    EXPECT_LE(e.vector, 1 + 1e-6);
    if (e.keyword_rank == 1) {
      saw_top_keyword = true;
      EXPECT_NEAR(e.keyword, 1.0, 1e-12);  // normalized by the best keyword score
    }
    if (e.keyword_rank == 0) EXPECT_EQ(e.keyword, 0);
  }
  EXPECT_TRUE(saw_top_keyword);
  const SearchHit* t = FindHit(explained, tea_id);
  const SearchHit* h = FindHit(explained, hz_id);
  ASSERT_NE(t, nullptr);
  ASSERT_NE(h, nullptr);
  EXPECT_NEAR(t->explain.recency, 0.5, 1e-9);
  EXPECT_NEAR(h->explain.recency, 1.0, 1e-9);
  EXPECT_GT(t->explain.keyword_rank, 0);
  EXPECT_GT(t->explain.vector_rank, 0);

  // Other weights and half-lives enter the score the same way.
  q.relevance_weight = 0.2;
  q.importance_weight = 0.5;
  q.recency_weight = 0.3;
  q.keyword_weight = 0.8;
  q.recency_half_life_days = 15;
  auto weighted = Find(q);
  ASSERT_FALSE(weighted.empty());
  for (const SearchHit& w : weighted) {
    const ScoreExplain& e = w.explain;
    EXPECT_NEAR(w.score,
                (0.2 * e.relevance + 0.5 * e.importance + 0.3 * e.recency) * e.retention_factor,
                1e-9);
    EXPECT_NEAR(e.relevance, 0.8 * e.keyword + 0.2 * e.vector, 1e-9);
  }
  const SearchHit* t2 = FindHit(weighted, tea_id);
  ASSERT_NE(t2, nullptr);
  EXPECT_NEAR(t2->explain.recency, 0.25, 1e-9);  // two half-lives of 15 days
}

TEST_F(SearchTest, CjkCharacterChannelMatchesWordsSharingACharacter) {
  // 竞赛 and 比赛 share no word and no bigram, only 赛.
  const std::string contest = AddOk("我在学校比赛中得了第一名");
  AddOk("周末和家人一起去公园散步");
  SearchQuery q = Query("竞赛");
  q.explain = true;
  q.keyword_weight = 1;  // the keyword channel alone
  auto hits = Find(q);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, contest);
  EXPECT_GT(hits[0].explain.keyword, 0);

  // Weight 0 leaves the character terms out of the query: no keyword evidence remains.
  q.cjk_character_weight = 0;
  hits = Find(q);
  for (const SearchHit& h : hits) EXPECT_EQ(h.explain.keyword, 0) << h.item.content;

  // Shared characters rank below a shared word: the weight is a fraction of a word's.
  const std::string exact = AddOk("竞赛的规则很复杂");
  q.cjk_character_weight = 0.5;
  hits = Find(q);
  ASSERT_GE(hits.size(), 2u);
  EXPECT_EQ(hits[0].item.id, exact);
  EXPECT_EQ(hits[1].item.id, contest);
  EXPECT_LT(hits[1].explain.keyword, 0.5 * hits[0].explain.keyword);
}

TEST_F(SearchTest, TimePriorFavoursMemoriesFromTheTimeTheQueryNames) {
  auto at = [](const char* iso) { return *ParseTimestamp(iso); };
  NewMemory december = Text("went hiking with my brother in the hills");
  december.created_at = at("2022-12-10T09:00:00Z");
  NewMemory january = december;  // told a week after the month the query names
  january.created_at = at("2023-01-07T09:00:00Z");
  NewMemory june = december;
  june.created_at = at("2022-06-10T09:00:00Z");
  // Added in the opposite order of the expected ranking: ties go to the newest item.
  const std::string december_id = AddOk(december);
  const std::string january_id = AddOk(january);
  const std::string june_id = AddOk(june);

  SearchQuery q = Query("hiking with my brother in December 2022");
  q.explain = true;
  q.diversify = false;
  q.relevance_weight = 0.7;
  q.recency_weight = 0;
  auto hits = Find(q);
  ASSERT_EQ(Ids(hits), (std::vector<std::string>{december_id, january_id, june_id}));
  EXPECT_NEAR(hits[0].explain.time, 1.0, 1e-12);
  // The span ends 2023-01-01; after it closeness halves every 31 days (the month's length).
  EXPECT_NEAR(hits[1].explain.time, std::pow(0.5, 6.375 / 31), 1e-9);
  EXPECT_LT(hits[2].explain.time, 1e-6);  // half a year before: closeness halves every day
  const double base = hits[0].explain.relevance;
  for (const SearchHit& h : hits) {
    EXPECT_NEAR(h.explain.relevance, base * (1 - q.time_weight + q.time_weight * h.explain.time),
                1e-9);
  }

  // A query naming no time, or a time no memory is near, scales nothing.
  for (const char* text : {"hiking with my brother", "hiking with my brother in March 2019"}) {
    SearchQuery plain = q;
    plain.text = text;
    hits = Find(plain);
    ASSERT_EQ(hits.size(), 3u) << text;
    for (const SearchHit& h : hits)
      EXPECT_NEAR(h.explain.relevance, hits[0].explain.relevance, 1e-9) << text;
  }

  // Chinese, relative to the search time (kT0 is 2023-11-14): 去年12月 is December 2022.
  NewMemory zh_june = Text("和哥哥去爬山");
  zh_june.created_at = june.created_at;
  NewMemory zh_december = zh_june;
  zh_december.created_at = december.created_at;
  const std::string zh_december_id = AddOk(zh_december);
  AddOk(zh_june);
  SearchQuery zh = q;
  zh.text = "去年12月和哥哥去爬山";
  hits = Find(zh);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, zh_december_id);
  EXPECT_NEAR(hits[0].explain.time, 1.0, 1e-12);

  // time_weight 0 turns the prior off; out of 0..1 is refused.
  q.time_weight = 0;
  hits = Find(q);
  ASSERT_EQ(hits.size(), 3u);
  for (const SearchHit& h : hits) EXPECT_NEAR(h.explain.relevance, hits[0].explain.relevance, 1e-9);
  q.time_weight = 1.5;
  auto refused = engine_->Search(alice_, q);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("time_weight"), std::string::npos);
}

TEST_F(SearchTest, SessionPriorFavoursTurnsOfTheSessionOnTopic) {
  // Two sessions each have one turn naming the concert; only the first session is about it.
  Scope music = alice_;
  music.session_id = "music";
  Scope chores = alice_;
  chores.session_id = "chores";
  const std::string on_topic = AddOk(Text("the concert was great"), music);
  AddOk(Text("the band played jazz at the concert hall"), music);
  AddOk(Text("jazz band tickets for the next concert"), music);
  const std::string off_topic = AddOk(Text("the concert was great"), chores);
  AddOk(Text("need to clean the kitchen and buy soap"), chores);
  AddOk(Text("laundry and groceries tomorrow"), chores);

  SearchQuery q = Query("jazz band concert");
  q.explain = true;
  q.diversify = false;
  q.context_weight = 0;
  auto hits = Find(q);
  const SearchHit* on = FindHit(hits, on_topic);
  const SearchHit* off = FindHit(hits, off_topic);
  ASSERT_NE(on, nullptr);
  ASSERT_NE(off, nullptr);
  EXPECT_NEAR(on->explain.session, 1.0, 1e-12);  // the best session
  EXPECT_GT(off->explain.session, 0.0);
  EXPECT_LT(off->explain.session, 0.5);
  EXPECT_GT(on->score, off->score);
  for (const SearchHit* h : {on, off}) {
    const ScoreExplain& e = h->explain;
    EXPECT_NEAR(e.relevance,
                std::min(1.0, q.keyword_weight * e.keyword + (1 - q.keyword_weight) * e.vector) *
                    (1 - q.session_weight + q.session_weight * e.session),
                1e-9);
  }

  // Without the prior the two identical turns tie on relevance.
  q.session_weight = 0;
  hits = Find(q);
  on = FindHit(hits, on_topic);
  off = FindHit(hits, off_topic);
  ASSERT_NE(on, nullptr);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(on->explain.session, 0);
  EXPECT_NEAR(on->explain.relevance, off->explain.relevance, 1e-9);

  // Purging the turns that mention jazz takes the word out of their session's score.
  for (const SearchHit& h : Find(Query("jazz"))) {
    if (h.item.content.find("jazz") != std::string::npos) {
      ASSERT_TRUE(engine_->Purge(music, h.item.id).ok());
    }
  }
  SearchQuery jazz = Query("jazz");
  jazz.explain = true;
  for (const SearchHit& h : Find(jazz)) {
    EXPECT_EQ(h.item.content.find("jazz"), std::string::npos);
    EXPECT_EQ(h.explain.session, 0) << h.item.content;
  }
}

TEST_F(SearchTest, ResultsAreOrderedByScoreWithoutDiversity) {
  for (const char* c : {"green tea", "green tea with jasmine", "tea ceremony", "green apples",
                        "coffee", "tea and cakes in the afternoon"}) {
    AddOk(c);
  }
  SearchQuery q = Query("green tea");
  q.diversify = false;
  auto hits = Find(q);
  ASSERT_GE(hits.size(), 4u);
  for (size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
  EXPECT_EQ(hits[0].item.content, "green tea");
  q.k = 2;
  EXPECT_EQ(Find(q).size(), 2u);
}

TEST_F(SearchTest, ReciprocalRankFusion) {
  const std::string both = AddOk("green tea from Hangzhou");
  AddOk("tea");
  AddOk("green apples");
  AddOk("Hangzhou is a city");
  SearchQuery q = Query("green tea Hangzhou");
  q.fusion = FusionMode::kReciprocalRank;
  q.explain = true;
  auto hits = Find(q);
  ASSERT_GE(hits.size(), 3u);
  EXPECT_EQ(hits[0].item.id, both);
  // First in both channels: 2/61 scaled by 2/61 gives full relevance.
  EXPECT_EQ(hits[0].explain.keyword_rank, 1);
  EXPECT_EQ(hits[0].explain.vector_rank, 1);
  EXPECT_NEAR(hits[0].explain.relevance, 1.0, 1e-12);
  for (const SearchHit& h : hits) {
    const ScoreExplain& e = h.explain;
    double rrf = (e.keyword_rank ? 1.0 / (60 + e.keyword_rank) : 0.0) +
                 (e.vector_rank ? 1.0 / (60 + e.vector_rank) : 0.0);
    EXPECT_NEAR(e.relevance, rrf / (2.0 / 61), 1e-12);
    EXPECT_NEAR(h.score,
                (0.6 * e.relevance + 0.3 * e.importance + 0.1 * e.recency) * e.retention_factor,
                1e-9);
    EXPECT_NEAR(e.retention_factor, 1 - 0.1 * (1 - e.retention), 1e-12);
    EXPECT_LE(e.relevance, 1.0 + 1e-12);
  }
}

TEST_F(SearchTest, MinScoreDropsWeakResults) {
  for (const char* c : {"green tea", "green tea every day", "tea", "green grass", "coffee beans",
                        "black tea with milk"}) {
    AddOk(c);
  }
  SearchQuery q = Query("green tea");
  auto all = Find(q);
  ASSERT_GE(all.size(), 3u);
  double lo = all.back().score, hi = all.front().score;
  for (const SearchHit& h : all) lo = std::min(lo, h.score), hi = std::max(hi, h.score);
  ASSERT_LT(lo, hi);
  const double threshold = (lo + hi) / 2;
  size_t expected = 0;
  for (const SearchHit& h : all) expected += h.score >= threshold;
  q.min_score = threshold;
  auto kept = Find(q);
  EXPECT_EQ(kept.size(), expected);
  EXPECT_LT(kept.size(), all.size());
  for (const SearchHit& h : kept) EXPECT_GE(h.score, threshold);
  q.min_score = 1.0;
  EXPECT_TRUE(Find(q).empty());
  q.min_score = 0.0;
  EXPECT_EQ(Find(q).size(), all.size());
}

TEST_F(SearchTest, MmrPromotesADifferentRelevantItem) {
  std::set<std::string> dups;
  for (const char* c : {"I really love drinking green tea", "I really love drinking green tea!",
                        "i REALLY love drinking green tea", "I really love drinking green tea.",
                        "I really love drinking green tea :)"}) {
    NewMemory m = Text(c);
    m.importance = 0.6;
    dups.insert(AddOk(m));
  }
  NewMemory other = Text("Green tea ceremony in Kyoto was unforgettable");
  other.importance = 0.5;
  const std::string different = AddOk(other);
  AddOk("Bought a new laptop");

  SearchQuery q = Query("green tea", 2);
  q.diversify = false;
  auto plain = Find(q);
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_TRUE(dups.count(plain[0].item.id));
  EXPECT_TRUE(dups.count(plain[1].item.id));  // near-duplicates crowd the top

  q.diversify = true;
  auto diverse = Find(q);
  ASSERT_EQ(diverse.size(), 2u);
  EXPECT_TRUE(dups.count(diverse[0].item.id));  // the best one still leads
  EXPECT_EQ(diverse[1].item.id, different);

  // λ = 1 switches the penalty off.
  q.mmr_lambda = 1.0;
  EXPECT_EQ(IdSet(Find(q)), IdSet(plain));
}

// Hits come from the item cache once returned; every kind of write must show in the next search.
TEST_F(SearchTest, CachedHitsFollowEveryWrite) {
  const std::string tea = AddOk("green tea ceremony in Kyoto");
  AddOk("bought a new laptop");
  auto first = Find("green tea");
  ASSERT_FALSE(first.empty());
  ASSERT_EQ(first[0].item.id, tea);
  EXPECT_EQ(first[0].item.content, "green tea ceremony in Kyoto");

  MemoryPatch patch;
  patch.content = "green tea ceremony in Uji";
  patch.tags = std::vector<std::string>{"travel"};
  patch.importance = 0.9;
  ASSERT_TRUE(engine_->Update(alice_, tea, patch).ok());
  auto updated = Find("green tea");
  ASSERT_FALSE(updated.empty());
  EXPECT_EQ(updated[0].item.content, "green tea ceremony in Uji");
  EXPECT_EQ(updated[0].item.tags, std::vector<std::string>{"travel"});
  EXPECT_DOUBLE_EQ(updated[0].item.importance, 0.9);
  EXPECT_EQ(updated[0].item.access_count, 2);

  // Flushed counts reach the cached copy exactly once.
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  auto after_flush = Find("green tea");
  ASSERT_FALSE(after_flush.empty());
  EXPECT_EQ(after_flush[0].item.access_count, 3);
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  EXPECT_EQ(Find("green tea")[0].item.access_count, 4);

  // Another user never gets the cached item, even by the same words.
  EXPECT_TRUE(Find(Query("green tea"), bob_).empty());

  MemoryPatch archive;
  archive.status = ItemStatus::kArchived;
  ASSERT_TRUE(engine_->Update(alice_, tea, archive).ok());
  SearchQuery archived = Query("green tea");
  archived.filters.statuses = {ItemStatus::kArchived};
  auto found = Find(archived);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].item.status, ItemStatus::kArchived);

  ASSERT_TRUE(engine_->Purge(alice_, tea).ok());
  EXPECT_TRUE(Find(archived).empty());
}

TEST_F(SearchTest, ReturnedItemsCountTheAccess) {
  NewMemory tea_memory = Text("green tea");
  tea_memory.tags = {"drink"};
  const std::string tea = AddOk(tea_memory);
  const std::string other = AddOk("green tea fields");  // never passes the tag filter
  SearchQuery q = Query("green tea");
  q.filters.tags = {"drink"};

  auto first = Find(q);
  ASSERT_EQ(Ids(first), std::vector<std::string>{tea});
  EXPECT_EQ(first[0].item.access_count, 1);
  EXPECT_EQ(first[0].item.last_accessed, kT0);

  clock_.Advance(10);
  auto second = Find(q);
  ASSERT_EQ(Ids(second), std::vector<std::string>{tea});
  EXPECT_EQ(second[0].item.access_count, 2);
  EXPECT_EQ(second[0].item.last_accessed, kT0 + 10);

  // A search that does not record access leaves the statistics alone.
  SearchQuery silent = q;
  silent.record_access = false;
  clock_.Advance(10);
  auto unrecorded = Find(silent);
  ASSERT_EQ(Ids(unrecorded), std::vector<std::string>{tea});

  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  auto stored = engine_->Get(alice_, tea);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->access_count, 2);
  EXPECT_EQ(stored->last_accessed, kT0 + 10);
  auto untouched = engine_->Get(alice_, other);
  ASSERT_TRUE(untouched.ok());
  EXPECT_EQ(untouched->access_count, 0);
  EXPECT_FALSE(untouched->last_accessed.has_value());

  // After the flush, counting continues from the stored value.
  auto third = Find(q);
  ASSERT_EQ(Ids(third), std::vector<std::string>{tea});
  EXPECT_EQ(third[0].item.access_count, 3);
  EXPECT_EQ(third[0].item.last_accessed, kT0 + 20);
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  EXPECT_EQ(engine_->Get(alice_, tea)->access_count, 3);
}

TEST_F(SearchTest, AccessCountsStayRightWhenASearchTriggersTheAutomaticFlush) {
  const std::string tea = AddOk("green tea");
  auto first = Find("green tea");
  ASSERT_NE(FindHit(first, tea), nullptr);
  EXPECT_EQ(FindHit(first, tea)->item.access_count, 1);
  clock_.Advance(6000);  // the pending statistics are now over five seconds old: due
  auto second = Find("green tea");
  const SearchHit* h = FindHit(second, tea);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->item.access_count, 2);
  EXPECT_EQ(h->item.last_accessed, kT0 + 6000);
  // Persisted without an explicit flush: the background flusher finds the counts over five
  // seconds old (on the engine's clock) within its next poll.
  auto stored = engine_->Get(alice_, tea);
  for (int i = 0; i < 200 && stored.ok() && stored->access_count != 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stored = engine_->Get(alice_, tea);
  }
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->access_count, 2);
  EXPECT_EQ(stored->last_accessed, kT0 + 6000);
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  stored = engine_->Get(alice_, tea);
  EXPECT_EQ(stored->access_count, 2);
  EXPECT_EQ(stored->last_accessed, kT0 + 6000);
}

TEST_F(SearchTest, IndexSurvivesReopening) {
  const std::string paris = AddOk("Grew up in Paris");
  const std::string tea = AddOk("我喜欢喝绿茶");
  const std::string gone = AddOk("Grew up in Lyon");
  ASSERT_TRUE(engine_->Delete(alice_, gone).ok());
  ASSERT_FALSE(Find("Paris").empty());  // an index was loaded in the first engine
  engine_.reset();

  engine_ = testing::OpenEngine(dir_.File("search.db"), &clock_);
  ASSERT_NE(engine_, nullptr);
  EXPECT_EQ(TopId("Paris"), paris);
  EXPECT_EQ(TopId("绿茶"), tea);
  EXPECT_EQ(FindHit(Find("Lyon"), gone), nullptr);
  // Access statistics of the first engine were written on its destruction.
  auto stored = engine_->Get(alice_, paris);
  ASSERT_TRUE(stored.ok());
  EXPECT_GE(stored->access_count, 1);
}

TEST_F(SearchTest, ImportedItemsAreIndexed) {
  AddOk("Plays chess on weekends");
  ASSERT_FALSE(Find("chess").empty());  // the index is loaded before the import

  auto hash = MakeHashEmbedder({});
  ASSERT_TRUE(hash.ok());
  MemoryRecord with_vector;
  with_vector.item.id = "imported-1";
  with_vector.item.scope = alice_;
  with_vector.item.content = "Speaks fluent Portuguese";
  with_vector.item.created_at = with_vector.item.updated_at = with_vector.item.valid_from = kT0;
  with_vector.item.embedding_model = (*hash)->model();
  with_vector.vectors = {{(*hash)->model(), (*(*hash)->Embed({"Speaks fluent Portuguese"}))[0]}};
  MemoryRecord without_vector;
  without_vector.item.id = "imported-2";
  without_vector.item.scope = alice_;
  without_vector.item.content = "Collects vintage stamps";
  without_vector.item.created_at = without_vector.item.updated_at = without_vector.item.valid_from =
      kT0;
  auto stats = engine_->Import({with_vector, without_vector}, OnConflict::kFail);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->imported, 2);

  SearchQuery q = Query("Portuguese");
  q.explain = true;
  auto hits = Find(q);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, "imported-1");
  EXPECT_GT(hits[0].explain.vector_rank, 0);
  q.text = "stamps";
  hits = Find(q);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].item.id, "imported-2");
  EXPECT_GT(hits[0].explain.vector, 0.3);  // embedded when the index loaded
  auto v = engine_->GetVector(alice_, "imported-2", (*hash)->model());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, (*(*hash)->Embed({"Collects vintage stamps"}))[0]);
  EXPECT_EQ(engine_->Get(alice_, "imported-2")->embedding_model, (*hash)->model());
}

TEST_F(SearchTest, BadQueriesAreRejectedWithANamedProblem) {
  AddOk("something to find");
  struct Case {
    SearchQuery query;
    std::string expect_in_message;
  };
  std::vector<Case> cases;
  cases.push_back({Query(""), "query"});
  cases.push_back({Query(" \t\n "), "query"});
  cases.push_back({Query("bad \xFF byte"), "UTF-8"});
  cases.push_back({Query("find", 0), "k must be between 1 and 100"});
  cases.push_back({Query("find", 101), "k must be between 1 and 100"});
  SearchQuery inverted = Query("find");
  inverted.filters.created_after = kT0;
  inverted.filters.created_before = kT0 - 1;
  cases.push_back({inverted, "time range"});
  SearchQuery empty_range = Query("find");
  empty_range.filters.created_after = kT0;
  empty_range.filters.created_before = kT0;
  cases.push_back({empty_range, "time range"});
  SearchQuery quote = Query("find");
  quote.filters.metadata = {{"ci'ty", std::string("x")}};
  cases.push_back({quote, "metadata filter key"});
  SearchQuery quote_in = Query("find");
  quote_in.filters.metadata_in = {{"a\"b", {int64_t{1}}}};
  cases.push_back({quote_in, "metadata filter key"});
  SearchQuery empty_in = Query("find");
  empty_in.filters.metadata_in = {{"a", {}}};
  cases.push_back({empty_in, "metadata 'in' filter"});
  SearchQuery weights = Query("find");
  weights.relevance_weight = 0.5;
  cases.push_back({weights, "weights"});
  SearchQuery min_score = Query("find");
  min_score.min_score = 1.5;
  cases.push_back({min_score, "min_score"});
  SearchQuery negative_min = Query("find");
  negative_min.min_score = -0.1;
  cases.push_back({negative_min, "min_score"});
  SearchQuery nan_weight = Query("find");
  nan_weight.keyword_weight = std::nan("");
  cases.push_back({nan_weight, "keyword_weight"});
  SearchQuery session_weight = Query("find");
  session_weight.session_weight = -0.1;
  cases.push_back({session_weight, "session_weight"});
  SearchQuery lambda = Query("find");
  lambda.mmr_lambda = 1.5;
  cases.push_back({lambda, "mmr_lambda"});
  SearchQuery half_life = Query("find");
  half_life.recency_half_life_days = 0;
  cases.push_back({half_life, "recency_half_life_days"});
  SearchQuery empty_tag = Query("find");
  empty_tag.filters.tags = {""};
  cases.push_back({empty_tag, "tags filter"});
  SearchQuery empty_entity = Query("find");
  empty_entity.filters.entities = {""};
  cases.push_back({empty_entity, "entities filter"});
  SearchQuery inf_value = Query("find");
  inf_value.filters.metadata = {{"n", std::numeric_limits<double>::infinity()}};
  cases.push_back({inf_value, "finite"});

  for (const Case& c : cases) {
    auto r = engine_->Search(alice_, c.query);
    ASSERT_FALSE(r.ok()) << c.expect_in_message;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.expect_in_message;
    EXPECT_NE(r.status().message().find(c.expect_in_message), std::string::npos)
        << "want '" << c.expect_in_message << "' in: " << r.status().message();
  }
  auto bad_scope = engine_->Search(Scope{"default", "", "", ""}, Query("find"));
  EXPECT_EQ(bad_scope.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_scope.status().message().find("user_id"), std::string::npos);
  // The limits themselves are accepted.
  EXPECT_TRUE(engine_->Search(alice_, Query("find", 1)).ok());
  EXPECT_TRUE(engine_->Search(alice_, Query("find", 100)).ok());
  SearchQuery edge = Query("find");
  edge.min_score = 1.0;
  edge.relevance_weight = 1.0;
  edge.importance_weight = 0;
  edge.recency_weight = 0;
  EXPECT_TRUE(engine_->Search(alice_, edge).ok());
}

// Breaks the Embedder contract: dimension() says 32, vectors have 16 values.
class WrongDimensionEmbedder final : public Embedder {
 public:
  const std::string& model() const override { return model_; }
  int dimension() const override { return 32; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    return std::vector<std::vector<float>>(texts.size(), std::vector<float>(16, 0.25f));
  }

 private:
  std::string model_ = "wrong-dimension-v1";
};

TEST(SearchDimensionTest, SearchRejectsVectorsOfTheWrongDimension) {
  TempDir dir;
  EngineOptions options;
  options.embedder = std::make_shared<WrongDimensionEmbedder>();
  auto engine = testing::OpenEngine(dir.File("dim.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  auto r = engine->Search(Scope{"default", "alice", "", ""}, Query("anything"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("dimension"), std::string::npos) << r.status().message();
}

TEST(SearchDimensionTest, AddRejectsVectorsOfTheWrongDimension) {
  TempDir dir;
  EngineOptions options;
  options.embedder = std::make_shared<WrongDimensionEmbedder>();
  auto engine = testing::OpenEngine(dir.File("dim.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  const Scope alice{"default", "alice", "", ""};
  auto added = engine->Add(alice, Text("I live in Beijing"));
  ASSERT_FALSE(added.ok()) << "stored an item whose vector has 16 values for a 32-dim model";
  EXPECT_EQ(added.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(added.status().message().find("dimension"), std::string::npos)
      << added.status().message();
  ListQuery all;
  all.statuses = {};
  auto page = engine->List(alice, all);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->items.empty());
}

TEST(SearchIsolationTest, RandomQueriesNeverCrossScopes) {
  TempDir dir;
  ManualClock clock(kT0);
  auto engine = testing::OpenEngine(dir.File("iso.db"), &clock);
  ASSERT_NE(engine, nullptr);
  std::mt19937 rng(31337);
  std::vector<Scope> scopes;
  for (const char* tenant : {"acme", "globex"}) {
    for (const char* user : {"u1", "u2", "u3"}) scopes.push_back({tenant, user, "", ""});
  }
  auto name = [](const Scope& s) { return s.tenant + "/" + s.user_id; };
  const std::vector<std::string> vocab = {
      "tea",    "coffee", "Beijing",  "Paris",  "cat",   "dog",    "project", "meeting",
      "budget", "piano",  "hiking",   "北京",   "绿茶",  "咖啡",   "会议",    "猫",
      "doctor", "flight", "birthday", "salary", "movie", "garden", "bicycle", "pizza"};
  std::map<std::string, std::string> owner_of;            // id -> scope name
  std::map<std::string, std::set<std::string>> words_of;  // scope name -> words it holds
  for (int i = 0; i < 300; ++i) {
    const Scope& s = scopes[rng() % scopes.size()];
    std::string content;
    const int n = 2 + static_cast<int>(rng() % 4);
    for (int w = 0; w < n; ++w) {
      const std::string& word = vocab[rng() % vocab.size()];
      content += (w ? " " : "") + word;
      words_of[name(s)].insert(word);
    }
    NewMemory m = Text(content);
    m.importance = static_cast<double>(rng() % 101) / 100.0;
    auto item = engine->Add(s, m);
    ASSERT_TRUE(item.ok()) << item.status().ToString();
    owner_of[item->id] = name(s);
    if (i % 50 == 0) clock.Advance(1000);
  }

  int nonempty = 0;
  for (int round = 0; round < 200; ++round) {
    const Scope& s = scopes[rng() % scopes.size()];
    const std::string word = vocab[rng() % vocab.size()];
    SearchQuery q = Query(word + (rng() % 2 ? " " + vocab[rng() % vocab.size()] : ""),
                          1 + static_cast<int>(rng() % 20));
    q.fusion = rng() % 2 ? FusionMode::kWeighted : FusionMode::kReciprocalRank;
    q.diversify = rng() % 2;
    auto hits = engine->Search(s, q);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    if (words_of[name(s)].count(word)) {
      EXPECT_FALSE(hits->empty()) << name(s) << " holds '" << word << "'";
    }
    nonempty += !hits->empty();
    for (const SearchHit& h : *hits) {
      EXPECT_EQ(h.item.scope.tenant, s.tenant);
      EXPECT_EQ(h.item.scope.user_id, s.user_id);
      ASSERT_TRUE(owner_of.count(h.item.id)) << h.item.id;
      EXPECT_EQ(owner_of[h.item.id], name(s)) << "query '" << q.text << "'";
    }
  }
  EXPECT_GT(nonempty, 150);
}

TEST(ReembedTest, NewModelVectorsAreAddedAndOldOnesKept) {
  TempDir dir;
  ManualClock clock(kT0);
  const Scope alice{"default", "alice", "", ""};
  const Scope bob{"other", "bob", "", ""};
  auto dim64 = MakeHashEmbedder({.dimension = 64});
  auto dim128 = MakeHashEmbedder({.dimension = 128});
  ASSERT_TRUE(dim64.ok() && dim128.ok());
  std::shared_ptr<Embedder> old_model = std::move(dim64).value();
  std::shared_ptr<Embedder> new_model = std::move(dim128).value();

  std::string beijing, tea, cat;
  std::vector<float> old_vector;
  {
    EngineOptions options;
    options.embedder = old_model;
    auto engine = testing::OpenEngine(dir.File("re.db"), &clock, options);
    ASSERT_NE(engine, nullptr);
    beijing = engine->Add(alice, Text("I live in Beijing"))->id;
    tea = engine->Add(alice, Text("我喜欢喝绿茶"))->id;
    cat = engine->Add(bob, Text("My cat likes fish"))->id;
    ASSERT_TRUE(engine->Delete(alice, tea).ok());  // every status gets a vector
    EXPECT_EQ(engine->Get(alice, beijing)->embedding_model, "hash-v1-64");
    auto v = engine->GetVector(alice, beijing, "hash-v1-64");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->size(), 64u);
    old_vector = *v;
  }

  EngineOptions options;
  options.embedder = new_model;
  auto engine = testing::OpenEngine(dir.File("re.db"), &clock, options);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->Get(alice, beijing)->embedding_model, "hash-v1-64");
  EXPECT_EQ(engine->GetVector(alice, beijing, "hash-v1-128").status().code(),
            StatusCode::kNotFound);

  std::vector<std::pair<int64_t, int64_t>> progress;
  auto n = engine->Reembed([&](int64_t done, int64_t total) { progress.push_back({done, total}); });
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 3);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), (std::pair<int64_t, int64_t>{3, 3}));

  for (const auto& [scope, id, content] :
       {std::tuple{alice, beijing, std::string("I live in Beijing")},
        std::tuple{alice, tea, std::string("我喜欢喝绿茶")},
        std::tuple{bob, cat, std::string("My cat likes fish")}}) {
    auto item = engine->Get(scope, id);
    ASSERT_TRUE(item.ok());
    EXPECT_EQ(item->embedding_model, "hash-v1-128");
    auto fresh = engine->GetVector(scope, id, "hash-v1-128");
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    EXPECT_EQ(*fresh, (*new_model->Embed({content}))[0]);
    auto old = engine->GetVector(scope, id, "hash-v1-64");
    ASSERT_TRUE(old.ok()) << "the old model's vector is kept";
    EXPECT_EQ(old->size(), 64u);
  }
  EXPECT_EQ(*engine->GetVector(alice, beijing, "hash-v1-64"), old_vector);

  SearchQuery q = Query("Beijing");
  q.explain = true;
  auto hits = engine->Search(alice, q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].item.id, beijing);
  EXPECT_GT((*hits)[0].explain.vector, 0.3);
  auto cats = engine->Search(bob, Query("cat"));
  ASSERT_TRUE(cats.ok());
  ASSERT_FALSE(cats->empty());
  EXPECT_EQ((*cats)[0].item.id, cat);

  // Items added under the new model search together with the re-embedded ones.
  auto added = engine->Add(alice, Text("Visited Beijing again in May"));
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->embedding_model, "hash-v1-128");
  auto both = engine->Search(alice, Query("Beijing"));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(IdSet(*both), (std::set<std::string>{beijing, added->id}));
  // A second run has nothing left to embed and changes nothing.
  auto again = engine->Reembed(nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 4);
  EXPECT_EQ(*engine->GetVector(alice, beijing, "hash-v1-64"), old_vector);
}

TEST(ReembedTest, SearchAfterAModelChangeEmbedsLazily) {
  TempDir dir;
  const Scope alice{"default", "alice", "", ""};
  std::string id;
  {
    EngineOptions options;
    options.embedder = std::shared_ptr<Embedder>(std::move(MakeHashEmbedder({64})).value());
    auto engine = testing::OpenEngine(dir.File("lazy.db"), nullptr, options);
    ASSERT_NE(engine, nullptr);
    id = engine->Add(alice, Text("Plays the cello in an orchestra"))->id;
  }
  EngineOptions options;
  options.embedder = std::shared_ptr<Embedder>(std::move(MakeHashEmbedder({128})).value());
  auto engine = testing::OpenEngine(dir.File("lazy.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  auto hits = engine->Search(alice, Query("cello"));
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].item.id, id);
  EXPECT_TRUE(engine->GetVector(alice, id, "hash-v1-128").ok());
  EXPECT_TRUE(engine->GetVector(alice, id, "hash-v1-64").ok());
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// The plain MMR loop: every round rescores every remaining candidate against every pick.
std::vector<size_t> PlainMmr(const std::vector<double>& scores, size_t k, const SearchQuery& q,
                             const std::vector<std::vector<double>>& sim) {
  auto redundancy = [&](double s) {
    if (s <= q.mmr_similarity_floor || q.mmr_similarity_floor >= 1) return 0.0;
    return (s - q.mmr_similarity_floor) / (1.0 - q.mmr_similarity_floor);
  };
  std::vector<double> max_sim(scores.size(), 0.0);
  std::vector<bool> used(scores.size(), false);
  std::vector<size_t> picks;
  while (picks.size() < k && picks.size() < scores.size()) {
    size_t best = scores.size();
    double best_mmr = -1e9;
    for (size_t i = 0; i < scores.size(); ++i) {
      if (used[i]) continue;
      const double mmr = q.mmr_lambda * scores[i] - (1.0 - q.mmr_lambda) * redundancy(max_sim[i]);
      if (mmr > best_mmr) best_mmr = mmr, best = i;
    }
    used[best] = true;
    picks.push_back(best);
    for (size_t i = 0; i < scores.size(); ++i) max_sim[i] = std::max(max_sim[i], sim[i][best]);
  }
  return picks;
}

// The count of inactive entries bounds how many more hits than wanted a search asks for
// (searcher.cc OverAsk), so it must follow every status change, replacement and removal.
TEST(ScopeIndexTest, CountsInactiveEntriesThroughEveryChange) {
  ScopeIndex index(ScopeIndexOptions{.dimension = 8});
  auto item = [](ItemStatus status) {
    MemoryItem m;
    m.scope = {"default", "alice", "", ""};
    m.content = "some words";
    m.status = status;
    return m;
  };
  index.Upsert(1, item(ItemStatus::kActive), nullptr);
  EXPECT_EQ(index.inactive(), 0u);
  index.Upsert(1, item(ItemStatus::kArchived), nullptr);
  EXPECT_EQ(index.inactive(), 1u);
  index.Upsert(1, item(ItemStatus::kDeleted), nullptr);  // inactive to inactive
  EXPECT_EQ(index.inactive(), 1u);
  index.Upsert(2, item(ItemStatus::kSuperseded), nullptr);
  index.Upsert(3, item(ItemStatus::kActive), nullptr);
  EXPECT_EQ(index.inactive(), 2u);
  index.Upsert(1, item(ItemStatus::kActive), nullptr);  // back to active
  EXPECT_EQ(index.inactive(), 1u);
  index.Remove(2);
  EXPECT_EQ(index.inactive(), 0u);
  index.Remove(2);  // unknown: no change
  index.Remove(3);
  EXPECT_EQ(index.inactive(), 0u);
  EXPECT_EQ(index.size(), 1u);
}

// With a few inactive entries among the best matches, a search still fills k with active items
// (the over-ask covers them, or the filtered fallback does).
TEST_F(SearchTest, InactiveBestMatchesLeaveKActiveResults) {
  std::vector<std::string> archived;
  for (int i = 0; i < 6; ++i) {
    archived.push_back(AddOk("zebra zebra zebra stripes " + std::to_string(i)));
  }
  std::set<std::string> active;
  for (int i = 0; i < 40; ++i) active.insert(AddOk("zebra note number " + std::to_string(i)));
  MemoryPatch archive;
  archive.status = ItemStatus::kArchived;
  for (const std::string& id : archived) ASSERT_TRUE(engine_->Update(alice_, id, archive).ok());
  for (int k : {1, 5, 10, 30}) {
    auto hits = Find(Query("zebra stripes", k));
    ASSERT_EQ(hits.size(), static_cast<size_t>(k));
    for (const SearchHit& h : hits) EXPECT_TRUE(active.count(h.item.id)) << h.item.content;
  }
}

TEST(MmrPicksTest, PicksWhatThePlainLoopPicksWithFewerComparisons) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  size_t lazy_calls = 0, plain_calls = 0;
  for (int round = 0; round < 500; ++round) {
    const size_t pool = 1 + rng() % 40;
    const size_t k = 1 + rng() % 15;
    std::vector<double> scores(pool);
    for (double& s : scores) s = rng() % 4 == 0 ? 0.5 : unit(rng);  // with ties
    std::sort(scores.rbegin(), scores.rend());
    // Symmetric similarities, some near-duplicate clusters.
    std::vector<std::vector<double>> sim(pool, std::vector<double>(pool, 1.0));
    for (size_t i = 0; i < pool; ++i) {
      for (size_t j = i + 1; j < pool; ++j) {
        sim[i][j] = sim[j][i] =
            (i % 5 == j % 5 && rng() % 2) ? 0.8 + 0.2 * unit(rng) : unit(rng) - 0.3;
      }
    }
    SearchQuery q;
    q.mmr_lambda = std::vector<double>{0.0, 0.3, 0.7, 0.9}[rng() % 4];
    q.mmr_similarity_floor = std::vector<double>{0.0, 0.6, 1.0}[rng() % 3];
    const auto lazy = MmrPicks(scores, k, q, [&](size_t i, size_t p) {
      EXPECT_NE(i, p);
      ++lazy_calls;
      return sim[i][p];
    });
    EXPECT_EQ(lazy, PlainMmr(scores, k, q, sim)) << "round " << round;
    for (size_t r = 0; r < std::min(k, pool); ++r) plain_calls += pool - r - 1;
  }
  EXPECT_LT(lazy_calls, plain_calls);
}

TEST(MmrPicksTest, TakesTheBestScoresWhenNothingIsRedundant) {
  const std::vector<double> scores = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4};
  SearchQuery q;
  size_t calls = 0;
  auto picks = MmrPicks(scores, 3, q, [&](size_t, size_t) { return ++calls, 0.1; });
  EXPECT_EQ(picks, (std::vector<size_t>{0, 1, 2}));
  // Only each winner is compared with the picks before it: 0 + 1 + 2.
  EXPECT_EQ(calls, 3u);
}

}  // namespace
}  // namespace engram
