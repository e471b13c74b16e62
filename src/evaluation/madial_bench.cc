// MADial-Bench memory recall: the dialogue lines before the test turn are the query, the
// memories of the same user are the candidates, and recall@k = |relevant ∩ top k| / |relevant|.
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/engine.h"
#include "engram/extraction.h"
#include "evaluation/retrieval_bench.h"

namespace engram {
namespace {

using json = nlohmann::json;

// Reads a JSON Lines file (MADial's ".json" files are JSON Lines).
Result<std::vector<json>> ReadJsonLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::InvalidArgument(path + ": a line is not JSON");
    out.push_back(std::move(j));
  }
  return out;
}

// "<Bart>:\"text\"\n" → "text"; markers such as <BOD> become empty.
std::string DialogueText(const std::string& line) {
  static const std::regex speaker(R"(^\s*<[^>]*>\s*:?\s*)");
  std::string s = std::regex_replace(line, speaker, "");
  std::string out;
  for (char c : s) {
    if (c != '"' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

struct UserMemories {
  std::map<std::string, std::string> id_of_item;  // engram id → MADial id
};

Status IngestMemories(Engine& engine, const std::vector<json>& lines,
                      std::map<std::string, std::string>* madial_id_of, int64_t* count) {
  std::map<std::string, std::vector<std::pair<std::string, NewMemory>>> by_user;
  for (const json& line : lines) {
    for (const auto& [id, m] : line.items()) {
      NewMemory memory;
      memory.content = m.value("event", "");
      memory.type = MemoryType::kEvent;
      // As a server stores a memory given as is (MemoryWriter::AddAsGiven): read for the graph.
      memory.graph = ExtractGraph(memory.content);
      auto t = ParseTimestamp(m.value("time", ""));
      if (t.ok()) memory.created_at = *t;
      std::string user = m.contains("user-id") ? m["user-id"].dump() : "1";
      // The English memory file has no user ids; its ids match the Chinese file's users.
      by_user[user].push_back({id, std::move(memory)});
    }
  }
  for (auto& [user, memories] : by_user) {
    std::vector<NewMemory> batch;
    for (auto& [id, m] : memories) batch.push_back(m);
    ENGRAM_ASSIGN_OR_RETURN(auto items, engine.AddBatch(Scope{"bench", user, "", ""}, batch));
    for (size_t i = 0; i < items.size(); ++i) (*madial_id_of)[items[i].id] = memories[i].first;
    *count += static_cast<int64_t>(items.size());
  }
  return Status::Ok();
}

}  // namespace

Result<BenchReport> RunMadialBench(const BenchOptions& options) {
  const std::string lang = options.language;
  if (lang != "zh" && lang != "en") return Status::InvalidArgument("language must be zh or en");
  const std::string dir = options.data_path + "/";
  ENGRAM_ASSIGN_OR_RETURN(auto memories,
                          ReadJsonLines(dir + "MADial-Bench-" + lang + "-memory.json"));
  ENGRAM_ASSIGN_OR_RETURN(auto dialogues,
                          ReadJsonLines(dir + "MADial-Bench-" + lang + "-dialogue.json"));
  if (lang == "en") {
    // English memories carry no user id: take it from the Chinese file (same ids).
    auto zh = ReadJsonLines(dir + "MADial-Bench-zh-memory.json");
    if (!zh.ok()) return zh.status();
    std::map<std::string, json> user_of;
    for (const json& line : *zh) {
      for (const auto& [id, m] : line.items()) user_of[id] = m["user-id"];
    }
    for (json& line : memories) {
      for (auto& [id, m] : line.items()) {
        if (user_of.count(id)) m["user-id"] = user_of[id];
      }
    }
  }
  EngineOptions eo;
  eo.path = options.work_dir + "/madial-bench-" + lang + ".db";
  eo.synchronous = "NORMAL";
  eo.embedder = options.embedder;
  std::remove(eo.path.c_str());
  ENGRAM_ASSIGN_OR_RETURN(auto engine, Engine::Open(eo));
  BenchReport report;
  std::map<std::string, std::string> madial_id_of;
  ENGRAM_RETURN_IF_ERROR(IngestMemories(*engine, memories, &madial_id_of, &report.memories));

  const int ks[] = {1, 3, 5};
  double recall[3] = {0, 0, 0};
  int64_t n = 0, done = 0;
  double search_ms = 0;
  for (const json& d : dialogues) {
    ++done;
    if (!d.contains("test-turn") || d["test-turn"].empty() || !d.contains("relevant-id")) continue;
    int turn = d["test-turn"][0].get<int>();
    std::vector<std::string> lines;
    for (int i = 0; i < turn && i < static_cast<int>(d["dialogue"].size()); ++i) {
      std::string text = DialogueText(d["dialogue"][i].get<std::string>());
      if (!text.empty()) lines.push_back(text);
    }
    if (lines.empty()) continue;
    std::set<std::string> gold;
    for (const json& id : d["relevant-id"]) gold.insert(id.dump());
    if (gold.empty()) continue;
    SearchQuery q = options.search;
    q.text = lines.back();
    if (options.split_turns) {
      // The product's read path: the latest line is the query, the earlier ones its context.
      q.recent_turns.assign(lines.begin(), lines.end() - 1);
    } else {
      for (size_t i = 0; i + 1 < lines.size(); ++i)
        q.text = lines[lines.size() - 2 - i] + "\n" + q.text;
    }
    q.k = 5;
    q.record_access = false;
    std::string user = d.contains("user-id") ? d["user-id"].dump() : "1";
    auto t0 = std::chrono::steady_clock::now();
    ENGRAM_ASSIGN_OR_RETURN(auto hits, engine->Search(Scope{"bench", user, "", ""}, q));
    search_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (int j = 0; j < 3; ++j) {
      size_t hit = 0;
      for (size_t i = 0; i < hits.size() && i < static_cast<size_t>(ks[j]); ++i) {
        hit += gold.count(madial_id_of[hits[i].item.id]);
      }
      recall[j] += static_cast<double>(hit) / static_cast<double>(gold.size());
    }
    ++n;
    if (options.progress) options.progress(done, static_cast<int64_t>(dialogues.size()));
  }
  report.dataset = "MADial-Bench " + lang + " memory recall";
  report.configuration = engine->options().embedder->model() + " + BM25, " +
                         (options.search.fusion == FusionMode::kWeighted ? "weighted" : "rrf") +
                         " fusion";
  report.metric_names = {"recall@1", "recall@3", "recall@5"};
  BenchRow row{"overall", n, {}};
  for (int j = 0; j < 3; ++j) row.metrics[report.metric_names[j]] = n ? recall[j] / n : 0;
  report.rows.push_back(row);
  report.ms_per_query = n ? search_ms / n : 0;
  return report;
}

}  // namespace engram
