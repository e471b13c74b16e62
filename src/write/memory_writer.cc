#include <algorithm>
#include <cmath>

#include "core/status_macros.h"
#include "engram/lifecycle.h"
#include "engram/write_path.h"
#include "extract/changes.h"
#include "extract/chitchat.h"
#include "extract/corrections.h"
#include "text/language.h"

namespace engram {
namespace {

// A Chinese numeral of an amount ("八千", "二十万", "三口"): one of the characters that count.
bool HasChineseNumeral(std::string_view text) {
  for (std::string_view n :
       {"两", "三", "四", "五", "六", "七", "八", "九", "十", "百", "千", "万"}) {
    if (text.find(n) != std::string_view::npos) return true;
  }
  return false;
}

// A kept turn is raw material: it ranks below what was distilled from it (search also scales
// a kept turn's relevance, SearchQuery::turn_weight).
constexpr double kTurnImportance = 0.3;

// Decisions tried for a candidate whose target changed before its commit; then it is added.
constexpr int kDecisionAttempts = 3;
// A correction by name ("not my mom") fixes at most this many more memories of the window.
constexpr int kMaxNamedCorrections = 8;

std::string LowerCase(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

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

bool Names(const Candidate& c, const std::string& name) {
  if (name == kSelfEntity) return true;
  if (c.content.find(name) != std::string::npos || c.value == name) return true;
  return std::find(c.entities.begin(), c.entities.end(), name) != c.entities.end();
}

// What of its turn's graph a candidate states: the relations whose entities its content (or
// its entities, its value) names, with those entities; and the entities it names on their own.
// A relation no candidate names stays with the kept turn only.
GraphFacts GraphOfCandidate(const Candidate& c, const GraphFacts& turn) {
  GraphFacts out;
  std::vector<std::string> wanted;
  for (const GraphRelation& r : turn.relations) {
    // A role word ("老公") the content rewrites ("用户的丈夫"): its named object carries it.
    const bool subject = Names(c, r.subject) || r.subject == kSelfEntity;
    if (!subject || !Names(c, r.object)) continue;
    out.relations.push_back(r);
    wanted.push_back(r.subject);
    wanted.push_back(r.object);
  }
  for (const GraphEntity& e : turn.entities) {
    if (Names(c, e.name) || std::find(wanted.begin(), wanted.end(), e.name) != wanted.end()) {
      out.entities.push_back(e);
    }
  }
  return out;
}

// The union of the candidates' graphs (a turn's, when a model gave each memory its own).
void MergeGraph(const GraphFacts& from, GraphFacts* into) {
  for (const GraphEntity& e : from.entities) {
    auto same = [&](const GraphEntity& x) { return x.name == e.name; };
    if (std::none_of(into->entities.begin(), into->entities.end(), same)) {
      into->entities.push_back(e);
    }
  }
  for (const GraphRelation& r : from.relations) {
    auto same = [&](const GraphRelation& x) {
      return x.subject == r.subject && x.predicate == r.predicate && x.object == r.object &&
             x.ended == r.ended;
    };
    if (std::none_of(into->relations.begin(), into->relations.end(), same)) {
      into->relations.push_back(r);
    }
  }
}

// The slot family: the slot up to its key ("user/pet:豆豆" → "user/pet").
std::string FamilyOf(const std::string& slot) {
  const size_t colon = slot.find(':');
  return colon == std::string::npos ? slot : slot.substr(0, colon);
}

}  // namespace

struct MemoryWriter::Planning {
  const Scope& scope;
  Engine::WriteBatch* batch;
  // Each text's vector, computed once for the message (a retry reuses them).
  std::unordered_map<std::string, std::vector<float>>* vectors;
  // The last attempt: every candidate is added (the memories it was decided against kept
  // changing while it was written).
  bool add_only = false;

