// engram bench writepath — the write-path corpus (bench/data/writepath) played through the real
// write path, with pass rates by category and language, and the memory_extraction fixtures'
// any-memory rate and type precision when that dataset is present.
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "core/status_macros.h"
#include "engram/llm.h"
#include "evaluation/extraction_bench.h"
#include "evaluation/writepath_bench.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct WritePathFlags {
  std::string data = "bench/data/writepath";
  // --set frozen: also the cases written blind (never tuned to), reported apart.
  std::string set = "dev";
  std::string frozen_data = "bench/data/writepath-frozen";
  // Where the developers keep MemPalace's memory_extraction folder; skipped when absent.
  std::string fixtures = "../shared/datasets/extraction/memory_extraction";
  std::string lang = "all";
  std::string only;
  bool failures = false;
  double min_pass = 0;  // exit 1 when a language's pass rate is below this
};

std::string Percent(const PassCount& c) {
  if (c.total == 0) return "-";
  std::ostringstream out;
  out << c.passed << "/" << c.total << " (" << std::fixed << std::setprecision(1)
      << 100.0 * c.Rate() << "%)";
  return out.str();
}

void PrintReport(const WritePathReport& r, bool failures) {
  std::cout << std::left << std::setw(22) << "category" << std::setw(18) << "en" << std::setw(18)
            << "zh"
            << "\n";
  for (const auto& [category, langs] : r.by_category) {
    auto get = [&](const char* lang) {
      auto it = langs.find(lang);
      return it == langs.end() ? PassCount{} : it->second;
    };
    std::cout << std::left << std::setw(22) << category << std::setw(18) << Percent(get("en"))
              << std::setw(18) << Percent(get("zh")) << "\n";
  }
  auto lang = [&](const char* l) {
    auto it = r.by_language.find(l);
    return it == r.by_language.end() ? PassCount{} : it->second;
  };
  std::cout << std::left << std::setw(22) << "all" << std::setw(18) << Percent(lang("en"))
            << std::setw(18) << Percent(lang("zh")) << "\n";
  std::cout << r.cases.size() << " cases (" << r.added_after_failure
            << " marked as added after a failure), " << r.messages << " messages in " << std::fixed
            << std::setprecision(2) << r.seconds << " s\n";
  int64_t failed_extractions = 0, kept = 0;
  for (const WritePathCaseResult& c : r.cases) {
    failed_extractions += static_cast<int64_t>(c.extraction_errors.size());
    kept += c.kept_turns;
  }
  auto count = [](const std::map<std::string, int64_t>& m, const char* l) {
    auto it = m.find(l);
    return it == m.end() ? int64_t{0} : it->second;
  };
  std::cout << "fragments (a name or number of the sentence in no fact): en "
            << count(r.fragments_by_language, "en") << ", zh "
            << count(r.fragments_by_language, "zh") << "; splices (a word nobody said): en "
            << count(r.splices_by_language, "en") << ", zh " << count(r.splices_by_language, "zh")
            << "\n";
  std::cout << kept << " turns kept";
  if (failed_extractions > 0) {
    std::cout << "; extraction failed for " << failed_extractions
              << " messages (their turns were kept)";
  }
  std::cout << "\n";
  if (!failures) return;
  for (const WritePathCaseResult& c : r.cases) {
    if (c.passed) continue;
    std::cout << "\nFAIL " << c.id << "\n";
    for (const std::string& f : c.failures) std::cout << "  - " << f << "\n";
    for (const std::string& s : c.stored) std::cout << "    " << s << "\n";
  }
  for (const WritePathCaseResult& c : r.cases) {
    for (const std::string& p : c.provenance) std::cout << "\n" << c.id << ": " << p;
  }
  std::cout << "\n";
}

