// engram bench locomo | madial — retrieval quality on public benchmarks;
// engram bench extraction — extraction quality and throughput on the memory_extraction fixtures.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_app.h"
#include "engram/llm.h"
#include "evaluation/extraction_bench.h"
#include "evaluation/retrieval_bench.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

// The public datasets these benchmarks read. Engram ships none of them: where to get each.
constexpr const char* kLocomoData =
    "LoCoMo's locomo10.json, not shipped with Engram: data/locomo10.json of "
    "https://github.com/snap-research/LoCoMo (CC BY-NC 4.0)";
constexpr const char* kMadialData =
    "MADial-Bench's folder (MADial-Bench-zh-memory.json, ...), not shipped with Engram: "
    "https://github.com/hejunqing/MADial-Bench";
constexpr const char* kExtractionData =
    "MemPalace's memory_extraction folder (dataset.<lang>.jsonl, labels.jsonl), not shipped "
    "with Engram: benchmarks/model_eval/datasets/memory_extraction of "
    "https://github.com/MemPalace/mempalace";

// NotFound saying which dataset `command` needs when `required_file` is not there.
Status RequireBenchData(const std::string& command, const std::string& required_file,
                        const char* needs) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(required_file, ec)) return Status::Ok();
  return Status::NotFound("engram " + command + " needs " + needs + "; give its path as --data (" +
                          required_file + " is not there)");
}

struct BenchFlags {
  std::string data;
  int k = 10;
  std::string fusion = "weighted";
  bool no_diversify = false;
  std::string lang = "zh";
  double context_weight = SearchQuery{}.context_weight;
  double session_weight = SearchQuery{}.session_weight;
  double time_weight = SearchQuery{}.time_weight;
  double cjk_character_weight = SearchQuery{}.cjk_character_weight;
  double keyword_weight = SearchQuery{}.keyword_weight;
  double recent_turn_weight = SearchQuery{}.recent_turn_weight;
  double mmr_floor = SearchQuery{}.mmr_similarity_floor;
  double graph_weight = SearchQuery{}.graph_weight;
  int graph_hops = SearchQuery{}.graph_hops;
  bool joined_query = false;
};

// A metric's column: at least 18 wide, two spaces more than its name.
int ColumnWidth(const std::string& metric) {
  return std::max(18, static_cast<int>(metric.size()) + 2);
}

void PrintReport(const BenchReport& r) {
  std::cout << r.dataset << "\nconfiguration: " << r.configuration << "; " << r.memories
            << " memories; " << std::fixed << std::setprecision(2) << r.ms_per_query
            << " ms per query\n\n";
  std::cout << std::left << std::setw(14) << "category" << std::right << std::setw(7) << "n";
  for (const std::string& m : r.metric_names) std::cout << std::setw(ColumnWidth(m)) << m;
  std::cout << "\n";
  for (const BenchRow& row : r.rows) {
    std::cout << std::left << std::setw(14) << row.name << std::right << std::setw(7) << row.count;
    for (const std::string& m : r.metric_names) {
      std::cout << std::setw(ColumnWidth(m)) << std::setprecision(3) << row.metrics.at(m);
    }
    std::cout << "\n";
  }
}

json ReportJson(const BenchReport& r) {
  json rows = json::array();
  for (const BenchRow& row : r.rows) {
    rows.push_back({{"category", row.name}, {"n", row.count}, {"metrics", row.metrics}});
  }
  return {{"dataset", r.dataset},
          {"configuration", r.configuration},
          {"memories", r.memories},
          {"ms_per_query", r.ms_per_query},
          {"rows", rows}};
}

