// The lifecycle at the engine: expiry in search, retention in ranking, and Engine::Maintain
// (archive, expire, purge; dry runs; incremental runs; the log; the background schedule), on a
// controllable clock set to real dates.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include "engram/engine.h"
#include "engram/llm.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kDay = 86'400'000;
// 2026-03-02T09:00:00Z: a Monday; every date in these tests is in 2026.
constexpr TimestampMs kT0 = 1'772'442'000'000;

class MaintainTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void Open(EngineOptions options = {}) {
    engine_.reset();
    engine_ = testing::OpenEngine(dir_.File("m.db"), &clock_, std::move(options));
    ASSERT_NE(engine_, nullptr);
  }

  MemoryItem Add(std::string content, MemoryType type = MemoryType::kFact, double importance = 0.5,
                 std::vector<std::string> tags = {},
                 std::optional<TimestampMs> expires_at = std::nullopt) {
    NewMemory m;
    m.content = std::move(content);
    m.type = type;
    m.importance = importance;
    m.tags = std::move(tags);
    m.expires_at = expires_at;
    auto item = engine_->Add(alice_, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? *item : MemoryItem{};
  }
  ItemStatus StatusOf(const std::string& id) {
    auto item = engine_->Get(alice_, id);
    if (!item.ok()) {
      EXPECT_EQ(item.status().code(), StatusCode::kNotFound);
      return ItemStatus::kDeleted;  // purged: reported as gone
    }
    return item->status;
  }
  bool Exists(const std::string& id) { return engine_->Get(alice_, id).ok(); }
  std::vector<std::string> Search(const std::string& text, bool include_expired = false,
                                  bool record = false, int k = 10) {
    SearchQuery q;
    q.text = text;
    q.k = k;
    q.record_access = record;
    q.filters.include_expired = include_expired;
    auto hits = engine_->Search(alice_, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> ids;
    if (hits.ok()) {
      for (const SearchHit& h : *hits) ids.push_back(h.item.id);
    }
    return ids;
  }
  MaintenanceReport Maintain(bool dry_run = false, bool full = false) {
    MaintenanceRequest r;
    r.dry_run = dry_run;
    r.full = full;
    auto report = engine_->Maintain(r);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : MaintenanceReport{};
  }
  static bool Contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(MaintainTest, ExpiredItemsLeaveSearchAtOnceAndMaintenanceArchivesThem) {
  const MemoryItem tonight =
      Add("wants Sichuan food tonight", MemoryType::kPreference, 0.5, {}, kT0 + kDay / 2);
  const MemoryItem lasting = Add("likes Sichuan food", MemoryType::kPreference);
  EXPECT_TRUE(Contains(Search("Sichuan food"), tonight.id));
  clock_.Set(kT0 + kDay / 2);  // the moment it expires
  std::vector<std::string> hits = Search("Sichuan food");
  EXPECT_FALSE(Contains(hits, tonight.id));
  EXPECT_TRUE(Contains(hits, lasting.id));
  EXPECT_TRUE(Contains(Search("Sichuan food", /*include_expired=*/true), tonight.id));
  // Still active until maintenance runs; then archived with the reason in its history.
  EXPECT_EQ(StatusOf(tonight.id), ItemStatus::kActive);
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.expired, 1);
  EXPECT_EQ(report.archived, 0);
  EXPECT_EQ(StatusOf(tonight.id), ItemStatus::kArchived);
  EXPECT_EQ(StatusOf(lasting.id), ItemStatus::kActive);
  // The loaded index knows it is archived: gone from search, expired or not.
  EXPECT_FALSE(Contains(Search("Sichuan food", /*include_expired=*/true), tonight.id));
  EXPECT_TRUE(Contains(Search("Sichuan food", /*include_expired=*/true), lasting.id));
  auto history = engine_->History(alice_, tonight.id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ(history->back().event, HistoryEvent::kUpdate);
  EXPECT_NE(history->back().reason.find("expired at 2026-03-02T21:00:00.000Z"), std::string::npos)
      << history->back().reason;
  ASSERT_EQ(report.actions.size(), 1u);
  EXPECT_EQ(report.actions[0].item_id, tonight.id);
  EXPECT_EQ(report.actions[0].action, MaintenanceAction::kExpire);
  // Its own change needs no second look: the next run reads nothing.
  EXPECT_EQ(Maintain().examined, 0);
}

TEST_F(MaintainTest, ExpiresAtIsValidatedAndPatchable) {
  NewMemory m = testing::Text("a meeting");
  m.expires_at = kT0 - kDay;  // before it was created
  EXPECT_EQ(engine_->Add(alice_, m).status().code(), StatusCode::kInvalidArgument);
  const MemoryItem item = Add("in Tokyo this week", MemoryType::kEvent, 0.5, {}, kT0 + 5 * kDay);
  MemoryPatch never;
  never.clear_expires_at = true;
  auto cleared = engine_->Update(alice_, item.id, never);
  ASSERT_TRUE(cleared.ok());
  EXPECT_FALSE(cleared->expires_at.has_value());
  MemoryPatch soon;
  soon.expires_at = kT0 + 2 * kDay;
  auto set = engine_->Update(alice_, item.id, soon);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->expires_at, kT0 + 2 * kDay);
  MemoryPatch both;
  both.expires_at = kT0 + kDay;
  both.clear_expires_at = true;
  EXPECT_EQ(engine_->Update(alice_, item.id, both).status().code(), StatusCode::kInvalidArgument);
  // Survives a reopen (stored, not only cached).
  Open();
  EXPECT_EQ(engine_->Get(alice_, item.id)->expires_at, kT0 + 2 * kDay);
}

TEST_F(MaintainTest, RetentionIsASoftBiasInRankingShownInExplain) {
  const MemoryItem old_turn =
      Add("we talked about the hiking trip to Huangshan", MemoryType::kMessage);
  clock_.Advance(120 * kDay);
  const MemoryItem recent =
      Add("we talked about the hiking trip to Huangshan again", MemoryType::kMessage);
  SearchQuery q;
  q.text = "hiking trip Huangshan";
  q.explain = true;
  q.record_access = false;
  auto hits = engine_->Search(alice_, q);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);  // a bias, never a filter: the faded turn is still found
  EXPECT_EQ((*hits)[0].item.id, recent.id);
  const ScoreExplain& faded = (*hits)[1].explain;
  EXPECT_EQ((*hits)[1].item.id, old_turn.id);
  EXPECT_NEAR(faded.retention, 0.75 * std::pow(0.5, 4.0), 1e-6);  // 120 days, half-life 30
  EXPECT_GE(faded.retention_factor, 0.9);
  EXPECT_LT(faded.retention_factor, 1.0);
  EXPECT_NEAR((*hits)[0].explain.retention, 0.75, 1e-6);
}

