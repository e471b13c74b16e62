// The entity graph end to end (issue 39): messages through the write path with the built-in
// rules on a real date, then the graph read back through the Engine. Edges and their sources,
// aliases, the temporal behaviour (a move ends the old city's edge, in the world and in Engram),
// isolation between tenants and users, a hard delete removing its edges, and the bounded walk.
// Runs on SQLite and, under scripts/pg_unit_test.sh, on PostgreSQL (TempDir::File).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "engram/write_path.h"
#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

class GraphScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("graph.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
  }

  RememberResult Say(const std::string& text, const Scope& scope) {
    auto r = writer_->Remember(scope, {UserTurn(text, clock_.NowMs())});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : RememberResult{};
  }
  RememberResult Say(const std::string& text) { return Say(text, alice_); }

  // The entity of that name (and kind), or a failure.
  EntityRecord Entity(const std::string& name, const Scope& scope) {
    EntityQuery q;
    q.limit = 1000;
    auto page = engine_->ListEntities(scope, q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (page.ok()) {
      for (const EntityRecord& e : page->entities) {
        if (e.name == name) return e;
      }
    }
    ADD_FAILURE() << "no entity " << name;
    return {};
  }
  EntityRecord Entity(const std::string& name) { return Entity(name, alice_); }

  bool HasEntity(const std::string& name, const Scope& scope) {
    EntityQuery q;
    q.limit = 1000;
    auto page = engine_->ListEntities(scope, q);
    return page.ok() && std::any_of(page->entities.begin(), page->entities.end(),
                                    [&](const EntityRecord& e) { return e.name == name; });
  }

  // The edges of `entity` with that predicate and object name.
  std::vector<EdgeRecord> Edges(const EntityRecord& entity, const std::string& predicate,
                                const std::string& object) {
    auto detail = engine_->GetEntity(alice_, entity.id);
    EXPECT_TRUE(detail.ok()) << detail.status().ToString();
    std::vector<EdgeRecord> out;
    if (!detail.ok()) return out;
    for (const EdgeRecord& e : detail->edges) {
      if (e.predicate == predicate && e.object_name == object) out.push_back(e);
    }
    return out;
  }

  testing::TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryWriter> writer_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(GraphScenarioTest, AppositionNamesThePartnerAndTheRelationCitesItsSources) {
  const RememberResult r = Say("我老公老王在阿里巴巴工作");
  ASSERT_FALSE(r.writes.empty());
  const EntityRecord wang = Entity("老王");
  EXPECT_EQ(wang.kind, EntityKind::kPerson);
  EXPECT_EQ(wang.aliases, std::vector<std::string>{"老公"});
  const EntityRecord ali = Entity("阿里巴巴");
  EXPECT_EQ(ali.kind, EntityKind::kOrganization);
  const EntityRecord user = Entity("alice");
  EXPECT_EQ(user.kind, EntityKind::kUser);

  const std::vector<EdgeRecord> works = Edges(wang, "works_at", "阿里巴巴");
  ASSERT_EQ(works.size(), 1u);
  EXPECT_TRUE(works[0].active());
  EXPECT_EQ(works[0].valid_from, kT0);
  EXPECT_EQ(works[0].created_at, kT0);
  // Stated by the kept turn, and by the memory extracted from it.
  std::vector<std::string> written;
  for (const WriteOutcome& w : r.writes) written.push_back(w.memory.id);
  ASSERT_FALSE(works[0].sources.empty());
  for (const std::string& s : works[0].sources) {
    EXPECT_NE(std::find(written.begin(), written.end(), s), written.end()) << s;
  }
  const std::vector<EdgeRecord> partner = Edges(user, "partner", "老王");
  ASSERT_EQ(partner.size(), 1u);
  EXPECT_EQ(partner[0].subject_id, user.id);
}

TEST_F(GraphScenarioTest, AMoveEndsTheOldCityEdgeInTheWorldAndInEngram) {
  Say("我住在上海");
  clock_.Advance(30 * kDay);
  const TimestampMs moved = clock_.NowMs();
  Say("我搬到杭州了");
  const EntityRecord user = Entity("alice");
  const std::vector<EdgeRecord> shanghai = Edges(user, "lives_in", "上海");
  ASSERT_EQ(shanghai.size(), 1u);
  EXPECT_FALSE(shanghai[0].active());
  EXPECT_EQ(shanghai[0].valid_from, kT0);
  ASSERT_TRUE(shanghai[0].valid_to.has_value());
  EXPECT_EQ(*shanghai[0].valid_to, moved);
  ASSERT_TRUE(shanghai[0].expired_at.has_value());
  EXPECT_EQ(*shanghai[0].expired_at, moved);
  EXPECT_FALSE(shanghai[0].ended_by.empty());
  const std::vector<EdgeRecord> hangzhou = Edges(user, "lives_in", "杭州");
  ASSERT_EQ(hangzhou.size(), 1u);
  EXPECT_TRUE(hangzhou[0].active());
  EXPECT_EQ(hangzhou[0].valid_from, moved);
  // The old city stays an entity (it was said), with no relation that still holds.
  EXPECT_EQ(Entity("上海").active_edges, 0);
  EXPECT_EQ(Entity("杭州").active_edges, 1);
}

TEST_F(GraphScenarioTest, SomeoneElsesMoveEndsTheirEdgeToo) {
  Say("我的同事张伟住在深圳");
  clock_.Advance(7 * kDay);
  Say("张伟上个月搬到杭州了");
  const EntityRecord zhang = Entity("张伟");
  EXPECT_EQ(zhang.aliases, std::vector<std::string>{"同事"});
  const std::vector<EdgeRecord> shenzhen = Edges(zhang, "lives_in", "深圳");
  ASSERT_EQ(shenzhen.size(), 1u);
  EXPECT_FALSE(shenzhen[0].active());
  const std::vector<EdgeRecord> hangzhou = Edges(zhang, "lives_in", "杭州");
  ASSERT_EQ(hangzhou.size(), 1u);
  EXPECT_TRUE(hangzhou[0].active());
}

TEST_F(GraphScenarioTest, ARoleWordResolvesThroughTheAliasStatedBefore) {
  Say("我老公喜欢钓鱼");  // no one named yet: nothing to attach, nothing made up
  EXPECT_FALSE(HasEntity("老公", alice_));
  EntityQuery q;
  auto before = engine_->ListEntities(alice_, q);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->entities.empty());

  Say("我老公老王是厨师");
  clock_.Advance(kDay);
  Say("我老公在腾讯上班");
  const EntityRecord wang = Entity("老王");
  EXPECT_EQ(Edges(wang, "works_at", "腾讯").size(), 1u);
  EXPECT_FALSE(HasEntity("老公", alice_));
  // The turns that name him (the last through the alias) and what was extracted from them.
  EXPECT_GE(wang.mentions, 2);
}

