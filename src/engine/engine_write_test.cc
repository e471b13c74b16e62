// The write path's engine primitives: ApplyWrite's four decisions, their history rows and
// index updates, FindNeighbours, slots and as_of reads.
#include <gtest/gtest.h>

#include "engram/engine.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'700'000'000'000;
constexpr TimestampMs kDay = 86'400'000;

NewMemory Fact(std::string content, std::string slot = "") {
  NewMemory m;
  m.content = std::move(content);
  m.slot = std::move(slot);
  return m;
}

class EngineWriteTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = testing::OpenEngine(dir_.File("w.db"), &clock_); }

  WriteOutcome Apply(WriteDecision d, NewMemory m, std::string target = "",
                     std::string reason = "test") {
    PlannedWrite w{d, std::move(m), std::move(target), std::move(reason)};
    auto out = engine_->ApplyWrite(alice_, w);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : WriteOutcome{};
  }
  std::vector<std::string> Search(const std::string& text, SearchFilters f = {}) {
    SearchQuery q;
    q.text = text;
    q.filters = std::move(f);
    q.record_access = false;
    auto hits = engine_->Search(alice_, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> out;
    if (hits.ok()) {
      for (const SearchHit& h : *hits) out.push_back(h.item.content);
    }
    return out;
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(EngineWriteTest, SupersedeClosesTheOldItemAndLinksBoth) {
  WriteOutcome beijing = Apply(WriteDecision::kAdd, Fact("lives in Beijing", "user/location"));
  ASSERT_FALSE(beijing.memory.id.empty());
  EXPECT_EQ(beijing.memory.slot, "user/location");
  clock_.Advance(10 * kDay);
  WriteOutcome shanghai =
      Apply(WriteDecision::kSupersede, Fact("lives in Shanghai", "user/location"),
            beijing.memory.id, "same slot user/location, new value");
  EXPECT_EQ(shanghai.memory.supersedes, beijing.memory.id);
  EXPECT_EQ(shanghai.replaced.id, beijing.memory.id);
  EXPECT_EQ(shanghai.replaced.status, ItemStatus::kSuperseded);
  EXPECT_EQ(shanghai.replaced.superseded_by, shanghai.memory.id);
  EXPECT_EQ(shanghai.replaced.valid_to, kT0 + 10 * kDay);

  auto old = engine_->Get(alice_, beijing.memory.id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kSuperseded);
  auto history = engine_->History(alice_, beijing.memory.id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].event, HistoryEvent::kSupersede);
  EXPECT_EQ((*history)[1].reason, "same slot user/location, new value");
  EXPECT_EQ((*engine_->History(alice_, shanghai.memory.id))[0].event, HistoryEvent::kAdd);

  // Search returns only the current fact by default; as_of returns what held back then.
  EXPECT_EQ(Search("lives"), std::vector<std::string>{"lives in Shanghai"});
  SearchFilters then;
  then.as_of = kT0 + 5 * kDay;
  EXPECT_EQ(Search("lives", then), std::vector<std::string>{"lives in Beijing"});
  SearchFilters now;
  now.as_of = kT0 + 10 * kDay;  // valid_to is exclusive: the new fact holds from this instant
  EXPECT_EQ(Search("lives", now), std::vector<std::string>{"lives in Shanghai"});
  SearchFilters before;
  before.as_of = kT0 - 1;
  EXPECT_TRUE(Search("lives", before).empty());

  ListQuery lq;
  lq.as_of = kT0 + 5 * kDay;
  auto page = engine_->List(alice_, lq);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 1u);
  EXPECT_EQ(page->items[0].content, "lives in Beijing");
}

TEST_F(EngineWriteTest, SupersedingAClosedItemIsAConflictAndWritesNothing) {
  WriteOutcome a = Apply(WriteDecision::kAdd, Fact("works at Acme", "user/employer"));
  Apply(WriteDecision::kSupersede, Fact("works at Initech", "user/employer"), a.memory.id);
  PlannedWrite again{WriteDecision::kSupersede, Fact("works at Globex", "user/employer"),
                     a.memory.id, "stale target"};
  auto out = engine_->ApplyWrite(alice_, again);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kConflict);
  // The new item of the failed write was rolled back with it.
  ListQuery all;
  all.statuses = {};
  auto page = engine_->List(alice_, all);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->items.size(), 2u);
}

TEST_F(EngineWriteTest, UpdateMergesIntoTheTargetAndReembedsIt) {
  NewMemory first = Fact("has a dog", "user/pet:dog");
  first.entities = {"dog"};
  WriteOutcome a = Apply(WriteDecision::kAdd, first);
  NewMemory richer = Fact("has a golden retriever dog named Max", "user/pet:dog");
  richer.entities = {"Max"};
  richer.importance = 0.8;
  richer.source.message_ids = {"m2"};
  WriteOutcome u = Apply(WriteDecision::kUpdate, richer, a.memory.id, "same fact, more detail");
  EXPECT_EQ(u.memory.id, a.memory.id);
  EXPECT_EQ(u.memory.content, "has a golden retriever dog named Max");
  EXPECT_EQ(u.memory.entities, (std::vector<std::string>{"dog", "Max"}));
  EXPECT_DOUBLE_EQ(u.memory.importance, 0.8);
  EXPECT_EQ(u.memory.source.message_ids, std::vector<std::string>{"m2"});
  auto history = engine_->History(alice_, a.memory.id);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].event, HistoryEvent::kUpdate);
  EXPECT_EQ((*history)[1].old_content, "has a dog");
  // The index serves the merged text.
  EXPECT_EQ(Search("golden retriever"), std::vector<std::string>{u.memory.content});
}

