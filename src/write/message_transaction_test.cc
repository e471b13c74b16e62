// A message is written whole or not at all (issue 35, item 8): its kept turns and every
// candidate's decision are planned in one Engine::WriteBatch and committed in one transaction;
// a candidate is compared with what the same message wrote before it; each text is embedded
// once; a target changed by another request before the commit makes the whole message planned
// again, never stored twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "engram/write_path.h"
#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

// The hash embedder, counting what it is asked to embed.
class CountingEmbedder : public Embedder {
 public:
  CountingEmbedder() : inner_(MakeHashEmbedder({}).value()) {}
  const std::string& model() const override { return inner_->model(); }
  int dimension() const override { return inner_->dimension(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    for (const std::string& t : texts) ++embedded_[t];
    return inner_->Embed(texts);
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_ = 0;
    embedded_.clear();
  }
  int calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::map<std::string, int> embedded() {
    std::lock_guard<std::mutex> lock(mu_);
    return embedded_;
  }

 private:
  std::unique_ptr<Embedder> inner_;
  std::mutex mu_;
  int calls_ = 0;
  std::map<std::string, int> embedded_;
};

class MessageTransactionTest : public WriterTest {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<CountingEmbedder>();
    EngineOptions options;
    options.embedder = counting_;
    engine_ = testing::OpenEngine(dir_.File("m.db"), &clock_, options);
  }
  MemoryWriter Scripted(std::vector<Candidate> candidates,
                        std::shared_ptr<ConflictResolver> resolver = nullptr) {
    ExtractionResult r{std::move(candidates), "scripted-v1", ""};
    auto extractor = std::make_shared<ScriptedExtractor>(std::vector<Result<ExtractionResult>>{r});
    return MemoryWriter(engine_.get(), WriterOptions{.extractor = extractor, .resolver = resolver});
  }
  std::shared_ptr<CountingEmbedder> counting_;
};

