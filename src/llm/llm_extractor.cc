// Extraction by an LLM: prompts/extract-v4.txt filled with the turns and their times, the
// reply held to the {"memories":[...]} contract (json_exchange.h), then two filters: the
// confidence threshold and the language check (Chinese in, Chinese out).
#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/llm.h"
#include "llm/json_exchange.h"
#include "llm/prompts.h"
#include "text/language.h"

namespace engram {
namespace {

using json = nlohmann::json;

constexpr int64_t kDayMs = 86'400'000;
constexpr const char* kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday"};

// "2026-03-12 Thursday 21:05", in the users' local time.
std::string DescribeTime(TimestampMs t, int utc_offset_minutes) {
  const TimestampMs local = t + int64_t{utc_offset_minutes} * 60'000;
  const std::string iso = FormatTimestamp(local);  // "2026-03-12T21:05:00.000Z"
  int64_t days = local / kDayMs;
  if (local % kDayMs < 0) --days;
  const int64_t weekday = ((days + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
  return iso.substr(0, 10) + " " + kWeekdays[weekday] + " " + iso.substr(11, 5);
}

bool IsUserRole(const std::string& role) { return role != "assistant" && role != "system"; }

std::string_view LanguageName(Language language) {
  switch (language) {
    case Language::kChinese:
      return "Chinese (中文)";
    case Language::kJapanese:
      return "Japanese (日本語)";
    case Language::kKorean:
      return "Korean (한국어)";
    case Language::kLatin:
      return "English";
    case Language::kUnknown:
      break;
  }
  return "the language of the user's messages";
}

// The language the memories must be in: that of what the user said (all turns if none).
Language InputLanguage(const ExtractionInput& input) {
  std::string said;
  for (const Turn& turn : input.turns) {
    if (IsUserRole(turn.role)) said += turn.content + "\n";
  }
  if (said.empty()) {
    for (const Turn& turn : input.turns) said += turn.content + "\n";
  }
  return DetectLanguage(said);
}

// A content that is only a name or a model ("iPhone 12", "Kindle Paperwhite", "MacBook Air
// M2"): in no language, and not to be translated.
bool OnlyAName(std::string_view content) {
  size_t words = 0;
  for (size_t i = 0; i < content.size();) {
    while (i < content.size() && content[i] == ' ') ++i;
    if (i >= content.size()) break;
    size_t e = i;
    while (e < content.size() && content[e] != ' ') ++e;
    const std::string_view w = content.substr(i, e - i);
    ++words;
    const bool digit = std::any_of(
        w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    const bool capital = std::any_of(
        w.begin(), w.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    if (!digit && !capital) return false;
    i = e;
  }
  return words > 0 && words <= 3;
}

bool WrongLanguage(const Candidate& candidate, Language want) {
  if (want == Language::kUnknown) return false;
  const Language got = DetectLanguage(candidate.content);
  if (got == Language::kUnknown || got == want) return false;
  if (OnlyAName(candidate.content)) return false;
  // Chinese content full of names, addresses and products ("Kindle坏了", "用户邮箱是
  // wang@163.com") counts as Latin by letters, yet is Chinese: any Han character will do.
  return !(want == Language::kChinese && HasHan(candidate.content));
}

// ---- the reply contract ----

Status Bad(std::string what) { return Status::InvalidArgument(std::move(what)); }

Result<const json*> Required(const json& m, const char* key) {
  auto it = m.find(key);
  if (it == m.end()) return Bad(std::string("\"") + key + "\" is missing");
  return &*it;
}

Result<double> UnitNumber(const json& m, const char* key) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, key));
  if (!v->is_number() || !(v->get<double>() >= 0 && v->get<double>() <= 1)) {
    return Bad(std::string("\"") + key + "\" must be a number from 0 to 1, not " + v->dump());
  }
  return v->get<double>();
}

Result<bool> Boolean(const json& m, const char* key) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, key));
  if (!v->is_boolean()) return Bad(std::string("\"") + key + "\" must be true or false");
  return v->get<bool>();
}