TEST_F(MaintainTest, FadedItemsAreArchivedThenPurgedAfterTheGraceCriticalOnesNever) {
  const MemoryItem chat = Add("the weather was nice on the walk", MemoryType::kMessage, 0.3);
  const MemoryItem allergy =
      Add("allergic to peanuts", MemoryType::kFact, 0.5, {std::string(kCriticalTag)});
  const MemoryItem vip = Add("has type 1 diabetes", MemoryType::kFact, 0.95);
  const MemoryItem job = Add("works as a nurse", MemoryType::kFact, 0.6);
  EXPECT_EQ(Maintain().examined, 4);  // the first run looks at everything
  // strength 0.65, half-life 30 days: below 0.05 after 30·log2(13) ≈ 111 days.
  clock_.Set(kT0 + 110 * kDay);
  EXPECT_EQ(Maintain().archived, 0);
  EXPECT_EQ(StatusOf(chat.id), ItemStatus::kActive);
  clock_.Set(kT0 + 112 * kDay);
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.archived, 1);
  EXPECT_EQ(report.examined, 1);  // incremental: only the item that became due
  EXPECT_EQ(StatusOf(chat.id), ItemStatus::kArchived);
  ASSERT_EQ(report.actions.size(), 1u);
  EXPECT_NE(report.actions[0].reason.find("retention 0.0"), std::string::npos)
      << report.actions[0].reason;
  EXPECT_NE(report.actions[0].reason.find("message, half-life 30 days"), std::string::npos)
      << report.actions[0].reason;
  EXPECT_TRUE(Search("weather walk").empty());  // archived items leave search
  // The grace (90 days by default) runs from the archiving.
  clock_.Set(kT0 + 112 * kDay + 89 * kDay);
  EXPECT_EQ(Maintain().purged, 0);
  EXPECT_TRUE(Exists(chat.id));
  clock_.Set(kT0 + 112 * kDay + 91 * kDay);
  EXPECT_EQ(Maintain().purged, 1);
  EXPECT_FALSE(Exists(chat.id));
  // Years later the critical facts are still active; the ordinary fact faded and went.
  clock_.Set(kT0 + 20 * 365 * kDay);
  Maintain();
  clock_.Advance(100 * kDay);
  Maintain();
  EXPECT_EQ(StatusOf(allergy.id), ItemStatus::kActive);
  EXPECT_EQ(StatusOf(vip.id), ItemStatus::kActive);
  EXPECT_FALSE(Exists(job.id));
  // The log keeps every action with its reason, the purged items' included.
  auto log = engine_->MaintenanceLog(alice_);
  ASSERT_TRUE(log.ok());
  std::vector<std::pair<std::string, MaintenanceAction>> seen;
  for (const MaintenanceLogEntry& e : *log) seen.emplace_back(e.item_id, e.action);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, MaintenanceAction>>{
                      {chat.id, MaintenanceAction::kArchive},
                      {chat.id, MaintenanceAction::kPurge},
                      {job.id, MaintenanceAction::kArchive},
                      {job.id, MaintenanceAction::kPurge}}));
  EXPECT_EQ(log->front().at, kT0 + 112 * kDay);
}