  Result<std::vector<float>> VectorOf(const std::string& text) {
    if (auto it = vectors->find(text); it != vectors->end()) return it->second;
    ENGRAM_ASSIGN_OR_RETURN(auto made, batch->Embed({text}));
    return (*vectors)[text] = std::move(made.front());
  }
};

MemoryWriter::MemoryWriter(Engine* engine, WriterOptions options)
    : engine_(engine), options_(std::move(options)), rules_(MakeRuleResolver(options_.rules)) {
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
      return items.size() == 1
                 ? r.status()
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
      return memories.size() == 1
                 ? clean.status()
                 : clean.status().WithContext("memories[" + std::to_string(i) + "]");
    }
    memories[i].content = std::move(clean).value();
    // Stored as given, read for the entity graph all the same: "infer" is about what becomes
    // a memory, and the graph only points at this one.
    if (memories[i].graph.empty()) memories[i].graph = ExtractGraph(memories[i].content);
  }
  return engine_->AddBatch(scope, memories);
}

Result<RememberResult> MemoryWriter::Remember(const Scope& scope, const std::vector<Turn>& turns,
                                              const std::vector<Turn>& context,
                                              const RememberOptions& options) {
  if (turns.empty()) return Status::InvalidArgument("no messages to remember");
  // Checked here: it applies to what is extracted, and a message may yield nothing.
  if (options.importance && !(std::isfinite(*options.importance) && *options.importance >= 0 &&
                              *options.importance <= 1)) {
    return Status::InvalidArgument("importance: must be between 0 and 1, got " +
                                   std::to_string(*options.importance));
  }
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
      result.skipped.push_back(
          {i, "not said by the user (role '" + t.role + "'): read as context, not stored"});
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
  // A short reply about the last answer that no list covers whole ("thx that worked!!") and
  // that gave no statement is chit-chat too (extract/chitchat.h).
  if (failure.empty()) {
    for (size_t i = 0; i < input.turns.size(); ++i) {
      if (!keep[i]) continue;
      const bool stated = std::any_of(
          extraction.candidates.begin(), extraction.candidates.end(), [&](const Candidate& c) {
            return std::find(c.turn_indexes.begin(), c.turn_indexes.end(), i) !=
                   c.turn_indexes.end();
          });
      if (stated) continue;
      if (std::string_view kind = ReplyChitChatKind(input.turns[i].content); !kind.empty()) {
        keep[i] = false;
        result.skipped.push_back(
            {i, "chit-chat (" + std::string(kind) + "): a short reply about the last answer"});
      } else if (std::string_view ask = AskOnlyKind(input.turns[i].content); !ask.empty()) {
        keep[i] = false;
        result.skipped.push_back(
            {i, "a " + std::string(ask) + " to the assistant with nothing about the user"});
      }
    }
  }
  // The entity graph (issue 39): what each kept turn states, from the model's candidates when
  // it gave any, else from the rules; each candidate then gets its share.
  std::vector<GraphFacts> turn_graphs(input.turns.size());
  const bool model_graph = std::any_of(extraction.candidates.begin(), extraction.candidates.end(),
                                       [](const Candidate& c) { return !c.graph.empty(); });
  if (model_graph) {
    for (const Candidate& c : extraction.candidates) {
      for (size_t i : c.turn_indexes) {
        if (i < turn_graphs.size()) MergeGraph(c.graph, &turn_graphs[i]);
      }
    }
  } else {
    for (size_t i = 0; i < input.turns.size(); ++i) {
      if (keep[i]) turn_graphs[i] = ExtractGraph(input.turns[i].content);
    }
    for (Candidate& c : extraction.candidates) {
      for (size_t i : c.turn_indexes) {
        if (i < turn_graphs.size()) MergeGraph(GraphOfCandidate(c, turn_graphs[i]), &c.graph);
      }
    }
  }
  // The whole message is planned, then committed in one transaction: a failure stores none of
  // it. Each text (a kept turn, a candidate) is embedded once, in one call for the message.
  std::unordered_map<std::string, std::vector<float>> vectors;
  {
    std::vector<std::string> texts;
    auto wants = [&](const std::string& text) {
      if (!text.empty() && vectors.emplace(text, std::vector<float>{}).second) {
        texts.push_back(text);
      }
    };
    if (options_.keep_turns || !failure.empty()) {
      for (size_t i = 0; i < input.turns.size(); ++i) {
        if (keep[i]) wants(input.turns[i].content);
      }
    }
    for (const Candidate& c : extraction.candidates) {
      if (!c.bare) wants(c.content);
    }
    if (!texts.empty()) {
      auto batch = engine_->BeginWrites(scope);
      ENGRAM_ASSIGN_OR_RETURN(auto embedded, batch->Embed(texts));
      for (size_t i = 0; i < texts.size(); ++i) vectors[texts[i]] = std::move(embedded[i]);
    }
  }
  const RememberResult before_writes = result;
  // The memories a decision targets may be deleted or purged by another request between the
  // plan and its commit: the message is then planned again against what is there now, and at
  // last its candidates are added on their own. What the user said is never dropped for it.
  for (int attempt = 0;; ++attempt) {
    auto batch = engine_->BeginWrites(scope);
    Planning plan{scope, batch.get(), &vectors, attempt >= kDecisionAttempts};
    result = before_writes;
    std::vector<std::string> kept_ids(input.turns.size());
    if (options_.keep_turns || !failure.empty()) {
      ENGRAM_RETURN_IF_ERROR(
          KeepTurns(plan, input.turns, keep, turn_graphs, options, failure, &result, &kept_ids));
    } else {
      for (size_t i = 0; i < keep.size(); ++i) {
        if (keep[i]) result.skipped.push_back({i, "the turn is not kept (keep_turns is off)"});
      }
    }
    for (const Candidate& extracted : extraction.candidates) {
      Candidate c = extracted;
      if (c.bare) {
        // "wait no, Ellie": the value corrects the memory written moments before.
        BareResolution bare = ResolveBare(plan, c, SaidAt(c, input.turns));
        const size_t turn = c.turn_indexes.empty() ? 0 : c.turn_indexes.front();
        if (!bare.fixed && !bare.uncorrectable_id.empty() && turn < kept_ids.size() &&
            !kept_ids[turn].empty() && !plan.add_only) {
          // "actually it's Sunday, not Saturday" after a fact with a date: no word of the old
          // fact is the value to replace, and no text is made up. The old fact is closed as
          // corrected by the kept turn, which holds what the user said.
          PlannedWrite w;
          w.decision = WriteDecision::kSupersede;
          w.target_id = bare.uncorrectable_id;
          w.superseded_by_turn = kept_ids[turn];
          w.turn_ids = {kept_ids[turn]};
          w.reason = "corrected (\"" + c.value + "\"): the correcting turn holds what holds";
          auto planned = batch->Plan(w);
          if (planned.ok()) {
            result.writes.push_back(std::move(planned).value());
            continue;
          }
          if (planned.status().code() != StatusCode::kNotFound &&
              planned.status().code() != StatusCode::kConflict) {
            return planned.status();
          }
        }
        if (!bare.fixed) {
          result.skipped.push_back(
              {turn, "a correction (\"" + c.value + "\") with no recent memory to correct"});
          continue;
        }
        const Candidate correction = c;
        c = std::move(*bare.fixed);
        ENGRAM_ASSIGN_OR_RETURN(WriteOutcome w, WriteCandidate(plan, c, extraction, input.turns,
                                                               kept_ids, options, &bare));
        result.writes.push_back(std::move(w));
        // "是我爸 不是我妈": every recent memory saying the value taken back is corrected, not
        // only the newest (the one just corrected is no longer active, so each is met once)
        const std::string taken_back =
            LowerCase(correction.ends.empty() ? "" : correction.ends.front());
        const bool repeats = !taken_back.empty() &&
                             LowerCase(correction.value).find(taken_back) != std::string::npos;
        for (int more = 0; bare.by_name && !repeats && more < kMaxNamedCorrections; ++more) {
          bare = ResolveBare(plan, correction, SaidAt(correction, input.turns));
          if (!bare.fixed || !bare.by_name) break;
          Candidate next = std::move(*bare.fixed);
          ENGRAM_ASSIGN_OR_RETURN(
              WriteOutcome again,
              WriteCandidate(plan, next, extraction, input.turns, kept_ids, options, &bare));
          result.writes.push_back(std::move(again));
        }
        continue;
      }
      ENGRAM_ASSIGN_OR_RETURN(WriteOutcome w,
                              WriteCandidate(plan, c, extraction, input.turns, kept_ids, options));
      result.writes.push_back(std::move(w));
    }
    auto committed = batch->Commit();
    if (committed.ok()) {
      // Every write as the transaction left it (the kept turns with the links to what they
      // produced); one outcome per planned write, in the order of result.writes.
      std::vector<WriteOutcome>& stored = committed.value();
      for (size_t i = 0; i < result.writes.size() && i < stored.size(); ++i) {
        result.writes[i].memory = std::move(stored[i].memory);
        result.writes[i].replaced = std::move(stored[i].replaced);
      }
      return result;
    }
    const StatusCode code = committed.status().code();
    if (plan.add_only || (code != StatusCode::kNotFound && code != StatusCode::kConflict)) {
      return committed.status();
    }
  }
}

