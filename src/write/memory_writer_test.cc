// MemoryWriter: the pipeline's own behaviour with scripted extractors and resolvers — privacy
// before extraction, every user turn kept and linked with what it produced, chit-chat and other
// speakers skipped with a reason, a failing extractor keeps the raw turns, a failing resolver
// falls back to the rules, sources and times recorded. The built-in rules end to end are in
// rule_scenario_test.cc.
#include <gtest/gtest.h>

#include <algorithm>

#include "engram/write_path.h"
#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

class FailingResolver : public ConflictResolver {
 public:
  const std::string& name() const override { return name_; }
  Result<DecisionResult> Decide(const Candidate&, const std::vector<Neighbour>&) override {
    ++calls;
    return Status::Unavailable("provider down");
  }
  int calls = 0;

 private:
  std::string name_ = "failing";
};

using MemoryWriterTest = WriterTest;

// Decides NOOP against its first neighbour, after deleting or purging it first (as another
// request may between a decision and its commit) the first `races` times it is asked.
class RacedResolver : public ConflictResolver {
 public:
  RacedResolver(Engine* engine, Scope scope, int races, bool purge)
      : engine_(engine), scope_(std::move(scope)), races_(races), purge_(purge) {}
  const std::string& name() const override { return name_; }
  Result<DecisionResult> Decide(const Candidate&, const std::vector<Neighbour>& n) override {
    ++calls;
    if (n.empty()) return DecisionResult{WriteDecision::kAdd, -1, "", "nothing like it", {}};
    if (calls <= races_) {
      Status gone =
          purge_ ? engine_->Purge(scope_, n[0].item.id) : engine_->Delete(scope_, n[0].item.id);
      EXPECT_TRUE(gone.ok()) << gone.ToString();
    }
    return DecisionResult{WriteDecision::kNoop, 0, "", "same as " + n[0].item.id, {}};
  }
  int calls = 0;

 private:
  std::string name_ = "raced";
  Engine* engine_;
  Scope scope_;
  int races_;
  bool purge_;
};

// A memory the decision named is deleted (or purged) before the decision commits: the candidate
// is decided again against what is there now, and never lost; when every decision races, it
// is added on its own.
TEST_F(MemoryWriterTest, ACandidateWhoseTargetVanishesIsDecidedAgainAndKept) {
  for (const bool purge : {false, true}) {
    for (const int races : {1, 100}) {
      SCOPED_TRACE(std::string(purge ? "purge" : "delete") + ", races " + std::to_string(races));
      Scope scope = alice_;
      scope.user_id = std::string("raced-") + (purge ? "p" : "d") + std::to_string(races);
      for (const char* text :
           {"I love hiking", "I love hiking in the Alps", "I love hiking a lot"}) {
        auto seeded = engine_->Add(scope, NewMemory{.content = text});
        ASSERT_TRUE(seeded.ok()) << seeded.status().ToString();
      }
      auto resolver = std::make_shared<RacedResolver>(engine_.get(), scope, races, purge);
      ExtractionResult r{{Cand("User loves hiking")}, "scripted-v1", ""};
      auto extractor =
          std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{r});
      MemoryWriter writer(engine_.get(),
                          WriterOptions{.extractor = extractor, .resolver = resolver});
      auto out = writer.Remember(scope, {UserTurn("I love hiking", kT0, "m1")});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const std::vector<WriteOutcome> written = Memories(*out);
      ASSERT_EQ(written.size(), 1u);
      if (races == 1) {
        EXPECT_EQ(written[0].decision, WriteDecision::kNoop);  // the second decision held
        EXPECT_EQ(resolver->calls, 2);
      } else {
        EXPECT_EQ(written[0].decision, WriteDecision::kAdd);
        EXPECT_EQ(written[0].memory.content, "User loves hiking");
        auto history = engine_->History(scope, written[0].memory.id);
        ASSERT_TRUE(history.ok() && !history->empty());
        EXPECT_NE(history->front().reason.find("changed while it was written"), std::string::npos)
            << history->front().reason;
        EXPECT_EQ(resolver->calls, 3);
      }
      auto stored = engine_->Get(scope, written[0].memory.id);
      ASSERT_TRUE(stored.ok()) << stored.status().ToString();
      EXPECT_EQ(stored->status, ItemStatus::kActive);
    }
  }
}

