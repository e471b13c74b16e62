// MemoryWriter: the pipeline's own behaviour with scripted extractors and resolvers (privacy
// before extraction, a failing extractor keeps the raw turns, a failing resolver falls back to
// the rules, sources and times are recorded), and end-to-end conflict scenarios with the
// built-in rules (a move, a reversed preference, a repeated fact, a correction, an allergy
// added later) asserting the active set and the history.
#include "engram/write_path.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'700'000'000'000;
constexpr TimestampMs kDay = 86'400'000;

// Replays a fixed list of results, one per call.
class ScriptedExtractor : public Extractor {
 public:
  explicit ScriptedExtractor(std::vector<Result<ExtractionResult>> script)
      : script_(std::move(script)) {}
  const std::string& name() const override { return name_; }
  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    seen.push_back(input);
    if (calls_ >= script_.size()) return ExtractionResult{{}, "scripted", ""};
    return script_[calls_++];
  }
  std::vector<ExtractionInput> seen;

 private:
  std::string name_ = "scripted";
  std::vector<Result<ExtractionResult>> script_;
  size_t calls_ = 0;
};

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

Candidate Cand(std::string content, std::string slot = "", bool exclusive = false) {
  Candidate c;
  c.content = std::move(content);
  c.slot = std::move(slot);
  c.exclusive = exclusive;
  c.turn_indexes = {0};
  return c;
}

Turn UserTurn(std::string content, TimestampMs at, std::string id = "") {
  return Turn{"user", std::move(content), at, std::move(id)};
}

class MemoryWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = testing::OpenEngine(dir_.File("w.db"), &clock_); }

  std::vector<MemoryItem> Active() {
    auto page = engine_->List(alice_, ListQuery{});
    EXPECT_TRUE(page.ok());
    return page.ok() ? page->items : std::vector<MemoryItem>{};
  }
  std::vector<std::string> ActiveContents() {
    std::vector<std::string> out;
    for (const MemoryItem& m : Active()) out.push_back(m.content);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<MemoryItem> WithStatus(ItemStatus s) {
    ListQuery q;
    q.statuses = {s};
    auto page = engine_->List(alice_, q);
    return page.ok() ? page->items : std::vector<MemoryItem>{};
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(MemoryWriterTest, StoresCandidatesWithSourceSlotAndTimes) {
  ExtractionResult r{{Cand("lives in Hangzhou", "user/location", true)}, "scripted-v1", "p7"};
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{r});
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor});
  Scope in_session = alice_;
  in_session.session_id = "s1";
  auto out = writer.Remember(in_session, {UserTurn("I live in Hangzhou", kT0 - kDay, "m1")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->writes.size(), 1u);
  const MemoryItem& m = out->writes[0].memory;
  EXPECT_EQ(out->writes[0].decision, WriteDecision::kAdd);
  EXPECT_EQ(m.content, "lives in Hangzhou");
  EXPECT_EQ(m.slot, "user/location");
  EXPECT_EQ(m.source.extractor, "scripted-v1");
  EXPECT_EQ(m.source.prompt_version, "p7");
  EXPECT_EQ(m.source.message_ids, std::vector<std::string>{"m1"});
  EXPECT_EQ(m.source.session_id, "s1");
  EXPECT_EQ(m.created_at, kT0 - kDay);  // when it was said
  EXPECT_EQ(m.valid_from, kT0 - kDay);
  EXPECT_TRUE(out->extraction_error.empty());
}