TEST_F(MaintainTest, UseKeepsAnItemAlive) {
  const MemoryItem used = Add("plays the violin on Sundays", MemoryType::kMessage, 0.3);
  const MemoryItem unused = Add("plays chess with a neighbour", MemoryType::kMessage, 0.3);
  Maintain();
  // Searched every two weeks: each hit is a use, and uses lengthen the half-life.
  for (int day = 14; day <= 182; day += 14) {
    clock_.Set(kT0 + day * kDay);
    ASSERT_EQ(Search("violin", false, /*record=*/true, /*k=*/1), std::vector<std::string>{used.id});
    Maintain();
  }
  EXPECT_EQ(StatusOf(used.id), ItemStatus::kActive);
  EXPECT_EQ(StatusOf(unused.id), ItemStatus::kArchived);
  auto item = engine_->Get(alice_, used.id);
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(item->access_count, 13);
}

TEST_F(MaintainTest, DryRunReportsTheSameDecisionsAndChangesNothing) {
  const MemoryItem a = Add("said hello", MemoryType::kMessage, 0.0);
  const MemoryItem b =
      Add("going to the cinema tonight", MemoryType::kEvent, 0.5, {}, kT0 + kDay / 2);
  clock_.Set(kT0 + 200 * kDay);
  MaintenanceReport dry = Maintain(/*dry_run=*/true);
  EXPECT_TRUE(dry.dry_run);
  EXPECT_EQ(dry.archived, 1);
  EXPECT_EQ(dry.expired, 1);
  ASSERT_EQ(dry.users.size(), 1u);
  EXPECT_EQ(dry.users[0].user_id, "alice");
  EXPECT_EQ(StatusOf(a.id), ItemStatus::kActive);
  EXPECT_EQ(StatusOf(b.id), ItemStatus::kActive);
  EXPECT_TRUE(engine_->MaintenanceLog(alice_)->empty());
  EXPECT_EQ(engine_->History(alice_, a.id)->size(), 1u);
  // The real run decides the same.
  MaintenanceReport real = Maintain();
  EXPECT_EQ(real.archived, dry.archived);
  EXPECT_EQ(real.expired, dry.expired);
  EXPECT_EQ(StatusOf(a.id), ItemStatus::kArchived);
}

TEST_F(MaintainTest, IncrementalRunsReadOnlyWhatIsDueOrChanged) {
  for (int i = 0; i < 50; ++i) Add("fact number " + std::to_string(i));
  EXPECT_EQ(Maintain().examined, 50);
  EXPECT_EQ(Maintain().examined, 0);  // nothing changed, nothing due
  const MemoryItem fresh = Add("a new fact");
  MemoryPatch p;
  p.importance = 0.7;
  ASSERT_TRUE(engine_->Update(alice_, fresh.id, p).ok());
  EXPECT_EQ(Maintain().examined, 1);
  EXPECT_EQ(Maintain(false, /*full=*/true).examined, 51);
  // Searching (a use) is not a change that needs a look: it only postpones the review.
  Search("fact number", false, /*record=*/true);
  EXPECT_EQ(Maintain().examined, 0);
}