Result<MemoryType> ExtractedType(const json& m) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, "type"));
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "fact") return MemoryType::kFact;
    if (s == "preference") return MemoryType::kPreference;
    if (s == "goal") return MemoryType::kGoal;
    if (s == "event") return MemoryType::kEvent;
    if (s == "skill") return MemoryType::kSkill;
    if (s == "opinion") return MemoryType::kOpinion;
    if (s == "decision") return MemoryType::kDecision;
    if (s == "commitment") return MemoryType::kCommitment;
  }
  return Bad(
      "\"type\" must be one of \"fact\", \"preference\", \"goal\", \"event\", \"skill\", "
      "\"opinion\", \"decision\", \"commitment\", not " +
      v->dump());
}

// Optional keys: "value" (a string) and "ends" (strings); absent or null reads as empty.
Status OptionalValueAndEnds(const json& m, Candidate* c) {
  if (auto v = m.find("value"); v != m.end() && !v->is_null()) {
    if (!v->is_string()) return Bad("\"value\" must be a string");
    c->value = v->get<std::string>();
  }
  if (auto e = m.find("ends"); e != m.end() && !e->is_null()) {
    if (!e->is_array()) return Bad("\"ends\" must be an array of strings");
    for (const json& x : *e) {
      if (!x.is_string()) return Bad("\"ends\" must be an array of strings");
      if (!x.get<std::string>().empty()) c->ends.push_back(x.get<std::string>());
    }
  }
  return Status::Ok();
}

// Optional keys: "expires" (the last day, "YYYY-MM-DD", the statement is worth recalling: it
// lapses at the end of that local day; null or absent: never) and "critical" (a boolean).
Status OptionalLifecycle(const json& m, int utc_offset_minutes, Candidate* c) {
  if (auto e = m.find("expires"); e != m.end() && !e->is_null()) {
    Result<TimestampMs> day = e->is_string() && e->get<std::string>().size() == 10
                                  ? ParseTimestamp(e->get<std::string>())
                                  : Result<TimestampMs>(Status::InvalidArgument("not a date"));
    if (!day.ok())
      return Bad("\"expires\" must be a date \"YYYY-MM-DD\" or null, not " + e->dump());
    c->expires_at = *day + 86'400'000 - int64_t{utc_offset_minutes} * 60'000;
  }
  if (auto k = m.find("critical"); k != m.end() && !k->is_null()) {
    if (!k->is_boolean()) return Bad("\"critical\" must be true or false");
    c->critical = k->get<bool>();
  }
  return Status::Ok();
}

Result<std::vector<std::string>> Entities(const json& m) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, "entities"));
  if (!v->is_array()) return Bad("\"entities\" must be an array of strings");
  std::vector<std::string> entities;
  for (const json& e : *v) {
    if (!e.is_string()) return Bad("\"entities\" must be an array of strings");
    if (!e.get<std::string>().empty()) entities.push_back(e.get<std::string>());
  }
  return entities;
}

// "YYYY-MM-DD" (midnight local time) or null.
Result<std::optional<TimestampMs>> ValidFrom(const json& m, int utc_offset_minutes) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, "valid_from"));
  if (v->is_null()) return std::optional<TimestampMs>();
  if (v->is_string() && v->get<std::string>().size() == 10) {
    Result<TimestampMs> day = ParseTimestamp(v->get<std::string>());
    if (day.ok()) return std::optional<TimestampMs>(*day - int64_t{utc_offset_minutes} * 60'000);
  }
  return Bad("\"valid_from\" must be a date \"YYYY-MM-DD\" or null, not " + v->dump());
}