TEST_F(MemoryWriterTest, KeepsTheTurnAndLinksItWithWhatItSaid) {
  ExtractionResult r{{Cand("lives in Hangzhou", "user/location", true)}, "scripted-v1", "p7"};
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{r});
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor});
  Scope in_session = alice_;
  in_session.session_id = "s1";
  auto out = writer.Remember(in_session, {UserTurn("I live in Hangzhou", kT0 - kDay, "m1")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->writes.size(), 2u);
  EXPECT_TRUE(out->skipped.empty());
  EXPECT_EQ(out->extractor, "scripted-v1");

  // The turn, as said, first.
  const WriteOutcome& turn = out->writes[0];
  ASSERT_TRUE(turn.turn);
  EXPECT_EQ(turn.decision, WriteDecision::kAdd);
  EXPECT_TRUE(IsKeptTurn(turn.memory));
  EXPECT_EQ(turn.memory.content, "I live in Hangzhou");
  EXPECT_EQ(turn.memory.type, MemoryType::kMessage);
  EXPECT_EQ(turn.memory.tier, Tier::kEpisodic);
  EXPECT_EQ(turn.memory.source.extractor, "turn");
  EXPECT_EQ(turn.memory.source.role, "user");
  EXPECT_EQ(turn.memory.source.message_ids, std::vector<std::string>{"m1"});
  EXPECT_EQ(turn.memory.created_at, kT0 - kDay);
  EXPECT_LT(turn.memory.importance, 0.5);  // raw material ranks below what it produced

  // Then what was extracted from it.
  ASSERT_FALSE(out->writes[1].turn);
  const MemoryItem& m = out->writes[1].memory;
  EXPECT_EQ(out->writes[1].decision, WriteDecision::kAdd);
  EXPECT_EQ(m.content, "lives in Hangzhou");
  EXPECT_EQ(m.slot, "user/location");
  EXPECT_EQ(m.source.extractor, "scripted-v1");
  EXPECT_EQ(m.source.prompt_version, "p7");
  EXPECT_EQ(m.source.message_ids, std::vector<std::string>{"m1"});
  EXPECT_EQ(m.source.session_id, "s1");
  EXPECT_EQ(m.created_at, kT0 - kDay);  // when it was said
  EXPECT_EQ(m.valid_from, kT0 - kDay);
  EXPECT_TRUE(out->extraction_error.empty());

  // Linked both ways, and stored so.
  EXPECT_EQ(m.source.turn_ids, std::vector<std::string>{turn.memory.id});
  EXPECT_EQ(turn.memory.derived_ids, std::vector<std::string>{m.id});
  auto stored_turn = engine_->Get(in_session, turn.memory.id);
  ASSERT_TRUE(stored_turn.ok());
  EXPECT_EQ(stored_turn->derived_ids, std::vector<std::string>{m.id});
  auto stored_fact = engine_->Get(in_session, m.id);
  ASSERT_TRUE(stored_fact.ok());
  EXPECT_EQ(stored_fact->source.turn_ids, std::vector<std::string>{turn.memory.id});
}

TEST_F(MemoryWriterTest, OtherSpeakersAndChitChatAreSkippedWithTheReason) {
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{});
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor});
  auto out = writer.Remember(
      alice_, {UserTurn("hi!", kT0), Turn{"assistant", "Hello, how can I help?", kT0, ""},
               UserTurn("I've been sleeping badly", kT0), UserTurn("哈哈好的", kT0),
               Turn{"Caroline", "I went to a support group yesterday", kT0, ""}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->skipped.size(), 3u);
  EXPECT_EQ(out->skipped[0].turn, 0u);
  EXPECT_NE(out->skipped[0].reason.find("chit-chat"), std::string::npos) << out->skipped[0].reason;
  EXPECT_EQ(out->skipped[1].turn, 1u);
  EXPECT_NE(out->skipped[1].reason.find("assistant"), std::string::npos) << out->skipped[1].reason;
  EXPECT_EQ(out->skipped[2].turn, 3u);
  EXPECT_NE(out->skipped[2].reason.find("chit-chat"), std::string::npos);
  // what the user said, and what a named speaker said (a conversation between people), is kept
  auto turns = Turns(*out);
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].memory.content, "I've been sleeping badly");
  EXPECT_EQ(turns[1].memory.source.role, "Caroline");
  // the extractor still saw every turn, the assistant's included, for reference
  ASSERT_EQ(extractor->seen.size(), 1u);
  EXPECT_EQ(extractor->seen[0].turns.size(), 5u);

  // Nothing but chit-chat: nothing stored, nothing extracted.
  auto chat =
      writer.Remember(alice_, {UserTurn("thanks, that's great", kT0), UserTurn("好的谢谢", kT0)});
  ASSERT_TRUE(chat.ok());
  EXPECT_TRUE(chat->writes.empty());
  EXPECT_EQ(chat->skipped.size(), 2u);
  EXPECT_EQ(extractor->seen.size(), 1u);
}