int RunBench(Context& ctx, const BenchFlags& f, bool locomo) {
  Status data =
      locomo ? RequireBenchData("bench locomo", f.data, kLocomoData)
             : RequireBenchData("bench madial", f.data + "/MADial-Bench-" + f.lang + "-memory.json",
                                kMadialData);
  if (!data.ok()) return ctx.Fail(data);
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return ctx.Fail(Status::IOError("cannot create a temporary directory"));
  BenchOptions options;
  options.data_path = f.data;
  options.work_dir = tmpl;
  options.k = f.k;
  options.language = f.lang;
  options.embedder = *embedder;
  options.search.diversify = !f.no_diversify;
  options.search.context_weight = f.context_weight;
  options.search.session_weight = f.session_weight;
  options.search.time_weight = f.time_weight;
  options.search.cjk_character_weight = f.cjk_character_weight;
  options.search.keyword_weight = f.keyword_weight;
  options.search.recent_turn_weight = f.recent_turn_weight;
  options.search.mmr_similarity_floor = f.mmr_floor;
  options.search.graph_weight = f.graph_weight;
  options.search.graph_hops = f.graph_hops;
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

// ---- engram bench extraction ----

struct ExtractionFlags {
  std::string data;
  std::string lang = "all";
  double seconds = 1.0;
};

std::string Fixed(double v, int digits) {
  if (std::isnan(v)) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

json NumberOrNull(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

void PrintExtraction(const ExtractionReport& r) {
  const ExtractionScore& s = r.score;
  std::cout << "memory_extraction, " << r.language << ": " << s.snippets << " snippets, "
            << r.candidates << " candidates (" << r.extractor << ")\n";
  std::cout << std::left << std::setw(12) << "type" << std::right << std::setw(10) << "labelled"
            << std::setw(11) << "predicted" << std::setw(9) << "matched" << std::setw(11)
            << "precision" << std::setw(8) << "recall" << std::setw(8) << "f1"
            << "\n";
  for (const ExtractionRow& row : r.rows) {
    std::cout << std::left << std::setw(12) << row.type << std::right << std::setw(10)
              << row.counts.labelled << std::setw(11) << row.counts.predicted << std::setw(9)
              << row.counts.matched << std::setw(11) << Fixed(row.precision, 3) << std::setw(8)
              << Fixed(row.recall, 3) << std::setw(8) << Fixed(row.f1, 3) << "\n";
  }
  std::cout << "any memory: " << s.detected_snippets << "/" << s.labelled_snippets
            << " labelled snippets ("
            << Fixed(s.labelled_snippets ? double(s.detected_snippets) / s.labelled_snippets : NAN,
                     3)
            << "); false positives: ";
  if (s.unlabelled_snippets == 0) {
    std::cout << "n/a (no snippet without labels)\n";
  } else {
    std::cout << s.false_positive_snippets << "/" << s.unlabelled_snippets
              << " unlabelled snippets\n";
  }
  if (r.failed > 0) {
    std::cout << "failed: " << r.failed
              << " snippets (scored as finding nothing); first: " << r.first_error << "\n";
  }
  if (r.extract.per_wall_second > 0) {
    std::cout << "throughput, one thread, messages per CPU-second (per wall-second): "
              << r.extractor << " " << Fixed(r.extract.per_cpu_second, 0) << " ("
              << Fixed(r.extract.per_wall_second, 0) << "); with " << r.embedder
              << " of message and candidates " << Fixed(r.extract_embed.per_cpu_second, 0) << " ("
              << Fixed(r.extract_embed.per_wall_second, 0) << ")\n";
  }
  std::cout << "\n";
}

json ExtractionJson(const ExtractionReport& r) {
  const ExtractionScore& s = r.score;
  json rows = json::array();
  for (const ExtractionRow& row : r.rows) {
    rows.push_back({{"type", row.type},
                    {"labelled", row.counts.labelled},
                    {"predicted", row.counts.predicted},
                    {"matched", row.counts.matched},
                    {"precision", NumberOrNull(row.precision)},
                    {"recall", NumberOrNull(row.recall)},
                    {"f1", NumberOrNull(row.f1)}});
  }
  return {
      {"language", r.language},
      {"extractor", r.extractor},
      {"embedder", r.embedder},
      {"snippets", s.snippets},
      {"candidates", r.candidates},
      {"rows", rows},
      {"labelled_snippets", s.labelled_snippets},
      {"detected_snippets", s.detected_snippets},
      {"any_memory_rate",
       NumberOrNull(s.labelled_snippets ? double(s.detected_snippets) / s.labelled_snippets : NAN)},
      {"unlabelled_snippets", s.unlabelled_snippets},
      {"false_positive_snippets", s.false_positive_snippets},
      {"false_positive_rate",
       NumberOrNull(s.unlabelled_snippets
                        ? double(s.false_positive_snippets) / s.unlabelled_snippets
                        : NAN)},
      {"failed_snippets", r.failed},
      {"throughput",
       r.extract.per_wall_second <= 0
           ? json(nullptr)
           : json{{"extraction",
                   {{"messages_per_cpu_second", r.extract.per_cpu_second},
                    {"messages_per_wall_second", r.extract.per_wall_second}}},
                  {"extraction_and_embedding",
                   {{"messages_per_cpu_second", r.extract_embed.per_cpu_second},
                    {"messages_per_wall_second", r.extract_embed.per_wall_second}}}}}};
}

int RunExtraction(Context& ctx, const ExtractionFlags& f) {
  if (f.lang != "zh" && f.lang != "en" && f.lang != "all") {
    return ctx.Fail(Status::InvalidArgument("--lang must be zh, en or all"));
  }
  Status data = RequireBenchData("bench extraction", f.data + "/labels.jsonl", kExtractionData);
  if (!data.ok()) return ctx.Fail(data);
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  std::vector<std::string> langs =
      f.lang == "all" ? std::vector<std::string>{"zh", "en"} : std::vector<std::string>{f.lang};
  // --extractor llm measures the model the --llm flags name (quality only: its speed is the
  // provider's); otherwise the rules.
  auto llm = ctx.MakeLlm();
  if (!llm.ok()) return ctx.Fail(llm.status());
  const bool tty = isatty(STDERR_FILENO);
  json reports = json::array();
  for (const std::string& lang : langs) {
    ExtractionBenchOptions options;
    options.data_path = f.data;
    options.language = lang;
    options.embedder = *embedder;
    options.min_seconds = f.seconds;
    if (*llm) {
      options.extractor = MakeLlmExtractor(*llm);
      options.measure_throughput = false;
      options.progress = [&lang, tty](int64_t done, int64_t total) {
        if (tty || done == total) {
          std::cerr << "\rextraction " << lang << " " << done << "/" << total
                    << (done == total ? "\n" : "") << std::flush;
        }
      };
    }
    auto report = RunExtractionBench(options);
    if (!report.ok()) return ctx.Fail(report.status());
    if (ctx.json) {
      reports.push_back(ExtractionJson(*report));
    } else {
      PrintExtraction(*report);
    }
  }
  if (ctx.json) {
    std::cout << json{{"dataset", "memory_extraction"},
                      {"reports", reports},
                      {"type_mapping",
                       {{"preference", "preference"},
                        {"opinion", "opinion"},
                        {"decision", "decision"},
                        {"commitment", "commitment"},
                        {"goal", "commitment"},
                        {"fact", "fact"},
                        {"event", "fact"},
                        {"skill", "fact"}}}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "types: preference, opinion, decision, commitment→the same; goal→commitment; "
                 "fact/event/skill→fact\n";
  }
  return kExitOk;
}

}  // namespace

void AddBenchCommands(CLI::App& app, Context& ctx) {
  auto* bench = app.add_subcommand(
      "bench", "Retrieval quality on LoCoMo and MADial-Bench; extraction quality and speed");
  bench->require_subcommand(1);
  auto locomo_flags = std::make_shared<BenchFlags>();
  auto* locomo = bench->add_subcommand("locomo", "Evidence recall over LoCoMo dialogue turns");
  locomo->add_option("--data", locomo_flags->data, kLocomoData)->required();
  locomo->add_option("-k", locomo_flags->k, "Results per question")->capture_default_str();
  locomo->add_option("--fusion", locomo_flags->fusion, "weighted or rrf")->capture_default_str();
  locomo->add_flag("--no-diversify", locomo_flags->no_diversify, "Turn MMR off");
  locomo
      ->add_option("--context-weight", locomo_flags->context_weight,
                   "Session-neighbour credit, 0..1")
      ->capture_default_str();
  locomo
      ->add_option("--session-weight", locomo_flags->session_weight,
                   "Session-level prior (sessions scored as documents), 0..1")
      ->capture_default_str();
  locomo
      ->add_option("--time-weight", locomo_flags->time_weight,
                   "Time prior for queries naming a time, 0..1")
      ->capture_default_str();
  locomo->add_option("--keyword-weight", locomo_flags->keyword_weight, "Keyword share of relevance")
      ->capture_default_str();
  locomo
      ->add_option("--mmr-floor", locomo_flags->mmr_floor,
                   "Cosine up to which MMR sees no redundancy, 0..1")
      ->capture_default_str();
  locomo
      ->add_option("--graph-weight", locomo_flags->graph_weight,
                   "Graph channel's share of relevance, 0..1 (0: off)")
      ->capture_default_str();
  locomo->add_option("--graph-hops", locomo_flags->graph_hops, "Graph walk depth, 1..3")
      ->capture_default_str();
  locomo->callback([&ctx, locomo_flags] {
    ctx.action = [&ctx, locomo_flags] { return RunBench(ctx, *locomo_flags, true); };
  });
  auto madial_flags = std::make_shared<BenchFlags>();
  auto* madial = bench->add_subcommand("madial", "Memory recall on MADial-Bench");
  madial->add_option("--data", madial_flags->data, kMadialData)->required();
  madial->add_option("--lang", madial_flags->lang, "zh or en")->capture_default_str();
  madial->add_option("--fusion", madial_flags->fusion, "weighted or rrf")->capture_default_str();
  madial->add_flag("--no-diversify", madial_flags->no_diversify, "Turn MMR off");
  madial
      ->add_option("--context-weight", madial_flags->context_weight,
                   "Session-neighbour credit, 0..1")
      ->capture_default_str();
  madial
      ->add_option("--cjk-character-weight", madial_flags->cjk_character_weight,
                   "Weight of single CJK characters in the keyword channel, 0..1")
      ->capture_default_str();
  madial->add_option("--keyword-weight", madial_flags->keyword_weight, "Keyword share of relevance")
      ->capture_default_str();
  madial
      ->add_option("--recent-turn-weight", madial_flags->recent_turn_weight,
                   "Weight of each earlier line against the last one, 0..1")
      ->capture_default_str();
  madial
      ->add_option("--mmr-floor", madial_flags->mmr_floor,
                   "Cosine up to which MMR sees no redundancy, 0..1")
      ->capture_default_str();
  madial->add_flag("--joined-query", madial_flags->joined_query,
                   "One query of all lines instead of the last line plus recent turns");
  madial->callback([&ctx, madial_flags] {
    ctx.action = [&ctx, madial_flags] { return RunBench(ctx, *madial_flags, false); };
  });
  auto extraction_flags = std::make_shared<ExtractionFlags>();
  auto* extraction =
      bench->add_subcommand("extraction",
                            "Memory types found by the extractor (rules, or the model with "
                            "--extractor llm) and, for the rules, messages per second");
  extraction->add_option("--data", extraction_flags->data, kExtractionData)->required();
  extraction->add_option("--lang", extraction_flags->lang, "zh, en or all")->capture_default_str();
  extraction
      ->add_option("--seconds", extraction_flags->seconds,
                   "Time spent measuring throughput, per measurement")
      ->capture_default_str();
  extraction->callback([&ctx, extraction_flags] {
    ctx.action = [&ctx, extraction_flags] { return RunExtraction(ctx, *extraction_flags); };
  });
  AddWritePathBenchCommand(bench, ctx);
  AddMaintenanceBenchCommand(bench, ctx);
  AddEncryptionBenchCommand(bench, ctx);
  AddIngestBenchCommand(bench, ctx);
}

}  // namespace engram::cli
