// engram bench recall — proactive recall on its corpus (src/evaluation/recall_bench.h).
// engram bench maintenance — the lifecycle's maintenance at scale (issue 25's targets): a
// store of USERS × ITEMS memories of mixed types, importances and ages on a clock set to a real
// date; a full run; an incremental run after 1 % of the memories changed; and search latency
// (p50/p99 over single searches of random users) without a run and during a full run.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/cli_app.h"
#include "cli/output.h"
#include "engram/clock.h"
#include "evaluation/recall_bench.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct MaintenanceBenchFlags {
  int users = 1000;
  int items = 1000;
  std::string dir;        // where the database goes (default: a temporary directory)
  int searches = 2000;    // per latency measurement
  double changed = 0.01;  // share of memories changed before the incremental run
  uint32_t seed = 7;
};

constexpr TimestampMs kDay = 86'400'000;

std::string UserId(int u) { return "user" + std::to_string(u); }

const char* const kTopics[] = {"hiking",  "coffee", "jazz",   "Python", "Tokyo",  "cooking",
                               "running", "cats",   "movies", "tennis", "garden", "chess"};

// Single-threaded searches of random users; latencies in ms.
std::vector<double> SearchLatencies(Engine& engine, int users, int n, std::mt19937& rng,
                                    const std::atomic<bool>* until_done = nullptr) {
  std::vector<double> out;
  std::uniform_int_distribution<int> pick_user(0, users - 1);
  std::uniform_int_distribution<int> pick_topic(0, 11);
  for (int i = 0; i < n || (until_done && !until_done->load()); ++i) {
    if (until_done && until_done->load()) break;
    SearchQuery q;
    q.text = std::string("what about ") + kTopics[pick_topic(rng)];
    q.record_access = false;
    const auto t0 = Clock::now();
    auto hits = engine.Search(Scope{"default", UserId(pick_user(rng)), "", ""}, q);
    const auto t1 = Clock::now();
    if (!hits.ok()) break;
    out.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return out;
}

int RunMaintenanceBench(Context& ctx, const MaintenanceBenchFlags& f) {
  std::filesystem::path dir = f.dir;
  std::error_code ec;
  if (dir.empty()) {
    dir =
        std::filesystem::temp_directory_path() / ("engram-maint-bench-" + std::to_string(getpid()));
  }
  std::filesystem::create_directories(dir, ec);
  const std::string path = (dir / "bench.db").string();
  std::filesystem::remove(path, ec);
  std::filesystem::remove(path + "-wal", ec);
  std::filesystem::remove(path + "-shm", ec);
  // 2026-06-01: memories written over the year before, then the clock moves on.
  ManualClock clock(1'780'272'000'000);
  EngineOptions options;
  options.path = path;
  options.clock = &clock;
  options.synchronous = "NORMAL";
  options.retention = ctx.retention;
  options.index_memory_budget = ctx.index_memory_mb << 20;  // what `engram serve` would have
  options.maintenance = ctx.maintenance;
  auto opened = Engine::Open(options);
  if (!opened.ok()) return ctx.Fail(opened.status());
  Engine& engine = **opened;
  std::mt19937 rng(f.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const MemoryType kTypes[] = {MemoryType::kMessage, MemoryType::kMessage, MemoryType::kEvent,
                               MemoryType::kFact,    MemoryType::kFact,    MemoryType::kPreference,
                               MemoryType::kGoal,    MemoryType::kMessage, MemoryType::kOpinion,
                               MemoryType::kEvent};
  const auto load_start = Clock::now();
  for (int u = 0; u < f.users; ++u) {
    std::vector<NewMemory> batch;
    for (int i = 0; i < f.items; ++i) {
      NewMemory m;
      m.type = kTypes[rng() % 10];
      m.content = std::string("memory ") + std::to_string(i) + " of " + UserId(u) + " about " +
                  kTopics[rng() % 12] + " and " + kTopics[rng() % 12];
      m.importance = 0.1 + 0.8 * unit(rng);
      if (unit(rng) < 0.02) m.tags = {std::string(kCriticalTag)};
      if (unit(rng) < 0.03)
        m.expires_at = clock.NowMs() + static_cast<TimestampMs>(unit(rng) * 60) * kDay + 1;
      batch.push_back(std::move(m));
    }
    auto added = engine.AddBatch(Scope{"default", UserId(u), "", ""}, batch);
    if (!added.ok()) return ctx.Fail(added.status());
    if (!ctx.json && (u + 1) % 50 == 0) {
      std::cerr << "\rloading " << (u + 1) << "/" << f.users << " users" << std::flush;
    }
  }
  const double load_s = std::chrono::duration<double>(Clock::now() - load_start).count();
  if (!ctx.json) std::cerr << "\n";
  // Four months later: turns and events from the load have faded, some items expired.
  clock.Advance(120 * kDay);

  // Search latency without maintenance, every user's index loaded first (a first search of a
  // user loads its index: that is not what is measured).
  for (int u = 0; u < f.users; ++u) {
    SearchQuery q;
    q.text = "warm up";
    q.record_access = false;
    (void)engine.Search(Scope{"default", UserId(u), "", ""}, q);
  }
  std::vector<double> idle = SearchLatencies(engine, f.users, f.searches, rng);

  auto progress = [&](int64_t done, int64_t total) {
    if (!ctx.json && (done % 50 == 0 || done == total)) {
      std::cerr << "\rmaintaining " << done << "/" << total << " users" << std::flush;
    }
  };
  MaintenanceRequest full_request;
  full_request.full = true;
  full_request.max_actions_listed = 0;
  auto full = engine.Maintain(full_request, progress);
  if (!ctx.json) std::cerr << "\n";
  if (!full.ok()) return ctx.Fail(full.status());

  // 1 % of the memories change (an importance edit each: a history row), then an incremental
  // run a day later.
  clock.Advance(kDay);
  const int64_t to_change = static_cast<int64_t>(f.changed * f.users * f.items);
  int64_t changed = 0;
  for (int64_t c = 0; c < to_change; ++c) {
    const Scope scope{"default", UserId(static_cast<int>(rng() % f.users)), "", ""};
    ListQuery q;
    q.limit = 20;
    auto page = engine.List(scope, q);
    if (!page.ok() || page->items.empty()) continue;
    MemoryPatch p;
    p.importance = unit(rng);
    if (engine.Update(scope, page->items[rng() % page->items.size()].id, p).ok()) ++changed;
  }
  MaintenanceRequest incremental_request;
  incremental_request.max_actions_listed = 0;
  auto incremental = engine.Maintain(incremental_request, progress);
  if (!ctx.json) std::cerr << "\n";
  if (!incremental.ok()) return ctx.Fail(incremental.status());

  // Search latency during a full run (another day on: more has faded).
  clock.Advance(30 * kDay);
  std::atomic<bool> done{false};
  Result<MaintenanceReport> during = Status::Internal("not run");
  std::thread runner([&] {
    during = engine.Maintain(full_request, nullptr);
    done = true;
  });
  std::vector<double> busy = SearchLatencies(engine, f.users, 0, rng, &done);
  runner.join();
  if (!during.ok()) return ctx.Fail(during.status());

  json out = {
      {"users", f.users},
      {"items_per_user", f.items},
      {"load_seconds", load_s},
      {"full_run",
       {{"seconds", full->duration_ms / 1000.0},
        {"examined", full->examined},
        {"archived", full->archived},
        {"expired", full->expired},
        {"purged", full->purged},
        {"merged", full->merged}}},
      {"changed", changed},
      {"incremental_run",
       {{"seconds", incremental->duration_ms / 1000.0},
        {"examined", incremental->examined},
        {"archived", incremental->archived},
        {"expired", incremental->expired}}},
      {"search_idle_ms",
       {{"n", idle.size()}, {"p50", Percentile(idle, 0.5)}, {"p99", Percentile(idle, 0.99)}}},
      {"search_during_full_run_ms",
       {{"n", busy.size()},
        {"p50", Percentile(busy, 0.5)},
        {"p99", Percentile(busy, 0.99)},
        {"run_seconds", during->duration_ms / 1000.0},
        {"run_archived", during->archived},
        {"run_purged", during->purged}}},
  };
  std::filesystem::remove_all(f.dir.empty() ? dir : std::filesystem::path(), ec);
  if (ctx.json) {
    std::cout << out.dump() << "\n";
    return kExitOk;
  }
  std::cout << std::fixed << std::setprecision(2) << f.users << " users × " << f.items
            << " memories, loaded in " << load_s << " s\n"
            << "full run:        " << full->duration_ms / 1000.0 << " s, examined "
            << full->examined << ", archived " << full->archived << ", expired " << full->expired
            << ", merged " << full->merged << "\n"
            << "incremental run: " << incremental->duration_ms / 1000.0 << " s after " << changed
            << " changes, examined " << incremental->examined << "\n"
            << "search p50 / p99 idle:            " << Percentile(idle, 0.5) << " / "
            << Percentile(idle, 0.99) << " ms (" << idle.size() << " searches)\n"
            << "search p50 / p99 during full run: " << Percentile(busy, 0.5) << " / "
            << Percentile(busy, 0.99) << " ms (" << busy.size() << " searches, run "
            << during->duration_ms / 1000.0 << " s: archived " << during->archived << ", purged "
            << during->purged << ")\n";
  return kExitOk;
}

}  // namespace

struct RecallBenchFlags {
  std::string data = "bench/data/recall";
  std::string lang = "all";
  bool failures = false;
};

int RunRecallBenchCommand(Context& ctx, const RecallBenchFlags& f) {
  std::error_code ec;
  const auto work =
      std::filesystem::temp_directory_path() / ("engram-recall-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(work, ec);
  RecallBenchOptions options;
  options.data_dir = f.data;
  options.language = f.lang;
  options.work_dir = work.string();
  auto report = RunRecallBench(options);
  std::filesystem::remove_all(work, ec);
  if (!report.ok()) return ctx.Fail(report.status());
  auto rates = [](const RecallRates& r) {
    return json{{"surfaced", r.surfaced},
                {"should_surface", r.should_surface},
                {"surface_rate", r.SurfaceRate()},
                {"silent", r.silent},
                {"should_be_silent", r.should_be_silent},
                {"silence_rate", r.SilenceRate()}};
  };
  if (ctx.json) {
    json out = {{"all", rates(report->all)}, {"by_language", json::object()}};
    for (const auto& [lang, r] : report->by_language) out["by_language"][lang] = rates(r);
    json failed = json::array();
    for (const RecallCaseResult& c : report->cases) {
      if (!c.passed) failed.push_back({{"id", c.id}, {"raised", c.raised}});
    }
    out["failed"] = std::move(failed);
    std::cout << out.dump() << "\n";
    return kExitOk;
  }
  std::cout << std::fixed << std::setprecision(3)
            << "| language | right memory in top 3 | silent when nothing matters |\n"
               "|---|---|---|\n";
  auto row = [](const std::string& name, const RecallRates& r) {
    std::cout << "| " << name << " | " << r.SurfaceRate() << " (" << r.surfaced << "/"
              << r.should_surface << ") | " << r.SilenceRate() << " (" << r.silent << "/"
              << r.should_be_silent << ") |\n";
  };
  for (const auto& [lang, r] : report->by_language) row(lang, r);
  row("all", report->all);
  if (f.failures) {
    for (const RecallCaseResult& c : report->cases) {
      if (c.passed) continue;
      std::cout << c.id << (c.expects ? " (missed)" : " (not silent)") << "\n";
      for (const std::string& r : c.raised) std::cout << "  " << r << "\n";
    }
  }
  return kExitOk;
}

void AddMaintenanceBenchCommand(CLI::App* bench, Context& ctx) {
  auto rf = std::make_shared<RecallBenchFlags>();
  auto* recall = bench->add_subcommand(
      "recall",
      "Proactive recall on its corpus (bench/data/recall): the right memory in the top "
      "3 when one matters, silence otherwise, by language");
  recall->add_option("--data", rf->data, "Directory with en.jsonl and zh.jsonl")
      ->capture_default_str();
  recall->add_option("--lang", rf->lang, "en, zh or all")->capture_default_str();
  recall->add_flag("--failures", rf->failures, "List the cases that failed and what was raised");
  recall->callback(
      [&ctx, rf] { ctx.action = [&ctx, rf] { return RunRecallBenchCommand(ctx, *rf); }; });

  auto f = std::make_shared<MaintenanceBenchFlags>();
  auto* cmd = bench->add_subcommand(
      "maintenance",
      "Lifecycle maintenance at scale: a full run, an incremental run after 1% changed, and "
      "search latency with and without a run (builds its own database)");
  cmd->add_option("--users", f->users, "Users")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--items", f->items, "Memories per user")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  cmd->add_option("--dir", f->dir,
                  "Directory for the database (default: a temporary one, removed)");
  cmd->add_option("--searches", f->searches, "Searches per latency measurement")
      ->check(CLI::Range(10, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--changed", f->changed, "Share of memories changed before the incremental run")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->callback([&ctx, f] { ctx.action = [&ctx, f] { return RunMaintenanceBench(ctx, *f); }; });
}

}  // namespace engram::cli
