// Sessions and working memory: turns are durable, the buffer keeps the newest within budget
// and is rebuilt after a restart, summaries are written every N turns and on close (linked to
// their turns), closed sessions refuse turns, and sessions stay in their scope.
#include <gtest/gtest.h>

#include "engram/llm.h"
#include "engram/sessions.h"
#include "testing/fake_openai_server.h"
#include "testing/test_support.h"
#include "text/token_counter.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'700'000'000'000;

class NoExtraction : public Extractor {
 public:
  const std::string& name() const override { return name_; }
  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    last_context = input.context.size();
    ++calls;
    return ExtractionResult{{}, "none", ""};
  }
  int calls = 0;
  size_t last_context = 0;

 private:
  std::string name_ = "none";
};

class SessionManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    sessions_.reset();
    writer_.reset();
    engine_.reset();
    engine_ = testing::OpenEngine(dir_.File("s.db"), &clock_);
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{.extractor = extractor_});
    sessions_ = std::make_unique<SessionManager>(engine_.get(), writer_.get(), options_, &clock_);
  }
  std::vector<Turn> Turns(std::initializer_list<std::string> texts) {
    std::vector<Turn> out;
    bool user = true;
    for (const std::string& t : texts) {
      out.push_back(Turn{user ? "user" : "assistant", t, 0, ""});
      user = !user;
    }
    return out;
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  SessionOptions options_;
  std::shared_ptr<NoExtraction> extractor_ = std::make_shared<NoExtraction>();
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryWriter> writer_;
  std::unique_ptr<SessionManager> sessions_;
  Scope s1_{"default", "alice", "", "s1"};
};

TEST_F(SessionManagerTest, TurnsAreStoredAndBufferedWithIds) {
  auto r = sessions_->Append(s1_, Turns({"I am planning a trip to Kyoto.", "Sounds lovely!"}),
                             /*infer=*/false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->turns.size(), 2u);
  EXPECT_EQ(r->turns[0].message_id.rfind("msg_", 0), 0u);
  EXPECT_EQ(r->turns[0].at, kT0);
  EXPECT_EQ(extractor_->calls, 0);
  auto w = sessions_->Working(s1_);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->turns.size(), 2u);
  EXPECT_EQ(w->turns[1].content, "Sounds lovely!");
  EXPECT_EQ(w->session.turn_count, 2);
  // Another user's session of the same name is a different session.
  Scope bob{"default", "bob", "", "s1"};
  EXPECT_EQ(sessions_->Working(bob).status().code(), StatusCode::kNotFound);
}

TEST_F(SessionManagerTest, InferExtractsWithTheBufferAsContext) {
  ASSERT_TRUE(sessions_->Append(s1_, Turns({"one", "two"}), false).ok());
  ASSERT_TRUE(sessions_->Append(s1_, Turns({"three"}), true).ok());
  EXPECT_EQ(extractor_->calls, 1);
  EXPECT_EQ(extractor_->last_context, 2u);
}

// A session's user turns go through the write path: each is kept as an episodic item carrying
// its session and message id; the assistant's reply is only context.
TEST_F(SessionManagerTest, InferKeepsTheUsersTurnsWithTheirSessionAndMessageIds) {
  auto r = sessions_->Append(s1_, Turns({"I'm flying to Chengdu next Friday", "Have a good trip!"}),
                             /*infer=*/true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->remembered.writes.size(), 1u);
  const MemoryItem& turn = r->remembered.writes[0].memory;
  EXPECT_TRUE(r->remembered.writes[0].turn);
  EXPECT_TRUE(IsKeptTurn(turn));
  EXPECT_EQ(turn.content, "I'm flying to Chengdu next Friday");
  EXPECT_EQ(turn.source.session_id, "s1");
  EXPECT_EQ(turn.source.message_ids, std::vector<std::string>{r->turns[0].message_id});
  EXPECT_EQ(turn.created_at, kT0);
  ASSERT_EQ(r->remembered.skipped.size(), 1u);
  EXPECT_EQ(r->remembered.skipped[0].turn, 1u);
}

