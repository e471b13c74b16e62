// engram bench locomo | madial — retrieval quality on public benchmarks.
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iomanip>
#include <iostream>

#include "cli/cli_app.h"
#include "evaluation/retrieval_bench.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct BenchFlags {
  std::string data;
  int k = 10;
  std::string fusion = "weighted";
  bool no_diversify = false;
  std::string lang = "zh";
  double context_weight = SearchQuery{}.context_weight;
  double session_weight = SearchQuery{}.session_weight;
  double keyword_weight = SearchQuery{}.keyword_weight;
  double recent_turn_weight = SearchQuery{}.recent_turn_weight;
  double mmr_floor = SearchQuery{}.mmr_similarity_floor;
  bool joined_query = false;
};

void PrintReport(const BenchReport& r) {
  std::cout << r.dataset << "\nconfiguration: " << r.configuration << "; " << r.memories
            << " memories; " << std::fixed << std::setprecision(2) << r.ms_per_query
            << " ms per query\n\n";
  std::cout << std::left << std::setw(14) << "category" << std::right << std::setw(7) << "n";
  for (const std::string& m : r.metric_names) std::cout << std::setw(18) << m;
  std::cout << "\n";
  for (const BenchRow& row : r.rows) {
    std::cout << std::left << std::setw(14) << row.name << std::right << std::setw(7) << row.count;
    for (const std::string& m : r.metric_names) {
      std::cout << std::setw(18) << std::setprecision(3) << row.metrics.at(m);
    }
    std::cout << "\n";
  }
}

json ReportJson(const BenchReport& r) {
  json rows = json::array();
  for (const BenchRow& row : r.rows) {
    rows.push_back({{"category", row.name}, {"n", row.count}, {"metrics", row.metrics}});
  }
  return {{"dataset", r.dataset}, {"configuration", r.configuration}, {"memories", r.memories},
          {"ms_per_query", r.ms_per_query}, {"rows", rows}};
}

int RunBench(Context& ctx, const BenchFlags& f, bool locomo) {
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return ctx.Fail(Status::IOError("cannot create a temporary directory"));
  BenchOptions options;
  options.data_path = f.data;
  options.work_dir = tmpl;
  options.k = f.k;
  options.language = f.lang;
  options.embedder = *embedder;
  options.search.diversify = !f.no_diversify;
  options.search.context_weight = f.context_weight;
  options.search.session_weight = f.session_weight;
  options.search.keyword_weight = f.keyword_weight;
  options.search.recent_turn_weight = f.recent_turn_weight;
  options.search.mmr_similarity_floor = f.mmr_floor;
  options.split_turns = !f.joined_query;
  if (f.fusion == "rrf") options.search.fusion = FusionMode::kReciprocalRank;
  const bool tty = isatty(STDERR_FILENO);
  options.progress = [&](int64_t done, int64_t total) {
    if (tty && total > 0 && (done % 20 == 0 || done == total)) {
      std::cerr << "\r" << (locomo ? "locomo" : "madial") << " " << done << "/" << total
                << std::flush;
    }
  };
  auto report = locomo ? RunLocomoBench(options) : RunMadialBench(options);
  if (tty) std::cerr << "\r\033[K";
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  if (!report.ok()) return ctx.Fail(report.status());
  if (ctx.json) {
    std::cout << ReportJson(*report).dump(2) << "\n";
  } else {
    PrintReport(*report);
  }
  return kExitOk;
}

}  // namespace

void AddBenchCommands(CLI::App& app, Context& ctx) {
  auto* bench = app.add_subcommand("bench", "Retrieval quality on LoCoMo and MADial-Bench");
  bench->require_subcommand(1);
  auto locomo_flags = std::make_shared<BenchFlags>();
  auto* locomo = bench->add_subcommand("locomo", "Evidence recall over LoCoMo dialogue turns");
  locomo->add_option("--data", locomo_flags->data, "Path to locomo10.json")->required();
  locomo->add_option("-k", locomo_flags->k, "Results per question")->capture_default_str();
  locomo->add_option("--fusion", locomo_flags->fusion, "weighted or rrf")->capture_default_str();
  locomo->add_flag("--no-diversify", locomo_flags->no_diversify, "Turn MMR off");
  locomo->add_option("--context-weight", locomo_flags->context_weight, "Session-neighbour credit, 0..1")
      ->capture_default_str();
  locomo->add_option("--session-weight", locomo_flags->session_weight,
                     "Session-level prior (sessions scored as documents), 0..1")
      ->capture_default_str();
  locomo->add_option("--keyword-weight", locomo_flags->keyword_weight, "Keyword share of relevance")
      ->capture_default_str();
  locomo->add_option("--mmr-floor", locomo_flags->mmr_floor,
                     "Cosine up to which MMR sees no redundancy, 0..1")
      ->capture_default_str();
  locomo->callback([&ctx, locomo_flags] {
    ctx.action = [&ctx, locomo_flags] { return RunBench(ctx, *locomo_flags, true); };
  });
  auto madial_flags = std::make_shared<BenchFlags>();
  auto* madial = bench->add_subcommand("madial", "Memory recall on MADial-Bench");
  madial->add_option("--data", madial_flags->data, "The madial-bench folder")->required();
  madial->add_option("--lang", madial_flags->lang, "zh or en")->capture_default_str();
  madial->add_option("--fusion", madial_flags->fusion, "weighted or rrf")->capture_default_str();
  madial->add_flag("--no-diversify", madial_flags->no_diversify, "Turn MMR off");
  madial->add_option("--context-weight", madial_flags->context_weight, "Session-neighbour credit, 0..1")
      ->capture_default_str();
  madial->add_option("--keyword-weight", madial_flags->keyword_weight, "Keyword share of relevance")
      ->capture_default_str();
  madial->add_option("--recent-turn-weight", madial_flags->recent_turn_weight,
                     "Weight of each earlier line against the last one, 0..1")
      ->capture_default_str();
  madial->add_option("--mmr-floor", madial_flags->mmr_floor,
                     "Cosine up to which MMR sees no redundancy, 0..1")
      ->capture_default_str();
  madial->add_flag("--joined-query", madial_flags->joined_query,
                   "One query of all lines instead of the last line plus recent turns");
  madial->callback([&ctx, madial_flags] {
    ctx.action = [&ctx, madial_flags] { return RunBench(ctx, *madial_flags, false); };
  });
}

}  // namespace engram::cli
