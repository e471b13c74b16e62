#include "evaluation/extraction_bench.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"

namespace engram {
namespace {

using json = nlohmann::json;

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

Result<std::vector<json>> ReadJsonLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  std::vector<json> out;
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j["id"].is_string()) {
      return Status::InvalidArgument(path + ":" + std::to_string(n) +
                                     ": not a JSON object with an id");
    }
    out.push_back(std::move(j));
  }
  return out;
}

double Ratio(int64_t a, int64_t b) { return b == 0 ? kUndefined : static_cast<double>(a) / b; }

ExtractionRow RowOf(std::string type, const TypeCounts& c) {
  ExtractionRow row{std::move(type), c, Ratio(c.matched, c.predicted), Ratio(c.matched, c.labelled),
                    0};
  row.f1 = std::isnan(row.precision) || std::isnan(row.recall) ? kUndefined
           : row.precision + row.recall == 0
               ? 0
               : 2 * row.precision * row.recall / (row.precision + row.recall);
  return row;
}

// Candidates of every snippet, in the order of `texts`; a snippet whose extraction fails has
// none and is counted in report->failed.
std::vector<std::vector<Candidate>> ExtractAll(Extractor& extractor,
                                               const std::vector<std::string>& texts,
                                               const ExtractionBenchOptions& options,
                                               ExtractionReport* report) {
  std::vector<std::vector<Candidate>> out;
  for (const std::string& text : texts) {
    ExtractionInput in;
    in.turns.push_back(Turn{"user", text, 0, ""});
    auto r = extractor.Extract(in);
    if (r.ok()) {
      out.push_back(std::move(r->candidates));
    } else {
      out.emplace_back();
      if (report->failed++ == 0) report->first_error = r.status().ToString();
    }
    if (options.progress)
      options.progress(static_cast<int64_t>(out.size()), static_cast<int64_t>(texts.size()));
  }
  return out;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

// Messages per second over repeated passes of `texts` for at least `min_seconds` of wall time.
Result<Rate> Throughput(Extractor& extractor, Embedder* embedder,
                        const std::vector<std::string>& texts, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double cpu_start = ThreadCpuSeconds();
  int64_t messages = 0;
  double elapsed = 0;
  while (elapsed < min_seconds && !texts.empty()) {
    for (const std::string& text : texts) {
      ExtractionInput in;
      in.turns.push_back(Turn{"user", text, 0, ""});
      ENGRAM_ASSIGN_OR_RETURN(auto r, extractor.Extract(in));
      if (embedder) {
        std::vector<std::string> batch{text};
        for (const Candidate& c : r.candidates) batch.push_back(c.content);
        ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder->Embed(batch));
        if (vectors.size() != batch.size())
          return Status::Internal("embedder returned too few vectors");
      }
      ++messages;
    }
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  const double cpu = ThreadCpuSeconds() - cpu_start;
  return Rate{cpu > 0 ? messages / cpu : 0.0, elapsed > 0 ? messages / elapsed : 0.0};
}

}  // namespace

std::string_view LabelTypeOf(MemoryType type) {
  switch (type) {
    case MemoryType::kPreference:
      return "preference";
    case MemoryType::kOpinion:
      return "opinion";
    case MemoryType::kDecision:
      return "decision";
    case MemoryType::kCommitment:
    case MemoryType::kGoal:
      return "commitment";
    default:
      return "fact";
  }
}

void ExtractionScore::Add(const std::vector<std::string>& predicted,
                          const std::vector<std::string>& labelled) {
  ++snippets;
  if (labelled.empty()) {
    ++unlabelled_snippets;
    false_positive_snippets += !predicted.empty();
  } else {
    ++labelled_snippets;
    detected_snippets += !predicted.empty();
  }
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // type → (predicted, labelled)
  for (const std::string& t : predicted) ++counts[t].first;
  for (const std::string& t : labelled) ++counts[t].second;
  for (const auto& [type, pl] : counts) {
    TypeCounts& c = by_type[type];
    c.predicted += pl.first;
    c.labelled += pl.second;
    c.matched += std::min(pl.first, pl.second);
  }
}

std::vector<ExtractionRow> ExtractionRows(const ExtractionScore& score) {
  std::vector<ExtractionRow> rows;
  TypeCounts total;
  for (std::string_view type : kExtractionLabelTypes) {
    auto it = score.by_type.find(std::string(type));
    TypeCounts c = it == score.by_type.end() ? TypeCounts{} : it->second;
    rows.push_back(RowOf(std::string(type), c));
  }
  for (const auto& [type, c] : score.by_type) {  // every type, known or not, counts overall
    total.labelled += c.labelled;
    total.predicted += c.predicted;
    total.matched += c.matched;
  }
  rows.push_back(RowOf("overall", total));
  return rows;
}

Result<ExtractionReport> RunExtractionBench(const ExtractionBenchOptions& options) {
  const std::string& lang = options.language;
  if (lang != "en" && lang != "zh") return Status::InvalidArgument("language must be zh or en");
  const std::string dir = options.data_path + "/";
  ENGRAM_ASSIGN_OR_RETURN(
      auto snippets,
      ReadJsonLines(dir + (lang == "en" ? "dataset.jsonl" : "dataset." + lang + ".jsonl")));
  ENGRAM_ASSIGN_OR_RETURN(auto labels, ReadJsonLines(dir + "labels.jsonl"));
  std::map<std::string, std::vector<std::string>> labelled;
  for (const json& l : labels) {
    std::vector<std::string>& types = labelled[l["id"].get<std::string>()];
    if (!l.contains("memories") || !l["memories"].is_array()) continue;
    for (const json& m : l["memories"]) types.push_back(m.value("type", ""));
  }
  std::vector<std::string> texts;
  std::vector<std::string> ids;
  for (const json& s : snippets) {
    if (!s.contains("text") || !s["text"].is_string()) {
      return Status::InvalidArgument("snippet " + s["id"].get<std::string>() + " has no text");
    }
    ids.push_back(s["id"].get<std::string>());
    texts.push_back(s["text"].get<std::string>());
  }
  std::shared_ptr<Extractor> extractor = options.extractor;
  if (!extractor) extractor = MakeRuleExtractor();
  std::shared_ptr<Embedder> embedder = options.embedder;
  if (!embedder) {
    ENGRAM_ASSIGN_OR_RETURN(auto hash, MakeHashEmbedder(HashEmbedderOptions{}));
    embedder = std::move(hash);
  }
  ExtractionReport report;
  report.language = lang;
  report.extractor = extractor->name();
  report.embedder = embedder->model();
  auto candidates = ExtractAll(*extractor, texts, options, &report);
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = labelled.find(ids[i]);
    if (it == labelled.end())
      return Status::InvalidArgument("snippet " + ids[i] + " has no labels line");
    std::vector<std::string> predicted;
    for (const Candidate& c : candidates[i]) predicted.push_back(std::string(LabelTypeOf(c.type)));
    report.candidates += static_cast<int64_t>(candidates[i].size());
    report.score.Add(predicted, it->second);
  }
  report.rows = ExtractionRows(report.score);
  if (!options.measure_throughput) return report;
  ENGRAM_ASSIGN_OR_RETURN(report.extract,
                          Throughput(*extractor, nullptr, texts, options.min_seconds));
  ENGRAM_ASSIGN_OR_RETURN(report.extract_embed,
                          Throughput(*extractor, embedder.get(), texts, options.min_seconds));
  return report;
}

}  // namespace engram