TEST_F(MemoryWriterTest, PrivacyPolicyRunsBeforeExtraction) {
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{});
  WriterOptions options{.extractor = extractor};
  options.privacy.action = PiiAction::kRedact;
  MemoryWriter writer(engine_.get(), options);
  ASSERT_TRUE(writer.Remember(alice_, {UserTurn("mail me at bob@example.com", kT0)}).ok());
  ASSERT_EQ(extractor->seen.size(), 1u);
  EXPECT_EQ(extractor->seen[0].turns[0].content, "mail me at [email]");

  options.privacy.action = PiiAction::kReject;
  MemoryWriter strict(engine_.get(), options);
  auto refused = strict.Remember(alice_, {UserTurn("my card is 4111 1111 1111 1111", kT0)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message().find("4111"), std::string::npos);
  EXPECT_EQ(extractor->seen.size(), 1u);  // the extractor never saw it
  EXPECT_TRUE(Active().empty());
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

  // With extraction: in order, stopping at the first failure (earlier items stay stored).
  std::vector<RememberItem> items(3);
  items[0].turns = {UserTurn("I like tea", kT0)};
  items[1].turns = {UserTurn("call me at 4111 1111 1111 1111", kT0)};
  items[2].turns = {UserTurn("I like coffee", kT0)};
  auto each = writer.RememberEach(alice_, items);
  ASSERT_FALSE(each.ok());
  EXPECT_NE(each.status().message().find("memories[1]"), std::string::npos) << each.status().message();
  EXPECT_EQ(extractor->seen.size(), 1u);  // the third item never ran
  EXPECT_EQ(ActiveContents(), (std::vector<std::string>{"I like hiking", "likes tea"}));
}

TEST_F(MemoryWriterTest, FailedExtractionKeepsTheRawTurnsAndSaysWhy) {
  auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{
      Status::Unavailable("LLM provider: 503 after 3 retries")});
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor});
  auto out = writer.Remember(alice_, {UserTurn("我下周要去成都出差", kT0, "m9")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->extraction_error.find("503"), std::string::npos);
  ASSERT_EQ(out->writes.size(), 1u);
  const MemoryItem& m = out->writes[0].memory;
  EXPECT_EQ(m.content, "我下周要去成都出差");
  EXPECT_EQ(m.type, MemoryType::kMessage);
  EXPECT_EQ(m.tier, Tier::kEpisodic);
  EXPECT_EQ(m.source.extractor, "raw");
  EXPECT_EQ(m.source.message_ids, std::vector<std::string>{"m9"});
  auto history = engine_->History(alice_, m.id);
  ASSERT_TRUE(history.ok());
  EXPECT_NE((*history)[0].reason.find("extraction failed"), std::string::npos);
}

