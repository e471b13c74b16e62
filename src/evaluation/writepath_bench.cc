#include "evaluation/writepath_bench.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/engine.h"
#include "engram/write_path.h"
#include "extract/provenance.h"

namespace engram {
namespace {

using json = nlohmann::json;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A matcher of the corpus README: all / any / none substrings of the content, type, importance.
struct Matcher {
  std::vector<std::string> all, any, none;
  std::vector<MemoryType> types;
  double min_importance = -1;

  bool Matches(const MemoryItem& m) const {
    const std::string content = Lower(m.content);
    auto has = [&](const std::string& w) { return content.find(w) != std::string::npos; };
    if (!std::all_of(all.begin(), all.end(), has)) return false;
    if (!any.empty() && !std::any_of(any.begin(), any.end(), has)) return false;
    if (std::any_of(none.begin(), none.end(), has)) return false;
    if (!types.empty() && std::find(types.begin(), types.end(), m.type) == types.end())
      return false;
    return m.importance >= min_importance;
  }
  std::string Describe() const {
    std::string out;
    auto list = [&](const char* name, const std::vector<std::string>& v) {
      if (v.empty()) return;
      out += std::string(out.empty() ? "" : " ") + name + "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
      out += "]";
    };
    list("all", all);
    list("any", any);
    list("none", none);
    if (!types.empty()) {
      out += " type[";
      for (size_t i = 0; i < types.size(); ++i)
        out += (i ? "," : "") + std::string(ToString(types[i]));
      out += "]";
    }
    if (min_importance >= 0) out += " importance>=" + std::to_string(min_importance).substr(0, 4);
    return out;
  }
};

struct Query {
  std::string text;
  Matcher top;
  int k = 1;
  bool turn_ok = false;
};

struct Message {
  std::string text;
  std::string role = "user";
  TimestampMs at = 0;
};

struct Case {
  std::string id, lang, category;
  bool added_after_failure = false;
  std::vector<Message> messages;
  std::vector<Matcher> active, superseded, absent;
  std::vector<std::pair<Matcher, int>> counts;
  std::vector<std::pair<Matcher, std::string>> dates;
  bool nothing = false;
  int turns = -1;
  std::vector<Query> queries;
};

Status ReadStrings(const json& j, const char* key, std::vector<std::string>* out) {
  if (!j.contains(key)) return Status::Ok();
  if (!j[key].is_array()) return Status::InvalidArgument(std::string(key) + " must be a list");
  for (const json& s : j[key]) {
    if (!s.is_string()) return Status::InvalidArgument(std::string(key) + " must hold strings");
    out->push_back(Lower(s.get<std::string>()));
  }
  return Status::Ok();
}

Result<Matcher> ReadMatcher(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a matcher must be an object");
  Matcher m;
  ENGRAM_RETURN_IF_ERROR(ReadStrings(j, "all", &m.all));
  ENGRAM_RETURN_IF_ERROR(ReadStrings(j, "any", &m.any));
  ENGRAM_RETURN_IF_ERROR(ReadStrings(j, "none", &m.none));
  if (m.all.empty() && m.any.empty()) return Status::InvalidArgument("a matcher needs all or any");
  std::vector<std::string> types;
  ENGRAM_RETURN_IF_ERROR(ReadStrings(j, "type", &types));
  for (const std::string& t : types) {
    ENGRAM_ASSIGN_OR_RETURN(MemoryType type, ParseMemoryType(t));
    m.types.push_back(type);
  }
  if (j.contains("min_importance")) m.min_importance = j["min_importance"].get<double>();
  return m;
}

Result<std::vector<Matcher>> ReadMatchers(const json& expect, const char* key) {
  std::vector<Matcher> out;
  if (!expect.contains(key)) return out;
  for (const json& m : expect[key]) {
    ENGRAM_ASSIGN_OR_RETURN(Matcher matcher, ReadMatcher(m));
    out.push_back(std::move(matcher));
  }
  return out;
}

Result<Case> ReadCase(const json& j) {
  Case c;
  c.id = j.at("id").get<std::string>();
  c.lang = j.at("lang").get<std::string>();
  c.category = j.at("category").get<std::string>();
  c.added_after_failure = j.value("added_after_failure", false);
  for (const json& m : j.at("messages")) {
    Message msg;
    msg.text = m.at("text").get<std::string>();
    msg.role = m.value("role", "user");
    ENGRAM_ASSIGN_OR_RETURN(msg.at, ParseTimestamp(m.at("at").get<std::string>()));
    c.messages.push_back(std::move(msg));
  }
  if (c.messages.empty()) return Status::InvalidArgument("a case needs messages");
  const json& e = j.at("expect");
  ENGRAM_ASSIGN_OR_RETURN(c.active, ReadMatchers(e, "active"));
  ENGRAM_ASSIGN_OR_RETURN(c.superseded, ReadMatchers(e, "superseded"));
  ENGRAM_ASSIGN_OR_RETURN(c.absent, ReadMatchers(e, "absent"));
  for (const json& x : e.value("count", json::array())) {
    ENGRAM_ASSIGN_OR_RETURN(Matcher m, ReadMatcher(x));
    c.counts.push_back({std::move(m), x.at("n").get<int>()});
  }
  for (const json& x : e.value("dates", json::array())) {
    ENGRAM_ASSIGN_OR_RETURN(Matcher m, ReadMatcher(x));
    c.dates.push_back({std::move(m), x.at("valid_from").get<std::string>()});
  }
  c.nothing = e.value("nothing", false);
  c.turns = e.value("turns", -1);
  for (const json& x : e.value("queries", json::array())) {
    Query q;
    q.text = x.at("q").get<std::string>();
    ENGRAM_ASSIGN_OR_RETURN(q.top, ReadMatcher(x.at("top")));
    q.k = x.value("k", 1);
    q.turn_ok = x.value("turn_ok", false);
    c.queries.push_back(std::move(q));
  }
  return c;
}

Result<std::vector<Case>> ReadCases(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  std::vector<Case> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      return Status::InvalidArgument(path + ":" + std::to_string(n) + ": not a JSON object");
    }
    Result<Case> c = Status::Internal("unread");
    try {
      c = ReadCase(j);
    } catch (const json::exception& e) {
      c = Status::InvalidArgument(e.what());
    }
    if (!c.ok()) return c.status().WithContext(path + ":" + std::to_string(n));
    out.push_back(std::move(c).value());
  }
  return out;
}