TEST_F(MaintainTest, RunsAreScopedAndPurgeByTheUserRemovesTheLog) {
  Scope bob{"default", "bob", "", ""};
  NewMemory m = testing::Text("bob said hi");
  m.type = MemoryType::kMessage;
  m.importance = 0.0;
  ASSERT_TRUE(engine_->Add(bob, m).ok());
  const MemoryItem a = Add("alice said hi", MemoryType::kMessage, 0.0);
  clock_.Set(kT0 + 200 * kDay);
  MaintenanceRequest only_alice;
  only_alice.tenant = "default";
  only_alice.user_id = "alice";
  auto report = engine_->Maintain(only_alice);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->archived, 1);
  ASSERT_EQ(report->users.size(), 1u);
  EXPECT_EQ(report->users[0].user_id, "alice");
  EXPECT_EQ(engine_->List(bob, {})->items.size(), 1u);  // bob's stays active
  MaintenanceRequest no_tenant;
  no_tenant.user_id = "alice";
  EXPECT_EQ(engine_->Maintain(no_tenant).status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(engine_->MaintenanceLog(alice_)->size(), 1u);
  EXPECT_TRUE(engine_->MaintenanceLog(bob)->empty());
  ASSERT_TRUE(engine_->Purge(alice_, a.id).ok());
  // A hard delete takes maintenance's rows about the memory; the fact of the deletion stays.
  auto after = engine_->MaintenanceLog(alice_);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].item_id, a.id);
  EXPECT_EQ((*after)[0].action, MaintenanceAction::kPurge);
  EXPECT_EQ((*after)[0].reason, "hard delete asked for");
}

TEST_F(MaintainTest, NearDuplicatesMergeIntoTheOlderKeepingEverySource) {
  NewMemory first = testing::Text("User is allergic to peanuts");
  first.source.message_ids = {"msg-1"};
  first.entities = {"peanuts"};
  first.importance = 0.6;
  auto older = engine_->Add(alice_, first);
  ASSERT_TRUE(older.ok());
  clock_.Advance(kDay);
  NewMemory again = testing::Text("User is allergic to peanuts.");
  again.source.message_ids = {"msg-2"};
  again.tags = {"health"};
  again.importance = 0.8;
  auto newer = engine_->Add(alice_, again);
  ASSERT_TRUE(newer.ok());
  const MemoryItem other = Add("User is allergic to shellfish");  // similar, not the same
  const MemoryItem pref = Add("User is allergic to peanuts", MemoryType::kPreference);  // type

  MaintenanceReport dry = Maintain(/*dry_run=*/true);
  EXPECT_EQ(dry.merged, 1);
  EXPECT_EQ(StatusOf(newer->id), ItemStatus::kActive);

  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.merged, 1);
  ASSERT_EQ(report.users.size(), 1u);
  EXPECT_EQ(report.users[0].merged, 1);
  auto kept = engine_->Get(alice_, older->id);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->status, ItemStatus::kActive);
  EXPECT_EQ(kept->source.message_ids, (std::vector<std::string>{"msg-1", "msg-2"}));
  EXPECT_EQ(kept->tags, std::vector<std::string>{"health"});
  EXPECT_DOUBLE_EQ(kept->importance, 0.8);
  auto gone = engine_->Get(alice_, newer->id);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, ItemStatus::kArchived);
  EXPECT_EQ(gone->superseded_by, older->id);
  EXPECT_EQ(engine_->History(alice_, older->id)->back().event, HistoryEvent::kMerge);
  EXPECT_EQ(engine_->History(alice_, newer->id)->back().event, HistoryEvent::kMerge);
  EXPECT_EQ(StatusOf(other.id), ItemStatus::kActive);
  EXPECT_EQ(StatusOf(pref.id), ItemStatus::kActive);
  std::vector<std::string> hits = Search("allergic to peanuts");
  EXPECT_TRUE(Contains(hits, older->id));
  EXPECT_FALSE(Contains(hits, newer->id));
  EXPECT_EQ(engine_->MaintenanceLog(alice_)->back().action, MaintenanceAction::kMerge);
  // Nothing left to merge; and with merging off nothing merges.
  EXPECT_EQ(Maintain(false, /*full=*/true).merged, 0);
  EngineOptions off;
  off.maintenance.merge_above = 0;
  Open(off);
  Add("User is allergic to shellfish.");
  EXPECT_EQ(Maintain(false, true).merged, 0);
}