Result<size_t> TurnIndex(const json& m, size_t turn_count) {
  ENGRAM_ASSIGN_OR_RETURN(const json* v, Required(m, "turn"));
  if (!v->is_number_integer() || v->get<int64_t>() < 0 ||
      v->get<int64_t>() >= static_cast<int64_t>(turn_count)) {
    return Bad("\"turn\" must be the number of a turn, 0 to " + std::to_string(turn_count - 1) +
               ", not " + v->dump());
  }
  return static_cast<size_t>(v->get<int64_t>());
}

// A name in a relation: a non-empty string of at most 200 bytes; "user" is the user.
Result<std::string> GraphName(const json& r, const char* key) {
  auto v = r.find(key);
  if (v == r.end() || !v->is_string() || v->get<std::string>().empty() ||
      v->get<std::string>().size() > 200) {
    return Bad(std::string("relations: \"") + key + "\" must be a name of 1 to 200 bytes");
  }
  return v->get<std::string>() == "user" ? std::string(kSelfEntity) : v->get<std::string>();
}

Result<EntityKind> GraphKind(const json& r, const char* key) {
  auto v = r.find(key);
  const auto kind = v != r.end() && v->is_string() ? ParseEntityKind(v->get<std::string>())
                                                   : std::optional<EntityKind>();
  if (!kind) {
    return Bad(std::string("relations: \"") + key +
               "\" must be one of user, person, place, organization, pet, project, product");
  }
  return *kind;
}

// "relations" and "aliases" (both optional): what the memory states in the entity graph
// (include/engram/graph.h). A relation of a malformed shape fails the reply like any field.
Status OptionalGraph(const json& m, Candidate* c) {
  auto add_entity = [c](const std::string& name, EntityKind kind) {
    if (name == kSelfEntity) return;
    for (const GraphEntity& e : c->graph.entities) {
      if (e.name == name) return;
    }
    c->graph.entities.push_back({name, kind, {}});
  };
  if (auto rels = m.find("relations"); rels != m.end() && !rels->is_null()) {
    if (!rels->is_array()) return Bad("\"relations\" must be an array");
    for (const json& r : *rels) {
      if (!r.is_object()) return Bad("relations: each must be an object");
      GraphRelation rel;
      ENGRAM_ASSIGN_OR_RETURN(rel.subject, GraphName(r, "subject"));
      ENGRAM_ASSIGN_OR_RETURN(rel.object, GraphName(r, "object"));
      ENGRAM_ASSIGN_OR_RETURN(EntityKind subject_kind, GraphKind(r, "subject_kind"));
      ENGRAM_ASSIGN_OR_RETURN(EntityKind object_kind, GraphKind(r, "object_kind"));
      auto p = r.find("predicate");
      const std::string predicate = p != r.end() && p->is_string() ? p->get<std::string>() : "";
      const bool snake = !predicate.empty() && predicate.size() <= 40 &&
                         std::all_of(predicate.begin(), predicate.end(),
                                     [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; });
      if (!snake) return Bad("relations: \"predicate\" must be a snake_case word");
      rel.predicate = predicate;
      if (auto e = r.find("ended"); e != r.end() && !e->is_null()) {
        if (!e->is_boolean()) return Bad("relations: \"ended\" must be a boolean");
        rel.ended = e->get<bool>();
      }
      add_entity(rel.subject, subject_kind);
      add_entity(rel.object, object_kind);
      c->graph.relations.push_back(std::move(rel));
    }
  }
  if (auto aliases = m.find("aliases"); aliases != m.end() && !aliases->is_null()) {
    if (!aliases->is_array()) return Bad("\"aliases\" must be an array");
    for (const json& a : *aliases) {
      ENGRAM_ASSIGN_OR_RETURN(std::string name,
                              a.is_object()
                                  ? GraphName(a, "name")
                                  : Result<std::string>(Bad("aliases: each must be an object")));
      ENGRAM_ASSIGN_OR_RETURN(std::string alias, GraphName(a, "alias"));
      // Only for a person the memory names: an alias never creates an entity of its own.
      for (GraphEntity& e : c->graph.entities) {
        if (e.name == name && e.kind == EntityKind::kPerson) e.aliases.push_back(alias);
      }
    }
  }
  return Status::Ok();
}