Status MemoryWriter::KeepTurns(Planning& plan, const std::vector<Turn>& turns,
                               const std::vector<bool>& keep, const std::vector<GraphFacts>& graphs,
                               const RememberOptions& options, const std::string& failure,
                               RememberResult* result, std::vector<std::string>* kept_ids) {
  const Scope& scope = plan.scope;
  for (size_t i = 0; i < turns.size(); ++i) {
    if (!keep[i]) continue;
    const Turn& t = turns[i];
    PlannedWrite w;
    w.decision = WriteDecision::kAdd;
    NewMemory& m = w.memory;
    m.content = t.content;
    m.type = MemoryType::kMessage;
    m.tier = Tier::kEpisodic;
    m.tags = options.tags;
    m.metadata = options.metadata;
    m.importance = kTurnImportance;  // a caller's importance is for what is extracted
    m.source.extractor = std::string(kTurnExtractor);
    m.source.session_id = scope.session_id;
    m.source.role = t.role;
    if (!t.id.empty()) m.source.message_ids = {t.id};
    m.created_at = t.at;
    m.valid_from = t.at;
    m.graph = graphs[i];
    w.reason = failure.empty() ? "conversation turn kept as said"
                               : "conversation turn kept as said; extraction failed: " + failure;
    ENGRAM_ASSIGN_OR_RETURN(w.vector, plan.VectorOf(t.content));
    auto planned = plan.batch->Plan(w);
    if (!planned.ok()) return planned.status().WithContext("message " + std::to_string(i));
    (*kept_ids)[i] = planned->memory.id;
    planned->turn = true;
    result->writes.push_back(std::move(planned).value());
  }
  return Status::Ok();
}