TEST_F(GraphScenarioTest, EnglishMessagesBuildTheSameGraph) {
  Say("My wife Anna works at Google.");
  clock_.Advance(kDay);
  Say("My wife started at Figma.");  // resolves to Anna; one employer at a time
  const EntityRecord anna = Entity("Anna");
  EXPECT_EQ(anna.aliases, std::vector<std::string>{"wife"});
  const std::vector<EdgeRecord> google = Edges(anna, "works_at", "Google");
  ASSERT_EQ(google.size(), 1u);
  EXPECT_FALSE(google[0].active());
  const std::vector<EdgeRecord> figma = Edges(anna, "works_at", "Figma");
  ASSERT_EQ(figma.size(), 1u);
  EXPECT_TRUE(figma[0].active());
}

TEST_F(GraphScenarioTest, TenantsAndUsersNeverSeeEachOthersGraph) {
  const Scope bob{"default", "bob", "", ""};
  const Scope other_tenant{"acme", "alice", "", ""};
  Say("我老公老王在阿里巴巴工作", alice_);
  Say("我住在北京", bob);
  Say("My sister Emma lives in London.", other_tenant);
  const EntityRecord wang = Entity("老王", alice_);
  EXPECT_FALSE(HasEntity("老王", bob));
  EXPECT_FALSE(HasEntity("老王", other_tenant));
  EXPECT_FALSE(HasEntity("北京", alice_));
  EXPECT_FALSE(HasEntity("Emma", alice_));
  EXPECT_TRUE(HasEntity("Emma", other_tenant));
  for (const Scope& s : {bob, other_tenant}) {
    EXPECT_EQ(engine_->GetEntity(s, wang.id).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(engine_->EntityNeighbours(s, wang.id, GraphWalk{}).status().code(),
              StatusCode::kNotFound);
  }
  // Same text, two users: two graphs, each its own ids.
  Say("我老公老王在阿里巴巴工作", bob);
  EXPECT_NE(Entity("老王", bob).id, wang.id);
}

TEST_F(GraphScenarioTest, HardDeleteOfAMemoryRemovesItsEdgesAndUnusedEntities) {
  const RememberResult keep = Say("我住在上海");
  const RememberResult gone = Say("我老公老王在阿里巴巴工作");
  ASSERT_TRUE(HasEntity("老王", alice_));
  ASSERT_TRUE(HasEntity("阿里巴巴", alice_));
  // The turn and the memory extracted from it state the edges: a hard delete of the memory
  // takes its conversation along (PurgeOptions::source_turns), so every source goes.
  int purged_memories = 0;
  for (const WriteOutcome& w : gone.writes) {
    if (w.turn) continue;
    auto purged = engine_->Purge(alice_, w.memory.id, PurgeOptions{});
    ASSERT_TRUE(purged.ok()) << purged.status().ToString();
    ++purged_memories;
  }
  ASSERT_GE(purged_memories, 1);
  EXPECT_FALSE(HasEntity("老王", alice_));
  EXPECT_FALSE(HasEntity("阿里巴巴", alice_));
  EXPECT_TRUE(HasEntity("上海", alice_));
  const EntityRecord user = Entity("alice");
  auto detail = engine_->GetEntity(alice_, user.id);
  ASSERT_TRUE(detail.ok());
  ASSERT_EQ(detail->edges.size(), 1u);  // lives_in 上海 only
  EXPECT_EQ(detail->edges[0].object_name, "上海");
  (void)keep;
}

TEST_F(GraphScenarioTest, NeighboursAreBoundedByHopsAndNodes) {
  Say("我的同事张伟住在深圳");
  Say("项目A的负责人是张伟");
  Say("任务B属于项目A");
  const EntityRecord task = Entity("任务B");
  GraphWalk one;
  one.hops = 1;
  auto near = engine_->EntityNeighbours(alice_, task.id, one);
  ASSERT_TRUE(near.ok()) << near.status().ToString();
  ASSERT_EQ(near->entities.size(), 1u);
  EXPECT_EQ(near->entities[0].entity.name, "项目A");
  GraphWalk three;
  three.hops = 3;
  auto far = engine_->EntityNeighbours(alice_, task.id, three);
  ASSERT_TRUE(far.ok());
  std::vector<std::string> names;
  for (const NeighbourEntity& n : far->entities) {
    names.push_back(n.entity.name + "@" + std::to_string(n.distance));
  }
  // 任务B → 项目A → 张伟 → (alice, 深圳)
  EXPECT_EQ(names, (std::vector<std::string>{"项目A@1", "张伟@2", "alice@3", "深圳@3"}));
  EXPECT_FALSE(far->truncated);
  GraphWalk capped = three;
  capped.max_nodes = 2;
  auto cut = engine_->EntityNeighbours(alice_, task.id, capped);
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->entities.size(), 2u);
  EXPECT_TRUE(cut->truncated);
  GraphWalk bad;
  bad.hops = 9;
  EXPECT_EQ(engine_->EntityNeighbours(alice_, task.id, bad).status().code(),
            StatusCode::kInvalidArgument);
  EntityQuery q;
  q.limit = 0;
  EXPECT_EQ(engine_->ListEntities(alice_, q).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(GraphScenarioTest, AnImportRebuildsTheGraphFromTheItems) {
  Say("我老公老王在阿里巴巴工作");
  Say("我住在上海");
  clock_.Advance(30 * kDay);
  Say("我搬到杭州了");
  std::vector<MemoryRecord> records;
  ASSERT_TRUE(engine_
                  ->Export(alice_,
                           [&](const MemoryRecord& r) {
                             records.push_back(r);
                             return Status::Ok();
                           })
                  .ok());
  testing::TempDir other_dir;
  auto other = testing::OpenEngine(other_dir.File("imported.db"), &clock_);
  ASSERT_NE(other, nullptr);
  auto stats = other->Import(records, OnConflict::kFail);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EntityQuery q;
  q.limit = 1000;
  auto page = other->ListEntities(alice_, q);
  ASSERT_TRUE(page.ok());
  std::map<std::string, EntityRecord> by_name;
  for (const EntityRecord& e : page->entities) by_name[e.name] = e;
  ASSERT_TRUE(by_name.count("老王"));
  EXPECT_EQ(by_name["老王"].aliases, std::vector<std::string>{"老公"});
  ASSERT_TRUE(by_name.count("上海") && by_name.count("杭州") && by_name.count("alice"));
  // The move is history in the rebuilt graph too.
  EXPECT_EQ(by_name["上海"].active_edges, 0);
  EXPECT_EQ(by_name["杭州"].active_edges, 1);
  auto user = other->GetEntity(alice_, by_name["alice"].id);
  ASSERT_TRUE(user.ok());
  for (const EdgeRecord& e : user->edges) {
    if (e.object_name == "上海") {
      ASSERT_TRUE(e.valid_to.has_value());
      EXPECT_EQ(*e.valid_to, kT0 + 30 * kDay);
    }
  }
}

// With an extractor that gives relations (an LLM, here scripted), its graph is stored and the
// rules are not run: the turn says nothing the rules read, the model's relation is kept.
TEST_F(GraphScenarioTest, AModelsRelationsAreStoredInsteadOfTheRules) {
  Candidate c = Cand("用户和项目A的负责人张伟一起工作");
  c.graph.entities = {{"张伟", EntityKind::kPerson, {}}, {"项目A", EntityKind::kProject, {}}};
  c.graph.relations = {{"张伟", "leads", "项目A", std::nullopt, false}};
  auto extractor = std::make_shared<ScriptedExtractor>(
      std::vector<Result<ExtractionResult>>{ExtractionResult{{c}, "llm:fake", "extract-v4"}});
  MemoryWriter llm_writer(engine_.get(), WriterOptions{.extractor = extractor});
  auto r = llm_writer.Remember(alice_, {UserTurn("我跟张伟一起搞项目A，他是头儿", kT0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const EntityRecord zhang = Entity("张伟");
  const std::vector<EdgeRecord> leads = Edges(zhang, "leads", "项目A");
  ASSERT_EQ(leads.size(), 1u);
  // Stated by the memory and by the turn it came from.
  EXPECT_EQ(leads[0].sources.size(), 2u);
  EXPECT_EQ(Entity("项目A").kind, EntityKind::kProject);
}

TEST_F(GraphScenarioTest, ListingFiltersByKindAndNameAndPages) {
  Say("我住在上海");
  Say("我来自成都");
  Say("我的同事张伟住在深圳");
  EntityQuery places;
  places.kind = EntityKind::kPlace;
  auto p = engine_->ListEntities(alice_, places);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->entities.size(), 3u);
  EntityQuery by_alias;
  by_alias.name = "同事";
  auto a = engine_->ListEntities(alice_, by_alias);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->entities.size(), 1u);
  EXPECT_EQ(a->entities[0].name, "张伟");
  EntityQuery page;
  page.limit = 2;
  auto first = engine_->ListEntities(alice_, page);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->entities.size(), 2u);
  ASSERT_TRUE(first->next_offset.has_value());
  page.offset = *first->next_offset;
  auto second = engine_->ListEntities(alice_, page);
  ASSERT_TRUE(second.ok());
  // alice, 上海, 成都, 张伟, 深圳: five in all, none twice.
  std::set<std::string> seen;
  for (const auto* pg : {&*first, &*second}) {
    for (const EntityRecord& e : pg->entities) EXPECT_TRUE(seen.insert(e.id).second);
  }
  while (second->next_offset) {
    page.offset = *second->next_offset;
    second = engine_->ListEntities(alice_, page);
    ASSERT_TRUE(second.ok());
    for (const EntityRecord& e : second->entities) EXPECT_TRUE(seen.insert(e.id).second);
  }
  EXPECT_EQ(seen.size(), 5u);
}

// Retrieval's graph channel (SearchQuery::graph): the best score of a hit whose content has
// `needle`, and its explanation; score -1 when none.
std::pair<double, ScoreExplain> Best(const std::vector<SearchHit>& hits,
                                     const std::string& needle) {
  std::pair<double, ScoreExplain> best{-1, {}};
  for (const SearchHit& h : hits) {
    if (h.item.content.find(needle) != std::string::npos && h.score > best.first) {
      best = {h.score, h.explain};
    }
  }
  return best;
}

TEST_F(GraphScenarioTest, TheGraphChannelReachesWhatARelationLinksToTheNamedEntity) {
  Say("My wife Anna works at Google.");
  Say("My brother Tom works at Google.");
  Say("The weather was nice on my walk today.");
  SearchQuery q;
  q.text = "How is Anna doing?";
  q.explain = true;
  q.k = 20;
  auto on = engine_->Search(alice_, q);
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  // Tom is not named in the query; Anna's employer links him to her.
  const auto [tom_score, tom] = Best(*on, "Tom");
  ASSERT_GE(tom_score, 0) << "Tom's memory was not found";
  EXPECT_GT(tom.graph, 0);
  EXPECT_GE(tom.graph_hops, 1);
  EXPECT_TRUE(tom.graph_via == "Google" || tom.graph_via == "Tom") << tom.graph_via;
  const auto [anna_score, anna] = Best(*on, "Anna");
  EXPECT_GT(anna.graph, 0);
  EXPECT_EQ(anna.graph_hops, 0);  // names the entity asked about
  EXPECT_EQ(Best(*on, "weather").second.graph, 0);

  q.graph = false;
  auto off = engine_->Search(alice_, q);
  ASSERT_TRUE(off.ok());
  const auto [tom_off, tom_off_explain] = Best(*off, "Tom");
  EXPECT_EQ(tom_off_explain.graph, 0);
  EXPECT_EQ(tom_off_explain.graph_rank, 0);
  EXPECT_LT(tom_off, tom_score);  // -1 when not found at all
}

TEST_F(GraphScenarioTest, TheGraphChannelFollowsOnlyRelationsThatStillHold) {
  Say("My wife Anna works at Google.");
  Say("My brother Tom works at Google.");
  SearchQuery q;
  q.text = "How is Anna doing?";
  q.explain = true;
  q.k = 20;
  auto before = engine_->Search(alice_, q);  // loads the graph into the scope's index
  ASSERT_TRUE(before.ok());
  EXPECT_GT(Best(*before, "Tom").second.graph, 0);
  clock_.Advance(kDay);
  Say("My wife started at Figma.");  // Anna left Google: the link to Tom ends
  auto after = engine_->Search(alice_, q);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(Best(*after, "Tom").second.graph, 0);
  EXPECT_GT(Best(*after, "Figma").second.graph, 0);
}

TEST_F(GraphScenarioTest, TheGraphChannelNeverReachesAnotherUsersGraph) {
  const Scope bob{"default", "bob", "", ""};
  Say("My wife Anna works at Google.", bob);
  Say("My brother Tom works at Google.", bob);
  Say("My friend Anna likes tennis.");
  SearchQuery q;
  q.text = "How is Anna doing?";
  q.explain = true;
  q.k = 20;
  auto hits = engine_->Search(alice_, q);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  for (const SearchHit& h : *hits) {
    EXPECT_EQ(h.item.scope.user_id, "alice");
    EXPECT_NE(h.explain.graph_via, "Google");
  }
}

TEST_F(GraphScenarioTest, GraphSettingsOutOfRangeAreRefused) {
  SearchQuery q;
  q.text = "Anna";
  q.graph_hops = 4;
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
  q.graph_hops = 2;
  q.graph_max_nodes = 0;
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
  q.graph_max_nodes = 100;
  q.graph_weight = 1.5;
  EXPECT_EQ(engine_->Search(alice_, q).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