// A name or number `fact` holds: as a word for names, anywhere for digits ("3" in "2026-03-03").
bool Holds(const std::string& fact_lower, const std::string& token) {
  return fact_lower.find(Lower(token)) != std::string::npos;
}

// The sentence shares something with the fact: a name or number, or a word of four letters or
// more, or (Chinese) two characters in a row.
bool DrawnFrom(const std::string& fact_lower, const std::string& sentence) {
  for (const std::string& t : extract::KeyTokens(sentence)) {
    if (Holds(fact_lower, t)) return true;
  }
  const std::string low = Lower(sentence);
  for (size_t i = 0; i < low.size();) {
    const auto c = static_cast<unsigned char>(low[i]);
    if (c >= 'a' && c <= 'z') {
      size_t e = i;
      while (e < low.size() && low[e] >= 'a' && low[e] <= 'z') ++e;
      if (e - i >= 4 && fact_lower.find(low.substr(i, e - i)) != std::string::npos) return true;
      i = e;
    } else if (c >= 0xE0 && i + 6 <= low.size() && static_cast<unsigned char>(low[i + 3]) >= 0xE0) {
      if (fact_lower.find(low.substr(i, 6)) != std::string::npos) return true;
      i += 3;
    } else {
      ++i;
    }
  }
  return false;
}