TEST_F(MaintainTest, FadedTurnsOfASessionBecomeOneSummaryTheyStayBehind) {
  Scope session = alice_;
  session.session_id = "walk-chat";
  std::vector<std::string> turns;
  for (const char* said : {"The weather was lovely on my walk", "I saw a heron by the river",
                           "The cafe by the bridge has reopened"}) {
    NewMemory m = testing::Text(said);
    m.type = MemoryType::kMessage;
    m.tier = Tier::kEpisodic;
    m.importance = 0.3;
    m.source.extractor = std::string(kTurnExtractor);
    m.source.message_ids = {std::string("msg-") + std::to_string(turns.size())};
    auto item = engine_->Add(session, m);
    ASSERT_TRUE(item.ok()) << item.status().ToString();
    turns.push_back(item->id);
    clock_.Advance(60'000);
  }
  NewMemory alone = testing::Text("I had a long day");  // no session, another day: alone
  alone.type = MemoryType::kMessage;
  alone.importance = 0.3;
  alone.source.extractor = std::string(kTurnExtractor);
  clock_.Advance(2 * kDay);
  auto single = engine_->Add(alice_, alone);
  ASSERT_TRUE(single.ok());
  Maintain();
  clock_.Set(kT0 + 130 * kDay);
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.summaries, 1);
  EXPECT_EQ(report.summarized, 3);
  EXPECT_EQ(report.archived, 4);  // the three summarized, and the lone turn
  ListQuery q;
  q.types = {MemoryType::kSummary};
  auto summaries = engine_->List(alice_, q);
  ASSERT_TRUE(summaries.ok());
  ASSERT_EQ(summaries->items.size(), 1u);
  const MemoryItem& summary = summaries->items[0];
  EXPECT_EQ(summary.content,
            "Conversation on 2026-03-02 (3 turns): The weather was lovely on my walk / I saw a "
            "heron by the river / The cafe by the bridge has reopened");
  EXPECT_EQ(summary.source.turn_ids, turns);
  EXPECT_EQ(summary.source.message_ids, (std::vector<std::string>{"msg-0", "msg-1", "msg-2"}));
  EXPECT_EQ(summary.scope.session_id, "walk-chat");
  EXPECT_EQ(summary.created_at, kT0);
  EXPECT_EQ(summary.tier, Tier::kEpisodic);
  for (const std::string& id : turns) {
    auto turn = engine_->Get(alice_, id);
    ASSERT_TRUE(turn.ok());
    EXPECT_EQ(turn->status, ItemStatus::kArchived);
    EXPECT_EQ(turn->superseded_by, summary.id);
  }
  EXPECT_TRUE(Contains(Search("heron river"), summary.id));  // found by what the turns said
  // Years on: the lone turn is purged after its grace; the summarized ones stay, archived.
  clock_.Set(kT0 + 400 * kDay);
  Maintain();
  EXPECT_FALSE(Exists(single->id));
  for (const std::string& id : turns) EXPECT_EQ(StatusOf(id), ItemStatus::kArchived);
  EXPECT_EQ(StatusOf(summary.id), ItemStatus::kActive);
}

// Replays scripted chat replies (the provider's answers), one per call.
class ScriptedLlm : public LlmClient {
 public:
  explicit ScriptedLlm(std::vector<ChatReply> replies) : replies_(std::move(replies)) {}
  const std::string& model() const override { return model_; }
  Result<ChatReply> Chat(const ChatRequest& request) override {
    requests.push_back(request);
    if (calls_ >= replies_.size()) return Status::Unavailable("no more scripted replies");
    return replies_[calls_++];
  }
  std::vector<ChatRequest> requests;

 private:
  std::string model_ = "fake-summarizer";
  std::vector<ChatReply> replies_;
  size_t calls_ = 0;
};