MemoryWriter::BareResolution MemoryWriter::ResolveBare(Planning& plan, const Candidate& c,
                                                       TimestampMs said) {
  // Within the window before the correction was said (a replayed conversation is corrected
  // as it was said, not as of the replay); what this message wrote before it is the newest.
  const TimestampMs after = said - options_.correction_window_ms;
  std::vector<MemoryItem> recent;
  const std::vector<const MemoryItem*> planned = plan.batch->Inserted();
  for (auto it = planned.rbegin(); it != planned.rend(); ++it) {
    const MemoryItem& item = **it;
    if (item.status == ItemStatus::kActive && item.created_at >= after && item.created_at <= said) {
      recent.push_back(item);
    }
  }
  ListQuery q;
  q.created_after = after;
  q.created_before = said + 1;
  q.limit = 50;
  Scope user_scope = plan.scope;
  user_scope.session_id.clear();
  auto page = engine_->List(user_scope, q);
  if (page.ok()) {
    for (MemoryItem& item : page->items) {
      if (const MemoryItem* now = plan.batch->Planned(item.id)) {
        if (now->status != ItemStatus::kActive) continue;
        item = *now;
      }
      recent.push_back(std::move(item));
    }
  }
  // Which recent memory is corrected: the one saying the value the user took back ("corolla*
  // not mazda"); else, for a value of a shape a text can be searched for (a number, a
  // weekday), the newest one holding a value of that shape; else the newest.
  // When no recent memory says the value taken back ("Sunday, not Saturday" after a date the
  // weekday was resolved to), the newest is the one corrected, as for any other value.
  // A city ("no wait, Dayton") replaces the city of the newest memory naming one
  // (places.tsv), not whatever the newest memory's value is.
  const bool zh = HasHan(c.value);
  const bool city = extract::CityIn(c.value, zh).size() * 2 > c.value.size();
  const bool searchable = city || extract::HasSearchableShape(c.value);
  const bool day = !zh && extract::NamesADay(c.value);
  // The taken-back value each recent memory says, as written there ("" when none): read once.
  std::vector<std::string> says(recent.size());
  bool named = false;
  for (size_t i = 0; i < recent.size() && !c.ends.empty(); ++i) {
    if (IsKeptTurn(recent[i])) continue;
    const std::string low = LowerCase(recent[i].content);
    for (const std::string& e : c.ends) {
      if (const size_t k = low.find(LowerCase(e)); k != std::string::npos) {
        says[i] = recent[i].content.substr(k, e.size());
        break;
      }
    }
    named = named || !says[i].empty();
  }
  // "whitford* sorry", "王建华，打错字了": a name or word spelled almost like one a recent memory
  // holds fixes that one
  for (size_t i = 0; i < recent.size() && !named && !searchable; ++i) {
    if (IsKeptTurn(recent[i])) continue;
    says[i] = extract::NearSpelling(recent[i].content, c.value);
    named = !says[i].empty();
  }
  // A number in digits corrects the recent memory holding the nearest number, newest first on
  // a tie: a slip changes a number a little ("66" after "体重68" and "身高180" in two memories)
  std::vector<size_t> order(recent.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (searchable && !named && !city) {
    std::vector<double> distance(recent.size(), 1e9);
    for (size_t i = 0; i < recent.size(); ++i) {
      if (IsKeptTurn(recent[i])) continue;
      if (auto d = extract::NumberDistance(recent[i].content, c.value)) distance[i] = *d;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return distance[a] < distance[b]; });
  }
  std::string first_id;  // the newest memory, corrected by the turn when no value fits
  for (const size_t i : order) {
    const MemoryItem& item = recent[i];
    if (IsKeptTurn(item)) continue;
    std::string old_value;
    if (named) {
      old_value = says[i];
      if (old_value.empty()) continue;
    } else if (city) {
      old_value = extract::CityIn(item.content, zh);
      if (old_value.empty()) continue;
    } else {
      // the item's value: an entity its text holds
      for (const std::string& e : item.entities) {
        if (item.content.find(e) != std::string::npos) {
          old_value = e;
          break;
        }
      }
    }
    // ("Correction: 15th." corrects a date: a memory holding none is not the one it means)
    // (a date the text gave sets valid_from apart from created_at)
    if (first_id.empty() &&
        (!day || item.valid_from != item.created_at || extract::HoldsADate(item.content))) {
      first_id = item.id;
    }
    auto fixed = extract::ReplaceValue(item.content, old_value, c.value);
    if (!fixed && searchable && !named) continue;              // an older memory may hold one
    if (!fixed) return BareResolution{std::nullopt, item.id};  // no value of that shape in it
    Candidate out = c;
    out.bare = false;
    out.content = *fixed;
    out.type = item.type;
    out.importance = item.importance;
    out.slot = item.slot;
    out.exclusive = !item.slot.empty();
    out.entities = item.entities;
    for (std::string& e : out.entities) {
      if (e == old_value) e = c.value;
    }
    if (!old_value.empty() && out.slot.ends_with(":" + LowerCase(old_value))) {
      out.slot.resize(out.slot.size() - old_value.size());
      out.slot += LowerCase(c.value);
    }
    // "my aunt, not my mom": a fact about the person corrected is about the other person
    if (!old_value.empty() && out.slot.starts_with(LowerCase(old_value) + "/")) {
      out.slot = LowerCase(c.value) + out.slot.substr(old_value.size());
    }
    out.valid_from = item.valid_from;
    out.ends.clear();  // what it takes back is in the memory it replaces, not in any other
    return BareResolution{std::move(out), "", item.id, item.valid_from, named};
  }
  if (!first_id.empty()) return BareResolution{std::nullopt, first_id};
  return {};
}