json ReportJson(const WritePathReport& r) {
  json categories = json::object();
  for (const auto& [category, langs] : r.by_category) {
    for (const auto& [lang, c] : langs) {
      categories[category][lang] = {{"passed", c.passed}, {"total", c.total}, {"rate", c.Rate()}};
    }
  }
  json languages = json::object();
  for (const auto& [lang, c] : r.by_language) {
    languages[lang] = {{"passed", c.passed}, {"total", c.total}, {"rate", c.Rate()}};
  }
  json failed = json::array();
  json errors = json::array();
  json provenance = json::array();
  for (const WritePathCaseResult& c : r.cases) {
    if (!c.passed) failed.push_back({{"id", c.id}, {"failures", c.failures}, {"stored", c.stored}});
    if (!c.provenance.empty()) provenance.push_back({{"id", c.id}, {"lines", c.provenance}});
    if (!c.extraction_errors.empty()) {
      errors.push_back({{"id", c.id},
                        {"passed", c.passed},
                        {"errors", c.extraction_errors},
                        {"kept_turns", c.kept_turns},
                        {"stored", c.stored}});
    }
  }
  return {{"cases", r.cases.size()},
          {"messages", r.messages},
          {"seconds", r.seconds},
          {"added_after_failure", r.added_after_failure},
          {"categories", categories},
          {"languages", languages},
          {"failed", failed},
          {"extraction_errors", errors},
          {"splices", r.splices_by_language},
          {"fragments", r.fragments_by_language},
          {"provenance", provenance}};
}

// The fixtures' any-memory rate and type precision per language, or null when absent.
Result<json> FixtureFigures(const std::string& folder, const std::shared_ptr<Extractor>& extractor,
                            bool print) {
  if (folder.empty() || !std::filesystem::exists(folder + "/labels.jsonl")) return json(nullptr);
  json out = json::object();
  for (const char* lang : {"en", "zh"}) {
    ExtractionBenchOptions options;
    options.data_path = folder;
    options.language = lang;
    options.extractor = extractor;
    options.measure_throughput = false;
    ENGRAM_ASSIGN_OR_RETURN(ExtractionReport report, RunExtractionBench(options));
    const ExtractionScore& s = report.score;
    const double any = s.labelled_snippets ? double(s.detected_snippets) / s.labelled_snippets : 0;
    const ExtractionRow& overall = report.rows.back();
    out[lang] = {
        {"labelled_snippets", s.labelled_snippets},
        {"with_a_typed_memory", s.detected_snippets},
        {"any_memory_rate", any},
        {"type_precision", std::isnan(overall.precision) ? json(nullptr) : json(overall.precision)},
        {"type_recall", std::isnan(overall.recall) ? json(nullptr) : json(overall.recall)}};
    if (print) {
      std::cout << "memory_extraction " << lang << ": a typed memory for " << s.detected_snippets
                << "/" << s.labelled_snippets << " labelled snippets (" << std::setprecision(3)
                << any << "), type precision " << overall.precision << ", recall " << overall.recall
                << "\n";
    }
  }
  return out;
}

