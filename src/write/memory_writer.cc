#include <algorithm>

#include "core/status_macros.h"
#include "engram/write_path.h"
#include "extract/chitchat.h"

namespace engram {
namespace {

// A kept turn is raw material: it ranks below what was distilled from it (search also scales
// a kept turn's relevance, SearchQuery::turn_weight).
constexpr double kTurnImportance = 0.3;

bool IsUserTurn(std::string_view role) {
  return role != "assistant" && role != "system" && role != "tool" && role != "function";
}

std::string ScopeKey(const Scope& s) {
  return std::to_string(s.tenant.size()) + ":" + s.tenant + s.user_id;
}

// The time a candidate was said: its latest source turn's, else the latest turn's.
TimestampMs SaidAt(const Candidate& c, const std::vector<Turn>& turns) {
  TimestampMs at = 0;
  for (size_t i : c.turn_indexes) {
    if (i < turns.size()) at = std::max(at, turns[i].at);
  }
  if (at == 0) {
    for (const Turn& t : turns) at = std::max(at, t.at);
  }
  return at;
}

}  // namespace

MemoryWriter::MemoryWriter(Engine* engine, WriterOptions options)
    : engine_(engine), options_(std::move(options)), rules_(MakeRuleResolver()) {
  if (!options_.extractor) options_.extractor = MakeRuleExtractor();
  if (!options_.resolver) options_.resolver = rules_;
}

std::shared_ptr<std::mutex> MemoryWriter::ScopeLock(const Scope& scope) {
  std::lock_guard<std::mutex> lock(locks_mu_);
  const std::string key = ScopeKey(scope);
  if (auto held = scope_locks_[key].lock()) return held;
  auto made = std::make_shared<std::mutex>();
  scope_locks_[key] = made;
  if (scope_locks_.size() > 4096) {  // forget locks nobody holds
    std::erase_if(scope_locks_, [](const auto& kv) { return kv.second.expired(); });
  }
  return made;
}

Result<std::string> MemoryWriter::ApplyPrivacy(std::string_view text) const {
  ENGRAM_ASSIGN_OR_RETURN(PiiOutcome out, ApplyPiiPolicy(text, options_.privacy));
  return std::move(out.text);
}

Result<std::vector<RememberResult>> MemoryWriter::RememberEach(
    const Scope& scope, const std::vector<RememberItem>& items) {
  std::vector<RememberResult> out;
  for (const RememberItem& item : items) {
    auto r = Remember(scope, item.turns, {}, item.options);
    if (!r.ok()) {
      return items.size() == 1 ? r.status()
                               : r.status().WithContext("memories[" + std::to_string(out.size()) + "]");
    }
    out.push_back(std::move(r).value());
  }
  return out;
}

Result<std::vector<MemoryItem>> MemoryWriter::AddAsGiven(const Scope& scope,
                                                         std::vector<NewMemory> memories) {
  for (size_t i = 0; i < memories.size(); ++i) {
    auto clean = ApplyPrivacy(memories[i].content);
    if (!clean.ok()) {
      return memories.size() == 1 ? clean.status()
                                  : clean.status().WithContext("memories[" + std::to_string(i) + "]");
    }
    memories[i].content = std::move(clean).value();
  }
  return engine_->AddBatch(scope, memories);
}

Result<RememberResult> MemoryWriter::Remember(const Scope& scope, const std::vector<Turn>& turns,
                                              const std::vector<Turn>& context,
                                              const RememberOptions& options) {
  if (turns.empty()) return Status::InvalidArgument("no messages to remember");
  // A turn without a time was said now: relative dates ("yesterday", "上周") resolve from it.
  const TimestampMs now = engine_->Now();
  // Privacy first: a rejected message stores nothing, and no provider sees what the policy
  // redacts.
  ExtractionInput input;
  input.context = context;
  for (size_t i = 0; i < turns.size(); ++i) {
    if (turns[i].content.empty()) {
      return Status::InvalidArgument("message " + std::to_string(i) + " has empty content");
    }
    Turn t = turns[i];
    auto clean = ApplyPrivacy(t.content);
    if (!clean.ok()) return clean.status().WithContext("message " + std::to_string(i));
    t.content = std::move(clean).value();
    if (t.at == 0) t.at = now;
    input.turns.push_back(std::move(t));
  }
  for (Turn& t : input.context) {
    auto clean = ApplyPrivacy(t.content);
    t.content = clean.ok() ? std::move(clean).value() : std::string();
    if (t.at == 0) t.at = now;
  }
  RememberResult result;
  std::vector<bool> keep(input.turns.size(), false);
  bool anything_said = false;
  for (size_t i = 0; i < input.turns.size(); ++i) {
    const Turn& t = input.turns[i];
    if (!IsUserTurn(t.role)) {
      result.skipped.push_back({i, "not said by the user (role '" + t.role +
                                       "'): read as context, not stored"});
    } else if (std::string_view kind = ChitChatKind(t.content); !kind.empty()) {
      result.skipped.push_back({i, "chit-chat (" + std::string(kind) + "): nothing to remember"});
    } else {
      keep[i] = true;
      anything_said = true;
    }
  }
  std::shared_ptr<std::mutex> scope_lock = ScopeLock(scope);
  std::lock_guard<std::mutex> serialized(*scope_lock);
  ExtractionResult extraction;
  extraction.extractor = options_.extractor->name();
  std::string failure;
  if (anything_said) {
    auto extracted = options_.extractor->Extract(input);
    if (extracted.ok()) {
      extraction = std::move(extracted).value();
    } else {
      if (!options.keep_raw_on_failure) return extracted.status();
      failure = extracted.status().ToString();
    }
  }
  result.extractor = failure.empty() ? extraction.extractor : "raw";
  result.extraction_error = failure;
  std::vector<std::string> kept_ids(input.turns.size());
  if (options_.keep_turns || !failure.empty()) {
    ENGRAM_RETURN_IF_ERROR(
        KeepTurns(scope, input.turns, keep, options, failure, &result, &kept_ids));
  } else {
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) result.skipped.push_back({i, "the turn is not kept (keep_turns is off)"});
    }
  }
  const size_t first_memory = result.writes.size();
  for (const Candidate& c : extraction.candidates) {
    ENGRAM_ASSIGN_OR_RETURN(WriteOutcome w,
                            WriteCandidate(scope, c, extraction, input.turns, kept_ids, options));
    result.writes.push_back(std::move(w));
  }
  // The kept turns as they are now, with the links to what they produced.
  for (size_t i = 0; i < first_memory; ++i) {
    auto now_stored = engine_->Get(scope, result.writes[i].memory.id);
    if (now_stored.ok()) result.writes[i].memory = std::move(now_stored).value();
  }
  return result;
}