TEST_F(MaintainTest, AnLlmWritesSummariesAndAnUnusableReplyChangesNothing) {
  auto llm = std::make_shared<ScriptedLlm>(std::vector<ChatReply>{
      {"not json at all", "stop"},
      {R"({"summary": "The user walked by the rive)", "length"},  // cut off
      {R"({"summary": "   "})", "stop"},
      {R"({"summary": "用户散步时看到了苍鹭，桥边的咖啡馆重新开了。"})", "stop"}});
  EngineOptions options;
  options.summarizer = llm;
  Open(options);
  Scope session = alice_;
  session.session_id = "s1";
  std::vector<std::string> turns;
  for (const char* said : {"今天散步看到一只苍鹭", "桥边的咖啡馆重新开了"}) {
    NewMemory m = testing::Text(said);
    m.type = MemoryType::kMessage;
    m.importance = 0.3;
    m.source.extractor = std::string(kTurnExtractor);
    m.source.role = "user";
    auto item = engine_->Add(session, m);
    ASSERT_TRUE(item.ok());
    turns.push_back(item->id);
  }
  Maintain();
  ListQuery summaries;
  summaries.types = {MemoryType::kSummary};
  clock_.Set(kT0 + 129 * kDay);
  EXPECT_EQ(Maintain(/*dry_run=*/true).summaries, 1);  // a preview asks no model
  EXPECT_TRUE(llm->requests.empty());
  // Three unusable replies, one per run: nothing written, the turns stay active and due.
  for (int run = 0; run < 3; ++run) {
    clock_.Set(kT0 + (130 + run) * kDay);
    MaintenanceReport report = Maintain();
    EXPECT_EQ(report.summaries, 0) << run;
    ASSERT_EQ(report.problems.size(), 1u) << run;
    EXPECT_NE(report.problems[0].find("unusable"), std::string::npos) << report.problems[0];
    for (const std::string& id : turns) EXPECT_EQ(StatusOf(id), ItemStatus::kActive) << run;
    EXPECT_TRUE(engine_->List(alice_, summaries)->items.empty());
    EXPECT_EQ(engine_->History(alice_, turns[0])->size(), 1u);  // no row written
  }
  clock_.Set(kT0 + 140 * kDay);
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.summaries, 1);
  EXPECT_TRUE(report.problems.empty());
  auto written = engine_->List(alice_, summaries);
  ASSERT_EQ(written->items.size(), 1u);
  EXPECT_EQ(written->items[0].content,
            "2026-03-02的对话（2条）：用户散步时看到了苍鹭，桥边的咖啡馆重新开了。");
  EXPECT_EQ(written->items[0].source.extractor, "llm:fake-summarizer");
  EXPECT_EQ(written->items[0].source.prompt_version, "summarize-v1");
  for (const std::string& id : turns) EXPECT_EQ(StatusOf(id), ItemStatus::kArchived);
  // The model saw the turns with their dates, and no id.
  ASSERT_EQ(llm->requests.size(), 4u);
  const std::string& asked = llm->requests.back().messages.back().content;
  EXPECT_NE(asked.find("[2026-03-02T09:00] user: 今天散步看到一只苍鹭"), std::string::npos)
      << asked;
  EXPECT_EQ(asked.find(turns[0]), std::string::npos);
}

// Answers each chat request with what `reply` makes of it (so a reply can cite the ids it saw).
class RepliesBy : public LlmClient {
 public:
  explicit RepliesBy(std::function<ChatReply(const std::string& asked)> reply)
      : reply_(std::move(reply)) {}
  const std::string& model() const override { return model_; }
  Result<ChatReply> Chat(const ChatRequest& request) override {
    asked.push_back(request.messages.back().content);
    return reply_(asked.back());
  }
  std::vector<std::string> asked;

 private:
  std::string model_ = "fake-profiler";
  std::function<ChatReply(const std::string&)> reply_;
};