// The second candidate fails (its text is over the content limit) after the turn and the first
// candidate were planned: nothing of the message is stored, not even the turn.
TEST_F(MessageTransactionTest, AFailingCandidateStoresNothingOfTheMessage) {
  auto seeded = engine_->Add(alice_, NewMemory{.content = "User likes tea"});
  ASSERT_TRUE(seeded.ok()) << seeded.status().ToString();
  MemoryWriter writer = Scripted(
      {Cand("User lives in Hangzhou", "user/location", true), Cand(std::string(20'000, 'x'))});
  auto out = writer.Remember(alice_, {UserTurn("I live in Hangzhou", kT0, "m1")});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument) << out.status().ToString();
  EXPECT_TRUE(KeptTurns().empty());
  const std::vector<MemoryItem> memories = ActiveMemories();
  ASSERT_EQ(memories.size(), 1u);
  EXPECT_EQ(memories[0].content, "User likes tea");
  // Searching finds nothing of it either: the index was not touched.
  SearchQuery q;
  q.text = "Hangzhou";
  auto hits = engine_->Search(alice_, q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  for (const SearchHit& h : *hits) EXPECT_EQ(h.item.content.find("Hangzhou"), std::string::npos);
}

// The kept turn and both candidates are embedded in one call, each text once, though each
// candidate is compared with its neighbours and then stored.
TEST_F(MessageTransactionTest, EachTextOfAMessageIsEmbeddedOnce) {
  ASSERT_TRUE(
      engine_->Add(alice_, NewMemory{.content = "User lives in Beijing", .slot = "user/location"})
          .ok());
  counting_->Reset();
  MemoryWriter writer = Scripted({Cand("User lives in Hangzhou", "user/location", true),
                                  Cand("User has a dog named Mochi", "user/pet:mochi")});
  const std::string said = "moved to Hangzhou! and my dog Mochi came too";
  auto out = writer.Remember(alice_, {UserTurn(said, kT0, "m1")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(Memories(*out).size(), 2u);
  EXPECT_EQ(Memories(*out)[0].decision, WriteDecision::kSupersede);  // Beijing → Hangzhou
  EXPECT_EQ(counting_->calls(), 1);
  const std::map<std::string, int> expected{
      {said, 1}, {"User lives in Hangzhou", 1}, {"User has a dog named Mochi", 1}};
  EXPECT_EQ(counting_->embedded(), expected);
  // What was stored carries those vectors: each item's is its own text's.
  auto hash = MakeHashEmbedder({}).value();
  for (const WriteOutcome& w : out->writes) {
    auto stored = engine_->GetVector(alice_, w.memory.id, counting_->model());
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    auto own = hash->Embed({w.memory.content});
    ASSERT_TRUE(own.ok());
    EXPECT_EQ(*stored, own->front()) << w.memory.content;
  }
}

// Two values of one exclusive slot in one message: the second replaces the first, which the
// message itself wrote moments before in the same transaction.
TEST_F(MessageTransactionTest, ALaterCandidateIsComparedWithWhatTheMessageWroteBeforeIt) {
  MemoryWriter writer = Scripted({Cand("User lives in Beijing", "user/location", true),
                                  Cand("User lives in Hangzhou", "user/location", true)});
  auto out = writer.Remember(alice_,
                             {UserTurn("lived in Beijing till May, now it's Hangzhou", kT0, "m1")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<WriteOutcome> written = Memories(*out);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].decision, WriteDecision::kAdd);
  EXPECT_EQ(written[1].decision, WriteDecision::kSupersede);
  EXPECT_EQ(written[1].replaced.id, written[0].memory.id);
  // The outcomes show the items as the transaction left them.
  EXPECT_EQ(written[0].memory.status, ItemStatus::kSuperseded);
  EXPECT_EQ(written[0].memory.superseded_by, written[1].memory.id);
  const std::vector<MemoryItem> active = ActiveMemories();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].content, "User lives in Hangzhou");
  auto old = engine_->Get(alice_, written[0].memory.id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kSuperseded);
  EXPECT_EQ(old->created_at, kT0);
  // The turn links both, in the same transaction.
  const std::vector<MemoryItem> turns = KeptTurns();
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].derived_ids.size(), 2u);
  EXPECT_EQ(Turns(*out).front().memory.derived_ids, turns[0].derived_ids);
}

// The first candidate is decided against a stored memory that another request deletes while
// the second candidate is decided: the commit finds its target gone, nothing is stored by it,
// and the whole message is planned again — the turn is stored once, both candidates are kept.
class DeletesOnSecondDecision : public ConflictResolver {
 public:
  DeletesOnSecondDecision(Engine* engine, Scope scope) : engine_(engine), scope_(scope) {}
  const std::string& name() const override { return name_; }
  Result<DecisionResult> Decide(const Candidate& c, const std::vector<Neighbour>& n) override {
    ++calls;
    if (c.content == "User owns a bike") {
      if (!raced) {
        raced = true;
        EXPECT_TRUE(engine_->Delete(scope_, hiking_id).ok());
      }
      return DecisionResult{WriteDecision::kAdd, -1, "", "new", {}};
    }
    for (size_t i = 0; i < n.size(); ++i) {
      if (n[i].item.id == hiking_id) {
        return DecisionResult{WriteDecision::kNoop, static_cast<int>(i), "", "same", {}};
      }
    }
    return DecisionResult{WriteDecision::kAdd, -1, "", "nothing like it", {}};
  }
  std::string hiking_id;
  bool raced = false;
  int calls = 0;

 private:
  std::string name_ = "deletes-on-second";
  Engine* engine_;
  Scope scope_;
};

TEST_F(MessageTransactionTest, ATargetGoneBeforeTheCommitPlansTheWholeMessageAgain) {
  auto hiking = engine_->Add(alice_, NewMemory{.content = "User loves hiking"});
  ASSERT_TRUE(hiking.ok());
  auto resolver = std::make_shared<DeletesOnSecondDecision>(engine_.get(), alice_);
  resolver->hiking_id = hiking->id;
  MemoryWriter writer = Scripted({Cand("User loves hiking"), Cand("User owns a bike")}, resolver);
  auto out = writer.Remember(alice_, {UserTurn("love hiking, and I got a bike", kT0, "m1")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(resolver->raced);
  EXPECT_EQ(resolver->calls, 4);  // two decisions, twice
  const std::vector<WriteOutcome> written = Memories(*out);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].decision, WriteDecision::kAdd);  // its NOOP target is gone
  EXPECT_EQ(written[1].decision, WriteDecision::kAdd);
  EXPECT_EQ(KeptTurns().size(), 1u);
  std::vector<std::string> contents;
  for (const MemoryItem& m : ActiveMemories()) contents.push_back(m.content);
  std::sort(contents.begin(), contents.end());
  EXPECT_EQ(contents, (std::vector<std::string>{"User loves hiking", "User owns a bike"}));
  auto gone = engine_->Get(alice_, hiking->id);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status, ItemStatus::kDeleted);
  // The failed attempt left no history on the deleted memory beyond its deletion.
  auto history = engine_->History(alice_, hiking->id);
  ASSERT_TRUE(history.ok());
  for (const HistoryEntry& h : *history) {
    EXPECT_EQ(h.reason.find("NOOP"), std::string::npos) << h.reason;
  }
}

}  // namespace
}  // namespace engram