struct Contract {
  size_t turn_count = 0;
  int utc_offset_minutes = 0;
};

Result<Candidate> DecodeMemory(const json& m, const Contract& contract) {
  if (!m.is_object()) return Bad("is not an object");
  Candidate c;
  ENGRAM_ASSIGN_OR_RETURN(c.type, ExtractedType(m));
  ENGRAM_ASSIGN_OR_RETURN(const json* content, Required(m, "content"));
  if (!content->is_string() || content->get<std::string>().empty()) {
    return Bad("\"content\" must be a non-empty string");
  }
  c.content = content->get<std::string>();
  ENGRAM_ASSIGN_OR_RETURN(c.importance, UnitNumber(m, "importance"));
  ENGRAM_ASSIGN_OR_RETURN(c.confidence, UnitNumber(m, "confidence"));
  ENGRAM_ASSIGN_OR_RETURN(c.entities, Entities(m));
  ENGRAM_ASSIGN_OR_RETURN(const json* slot, Required(m, "slot"));
  if (!slot->is_string() && !slot->is_null()) return Bad("\"slot\" must be a string");
  if (slot->is_string()) c.slot = slot->get<std::string>();
  ENGRAM_ASSIGN_OR_RETURN(c.exclusive, Boolean(m, "exclusive"));
  c.exclusive = c.exclusive && !c.slot.empty();  // no slot, nothing to be exclusive about
  ENGRAM_ASSIGN_OR_RETURN(c.correction, Boolean(m, "correction"));
  ENGRAM_ASSIGN_OR_RETURN(c.valid_from, ValidFrom(m, contract.utc_offset_minutes));
  ENGRAM_ASSIGN_OR_RETURN(size_t turn, TurnIndex(m, contract.turn_count));
  c.turn_indexes = {turn};
  ENGRAM_RETURN_IF_ERROR(OptionalValueAndEnds(m, &c));
  ENGRAM_RETURN_IF_ERROR(OptionalLifecycle(m, contract.utc_offset_minutes, &c));
  ENGRAM_RETURN_IF_ERROR(OptionalGraph(m, &c));
  return c;
}

// {"memories":[...]}: every memory valid, or the first problem found.
Status DecodeMemories(const json& doc, const Contract& contract, std::vector<Candidate>* out) {
  auto memories = doc.find("memories");
  if (memories == doc.end() || !memories->is_array()) {
    return Bad("the object must have a \"memories\" array");
  }
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < memories->size(); ++i) {
    Result<Candidate> c = DecodeMemory((*memories)[i], contract);
    if (!c.ok()) return Bad("memories[" + std::to_string(i) + "]: " + c.status().message());
    candidates.push_back(std::move(c).value());
  }
  *out = std::move(candidates);
  return Status::Ok();
}

class LlmExtractor final : public Extractor {
 public:
  LlmExtractor(std::shared_ptr<LlmClient> llm, const LlmExtractorOptions& options)
      : llm_(std::move(llm)),
        options_(options),
        clock_(options.clock ? options.clock : SystemClock::Default()),
        name_("llm:" + (llm_ ? llm_->model() : std::string("none"))) {}

  const std::string& name() const override { return name_; }

  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    if (!llm_) return Status::InvalidArgument("llm extractor: no LLM client");
    ExtractionResult result{{}, name_, std::string(llm::ExtractPrompt().version)};
    if (input.turns.empty()) return result;
    const Contract contract{input.turns.size(), options_.utc_offset_minutes};
    std::vector<Candidate> candidates;
    const llm::JsonDecoder decode = [&](const json& doc) {
      return DecodeMemories(doc, contract, &candidates);
    };
    llm::JsonExchange exchange{BuildRequest(input)};
    ENGRAM_RETURN_IF_ERROR(llm::AskForJson(*llm_, decode, "llm extractor", &exchange));
    DropUnconfident(&candidates);