TEST_F(MaintainTest, TheProfileSummaryFollowsItsLinesAndABadReplyKeepsTheOneBefore) {
  std::string next;  // the reply the model gives next
  auto llm = std::make_shared<RepliesBy>([&](const std::string&) {
    return ChatReply{next, next.find("cut") != std::string::npos ? "length" : "stop"};
  });
  EngineOptions options;
  options.summarizer = llm;
  Open(options);
  auto add_slot = [&](std::string content, std::string slot, double importance) {
    NewMemory m = testing::Text(std::move(content));
    m.slot = std::move(slot);
    m.importance = importance;
    auto item = engine_->Add(alice_, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? *item : MemoryItem{};
  };
  const MemoryItem peanuts = add_slot("User is allergic to peanuts", "user/allergy:peanut", 0.8);
  const MemoryItem acme = add_slot("User works at Acme as a nurse", "user/employer", 0.7);
  next = R"({"summary": "The user is a nurse at Acme with a peanut allergy.", "cites": [")" +
         peanuts.id + R"(", ")" + acme.id + R"("]})";
  clock_.Set(kT0 + kDay);
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.profiles, 1);
  EXPECT_TRUE(report.problems.empty());
  ASSERT_EQ(llm->asked.size(), 1u);
  // The model saw each line with its memory's id and section.
  EXPECT_NE(llm->asked[0].find("[" + peanuts.id + "] health: User is allergic to peanuts"),
            std::string::npos)
      << llm->asked[0];
  auto profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile.ok());
  ASSERT_TRUE(profile->summary.has_value());
  const ProfileSummary first = *profile->summary;
  EXPECT_EQ(first.text, "The user is a nurse at Acme with a peanut allergy.");
  EXPECT_EQ(first.item_ids, (std::vector<std::string>{peanuts.id, acme.id}));
  EXPECT_TRUE(first.current);
  EXPECT_EQ(first.model, "fake-profiler");
  EXPECT_EQ(first.prompt_version, "profile-v1");
  EXPECT_EQ(FormatTimestamp(first.generated_at).substr(0, 10), "2026-03-03");
  EXPECT_NE(ProfileText(*profile, 1000).find("Summary: The user is a nurse"), std::string::npos);
  auto log = engine_->MaintenanceLog(alice_);
  ASSERT_TRUE(log.ok());
  ASSERT_FALSE(log->empty());
  EXPECT_EQ(log->back().item_id, "profile");
  EXPECT_EQ(log->back().action, MaintenanceAction::kProfile);
  EXPECT_NE(log->back().reason.find("no summary yet"), std::string::npos) << log->back().reason;

  // Nothing changed: no request.
  clock_.Set(kT0 + 2 * kDay);
  EXPECT_EQ(Maintain().profiles, 0);
  EXPECT_EQ(llm->asked.size(), 1u);
  // A new line: the summary is still served, marked not current; a dry run asks no model.
  const MemoryItem berlin = add_slot("User lives in Berlin", "user/location", 0.6);
  profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile->summary.has_value());
  EXPECT_FALSE(profile->summary->current);
  EXPECT_EQ(ProfileText(*profile, 1000).find("Summary:"), std::string::npos);
  EXPECT_EQ(Maintain(/*dry_run=*/true).profiles, 1);
  EXPECT_EQ(llm->asked.size(), 1u);
  // Unusable replies, one per run: each reported, none stored; the run after comes back to the
  // user though nothing else changed.
  const std::vector<std::string> bad = {
      "not json at all",
      R"({"summary": "The user is a nurse in Ber)" + std::string(" (cut"),
      R"({"summary": "  ", "cites": [")" + berlin.id + R"("]})",
      R"({"summary": "The user lives in Berlin.", "cites": []})",
      R"({"summary": "The user lives in Berlin.", "cites": ["no-such-memory"]})",
      R"({"summary": "The user lives in Berlin."})",
      ""};
  for (size_t i = 0; i < bad.size(); ++i) {
    next = bad[i];
    clock_.Advance(kDay);
    report = Maintain();
    EXPECT_EQ(report.profiles, 0) << i;
    ASSERT_EQ(report.problems.size(), 1u) << i;
    EXPECT_NE(report.problems[0].find("profile summary reply unusable"), std::string::npos)
        << report.problems[0];
    EXPECT_EQ(llm->asked.size(), 2 + i);
    profile = engine_->GetProfile(alice_);
    ASSERT_TRUE(profile->summary.has_value()) << i;
    EXPECT_EQ(profile->summary->text, first.text) << i;
    EXPECT_EQ(profile->summary->generated_at, first.generated_at) << i;
    EXPECT_FALSE(profile->summary->current) << i;
  }
  next = R"({"summary": "The user, a nurse at Acme living in Berlin, is allergic to peanuts.",)"
         R"( "cites": [")" +
         berlin.id + R"(", ")" + peanuts.id + R"("]})";
  clock_.Advance(kDay);
  report = Maintain();
  EXPECT_EQ(report.profiles, 1);
  EXPECT_TRUE(report.problems.empty());
  profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile->summary.has_value());
  EXPECT_TRUE(profile->summary->current);
  EXPECT_NE(profile->summary->text.find("Berlin"), std::string::npos);
  // Narrowed to an agent, a profile has other lines: no summary of the whole user.
  Scope agent = alice_;
  agent.agent_id = "coach";
  EXPECT_FALSE(engine_->GetProfile(agent)->summary.has_value());
  // A hard delete of any of the user's memories takes the summary with it (it may say what the
  // memory said); the next run writes another.
  ASSERT_TRUE(engine_->Purge(alice_, acme.id).ok());
  profile = engine_->GetProfile(alice_);
  EXPECT_FALSE(profile->summary.has_value());
  clock_.Advance(kDay);
  EXPECT_EQ(Maintain().profiles, 1);
  EXPECT_TRUE(engine_->GetProfile(alice_)->summary->current);
}