// Two replicas on one database each keep a buffer: one never misses what the other appended,
// nor keeps what a hard delete took. (The buffer is checked against the store's version of
// the turns at each use.)
TEST_F(SessionManagerTest, ABufferSeesTurnsAnotherManagerAppended) {
  SessionManager other(engine_.get(), writer_.get(), options_, &clock_);
  ASSERT_TRUE(
      sessions_->Append(s1_, Turns({"I am planning a trip to Kyoto.", "Lovely!"}), false).ok());
  ASSERT_EQ(sessions_->Working(s1_)->turns.size(), 2u);  // loaded here
  clock_.Advance(1000);
  ASSERT_TRUE(other.Append(s1_, Turns({"We fly on Friday.", "Noted."}), false).ok());
  auto here = sessions_->Working(s1_);
  ASSERT_TRUE(here.ok()) << here.status().ToString();
  ASSERT_EQ(here->turns.size(), 4u);
  EXPECT_EQ(here->turns[2].content, "We fly on Friday.");
  // The extraction context of the next turn here holds the other's turns too.
  ASSERT_TRUE(sessions_->Append(s1_, Turns({"Book a ryokan."}), /*infer=*/true).ok());
  EXPECT_EQ(extractor_->last_context, 4u);
  // And the other's buffer sees this one's turn.
  ASSERT_EQ(other.Working(s1_)->turns.size(), 5u);
}

TEST_F(SessionManagerTest, BufferKeepsTheNewestTurnsWithinBudgetAndSurvivesRestart) {
  options_.working_token_budget = 60;
  Reopen();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(
        sessions_
            ->Append(
                s1_,
                {Turn{"user", "message number " + std::to_string(i) + " about the garden", 0, ""}},
                false)
            .ok());
  }
  auto w = sessions_->Working(s1_);
  ASSERT_TRUE(w.ok());
  EXPECT_LE(w->tokens, 60);
  ASSERT_FALSE(w->turns.empty());
  EXPECT_LT(w->turns.size(), 20u);
  EXPECT_NE(w->turns.back().content.find("number 19"), std::string::npos);
  EXPECT_EQ(w->session.turn_count, 20);
  const auto before = w->turns;
  Reopen();  // a restart: the buffer is rebuilt from the stored turns
  auto again = sessions_->Working(s1_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->turns, before);
}

TEST_F(SessionManagerTest, SummaryEveryNTurnsAndOnCloseLinkedToTurns) {
  options_.summarize_every = 4;
  Reopen();
  auto first = sessions_->Append(
      s1_,
      Turns({"I am moving to Berlin next month for a new job.", "Congratulations!",
             "The job is at a robotics startup in Berlin.", "What will you do there?"}),
      false);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->summary.has_value());
  const MemoryItem& summary = *first->summary;
  EXPECT_EQ(summary.type, MemoryType::kSummary);
  EXPECT_EQ(summary.tier, Tier::kEpisodic);
  EXPECT_EQ(summary.source.session_id, "s1");
  EXPECT_EQ(summary.source.message_ids.size(), 4u);
  EXPECT_EQ(summary.source.message_ids[0], first->turns[0].message_id);
  EXPECT_NE(summary.content.find("Berlin"), std::string::npos);
  EXPECT_LE(CountTokens(summary.content), options_.summary_max_tokens + 8);

  auto more = sessions_->Append(s1_, Turns({"I will build robot arms."}), false);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(more->summary.has_value());  // 1 of 4
  auto closed = sessions_->Close(s1_);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  ASSERT_TRUE(closed->has_value());
  EXPECT_EQ((*closed)->id, summary.id);  // the same item, rewritten
  auto history = engine_->History(s1_, summary.id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 2u);
  auto info = engine_->GetSession(s1_, 0);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->closed_at.has_value());
  EXPECT_EQ(info->summary_id, summary.id);
  // Closed: appends are refused, closing again returns the same summary.
  EXPECT_EQ(sessions_->Append(s1_, Turns({"hello again"}), false).status().code(),
            StatusCode::kConflict);
  auto twice = sessions_->Close(s1_);
  ASSERT_TRUE(twice.ok() && twice->has_value());
  EXPECT_EQ((*twice)->id, summary.id);
}