Result<WriteOutcome> MemoryWriter::WriteCandidate(Planning& plan, const Candidate& given,
                                                  const ExtractionResult& extraction,
                                                  const std::vector<Turn>& turns,
                                                  const std::vector<std::string>& kept_ids,
                                                  const RememberOptions& options,
                                                  const BareResolution* corrects) {
  const Scope& scope = plan.scope;
  Candidate c = given;
  if (c.elliptical && !c.slot.empty()) {
    // "预算可以再提高一点，最多八万": the family's latest slot ("user/budget:装修"), this
    // message's own first.
    std::string latest;
    const std::vector<const MemoryItem*> planned = plan.batch->Inserted();
    for (auto it = planned.rbegin(); it != planned.rend() && latest.empty(); ++it) {
      if ((*it)->status == ItemStatus::kActive && !(*it)->slot.empty() &&
          FamilyOf((*it)->slot) == c.slot) {
        latest = (*it)->slot;
      }
    }
    if (latest.empty()) {
      ListQuery q;
      q.slot_family = c.slot;
      q.limit = 1;
      Scope user_scope = scope;
      user_scope.session_id.clear();
      auto page = engine_->List(user_scope, q);
      if (page.ok() && !page->items.empty()) latest = page->items.front().slot;
    }
    if (!latest.empty()) c.slot = latest;
  }
  PlannedWrite w;
  NewMemory& m = w.memory;
  m.content = c.content;
  m.type = c.type;
  m.entities = c.entities;
  m.graph = c.graph;
  m.tags = options.tags;
  if (c.critical && std::find(m.tags.begin(), m.tags.end(), kCriticalTag) == m.tags.end()) {
    m.tags.emplace_back(kCriticalTag);
  }
  m.expires_at = c.expires_at;
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
  if (c.valid_from)
    m.valid_from = c.valid_from;
  else if (said > 0)
    m.valid_from = said;

  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vector, plan.VectorOf(c.content));
  // The memory a decision targets may be deleted or purged by another request between the
  // decision and its plan: the candidate is then decided again against what is there now, and
  // at last added on its own. What the user said is never dropped for it.
  const PlannedWrite base = std::move(w);
  for (int attempt = 0;; ++attempt) {
    w = base;
    w.vector = vector;
    if (corrects && !corrects->target_id.empty() && attempt == 0 && !plan.add_only) {
      // A bare correction replaces the memory it was resolved against, whatever else is newer;
      // the corrected value held all along, and what it corrects never held.
      w.decision = WriteDecision::kSupersede;
      w.target_id = corrects->target_id;
      w.memory.valid_from = corrects->target_from;
      w.reason = "SUPERSEDE (corrected to \"" + c.value + "\")";
    } else if (attempt < kDecisionAttempts && !plan.add_only) {
      ENGRAM_RETURN_IF_ERROR(DecideWrite(plan, c, said, vector, &w));
    } else {
      w.reason = "ADD (the memories it was decided against changed while it was written)";
    }
    auto planned = plan.batch->Plan(w);
    const StatusCode code = planned.status().code();
    if (planned.ok() || w.decision == WriteDecision::kAdd ||
        (code != StatusCode::kNotFound && code != StatusCode::kConflict)) {
      return planned;
    }
  }
}