    const Language want = InputLanguage(input);
    if (CountWrongLanguage(candidates, want) > 0 && !exchange.repaired) {
      std::vector<Candidate> rewritten;
      if (AskForLanguage(candidates, want, contract, &exchange, &rewritten)) {
        candidates = std::move(rewritten);
        DropUnconfident(&candidates);
      }
    }
    for (Candidate& c : candidates) {
      if (!WrongLanguage(c, want)) result.candidates.push_back(std::move(c));
    }
    return result;
  }

 private:
  ChatRequest BuildRequest(const ExtractionInput& input) const {
    const TimestampMs now = clock_->NowMs();
    const int offset = options_.utc_offset_minutes;
    auto line = [&](const Turn& turn) {
      const std::string role = turn.role.empty() ? "user" : turn.role;
      return DescribeTime(turn.at != 0 ? turn.at : now, offset) + " " + role + ": " + turn.content +
             "\n";
    };
    std::string context;
    if (!input.context.empty()) {
      context = "Earlier in the conversation, for reference only (extract nothing from it):\n";
      for (const Turn& turn : input.context) context += "- " + line(turn);
    }
    std::string turns;
    for (size_t i = 0; i < input.turns.size(); ++i) {
      turns += "[" + std::to_string(i) + "] " + line(input.turns[i]);
    }
    if (!turns.empty()) turns.pop_back();
    const llm::Prompt& prompt = llm::ExtractPrompt();
    ChatRequest request;
    request.messages = {
        {"system", std::string(prompt.system)},
        {"user", llm::FillTemplate(prompt.user_template, {{"now", DescribeTime(now, offset)},
                                                          {"context", context},
                                                          {"turns", turns}})}};
    request.json_object = true;
    request.temperature = 0;
    request.max_tokens = options_.max_tokens > 0 ? options_.max_tokens : 2048;
    return request;
  }

  void DropUnconfident(std::vector<Candidate>* candidates) const {
    std::erase_if(*candidates,
                  [&](const Candidate& c) { return c.confidence < options_.min_confidence; });
  }

  static size_t CountWrongLanguage(const std::vector<Candidate>& candidates, Language want) {
    size_t n = 0;
    for (const Candidate& c : candidates) n += WrongLanguage(c, want);
    return n;
  }

  // The one repair for language: names the memories in the wrong language and asks for the
  // whole reply again. False when the provider failed or the new reply is unusable; the
  // caller then keeps the first reply minus its wrong-language memories.
  bool AskForLanguage(const std::vector<Candidate>& candidates, Language want,
                      const Contract& contract, llm::JsonExchange* exchange,
                      std::vector<Candidate>* rewritten) {
    const std::string language(LanguageName(want));
    std::string wrong;
    for (const Candidate& c : candidates) {
      if (WrongLanguage(c, want)) wrong += "\n- " + json(c.content).dump();
    }
    exchange->request.messages.push_back(
        {"user", "These memories are not written in " + language +
                     ", the language of the user's messages:" + wrong +
                     "\nReply again with the whole JSON object, every \"content\" written in " +
                     language + ". Do not translate names. Keep everything else as it was."});
    exchange->repaired = true;
    Result<ChatReply> reply = llm_->Chat(exchange->request);
    if (!reply.ok()) return false;
    return llm::CheckJsonReply(
               *reply, [&](const json& doc) { return DecodeMemories(doc, contract, rewritten); })
        .ok();
  }

  const std::shared_ptr<LlmClient> llm_;
  const LlmExtractorOptions options_;
  const Clock* const clock_;
  const std::string name_;
};

}  // namespace

std::unique_ptr<Extractor> MakeLlmExtractor(std::shared_ptr<LlmClient> llm,
                                            const LlmExtractorOptions& options) {
  return std::make_unique<LlmExtractor>(std::move(llm), options);
}

}  // namespace engram
