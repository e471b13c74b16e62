// The write path's pluggable parts: extractors turn conversation turns into candidate memories,
// conflict resolvers decide what a candidate does to the memories already stored
// (product.md, "Write path"; docs/architecture.md, "Write path").
//
// Both are interfaces so the built-in rules and an LLM (include/engram/llm.h) are
// interchangeable, and tests can replay provider responses. Implementations are thread-safe:
// one instance serves every request of a server.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/graph.h"
#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

// One conversation turn given to the write path.
struct Turn {
  std::string role;     // "user", "assistant", "system", or a speaker name
  std::string content;  // UTF-8
  TimestampMs at = 0;  // when it was said; relative dates ("昨天", "next Friday") resolve from it
  std::string id;      // the stored message id once known, else empty
};

struct ExtractionInput {
  std::vector<Turn> turns;    // the new turns to extract from, oldest first
  std::vector<Turn> context;  // earlier turns of the session, for reference only (may be empty)
};

// A memory an extractor proposes. Content is in the language of the input (Chinese in,
// Chinese out); the write path embeds, checks privacy and resolves conflicts before storing.
struct Candidate {
  MemoryType type = MemoryType::kFact;
  std::string content;
  double importance = 0.5;  // 0..1
  double confidence = 0.8;  // 0..1; below the extractor's threshold a candidate is dropped
  std::vector<std::string> entities;
  // Subject + attribute, for conflict detection: two active items of one scope with the same
  // slot describe the same thing ("user/location", "user/employer", "user/likes:coffee").
  // Empty when the statement has no single-valued slot (a one-off event, a free fact).
  std::string slot;
  // True when the slot holds one value at a time (a home city, an employer): a different value
  // supersedes the old one. False for multi-valued slots (likes, allergies, pets).
  bool exclusive = false;
  // True when the speaker corrects something said before ("其实我…", "actually I…").
  bool correction = false;
  std::optional<TimestampMs> valid_from;  // when the fact began to hold, if the text says
  std::vector<size_t> turn_indexes;       // which ExtractionInput::turns it came from
  // The value the statement gives its slot, as said ("Seattle", "$5,500", "豆包"); empty when
  // it has none. A repeat with the same slot and value is the same fact.
  std::string value;
  // Values the statement says stopped holding ("I quit coffee" → "coffee", "switched from
  // sertraline to Wellbutrin" → "sertraline", "旺财去世了" → "旺财"): the write path supersedes
  // the active memory that states one.
  std::vector<std::string> ends;
  // The slot names a keyed family only ("user/budget" for "预算可以再提高一点，最多八万"): the
  // write path compares the candidate with the family's latest item ("user/budget:装修").
  bool elliptical = false;
  // A correction that gives only the new value ("wait no, Ellie"; content is that value): the
  // write path applies it to the user's latest memory, written moments before.
  bool bare = false;
  // When it stops being worth recalling: a wish, plan or whereabouts for a day or a week
  // ("今天想吃川菜", "this week I'm in Tokyo") lapses when that day or week is over. Empty:
  // never (an allergy, a job).
  std::optional<TimestampMs> expires_at;
  // A health or safety fact (an allergy, a medication) or one the user asked to keep
  // ("remember this", "记住"): stored with kCriticalTag, never forgotten automatically.
  bool critical = false;
  // The entities and relations this memory states (include/engram/graph.h). An LLM extractor
  // fills it from the model's reply; when no candidate of a result has one, the write path
  // reads each kept turn with ExtractGraph and gives a candidate the relations of its turn that
  // name what its content names.
  GraphFacts graph;
};

struct ExtractionResult {
  std::vector<Candidate> candidates;
  std::string extractor;       // recorded in Source::extractor: "rules-v2", "llm:<model>"
  std::string prompt_version;  // recorded in Source::prompt_version; empty for rules
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual const std::string& name() const = 0;
  // Candidates from `input` (possibly none: greetings and chit-chat give none).
  // Unavailable when a remote provider failed after its retries; the caller keeps the turns.
  virtual Result<ExtractionResult> Extract(const ExtractionInput& input) = 0;
};

// The built-in extractor ("rules-v2") for Chinese and English: every statement a user makes
// about themselves or the people they know (a first-person clause with content, reported
// speech, third-person facts about family and friends), each clause of a message on its own,
// typed (fact, preference, goal, event, skill, opinion, decision, commitment) with an
// importance from cues, and slots with values for the attributes people change (home, work,
// school, partner, family, pets, diet, habits, health and medication, budgets and amounts,
// schedules, devices, languages, contact details, plans). Needs no model and no network;
// deterministic. Reads turns whose role is not assistant/system/tool. Content keeps the user's
// words in the third person ("User lives in Boston with their wife", "用户住在上海"); relative
// dates ("昨天", "next Friday") resolve from Turn::at in UTC calendar days
// (src/text/time_expressions.h) into valid_from and the content. What it reads and leaves:
// src/extract/README.md.
struct RuleExtractorOptions {
  double min_confidence = 0.5;  // candidates below are dropped
};
std::unique_ptr<Extractor> MakeRuleExtractor(const RuleExtractorOptions& options = {});

