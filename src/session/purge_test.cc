// Hard deletes leave nothing behind: a memory purged by id takes the conversation it came from
// (kept turns, session turns in working memory, summaries) unless asked to keep it, and a byte
// scan of every file the engine writes (database, WAL, shared memory, snapshots) finds none of
// its words, normalized forms or vector bytes; the same for a whole user. Markers in zh and en,
// on a clock set to a real date.
#include <gtest/gtest.h>

#include <algorithm>

#include "engram/sessions.h"
#include "testing/test_support.h"
#include "text/normalizer.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'796'000'000'000;  // 2026-11-30

class PurgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("p.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
    writer_ = std::make_unique<MemoryWriter>(
        engine_.get(), WriterOptions{.extractor = std::shared_ptr<Extractor>(MakeRuleExtractor())});
    sessions_ =
        std::make_unique<SessionManager>(engine_.get(), writer_.get(), SessionOptions{}, &clock_);
  }
  // Says `text` in `session` through the write path; returns the memories extracted from it.
  std::vector<MemoryItem> Say(const Scope& session, const std::string& text) {
    auto r = sessions_->Append(session, {Turn{"user", text, 0, ""}}, /*infer=*/true);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<MemoryItem> out;
    if (!r.ok()) return out;
    for (const auto& w : r->remembered.writes) {
      if (!w.turn) out.push_back(w.memory);
    }
    clock_.Advance(60'000);
    return out;
  }
  std::vector<std::string> Texts(const std::vector<std::string>& markers) {
    std::vector<std::string> out;
    for (const std::string& m : markers) {
      out.push_back(m);
      const std::string normalized = NormalizeForMatching(m);
      if (normalized != m) out.push_back(normalized);
    }
    return out;
  }
  std::string VectorBytes(const MemoryItem& m) {
    auto v = engine_->GetVector(alice_, m.id, m.embedding_model);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    if (!v.ok()) return "";
    // 16 floats from the first non-zero one (a needle may not start with zero bytes).
    for (size_t i = 0; i + 16 <= v->size(); ++i) {
      if ((*v)[i] != 0) {
        return std::string(reinterpret_cast<const char*>(v->data() + i), 16 * sizeof(float));
      }
    }
    ADD_FAILURE() << "a vector of zeros";
    return "";
  }
  bool Found(const std::string& query) {
    SearchQuery q;
    q.text = query;
    auto hits = engine_->Search(alice_, q);
    EXPECT_TRUE(hits.ok());
    for (const SearchHit& h : *hits) {
      if (h.item.content.find(query) != std::string::npos) return true;
    }
    return false;
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryWriter> writer_;
  std::unique_ptr<SessionManager> sessions_;
  Scope alice_{"default", "alice", "", ""};
  Scope chat_{"default", "alice", "", "chat-1"};
};

TEST_F(PurgeTest, APurgedMemoryTakesItsConversationAndLeavesNoByteBehind) {
  const std::vector<MemoryItem> en = Say(chat_, "I live in Quetzalburg now.");
  const std::vector<MemoryItem> zh = Say(chat_, "我住在鸢尾镇九四七号。");
  const std::vector<MemoryItem> tea = Say(chat_, "I love jasmine tea.");
  ASSERT_EQ(en.size(), 1u);
  ASSERT_EQ(tea.size(), 1u);
  ASSERT_FALSE(en[0].source.turn_ids.empty());
  auto summary = sessions_->Close(chat_);  // a summary repeating the turns' words
  ASSERT_TRUE(summary.ok() && summary->has_value());
  EXPECT_NE((*summary)->content.find("Quetzalburg"), std::string::npos);
  EXPECT_TRUE(Found("Quetzalburg"));  // the index is loaded and holds it

  const std::vector<std::string> markers = {"Quetzalburg", "in Quetzalburg now"};
  const std::string vector = VectorBytes(en[0]);
  // The scan works: before the purge it finds the words and the vector, all of them held by
  // stored data (so shared, not traces).
  auto before = engine_->FindTraces(Texts(markers), {vector});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->traces, std::vector<std::string>{});
  // Found: both markers (in the memory, the turn, the summary), the vector, and the normalized
  // name ("quetzalburg"), which the entity graph keeps as the place's key (graph_entities.norm).
  EXPECT_EQ(before->shared, 4);
  EXPECT_GE(before->files, 2);

  auto purged = engine_->Purge(alice_, en[0].id, PurgeOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(purged->ids.front(), en[0].id);
  EXPECT_TRUE(std::count(purged->ids.begin(), purged->ids.end(), en[0].source.turn_ids[0]));
  EXPECT_TRUE(std::count(purged->ids.begin(), purged->ids.end(), (*summary)->id));
  EXPECT_EQ(purged->session_turns, 1);
  EXPECT_FALSE(Found("Quetzalburg"));
  // The fact of the deletion stays, dated, without content: one log row per erased id.
  auto log = engine_->MaintenanceLog(alice_);
  ASSERT_TRUE(log.ok());
  std::vector<std::string> logged;
  for (const MaintenanceLogEntry& e : *log) {
    if (e.action != MaintenanceAction::kPurge) continue;
    logged.push_back(e.item_id);
    EXPECT_EQ(FormatTimestamp(e.at).substr(0, 4), "2026");
    EXPECT_EQ(e.reason.find("Quetzalburg"), std::string::npos);
    EXPECT_EQ(e.reason, e.item_id == en[0].id
                            ? "hard delete asked for"
                            : "hard delete of " + en[0].id + ": part of its conversation");
  }
  EXPECT_EQ(logged, purged->ids);
  EXPECT_EQ(engine_->Get(alice_, en[0].source.turn_ids[0]).status().code(), StatusCode::kNotFound);
  auto session = engine_->GetSession(chat_, 50);
  ASSERT_TRUE(session.ok());
  for (const StoredTurn& t : session->recent) {
    EXPECT_EQ(t.content.find("Quetzalburg"), std::string::npos) << t.content;
  }
  EXPECT_EQ(session->summary_id, "");
  // What else was said stays: the tea and the zh turn, with what came from them.
  EXPECT_TRUE(engine_->Get(alice_, tea[0].id).ok());
  EXPECT_EQ(session->recent.size(), 2u);
  auto after = engine_->FindTraces(Texts(markers), {vector});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->traces, std::vector<std::string>{});
  EXPECT_EQ(after->needles, before->needles);

  // Keeping the conversation: only the memory goes; the turn still says it.
  ASSERT_FALSE(zh.empty());
  auto kept = engine_->Purge(alice_, zh[0].id, PurgeOptions{.source_turns = false});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->ids, std::vector<std::string>{zh[0].id});
  EXPECT_EQ(kept->session_turns, 0);
  auto zh_traces = engine_->FindTraces(Texts({"鸢尾镇九四七号"}), {});
  ASSERT_TRUE(zh_traces.ok());
  EXPECT_EQ(zh_traces->shared, 1);  // the kept turn holds the words, as asked
  EXPECT_EQ(zh_traces->traces, std::vector<std::string>{});
}