TEST_F(EngineWriteTest, NoopReinforcesAndRecordsTheDecision) {
  WriteOutcome a = Apply(WriteDecision::kAdd, Fact("likes green tea", "user/likes:green tea"));
  clock_.Advance(1000);
  WriteOutcome n = Apply(WriteDecision::kNoop, {}, a.memory.id, "said again");
  EXPECT_EQ(n.memory.id, a.memory.id);
  EXPECT_DOUBLE_EQ(n.memory.importance, 0.55);
  EXPECT_EQ(n.memory.access_count, 1);
  EXPECT_EQ(n.memory.last_accessed, kT0 + 1000);
  EXPECT_EQ(n.memory.content, "likes green tea");
  auto history = engine_->History(alice_, a.memory.id);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].reason, "NOOP: said again");
}

TEST_F(EngineWriteTest, TargetsOfAnotherScopeAreNotFound) {
  WriteOutcome a = Apply(WriteDecision::kAdd, Fact("lives in Paris", "user/location"));
  Scope bob{"default", "bob", "", ""};
  PlannedWrite w{WriteDecision::kSupersede, Fact("lives in Rome", "user/location"), a.memory.id,
                 "cross-scope"};
  auto out = engine_->ApplyWrite(bob, w);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(engine_->Get(alice_, a.memory.id)->status, ItemStatus::kActive);
  Scope other_tenant{"t2", "alice", "", ""};
  EXPECT_EQ(
      engine_->ApplyWrite(other_tenant, PlannedWrite{WriteDecision::kNoop, {}, a.memory.id, "x"})
          .status()
          .code(),
      StatusCode::kNotFound);
}

// Said in one conversation, corrected in the next: the write in session s2 supersedes and
// restates memories of session s1 (neighbours are found across the user's sessions).
TEST_F(EngineWriteTest, AWriteInOneSessionChangesMemoriesOfAnother) {
  Scope s1 = alice_, s2 = alice_;
  s1.session_id = "s1";
  s2.session_id = "s2";
  auto a = engine_->ApplyWrite(
      s1, PlannedWrite{WriteDecision::kAdd, Fact("lives in Paris", "user/location"), "", "new"});
  auto tea = engine_->ApplyWrite(
      s1, PlannedWrite{WriteDecision::kAdd, Fact("likes green tea"), "", "new"});
  ASSERT_TRUE(a.ok() && tea.ok());
  auto moved = engine_->ApplyWrite(
      s2, PlannedWrite{WriteDecision::kSupersede, Fact("lives in Rome", "user/location"),
                       a->memory.id, "moved"});
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->memory.scope.session_id, "s2");
  EXPECT_EQ(engine_->Get(alice_, a->memory.id)->status, ItemStatus::kSuperseded);
  auto again =
      engine_->ApplyWrite(s2, PlannedWrite{WriteDecision::kNoop, {}, tea->memory.id, "said again"});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(engine_->Get(alice_, tea->memory.id)->access_count, 1);
}

TEST_F(EngineWriteTest, NeighboursAreSameSlotItemsAndNearestActiveItems) {
  Apply(WriteDecision::kAdd, Fact("lives in Beijing", "user/location"));
  Apply(WriteDecision::kAdd, Fact("is allergic to peanuts", "user/allergy:peanuts"));
  Apply(WriteDecision::kAdd, Fact("enjoys hiking in the mountains"));
  Scope bob{"default", "bob", "", ""};
  ASSERT_TRUE(engine_->Add(bob, Fact("lives in Shanghai", "user/location")).ok());

  auto n = engine_->FindNeighbours(alice_, "lives in Shanghai", "user/location", 2);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ASSERT_FALSE(n->empty());
  EXPECT_EQ((*n)[0].item.content, "lives in Beijing");
  EXPECT_TRUE((*n)[0].same_slot);
  EXPECT_GT((*n)[0].similarity, 0.2);
  for (const Neighbour& x : *n) {
    EXPECT_EQ(x.item.scope.user_id, "alice");  // never another scope's item
    EXPECT_EQ(x.item.status, ItemStatus::kActive);
    if (x.item.content != "lives in Beijing") EXPECT_FALSE(x.same_slot);
  }
  // Identical text has similarity ~1.
  auto same = engine_->FindNeighbours(alice_, "enjoys hiking in the mountains", "", 1);
  ASSERT_TRUE(same.ok());
  ASSERT_EQ(same->size(), 1u);
  EXPECT_NEAR((*same)[0].similarity, 1.0, 1e-5);
}

TEST_F(EngineWriteTest, SlotSurvivesReopenAndFiltersLists) {
  WriteOutcome a = Apply(WriteDecision::kAdd, Fact("works as a nurse", "user/job"));
  Apply(WriteDecision::kAdd, Fact("went to the beach"));
  engine_.reset();
  engine_ = testing::OpenEngine(dir_.File("w.db"), &clock_);
  auto item = engine_->Get(alice_, a.memory.id);
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(item->slot, "user/job");
  ListQuery q;
  q.slot = "user/job";
  auto page = engine_->List(alice_, q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 1u);
  EXPECT_EQ(page->items[0].id, a.memory.id);
}

}  // namespace
}  // namespace engram