TEST_F(MemoryWriterTest, FailingResolverFallsBackToTheRules) {
  ExtractionResult first{{Cand("lives in Beijing", "user/location", true)}, "scripted", ""};
  ExtractionResult second{{Cand("lives in Shanghai", "user/location", true)}, "scripted", ""};
  auto extractor = std::make_shared<ScriptedExtractor>(
      std::vector<Result<ExtractionResult>>{first, second});
  auto resolver = std::make_shared<FailingResolver>();
  MemoryWriter writer(engine_.get(), WriterOptions{.extractor = extractor, .resolver = resolver});
  ASSERT_TRUE(writer.Remember(alice_, {UserTurn("x", kT0)}).ok());
  auto out = writer.Remember(alice_, {UserTurn("y", kT0 + kDay)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(resolver->calls, 2);
  ASSERT_EQ(out->writes.size(), 1u);
  EXPECT_EQ(out->writes[0].decision, WriteDecision::kSupersede);
  EXPECT_EQ(ActiveContents(), std::vector<std::string>{"lives in Shanghai"});
}

TEST_F(MemoryWriterTest, EmptyMessagesAreRefused) {
  MemoryWriter writer(engine_.get(), WriterOptions{});
  EXPECT_EQ(writer.Remember(alice_, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.Remember(alice_, {UserTurn("", kT0)}).status().code(),
            StatusCode::kInvalidArgument);
}

// ---- end to end with the built-in rule extractor and resolver ----

class RuleScenarioTest : public MemoryWriterTest {
 protected:
  RememberResult Say(const std::string& text) {
    clock_.Advance(kDay);
    auto out = writer_->Remember(alice_, {UserTurn(text, clock_.NowMs())});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : RememberResult{};
  }
  std::unique_ptr<MemoryWriter> writer_ =
      nullptr;
  void SetUp() override {
    MemoryWriterTest::SetUp();
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
  }
  bool ActiveMentions(const std::string& needle) {
    for (const MemoryItem& m : Active()) {
      if (m.content.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(RuleScenarioTest, MovingCitySupersedesTheOldCity) {
  RememberResult a = Say("我住在北京。");
  ASSERT_EQ(a.writes.size(), 1u);
  const std::string beijing_id = a.writes[0].memory.id;
  const TimestampMs said_beijing = clock_.NowMs();
  clock_.Advance(60 * kDay);
  RememberResult b = Say("我上个月搬到上海了");
  ASSERT_EQ(b.writes.size(), 1u);
  EXPECT_EQ(b.writes[0].decision, WriteDecision::kSupersede);
  EXPECT_TRUE(ActiveMentions("上海"));
  EXPECT_FALSE(ActiveMentions("北京"));
  auto old = engine_->Get(alice_, beijing_id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kSuperseded);
  EXPECT_EQ(old->superseded_by, b.writes[0].memory.id);
  auto history = engine_->History(alice_, beijing_id);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].event, HistoryEvent::kSupersede);
  EXPECT_FALSE((*history)[1].reason.empty());
  // What was believed when Beijing was said.
  ListQuery then;
  then.as_of = said_beijing;
  auto page = engine_->List(alice_, then);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 1u);
  EXPECT_EQ(page->items[0].id, beijing_id);
}

TEST_F(RuleScenarioTest, ReversedPreferenceSupersedes) {
  ASSERT_EQ(Say("I love spicy food.").writes.size(), 1u);
  RememberResult r = Say("I don't like spicy food anymore.");
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].decision, WriteDecision::kSupersede);
  ASSERT_EQ(Active().size(), 1u);
  EXPECT_EQ(WithStatus(ItemStatus::kSuperseded).size(), 1u);
}

TEST_F(RuleScenarioTest, TheSameFactTwiceIsStoredOnce) {
  ASSERT_EQ(Say("I'm allergic to peanuts.").writes.size(), 1u);
  RememberResult again = Say("I'm allergic to peanuts.");
  ASSERT_EQ(again.writes.size(), 1u);
  EXPECT_EQ(again.writes[0].decision, WriteDecision::kNoop);
  ASSERT_EQ(Active().size(), 1u);
  EXPECT_GT(Active()[0].importance, 0.5);
}

TEST_F(RuleScenarioTest, ACorrectionReplacesTheWrongFact) {
  ASSERT_EQ(Say("我在腾讯工作").writes.size(), 1u);
  RememberResult r = Say("其实我在阿里巴巴工作");
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].decision, WriteDecision::kSupersede);
  EXPECT_TRUE(ActiveMentions("阿里巴巴"));
  EXPECT_FALSE(ActiveMentions("腾讯"));
}

TEST_F(RuleScenarioTest, AnAllergyAddedLaterKeepsTheFirst) {
  ASSERT_EQ(Say("I'm allergic to peanuts.").writes.size(), 1u);
  RememberResult r = Say("I'm also allergic to shellfish.");
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].decision, WriteDecision::kAdd);
  EXPECT_EQ(Active().size(), 2u);
  EXPECT_TRUE(ActiveMentions("peanut"));
  EXPECT_TRUE(ActiveMentions("shellfish"));
}

TEST_F(RuleScenarioTest, ChitChatStoresNothing) {
  EXPECT_TRUE(Say("你好！").writes.empty());
  EXPECT_TRUE(Say("thanks, that's great").writes.empty());
  EXPECT_TRUE(Active().empty());
}

}  // namespace
}  // namespace engram