TEST_F(PurgeTest, WorkingMemoryForgetsAPurgedTurnAtOnce) {
  const std::vector<MemoryItem> said = Say(chat_, "I live in Quetzalburg now.");
  Say(chat_, "I love jasmine tea.");
  auto working = sessions_->Working(chat_);  // fills the buffer
  ASSERT_TRUE(working.ok());
  ASSERT_EQ(working->turns.size(), 2u);
  ASSERT_EQ(said.size(), 1u);
  ASSERT_TRUE(engine_->Purge(alice_, said[0].id).ok());
  working = sessions_->Working(chat_);
  ASSERT_TRUE(working.ok());
  ASSERT_EQ(working->turns.size(), 1u);
  EXPECT_EQ(working->turns[0].content, "I love jasmine tea.");
}

// A fact said first outside any session, then again in one: the repeat's kept turn is linked to
// the fact, and its session turn lives in that session, not the fact's (none). Purging the
// fact erases that session turn too (the soak test found it still served).
TEST_F(PurgeTest, APurgeErasesTheSessionTurnsOfEveryLinkedTurnInItsOwnSession) {
  auto first = writer_->Remember(alice_, {Turn{"user", "I live in Quetzalburg now.", 0, ""}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::string fact_id;
  for (const auto& w : first->writes) {
    if (!w.turn) fact_id = w.memory.id;
  }
  ASSERT_FALSE(fact_id.empty());
  clock_.Advance(60'000);
  Say(chat_, "I live in Quetzalburg now.");
  auto fact = engine_->Get(alice_, fact_id);
  ASSERT_TRUE(fact.ok());
  ASSERT_EQ(fact->source.turn_ids.size(), 2u);  // the repeat's turn is linked to the fact
  auto purged = engine_->Purge(alice_, fact_id, PurgeOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(purged->session_turns, 1);
  auto working = sessions_->Working(chat_);
  ASSERT_TRUE(working.ok());
  EXPECT_TRUE(working->turns.empty());
  EXPECT_FALSE(Found("Quetzalburg"));
}

TEST_F(PurgeTest, AVerifiedUserPurgeFindsNothingAndSharedWordsAreNotTraces) {
  Say(chat_, "I live in Quetzalburg now.");
  Say(chat_, "我住在鸢尾镇九四七号。");
  Say(Scope{"default", "alice", "", "chat-2"}, "My favourite band is Zyxwvut Orchestra.");
  // Another user says one of the same things: it stays, and is no trace of alice.
  Scope bob{"default", "bob", "", "b"};
  Say(bob, "I love jasmine tea.");
  Say(chat_, "I love jasmine tea.");
  ASSERT_TRUE(Found("Quetzalburg"));
  auto verified = engine_->PurgeScopeVerified(alice_);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_GE(verified->removed, 8);  // kept turns and what came from them
  EXPECT_EQ(verified->scan.traces, std::vector<std::string>{});
  EXPECT_GT(verified->scan.needles, 10);
  EXPECT_GE(verified->scan.shared, 1);  // "I love jasmine tea." is bob's too
  EXPECT_GE(verified->scan.files, 2);
  EXPECT_GT(verified->scan.bytes, 0);
  EXPECT_FALSE(Found("Quetzalburg"));
  auto bobs = engine_->List(Scope{"default", "bob", "", ""}, ListQuery{});
  ASSERT_TRUE(bobs.ok());
  EXPECT_FALSE(bobs->items.empty());
}

TEST_F(PurgeTest, ATenantPurgeErasesEveryUserOfItAndNoOtherTenant) {
  const Scope acme_ann{"acme", "ann", "", "s1"}, acme_ben{"acme", "ben", "", "s2"};
  const Scope beta_cat{"beta", "cat", "", "s3"};
  Say(acme_ann, "I live in Vrombaut-sur-Mer now.");
  Say(acme_ben, "我的狗叫旺财九号。");
  Say(acme_ben, "My favourite band is Qwertzuiop Ensemble.");
  Say(beta_cat, "I live in Lindenbrook.");
  int64_t users = 0;
  auto purged = engine_->PurgeTenant("acme", /*verify=*/true, &users);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(users, 2);
  EXPECT_GE(purged->removed, 6);  // kept turns and what came from them
  EXPECT_EQ(purged->scan.traces, std::vector<std::string>{});
  EXPECT_GT(purged->scan.needles, 6);
  // Nothing of acme's is listed, searched or stored; beta's stays.
  auto acme = engine_->ListUsers("acme", PageRequest{});
  ASSERT_TRUE(acme.ok());
  EXPECT_TRUE(acme->users.empty());
  for (const Scope& s : {acme_ann, acme_ben}) {
    auto page = engine_->List(Scope{s.tenant, s.user_id, "", ""}, ListQuery{});
    ASSERT_TRUE(page.ok());
    EXPECT_TRUE(page->items.empty());
  }
  auto found = engine_->FindTraces({"Vrombaut-sur-Mer", "旺财九号", "Qwertzuiop"}, {});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->traces, std::vector<std::string>{});
  auto beta = engine_->List(Scope{"beta", "cat", "", ""}, ListQuery{});
  ASSERT_TRUE(beta.ok());
  EXPECT_FALSE(beta->items.empty());
  auto kept = engine_->FindTraces({"Lindenbrook"}, {});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->shared, 1) << "beta's words are still stored";
  // A tenant with nobody is a no-op, not an error.
  auto again = engine_->PurgeTenant("acme", true, &users);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(users, 0);
  EXPECT_EQ(again->removed, 0);
}

}  // namespace
}  // namespace engram