Status MemoryWriter::KeepTurns(const Scope& scope, const std::vector<Turn>& turns,
                               const std::vector<bool>& keep, const RememberOptions& options,
                               const std::string& failure, RememberResult* result,
                               std::vector<std::string>* kept_ids) {
  std::vector<NewMemory> memories;
  std::vector<size_t> which;
  for (size_t i = 0; i < turns.size(); ++i) {
    if (!keep[i]) continue;
    const Turn& t = turns[i];
    NewMemory m;
    m.content = t.content;
    m.type = MemoryType::kMessage;
    m.tier = Tier::kEpisodic;
    m.tags = options.tags;
    m.metadata = options.metadata;
    m.importance = options.importance.value_or(kTurnImportance);
    m.source.extractor = std::string(kTurnExtractor);
    m.source.session_id = scope.session_id;
    m.source.role = t.role;
    if (!t.id.empty()) m.source.message_ids = {t.id};
    m.created_at = t.at;
    m.valid_from = t.at;
    m.reason = failure.empty() ? "conversation turn kept as said"
                               : "conversation turn kept as said; extraction failed: " + failure;
    memories.push_back(std::move(m));
    which.push_back(i);
  }
  if (memories.empty()) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(auto items, engine_->AddBatch(scope, memories));
  for (size_t k = 0; k < items.size(); ++k) {
    (*kept_ids)[which[k]] = items[k].id;
    WriteOutcome w;
    w.decision = WriteDecision::kAdd;
    w.turn = true;
    w.memory = std::move(items[k]);
    result->writes.push_back(std::move(w));
  }
  return Status::Ok();
}

Result<WriteOutcome> MemoryWriter::WriteCandidate(const Scope& scope, const Candidate& c,
                                                  const ExtractionResult& extraction,
                                                  const std::vector<Turn>& turns,
                                                  const std::vector<std::string>& kept_ids,
                                                  const RememberOptions& options) {
  PlannedWrite w;
  NewMemory& m = w.memory;
  m.content = c.content;
  m.type = c.type;
  m.entities = c.entities;
  m.tags = options.tags;
  m.metadata = options.metadata;
  m.importance = options.importance.value_or(c.importance);
  m.confidence = c.confidence;
  m.slot = c.slot;
  m.source.extractor = extraction.extractor;
  m.source.prompt_version = extraction.prompt_version;
  m.source.session_id = scope.session_id;
  for (size_t i : c.turn_indexes) {
    if (i < turns.size() && !turns[i].id.empty()) m.source.message_ids.push_back(turns[i].id);
    if (i < kept_ids.size() && !kept_ids[i].empty()) m.source.turn_ids.push_back(kept_ids[i]);
  }
  w.turn_ids = m.source.turn_ids;
  const TimestampMs said = SaidAt(c, turns);
  if (said > 0) m.created_at = said;
  if (c.valid_from) m.valid_from = c.valid_from;
  else if (said > 0) m.valid_from = said;

  ENGRAM_ASSIGN_OR_RETURN(auto neighbours,
                          engine_->FindNeighbours(scope, c.content, c.slot, options_.neighbours));
  auto decided = options_.resolver->Decide(c, neighbours);
  if (!decided.ok() && options_.resolver != rules_) {
    // The LLM resolver is down: the rules still make a sound decision.
    decided = rules_->Decide(c, neighbours);
  }
  ENGRAM_RETURN_IF_ERROR(decided.status());
  w.decision = decided->decision;
  w.reason = decided->reason;
  const int target = decided->target;
  if (w.decision != WriteDecision::kAdd) {
    if (target < 0 || target >= static_cast<int>(neighbours.size())) {
      w.decision = WriteDecision::kAdd;  // a resolver bug must not lose the candidate
      w.reason = "ADD (decision named no valid target): " + w.reason;
    } else {
      w.target_id = neighbours[target].item.id;
    }
  }
  if (w.decision == WriteDecision::kUpdate && !decided->merged_content.empty()) {
    m.content = decided->merged_content;
  }
  if (w.decision == WriteDecision::kSupersede && m.valid_from && neighbours[target].item.valid_from > *m.valid_from) {
    m.valid_from = neighbours[target].item.valid_from;  // never close an item before it began
  }
  return engine_->ApplyWrite(scope, w);
}

}  // namespace engram