Status MemoryWriter::DecideWrite(Planning& plan, const Candidate& c, TimestampMs said,
                                 const std::vector<float>& vector, PlannedWrite* planned) {
  PlannedWrite& w = *planned;
  NewMemory& m = w.memory;
  NeighbourQuery nq;
  nq.content = c.content;
  nq.vector = vector;
  nq.slot = c.slot;
  nq.k = options_.neighbours;
  nq.ends = c.ends;
  // a number in it may be a new amount of a budget or an amount the user gave (resolver 1c)
  nq.amounts = std::any_of(c.content.begin(), c.content.end(),
                           [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }) ||
               HasChineseNumeral(c.content);
  if (c.correction)
    nq.latest_since = (said > 0 ? said : engine_->Now()) - options_.correction_window_ms;
  ENGRAM_ASSIGN_OR_RETURN(auto neighbours, plan.batch->FindNeighbours(nq));
  // Items written by this very message are not what a correction in it corrects, unless they
  // share its slot family: the turn's own ADDs come first in `neighbours` by time only.
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
  for (int i : decided->also_supersede) {
    if (i >= 0 && i < static_cast<int>(neighbours.size()) && i != target) {
      w.also_supersede.push_back(neighbours[i].item.id);
    }
  }
  if (w.decision == WriteDecision::kAdd || w.decision == WriteDecision::kSupersede) {
    // What the candidate says ended ("I quit coffee") ends, whichever resolver decided.
    for (size_t i = 0; i < neighbours.size(); ++i) {
      const std::string& id = neighbours[i].item.id;
      if (neighbours[i].ended && static_cast<int>(i) != target &&
          std::find(w.also_supersede.begin(), w.also_supersede.end(), id) ==
              w.also_supersede.end()) {
        w.also_supersede.push_back(id);
      }
    }
  }
  if (w.decision == WriteDecision::kUpdate && !decided->merged_content.empty() &&
      decided->merged_content != m.content) {
    m.content = decided->merged_content;
    ENGRAM_ASSIGN_OR_RETURN(w.vector, plan.VectorOf(m.content));
  }
  if (w.decision == WriteDecision::kSupersede) {
    const MemoryItem& old = neighbours[target].item;
    // What replaces a fact takes its place: "we're doing Porto instead of Lisbon" answers what
    // the Lisbon trip answered.
    // A statement that names what ended ("scrapped iceland", "had to rehome Kiwi") says what no
    // longer holds, not what holds now: it does not answer for the slot.
    const bool names_ended = std::any_of(c.ends.begin(), c.ends.end(), [&](const std::string& e) {
      return !e.empty() && LowerCase(m.content).find(LowerCase(e)) != std::string::npos;
    });
    if (m.slot.empty() && !old.slot.empty() && neighbours[target].ended &&
        c.type != MemoryType::kEvent && !names_ended) {
      m.slot = old.slot;
    }
    // "can go up to 18k now" replacing the car budget is the budget now: it answers for it
    if (m.slot.empty() && neighbours[target].amount && old.slot.starts_with("user/") &&
        c.type != MemoryType::kEvent) {
      m.slot = old.slot;
    }
    if (c.correction) {
      // The corrected value held all along; what it corrects never held (its validity closes
      // where it began).
      m.valid_from = old.valid_from;
    } else if (!m.valid_from || *m.valid_from <= old.valid_from) {
      // A new value said to start no later than the old one began: it holds from when it was
      // said, so the old one keeps a validity of its own.
      m.valid_from = std::max(said, old.valid_from + 1);
    }
  }
  return Status::Ok();
}

}  // namespace engram