TEST_F(MemoryWriterTest, WithoutKeptTurnsOnlyWhatIsExtractedIsStored) {
  ExtractionResult r{{Cand("lives in Hangzhou", "user/location", true)}, "scripted-v1", ""};
  auto extractor = std::make_shared<ScriptedExtractor>(
      std::vector<Result<ExtractionResult>>{r, Status::Unavailable("LLM provider: timeout")});
  WriterOptions options{.extractor = extractor};
  options.keep_turns = false;
  MemoryWriter writer(engine_.get(), options);
  auto out = writer.Remember(alice_, {UserTurn("I live in Hangzhou", kT0)});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->writes.size(), 1u);
  EXPECT_FALSE(out->writes[0].turn);
  EXPECT_TRUE(out->writes[0].memory.source.turn_ids.empty());
  ASSERT_EQ(out->skipped.size(), 1u);
  EXPECT_NE(out->skipped[0].reason.find("keep_turns"), std::string::npos);
  EXPECT_TRUE(KeptTurns().empty());
  // When extraction fails the turn is still kept: nothing said is lost.
  auto failed = writer.Remember(alice_, {UserTurn("I switched to decaf", kT0)});
  ASSERT_TRUE(failed.ok());
  ASSERT_EQ(failed->writes.size(), 1u);
  EXPECT_TRUE(failed->writes[0].turn);
  EXPECT_EQ(KeptTurns().size(), 1u);
}

TEST_F(MemoryWriterTest, TurnsWithoutATimeWereSaidNow) {
  MemoryWriter writer(engine_.get(), WriterOptions{});
  auto out = writer.Remember(alice_, {UserTurn("I went to the dentist yesterday", 0)});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->writes.size(), 2u);
  EXPECT_EQ(out->writes[0].memory.created_at, kT0);
  EXPECT_EQ(out->writes[1].memory.created_at, kT0);
  EXPECT_EQ(out->writes[1].memory.valid_from, Day(2026, 6, 14));
  EXPECT_EQ(out->writes[1].memory.content, "User went to the dentist on 2026-06-14");
  for (const MemoryItem& m : Active()) {
    EXPECT_GE(m.created_at, kY2k) << m.content;
    EXPECT_GE(m.valid_from, kY2k) << m.content;
    EXPECT_GE(m.updated_at, kY2k) << m.content;
  }
}

TEST_F(MemoryWriterTest, PrivacyPolicyRunsBeforeExtraction) {
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{});
  WriterOptions options{.extractor = extractor};
  options.privacy.action = PiiAction::kRedact;
  MemoryWriter writer(engine_.get(), options);
  auto redacted = writer.Remember(alice_, {UserTurn("mail me at bob@example.com", kT0)});
  ASSERT_TRUE(redacted.ok());
  ASSERT_EQ(extractor->seen.size(), 1u);
  EXPECT_EQ(extractor->seen[0].turns[0].content, "mail me at [email]");
  // the kept turn is the redacted text too
  EXPECT_EQ(ActiveContents(), std::vector<std::string>{"mail me at [email]"});

  options.privacy.action = PiiAction::kReject;
  MemoryWriter strict(engine_.get(), options);
  auto refused = strict.Remember(alice_, {UserTurn("my card is 4111 1111 1111 1111", kT0)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message().find("4111"), std::string::npos);
  EXPECT_EQ(extractor->seen.size(), 1u);  // the extractor never saw it
  EXPECT_EQ(Active().size(), 1u);         // and nothing of it was stored
}

TEST_F(MemoryWriterTest, BatchesNameTheFailingEntry) {
  ExtractionResult r{{Cand("likes tea", "user/likes:tea", false)}, "scripted-v1", ""};
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{r});
  WriterOptions options{.extractor = extractor};
  options.privacy.action = PiiAction::kReject;
  MemoryWriter writer(engine_.get(), options);

  // As given: every memory passes the policy or none is stored.
  std::vector<NewMemory> given(2);
  given[0].content = "I like hiking";
  given[1].content = "my card is 4111 1111 1111 1111";
  auto refused = writer.AddAsGiven(alice_, given);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("memories[1]"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(Active().empty());
  given.pop_back();
  auto added = writer.AddAsGiven(alice_, given);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  ASSERT_EQ(added->size(), 1u);
  EXPECT_EQ((*added)[0].content, "I like hiking");
  EXPECT_FALSE(IsKeptTurn((*added)[0]));  // given as is: no turn of its own

  // With extraction: in order, stopping at the first failure (earlier items stay stored).
  std::vector<RememberItem> items(3);
  items[0].turns = {UserTurn("I like tea", kT0)};
  items[1].turns = {UserTurn("call me at 4111 1111 1111 1111", kT0)};
  items[2].turns = {UserTurn("I like coffee", kT0)};
  auto each = writer.RememberEach(alice_, items);
  ASSERT_FALSE(each.ok());
  EXPECT_NE(each.status().message().find("memories[1]"), std::string::npos)
      << each.status().message();
  EXPECT_EQ(extractor->seen.size(), 1u);  // the third item never ran
  EXPECT_EQ(ActiveContents(),
            (std::vector<std::string>{"I like hiking", "I like tea", "likes tea"}));
}