int RunWritePath(Context& ctx, const WritePathFlags& f) {
  if (f.lang != "zh" && f.lang != "en" && f.lang != "all") {
    return ctx.Fail(Status::InvalidArgument("--lang must be zh, en or all"));
  }
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  auto llm = ctx.MakeLlm();
  if (!llm.ok()) return ctx.Fail(llm.status());
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-writepath-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return ctx.Fail(Status::IOError("cannot create a temporary directory"));
  WritePathBenchOptions options;
  options.data_dir = f.data;
  options.language = f.lang;
  options.work_dir = tmpl;
  options.embedder = *embedder;
  options.only = f.only;
  options.rules = ctx.rules;
  if (*llm) {
    std::shared_ptr<LlmClient> client = *llm;
    options.make_extractor = [client](const Clock* clock) -> std::shared_ptr<Extractor> {
      LlmExtractorOptions o;
      o.clock = clock;  // "now" in the prompt is the bench's, not the wall clock's
      return MakeLlmExtractor(client, o);
    };
    options.extractor = MakeLlmExtractor(client);  // for the fixtures
    options.resolver = MakeLlmResolver(client);
  }
  const bool tty = isatty(STDERR_FILENO);
  options.progress = [tty](int64_t done, int64_t total) {
    if (tty && (done % 10 == 0 || done == total)) {
      std::cerr << "\rwritepath " << done << "/" << total << std::flush;
    }
  };
  // The development set, then (--set frozen) the blind one: one table each.
  std::vector<std::pair<std::string, std::string>> sets = {{"dev", f.data}};
  if (f.set == "frozen") sets.emplace_back("frozen", f.frozen_data);
  std::vector<WritePathReport> reports;
  for (const auto& [name, dir] : sets) {
    options.data_dir = dir;
    // Each set gets a store of its own: the sets share case ids (a case's id is its user), and
    // a blind case run on the memories of the development case with its id measures neither.
    options.work_dir = tmpl + "/" + name;
    std::error_code mk;
    std::filesystem::create_directories(options.work_dir, mk);
    if (mk)
      return ctx.Fail(Status::IOError("cannot create " + options.work_dir + ": " + mk.message()));
    auto one = RunWritePathBench(options);
    if (tty) std::cerr << "\r\033[K";
    if (!one.ok()) {
      std::error_code ec;
      std::filesystem::remove_all(tmpl, ec);
      return ctx.Fail(one.status().WithContext(name + " set"));
    }
    if (!ctx.json) {
      if (sets.size() > 1) std::cout << "== " << name << " set (" << dir << ")\n";
      PrintReport(*one, f.failures);
      if (sets.size() > 1) std::cout << "\n";
    }
    reports.push_back(std::move(one).value());
  }
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  const WritePathReport* report = &reports.front();
  auto fixtures = FixtureFigures(f.fixtures, options.extractor, !ctx.json);
  if (!fixtures.ok()) return ctx.Fail(fixtures.status());
  if (!ctx.json && fixtures->is_null()) {
    std::cout << "memory_extraction fixtures: skipped, none at " << f.fixtures
              << " (--fixtures DIR: benchmarks/model_eval/datasets/memory_extraction of "
                 "https://github.com/MemPalace/mempalace)\n";
  }
  if (ctx.json) {
    json out = ReportJson(*report);
    out["extractor"] = *llm ? "llm:" + (*llm)->model() : "rules";
    out["fixtures"] = *fixtures;
    if (reports.size() > 1) out["frozen"] = ReportJson(reports.back());
    std::cout << out.dump(2) << "\n";
  }
  for (const WritePathReport& r : reports) {
    for (const auto& [lang, c] : r.by_language) {
      if (c.Rate() < f.min_pass) return kExitInternal;
    }
  }
  return kExitOk;
}

}  // namespace

void AddWritePathBenchCommand(CLI::App* bench, Context& ctx) {
  auto flags = std::make_shared<WritePathFlags>();
  auto* cmd = bench->add_subcommand(
      "writepath",
      "The write-path corpus (bench/data/writepath) through the real write path: "
      "pass rates by category and language");
  cmd->add_option("--data", flags->data, "The corpus folder (en.jsonl, zh.jsonl)")
      ->capture_default_str();
  cmd->add_option("--fixtures", flags->fixtures,
                  "MemPalace's memory_extraction folder, not shipped with Engram "
                  "(benchmarks/model_eval/datasets/memory_extraction of "
                  "https://github.com/MemPalace/mempalace), for its any-memory rate; skipped "
                  "when absent (default: ../shared/datasets/extraction/memory_extraction, where "
                  "Engram's developers keep it)");
  cmd->add_option("--set", flags->set,
                  "dev: the development corpus; frozen: it and the cases written blind "
                  "(bench/data/writepath-frozen, never tuned to), each with its table")
      ->check(CLI::IsMember({"dev", "frozen"}))
      ->capture_default_str();
  cmd->add_option("--frozen-data", flags->frozen_data, "The blind corpus folder (--set frozen)")
      ->capture_default_str();
  cmd->add_option("--lang", flags->lang, "zh, en or all")->capture_default_str();
  cmd->add_option("--only", flags->only, "Only the cases whose id contains this");
  cmd->add_flag("--failures", flags->failures, "List each failed case with what the store holds");
  cmd->add_option("--min-pass", flags->min_pass,
                  "Exit 1 when a language's pass rate is below this (0..1)")
      ->capture_default_str();
  cmd->callback(
      [&ctx, flags] { ctx.action = [&ctx, flags] { return RunWritePath(ctx, *flags); }; });
}

}  // namespace engram::cli