// The entity graph's rules (issue 39): the entities and relations one message of the user
// states, zh and en, with the word lists of data/lexicon/*/graph_*.tsv: people named with a
// role ("我老公老王", "my wife Anna": the role becomes an alias), pets, places, organisations,
// projects and products in relation frames ("S住在O", "S works at O", "O的负责人是S"), and
// known places and projects as mentions. What it cannot place it leaves out. Deterministic,
// thread-safe, no time: the write path dates each relation by its turn.
GraphFacts ExtractGraph(std::string_view text);

// What a candidate does to the stored memories.
enum class WriteDecision {
  kAdd,        // new information: store it
  kUpdate,     // the same fact, said more richly: merge into the target, keeping its id
  kSupersede,  // contradicts the target: store the candidate, close the target (valid_to, status
               // superseded, superseded_by), never delete it
  kNoop,       // already known: reinforce the target (importance, access), store nothing
};
// "ADD", "UPDATE", "SUPERSEDE", "NOOP" (the event names of the API's results).
inline std::string_view ToString(WriteDecision decision) {
  switch (decision) {
    case WriteDecision::kUpdate:
      return "UPDATE";
    case WriteDecision::kSupersede:
      return "SUPERSEDE";
    case WriteDecision::kNoop:
      return "NOOP";
    case WriteDecision::kAdd:
      break;
  }
  return "ADD";
}

// A stored memory the candidate is compared with: the scope's active items with the same slot
// and its nearest neighbours by vector similarity.
struct Neighbour {
  MemoryItem item;
  double similarity = 0;   // cosine of the two vectors, -1..1
  bool same_slot = false;  // item's slot equals the candidate's (both non-empty)
  // The item's slot is in the candidate's slot family (the slot up to ':': "user/pet:豆豆" and
  // "user/pet:逗逗"); the family's most recent items are always among the neighbours.
  bool same_family = false;
  // The item states a value the candidate says stopped holding (Candidate::ends).
  bool ended = false;
  // The user's most recent extracted memory, written within the correction window before this
  // message: what a correction with no slot of its own corrects.
  bool latest = false;
  // Written by the message being written (Engine::WriteBatch), not before it: what the message
  // says alongside the candidate, which a change in it does not outdate.
  bool this_message = false;
  // The user's budget or amount (slot families user/budget, user/amount), asked for because the
  // candidate states an amount (NeighbourQuery::amounts): what a new amount may replace.
  bool amount = false;
};

struct DecisionResult {
  WriteDecision decision = WriteDecision::kAdd;
  int target = -1;             // index into the neighbours; -1 for kAdd
  std::string merged_content;  // kUpdate: the content the target takes (empty: candidate's)
  std::string reason;          // recorded in the history row, e.g. "same slot user/location"
  // kAdd, kSupersede: other neighbours the new item also replaces (what the candidate says
  // ended: "I quit coffee" closes every active memory of drinking coffee). Valid indexes only.
  std::vector<int> also_supersede;
};

class ConflictResolver {
 public:
  virtual ~ConflictResolver() = default;
  virtual const std::string& name() const = 0;
  // Unavailable when a remote provider failed after its retries (the caller then falls back
  // to the rules). A returned target is always a valid index, or -1 with kAdd.
  virtual Result<DecisionResult> Decide(const Candidate& candidate,
                                        const std::vector<Neighbour>& neighbours) = 0;
};

// The built-in resolver: same exclusive slot with different content → SUPERSEDE; the same slot
// and value, or near-identical text → NOOP (UPDATE when the candidate says more); a correction
// → SUPERSEDE what it corrects (same slot, else the slot family's latest, else the user's latest
// memory); a value said to have ended → SUPERSEDE the memory stating it; else ADD.
struct RuleResolverOptions {
  // A neighbour whose words overlap the candidate's this much (Jaccard of analyzer terms) with
  // the same polarity and numbers is the same statement: NOOP, or UPDATE when the candidate is
  // longer. 1 turns it off.
  double duplicate_overlap = 0.7;
  // Vector similarity at or above which a neighbour is the same statement (same polarity and
  // numbers): NOOP. The built-in hash embedder is lexical, so this is a paraphrase test only with
  // a neural embedder.
  double duplicate_similarity = 0.95;
};
std::unique_ptr<ConflictResolver> MakeRuleResolver(const RuleResolverOptions& options = {});

}  // namespace engram