TEST_F(SessionManagerTest, ClosingAfterTheUserDeletedTheSummaryWritesANewOne) {
  options_.summarize_every = 2;
  Reopen();
  auto first = sessions_->Append(
      s1_, Turns({"I am moving to Berlin next month.", "Congratulations!"}), false);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->summary.has_value());
  const std::string old_id = first->summary->id;
  ASSERT_TRUE(engine_->Delete(s1_, old_id).ok());
  ASSERT_TRUE(sessions_->Append(s1_, Turns({"The job is at a robotics startup."}), false).ok());
  auto closed = sessions_->Close(s1_);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  ASSERT_TRUE(closed->has_value());
  EXPECT_NE((*closed)->id, old_id);
  EXPECT_EQ((*closed)->status, ItemStatus::kActive);
  EXPECT_NE((*closed)->content.find("Berlin"), std::string::npos);
  auto old = engine_->Get(s1_, old_id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kDeleted);  // not brought back
  auto info = engine_->GetSession(s1_, 0);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->summary_id, (*closed)->id);
  EXPECT_TRUE(info->closed_at.has_value());
}

TEST_F(SessionManagerTest, LlmSummaryIsUsedAndFallsBackToExtractiveOnFailure) {
  testing::FakeOpenAIServer server;
  server.Start();
  auto client = MakeOpenAIChatClient(server.ClientOptions("fake-model", /*retries=*/0));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  options_.llm = std::shared_ptr<LlmClient>(std::move(client).value());
  options_.summarize_every = 2;
  Reopen();

  // 1. The model answers: its text is the summary, the method names the model, and the model
  //    was shown the turns with their roles.
  server.PushContent("Alice is moving to Berlin next month for a robotics job.");
  auto first = sessions_->Append(
      s1_, Turns({"I am moving to Berlin next month.", "Exciting! What for?"}), false);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->summary.has_value());
  EXPECT_EQ(first->summary->content, "Alice is moving to Berlin next month for a robotics job.");
  EXPECT_EQ(first->summary->source.extractor, "summary:llm:fake-model");
  ASSERT_EQ(server.requests().size(), 1u);
  const std::string shown = server.requests()[0].Text();
  EXPECT_NE(shown.find("user: I am moving to Berlin next month."), std::string::npos) << shown;
  EXPECT_NE(shown.find("assistant: Exciting! What for?"), std::string::npos) << shown;

  // 2. The provider fails (500, no retries): the summary is extractive, built from the turns,
  //    and rewrites the same item; the append itself succeeds.
  server.Push(500, testing::OpenAIErrorBody("upstream down"));
  auto second = sessions_->Append(
      s1_, Turns({"The job is at a robotics startup in Berlin.", "Sounds great."}), false);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE(second->summary.has_value());
  EXPECT_EQ(second->summary->id, first->summary->id);
  EXPECT_EQ(second->summary->source.extractor, "summary:extractive");
  // The rewritten summary links all four turns it covers, not the first summary's two.
  ASSERT_EQ(second->summary->source.message_ids.size(), 4u);
  EXPECT_EQ(second->summary->source.message_ids[3], second->turns[1].message_id);
  EXPECT_NE(second->summary->content.find("Berlin"), std::string::npos);
  EXPECT_EQ(second->summary->content.find("Alice is moving"), std::string::npos);

  // 3. A reply cut off at the token limit is not trusted either.
  server.PushContent("Alice is moving to Ber", "length");
  auto closed = sessions_->Close(s1_);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  ASSERT_TRUE(closed->has_value());
  EXPECT_EQ((*closed)->source.extractor, "summary:extractive");
  EXPECT_EQ((*closed)->content.find("Alice is moving to Ber"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(server.unused_replies(), 0u);

  // Written, then rewritten; closing wrote the same extractive summary again, which changes
  // nothing and so records nothing.
  auto history = engine_->History(s1_, first->summary->id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 2u);
  sessions_.reset();
  writer_.reset();
  options_.llm.reset();
}

TEST_F(SessionManagerTest, ExtractiveSummaryPrefersRecurringTopics) {
  options_.summary_max_tokens = 30;
  Reopen();
  std::vector<StoredTurn> turns = {
      {"m1", "user", "我下个月要去成都出差。我想吃火锅。", kT0},
      {"m2", "assistant", "成都的火锅很有名。", kT0},
      {"m3", "user", "今天天气不错。成都出差要带什么？", kT0},
  };
  std::string method;
  std::string s = sessions_->Summarize(turns, &method);
  EXPECT_EQ(method, "extractive");
  EXPECT_NE(s.find("成都"), std::string::npos);
  EXPECT_EQ(s.find("天气"), std::string::npos);  // shares nothing with the rest: not chosen
}

// Turns too short to share two terms with each other, or one sentence longer than the budget,
// still make a summary of what was said, never "(empty session)".
TEST_F(SessionManagerTest, ExtractiveSummaryOfShortOrLongTurnsIsMadeFromThem) {
  options_.summary_max_tokens = 12;
  Reopen();
  std::string method;
  std::string s = sessions_->Summarize(
      {{"m1", "user", "I like jazz", kT0}, {"m2", "assistant", "Nice!", kT0}}, &method);
  EXPECT_EQ(s, "user: I like jazz");
  s = sessions_->Summarize({{"m1", "assistant", "Hello there", kT0}}, &method);
  EXPECT_EQ(s, "assistant: Hello there");
  s = sessions_->Summarize({{"m1", "user",
                             "My sister Maria is flying in from Lisbon on the twelfth and staying "
                             "with us for the whole winter holiday",
                             kT0}},
                           &method);
  EXPECT_NE(s.find("Lisbon"), std::string::npos) << s;
}

// The sequence a new user tried from the README: one turn, then close. The summary holds it.
TEST_F(SessionManagerTest, ClosingASessionOfOneShortTurnSummarizesTheTurn) {
  ASSERT_TRUE(sessions_->Append(s1_, Turns({"I like jazz"}), /*infer=*/false).ok());
  auto closed = sessions_->Close(s1_);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  ASSERT_TRUE(closed->has_value());
  EXPECT_EQ((*closed)->content, "user: I like jazz");
  EXPECT_EQ((*closed)->source.message_ids.size(), 1u);
}

// A session longer than a source's 64 message ids is still summarized, at every summary point
// and on close; the summary names its newest turns (the soak test found both answering 400).
TEST_F(SessionManagerTest, ALongSessionIsSummarizedNamingItsNewestTurns) {
  options_.summarize_every = 35;
  Reopen();
  std::vector<StoredTurn> stored;
  for (int batch = 0; batch < 2; ++batch) {
    std::vector<Turn> turns;
    for (int i = 0; i < 35; ++i) {
      turns.push_back(
          {"user", "Turn " + std::to_string(batch * 35 + i) + " about gardening", 0, ""});
    }
    auto r = sessions_->Append(s1_, turns, /*infer=*/false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->summary_error.empty()) << r->summary_error;
    EXPECT_TRUE(r->summary.has_value());
    stored.insert(stored.end(), r->turns.begin(), r->turns.end());
  }
  auto closed = sessions_->Close(s1_);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  ASSERT_TRUE(closed->has_value());
  const std::vector<std::string>& ids = (*closed)->source.message_ids;
  ASSERT_EQ(ids.size(), 64u);
  EXPECT_EQ(ids.back(), stored.back().message_id);
  EXPECT_EQ(ids.front(), stored[stored.size() - 64].message_id);
}

TEST_F(SessionManagerTest, BadInputIsRefused) {
  EXPECT_EQ(
      sessions_->Append(Scope{"default", "alice", "", ""}, Turns({"x"}), false).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(sessions_->Append(s1_, {Turn{"user", "", 0, ""}}, false).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(sessions_->Append(s1_, {Turn{"", "text", 0, ""}}, false).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(sessions_->Close(Scope{"default", "alice", "", "nope"}).status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram
