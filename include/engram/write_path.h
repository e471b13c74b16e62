// MemoryWriter: the write path from conversation turns to stored memories (product.md,
// "Write path"): privacy policy → extraction → each user turn kept as an episodic item (unless
// it is chit-chat) → for each candidate, its neighbours (same slot, nearest by vector) → a
// decision (ADD / UPDATE / SUPERSEDE / NOOP) → one transaction per candidate
// (Engine::ApplyWrite), with the decision and its reason in the item's history and the links
// between the candidate and the turns it came from.
//
// Threads: safe to share; calls for one scope are serialized so two concurrent messages of
// one user cannot both ADD the same fact. Owns nothing but its options; the Engine outlives it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/engine.h"
#include "engram/extraction.h"
#include "engram/privacy.h"

namespace engram {

struct WriterOptions {
  std::shared_ptr<Extractor> extractor;        // default: MakeRuleExtractor()
  std::shared_ptr<ConflictResolver> resolver;  // default: MakeRuleResolver(rules)
  PiiPolicy privacy;                           // default: keep
  int neighbours = 5;                          // nearest items compared with each candidate
  // Keep every user turn that is not chit-chat as an episodic `message` item of its own
  // (IsKeptTurn), linked both ways with what is extracted from it, so nothing said is lost.
  // false: facts only (a turn is then stored only when extraction fails).
  bool keep_turns = true;
  // Thresholds of the rule resolver: the default resolver, and the fallback when the given
  // one (an LLM) fails.
  RuleResolverOptions rules;
  // A correction that names no slot of its own ("wait no, Ellie", "sorry, I meant Dallas")
  // applies to the user's latest memory when it was written this recently.
  int64_t correction_window_ms = 10 * 60 * 1000;
};

// Defaults for the memories a Remember call stores.
struct RememberOptions {
  std::vector<std::string> tags;
  std::string metadata = "{}";
  std::optional<double> importance;  // overrides the extractor's
  // When extraction fails: true stores the turns as episodic messages (nothing is lost) and
  // succeeds; false returns the extractor's error (an asynchronous job retries it later).
  bool keep_raw_on_failure = true;
};

// A turn the write path did not keep, and why ("chit-chat", "not said by the user").
struct SkippedTurn {
  size_t turn = 0;  // index into the turns given to Remember
  std::string reason;
};

struct RememberResult {
  // The kept turns first (WriteOutcome::turn, decision kAdd, as stored after their links were
  // written), then one per stored or reinforced memory, in order.
  std::vector<WriteOutcome> writes;
  std::vector<SkippedTurn> skipped;  // turns not kept, with the reason
  std::string extractor;             // who extracted ("rules-v2", "llm:<model>", "raw")
  // Set when extraction failed (the provider was down, its reply unusable): the turns were
  // then stored as episodic `message` items so nothing the user said is lost, and this says
  // why. The call itself still succeeds.
  std::string extraction_error;
};

// One extraction request of a batch: its turns and options.
struct RememberItem {
  std::vector<Turn> turns;
  RememberOptions options;
};

class MemoryWriter {
 public:
  MemoryWriter(Engine* engine, WriterOptions options);

  // Extracts memories from `turns` (context: earlier turns, for reference) and applies them.
  // InvalidArgument when the privacy policy rejects a turn (nothing is stored) or a turn is
  // empty; store errors as Engine returns them.
  Result<RememberResult> Remember(const Scope& scope, const std::vector<Turn>& turns,
                                  const std::vector<Turn>& context = {},
                                  const RememberOptions& options = {});

  // Remember for each item in order; stops at the first failure (earlier items stay stored),
  // naming it "memories[i]" when there is more than one.
  Result<std::vector<RememberResult>> RememberEach(const Scope& scope,
                                                   const std::vector<RememberItem>& items);

  // Memories stored as given (no extraction), after the privacy policy: all or none.
  Result<std::vector<MemoryItem>> AddAsGiven(const Scope& scope, std::vector<NewMemory> memories);

  // The privacy policy applied to one text.
  Result<std::string> ApplyPrivacy(std::string_view text) const;

  const WriterOptions& options() const { return options_; }

 private:
  // One attempt at writing a message: its kept turns and candidates planned in one
  // Engine::WriteBatch, each text's vector computed once for all attempts (memory_writer.cc).
  struct Planning;
  struct BareResolution;
  Result<WriteOutcome> WriteCandidate(Planning& plan, const Candidate& candidate,
                                      const ExtractionResult& extraction,
                                      const std::vector<Turn>& turns,
                                      const std::vector<std::string>& kept_ids,
                                      const RememberOptions& options,
                                      const BareResolution* corrects = nullptr);
  // Decides what the candidate does against its neighbours as the plan sees them (what is
  // stored, and what the message wrote before it): fills `w`'s decision, reason, target and
  // what it also supersedes (and adjusts its slot and validity).
  Status DecideWrite(Planning& plan, const Candidate& c, TimestampMs said,
                     const std::vector<float>& vector, PlannedWrite* w);
  // Plans the turns marked in `keep` as episodic items; kept_ids[i] is turn i's item id (empty
  // when not kept). `failure` (extraction's error, or empty) goes into their ADD reason.
  // graphs[i]: what turn i states in the entity graph, stored with it.
  Status KeepTurns(Planning& plan, const std::vector<Turn>& turns, const std::vector<bool>& keep,
                   const std::vector<GraphFacts>& graphs, const RememberOptions& options,
                   const std::string& failure, RememberResult* result,
                   std::vector<std::string>* kept_ids);
  // A bare correction (Candidate::bare) made whole from the memory it corrects: the user's
  // latest extracted memory said within the correction window before `said` (the message's
  // own earlier ones included), its value replaced (`fixed`). When that memory's text has no
  // value of the correction's shape, its id (`uncorrectable_id`); neither when there is none.
  struct BareResolution {
    std::optional<Candidate> fixed;
    std::string uncorrectable_id;
    std::string target_id;        // the memory `fixed` corrects
    TimestampMs target_from = 0;  // … and when it was said to begin holding
    bool by_name = false;         // the target says the value taken back: others may too
  };
  BareResolution ResolveBare(Planning& plan, const Candidate& c, TimestampMs said);
  std::shared_ptr<std::mutex> ScopeLock(const Scope& scope);

  Engine* engine_;
  WriterOptions options_;
  std::shared_ptr<ConflictResolver> rules_;  // the fallback when options_.resolver fails

  std::mutex locks_mu_;
  std::unordered_map<std::string, std::weak_ptr<std::mutex>> scope_locks_;  // guarded
};

}  // namespace engram