TEST_F(MaintainTest, AHotConversationIsPromotedOnceAColdOneIsNot) {
  auto add_in = [&](const std::string& session, const std::string& said, MemoryType type) {
    Scope in = alice_;
    in.session_id = session;
    NewMemory m = testing::Text(said);
    m.type = type;
    if (type == MemoryType::kMessage) {
      m.importance = 0.3;
      m.source.extractor = std::string(kTurnExtractor);
    }
    auto item = engine_->Add(in, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? *item : MemoryItem{};
  };
  for (const char* said : {"we are planning the Kyoto trip", "the Kyoto trip is in April",
                           "I booked the ryokan in Kyoto", "Kyoto temples first",
                           "then Nara for a day", "we fly back from Osaka"}) {
    add_in("trip", said, MemoryType::kMessage);
  }
  const MemoryItem ryokan =
      add_in("trip", "User booked a ryokan in Kyoto for April", MemoryType::kEvent);
  const MemoryItem nara = add_in("trip", "User will visit Nara for a day", MemoryType::kEvent);
  add_in("chores", "the dishwasher is broken", MemoryType::kMessage);
  const MemoryItem repair =
      add_in("chores", "User called a repairman for the dishwasher", MemoryType::kEvent);
  EXPECT_EQ(ryokan.tier, Tier::kEpisodic);
  // The trip is talked about again and again: its memories are read.
  clock_.Advance(kDay);
  for (const char* q : {"Kyoto trip plans", "ryokan booking Kyoto", "Nara day trip Kyoto"}) {
    ASSERT_FALSE(Search(q, false, /*record=*/true).empty());
  }
  MaintenanceReport report = Maintain();
  EXPECT_EQ(report.promoted, 2);
  for (const MemoryItem& before : {ryokan, nara}) {
    auto after = engine_->Get(alice_, before.id);
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->tier, Tier::kSemantic);
    EXPECT_NEAR(after->importance, 0.55, 1e-9);
    const std::string reason = engine_->History(alice_, before.id)->back().reason;
    EXPECT_EQ(reason.rfind("maintenance: promote: from a hot conversation (session trip: heat ", 0),
              0u)
        << reason;
  }
  auto cold = engine_->Get(alice_, repair.id);
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ(cold->tier, Tier::kEpisodic);
  EXPECT_DOUBLE_EQ(cold->importance, 0.5);
  // Distilled once: more reads later promote nothing again.
  for (const char* q : {"Kyoto trip plans", "ryokan booking Kyoto"}) Search(q, false, true);
  MemoryPatch touch;  // a change brings the session back into the next run
  touch.tags = std::vector<std::string>{"travel"};
  ASSERT_TRUE(engine_->Update(alice_, ryokan.id, touch).ok());
  EXPECT_EQ(Maintain().promoted, 0);
  EXPECT_NEAR(engine_->Get(alice_, ryokan.id)->importance, 0.55, 1e-9);
  // Off with 0.
  EngineOptions off;
  off.maintenance.promote_heat = 0;
  Open(off);
  EXPECT_EQ(Maintain(false, /*full=*/true).promoted, 0);
}

TEST_F(MaintainTest, TheBackgroundScheduleRunsMaintenance) {
  EngineOptions options;
  options.maintenance_interval_ms = 20;
  Open(options);
  const MemoryItem tonight =
      Add("dinner with Li Wei tonight", MemoryType::kEvent, 0.5, {}, kT0 + kDay / 2);
  clock_.Set(kT0 + kDay);
  // Real time: the schedule runs every 20 ms; allow up to 10 s on a loaded machine.
  for (int i = 0; i < 1000 && StatusOf(tonight.id) != ItemStatus::kArchived; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(StatusOf(tonight.id), ItemStatus::kArchived);
  engine_.reset();  // stops the schedule cleanly
}

}  // namespace
}  // namespace engram