// Splices among the facts one message wrote (`written`: ADD, UPDATE, SUPERSEDE), fragments
// among all it gave (`facts`: with those it reinforced); `said` is every message of the user in
// the case so far, this one included.
void CountProvenance(const std::string& message, const std::vector<std::string>& written,
                     const std::vector<std::string>& facts, const std::string& said,
                     WritePathCaseResult* r) {
  for (const std::string& f : written) {
    const std::vector<std::string> unsaid = extract::UnsaidWords(f, said);
    if (unsaid.empty()) continue;
    ++r->splices;
    r->provenance.push_back("splice: \"" + f + "\" has \"" + unsaid.front() + "\"");
  }
  if (facts.empty()) return;
  std::vector<std::string> lowered;
  for (const std::string& f : facts) lowered.push_back(Lower(f));
  for (const std::string& sentence : extract::Sentences(message)) {
    const bool drawn = std::any_of(lowered.begin(), lowered.end(),
                                   [&](const std::string& f) { return DrawnFrom(f, sentence); });
    if (!drawn) continue;
    for (const std::string& t : extract::KeyTokens(sentence)) {
      const bool kept = std::any_of(lowered.begin(), lowered.end(),
                                    [&](const std::string& f) { return Holds(f, t); });
      if (kept) continue;
      ++r->fragments;
      r->provenance.push_back("fragment: \"" + t + "\" of \"" + sentence + "\" is in no fact");
      break;
    }
  }
}

std::string Describe(const MemoryItem& m) {
  std::string out = std::string(ToString(m.status)) + " " + std::string(ToString(m.type));
  if (IsKeptTurn(m)) out = std::string(ToString(m.status)) + " turn";
  out += " \"" + m.content + "\"";
  if (!m.slot.empty()) out += " slot=" + m.slot;
  out += " from=" + FormatTimestamp(m.valid_from).substr(0, 10);
  char imp[16];
  std::snprintf(imp, sizeof imp, " imp=%.2f", m.importance);
  return out + imp;
}

// Checks what the store holds for the case's user against its expectations.
void Check(const Case& c, Engine& engine, const Scope& scope, WritePathCaseResult* r) {
  ListQuery all;
  all.statuses = {};
  all.limit = 1000;
  auto page = engine.List(scope, all);
  if (!page.ok()) {
    r->failures.push_back("list failed: " + page.status().ToString());
    return;
  }
  std::vector<const MemoryItem*> active, superseded, turns;
  for (const MemoryItem& m : page->items) {
    r->stored.push_back(Describe(m));
    if (IsKeptTurn(m)) {
      turns.push_back(&m);
    } else if (m.status == ItemStatus::kActive) {
      active.push_back(&m);
    } else if (m.status == ItemStatus::kSuperseded) {
      superseded.push_back(&m);
    }
  }
  auto any_of = [](const std::vector<const MemoryItem*>& items, const Matcher& m) {
    return std::any_of(items.begin(), items.end(),
                       [&](const MemoryItem* i) { return m.Matches(*i); });
  };
  for (const Matcher& m : c.active) {
    if (!any_of(active, m)) r->failures.push_back("no active memory matches " + m.Describe());
  }
  for (const Matcher& m : c.superseded) {
    if (!any_of(superseded, m))
      r->failures.push_back("no superseded memory matches " + m.Describe());
  }
  for (const Matcher& m : c.absent) {
    if (any_of(active, m)) r->failures.push_back("an active memory matches absent " + m.Describe());
  }
  for (const auto& [m, n] : c.counts) {
    const auto got = std::count_if(active.begin(), active.end(),
                                   [&](const MemoryItem* i) { return m.Matches(*i); });
    if (got != n) {
      r->failures.push_back(std::to_string(got) + " active memories match " + m.Describe() +
                            ", expected " + std::to_string(n));
    }
  }
  for (const auto& [m, day] : c.dates) {
    bool found = false;
    for (const auto* list : {&active, &superseded}) {
      for (const MemoryItem* i : *list) {
        found = found || (m.Matches(*i) && FormatTimestamp(i->valid_from).substr(0, 10) == day);
      }
    }
    if (!found)
      r->failures.push_back("no memory matching " + m.Describe() + " is valid from " + day);
  }
  if (c.nothing && !page->items.empty()) {
    r->failures.push_back("expected nothing stored, found " + std::to_string(page->items.size()));
  }
  if (c.turns >= 0 && static_cast<int>(turns.size()) != c.turns) {
    r->failures.push_back(std::to_string(turns.size()) + " kept turns, expected " +
                          std::to_string(c.turns));
  }
  for (const Query& q : c.queries) {
    SearchQuery sq;
    sq.text = q.text;
    sq.k = std::max(q.k, 5);
    sq.record_access = false;
    auto hits = engine.Search(scope, sq);
    if (!hits.ok()) {
      r->failures.push_back("search failed: " + hits.status().ToString());
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < hits->size() && static_cast<int>(i) < q.k; ++i) {
      found = found || q.top.Matches((*hits)[i].item);
    }
    std::string top = hits->empty() ? "nothing" : Describe(hits->front().item);
    if (!found) {
      r->failures.push_back("query \"" + q.text + "\": no match for " + q.top.Describe() +
                            " in the top " + std::to_string(q.k) + " (first: " + top + ")");
    } else if (!q.turn_ok && IsKeptTurn(hits->front().item)) {
      r->failures.push_back("query \"" + q.text + "\": a kept turn ranks first (" + top + ")");
    }
  }
}

}  // namespace