TEST_F(MemoryWriterTest, FailedExtractionKeepsTheRawTurnsAndSaysWhy) {
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{
      Status::Unavailable("LLM provider: 503 after 3 retries")});
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor});
  auto out = writer.Remember(alice_, {UserTurn("我下周要去成都出差", kT0, "m9")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->extraction_error.find("503"), std::string::npos);
  EXPECT_EQ(out->extractor, "raw");
  ASSERT_EQ(out->writes.size(), 1u);
  const MemoryItem& m = out->writes[0].memory;
  EXPECT_TRUE(out->writes[0].turn);
  EXPECT_EQ(m.content, "我下周要去成都出差");
  EXPECT_EQ(m.type, MemoryType::kMessage);
  EXPECT_EQ(m.tier, Tier::kEpisodic);
  EXPECT_EQ(m.source.extractor, "turn");
  EXPECT_EQ(m.source.message_ids, std::vector<std::string>{"m9"});
  auto history = engine_->History(alice_, m.id);
  ASSERT_TRUE(history.ok());
  EXPECT_NE((*history)[0].reason.find("extraction failed"), std::string::npos);
  // A caller that retries later asks for the error instead.
  auto again = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{
      Status::Unavailable("LLM provider: 503 after 3 retries")});
  MemoryWriter strict(engine_.get(), WriterOptions{.extractor = again});
  RememberOptions no_raw;
  no_raw.keep_raw_on_failure = false;
  auto failed = strict.Remember(alice_, {UserTurn("我下周要去成都出差", kT0)}, {}, no_raw);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(Active().size(), 1u);
}

TEST_F(MemoryWriterTest, FailingResolverFallsBackToTheRules) {
  ExtractionResult first{{Cand("lives in Beijing", "user/location", true)}, "scripted", ""};
  ExtractionResult second{{Cand("lives in Shanghai", "user/location", true)}, "scripted", ""};
  auto extractor =
      std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{first, second});
  auto resolver = std::make_shared<FailingResolver>();
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor, .resolver = resolver});
  ASSERT_TRUE(writer.Remember(alice_, {UserTurn("x", kT0)}).ok());
  auto out = writer.Remember(alice_, {UserTurn("y", kT0 + kDay)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(resolver->calls, 2);
  auto memories = Memories(*out);
  ASSERT_EQ(memories.size(), 1u);
  EXPECT_EQ(memories[0].decision, WriteDecision::kSupersede);
  ASSERT_EQ(ActiveMemories().size(), 1u);
  EXPECT_EQ(ActiveMemories()[0].content, "lives in Shanghai");
  // the turn that said Beijing is kept; it now says what no active memory holds
  EXPECT_EQ(KeptTurns().size(), 2u);
}

// The paraphrase threshold is the user's to set: at 0 any neighbour is the same statement.
TEST_F(MemoryWriterTest, TheDuplicateThresholdsAreConfigurable) {
  for (double threshold : {0.95, 0.0}) {
    Scope scope{"default", threshold > 0 ? "default-threshold" : "zero-threshold", "", ""};
    ExtractionResult first{{Cand("User collects vintage vinyl records")}, "scripted", ""};
    ExtractionResult second{{Cand("User plays chess on Sundays")}, "scripted", ""};
    auto extractor =
        std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{first, second});
    WriterOptions options{.extractor = extractor};
    options.rules.duplicate_similarity = threshold;
    MemoryWriter writer(engine_.get(), options);
    ASSERT_TRUE(writer.Remember(scope, {UserTurn("a", kT0)}).ok());
    auto out = writer.Remember(scope, {UserTurn("b", kT0 + kMinute)});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    auto memories = Memories(*out);
    ASSERT_EQ(memories.size(), 1u);
    EXPECT_EQ(memories[0].decision, threshold > 0 ? WriteDecision::kAdd : WriteDecision::kNoop)
        << threshold;
  }
}

TEST_F(MemoryWriterTest, EmptyMessagesAreRefused) {
  MemoryWriter writer(engine_.get(), WriterOptions{});
  EXPECT_EQ(writer.Remember(alice_, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Remember(alice_, {UserTurn("", kT0)}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(Active().empty());
}

}  // namespace
}  // namespace engram
