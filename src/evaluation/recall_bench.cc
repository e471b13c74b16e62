#include "evaluation/recall_bench.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "engram/engine.h"
#include "engram/recall.h"
#include "engram/write_path.h"

namespace engram {
namespace {

using json = nlohmann::json;

constexpr TimestampMs kDay = 86'400'000;
// Monday 2026-06-15, 10:00 UTC: what the user said is told on the days before.
constexpr TimestampMs kNow = 1'781'517'600'000;

struct Case {
  std::string id, lang;
  std::vector<std::string> memories, turns;
  std::string expect;  // empty: nothing should be raised
  bool added_after_failure = false;
};

Result<std::vector<Case>> ReadCases(const std::string& path, const std::string& lang) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("no recall corpus at " + path);
  std::vector<Case> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("memories") ||
        !j["memories"].is_array() || !j.contains("turns") || !j["turns"].is_array() ||
        j["turns"].empty() || !j.contains("expect") ||
        !(j["expect"].is_null() || j["expect"].is_string())) {
      return Status::InvalidArgument(where +
                                     ": expected {id, memories: [...], turns: [...], "
                                     "expect: string or null}");
    }
    Case c;
    c.id = j["id"].get<std::string>();
    c.lang = lang;
    for (const json& m : j["memories"]) {
      if (!m.is_string()) return Status::InvalidArgument(where + ": memories are strings");
      c.memories.push_back(m.get<std::string>());
    }
    for (const json& t : j["turns"]) {
      if (!t.is_string()) return Status::InvalidArgument(where + ": turns are strings");
      c.turns.push_back(t.get<std::string>());
    }
    if (j["expect"].is_string()) c.expect = j["expect"].get<std::string>();
    c.added_after_failure = j.value("added_after_failure", false);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<RecallBenchReport> RunRecallBench(const RecallBenchOptions& options) {
  std::vector<Case> cases;
  for (const char* lang : {"en", "zh"}) {
    if (options.language != "all" && options.language != lang) continue;
    ENGRAM_ASSIGN_OR_RETURN(auto read, ReadCases(options.data_dir + "/" + lang + ".jsonl", lang));
    for (Case& c : read) cases.push_back(std::move(c));
  }
  const std::string db = options.work_dir + "/recall-bench.db";
  std::error_code ec;
  std::filesystem::remove(db, ec);
  ManualClock clock(kNow - 30 * kDay);
  EngineOptions eo;
  eo.path = db;
  eo.clock = &clock;
  eo.synchronous = "NORMAL";
  ENGRAM_ASSIGN_OR_RETURN(auto engine, Engine::Open(eo));
  MemoryWriter writer(engine.get(), WriterOptions{});
  RecallBenchReport report;
  for (const Case& c : cases) {
    const Scope scope{"default", c.id, "", ""};
    // Each statement told on its own day, in the month before the conversation.
    TimestampMs at = kNow - 20 * kDay;
    for (const std::string& said : c.memories) {
      clock.Set(at);
      ENGRAM_RETURN_IF_ERROR(
          writer.Remember(scope, {Turn{"user", said, at, ""}}).status().WithContext(c.id));
      at += kDay;
    }
    clock.Set(kNow);
    RecallRequest request;
    request.turns = c.turns;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RecallHit> hits, Recall(*engine, scope, request));
    RecallCaseResult r;
    r.id = c.id;
    r.lang = c.lang;
    r.expects = !c.expect.empty();
    r.added_after_failure = c.added_after_failure;
    for (const RecallHit& h : hits) {
      char score[16];
      std::snprintf(score, sizeof score, "%.2f", h.score);
      r.raised.push_back(std::string(score) + " " + h.item.content + " (" + h.reason + ")");
      if (r.expects && h.item.content.find(c.expect) != std::string::npos) r.passed = true;
    }
    if (!r.expects) r.passed = hits.empty();
    RecallRates& rates = report.by_language[c.lang];
    for (RecallRates* x : {&rates, &report.all}) {
      if (r.expects) {
        ++x->should_surface;
        x->surfaced += r.passed;
      } else {
        ++x->should_be_silent;
        x->silent += r.passed;
      }
    }
    report.cases.push_back(std::move(r));
  }
  return report;
}

}  // namespace engram