Result<WritePathReport> RunWritePathBench(const WritePathBenchOptions& options) {
  std::vector<Case> cases;
  for (const char* lang : {"en", "zh"}) {
    if (options.language != "all" && options.language != lang) continue;
    ENGRAM_ASSIGN_OR_RETURN(auto read, ReadCases(options.data_dir + "/" + lang + ".jsonl"));
    for (Case& c : read) {
      if (options.only.empty() || c.id.find(options.only) != std::string::npos) {
        cases.push_back(std::move(c));
      }
    }
  }
  ManualClock clock(cases.empty() ? 0 : cases.front().messages.front().at);
  EngineOptions eo;
  eo.path = options.work_dir + "/writepath.db";
  // A case's id is its user: a store that already holds a run would mix two cases of one id.
  if (std::filesystem::exists(eo.path)) {
    return Status::InvalidArgument(eo.path + " already holds a run; each run needs a new folder");
  }
  eo.clock = &clock;
  eo.embedder = options.embedder;
  eo.synchronous = "NORMAL";  // a bench database: a crash loses nothing that matters
  ENGRAM_ASSIGN_OR_RETURN(auto engine, Engine::Open(eo));
  WriterOptions wo;
  wo.extractor = options.make_extractor ? options.make_extractor(&clock) : options.extractor;
  wo.resolver = options.resolver;
  wo.rules = options.rules;
  MemoryWriter writer(engine.get(), wo);
  WritePathReport report;
  const auto start = std::chrono::steady_clock::now();
  for (const Case& c : cases) {
    WritePathCaseResult r;
    r.id = c.id;
    r.lang = c.lang;
    r.category = c.category;
    r.added_after_failure = c.added_after_failure;
    const Scope scope{"bench", c.id, "", ""};
    std::string said;  // the user's messages so far
    for (const Message& m : c.messages) {
      clock.Set(m.at);
      if (m.role == "user") said += m.text + "\n";
      auto written = writer.Remember(scope, {Turn{m.role, m.text, 0, ""}});
      ++report.messages;
      if (!written.ok()) {
        r.failures.push_back("write failed: " + written.status().ToString());
        continue;
      }
      std::vector<std::string> written_facts, facts;  // facts: with those it reinforced (NOOP)
      for (const WriteOutcome& w : written->writes) {
        r.kept_turns += w.turn;
        if (w.turn || w.memory.type == MemoryType::kMessage) continue;
        facts.push_back(w.memory.content);
        if (w.decision != WriteDecision::kNoop) written_facts.push_back(w.memory.content);
      }
      // A case about PII redacts on purpose what the fragment count looks for.
      if (m.role == "user") {
        CountProvenance(m.text, written_facts,
                        c.category == "pii" ? std::vector<std::string>{} : facts, said, &r);
      }
      if (!written->extraction_error.empty()) {
        r.extraction_errors.push_back("message " + std::to_string(&m - c.messages.data()) + ": " +
                                      written->extraction_error);
      }
    }
    Check(c, *engine, scope, &r);
    r.passed = r.failures.empty();
    PassCount& cat = report.by_category[c.category][c.lang];
    ++cat.total;
    cat.passed += r.passed;
    ++report.by_language[c.lang].total;
    report.by_language[c.lang].passed += r.passed;
    report.added_after_failure += c.added_after_failure;
    report.splices_by_language[c.lang] += r.splices;
    report.fragments_by_language[c.lang] += r.fragments;
    report.cases.push_back(std::move(r));
    if (options.progress) {
      options.progress(static_cast<int64_t>(report.cases.size()),
                       static_cast<int64_t>(cases.size()));
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram
