// engram bench encryption — the cost of encryption at rest (issue 26's targets): the same
// workload on a plain and a sealed database, in the same run, interleaved in rounds so drift
// of the machine hits both alike. Single adds (each a committed, synced transaction, as the
// API does them) and single-threaded searches over a store of --items memories, the latter
// with the item cache on (the default) and off (every hit read through SQLite, hence through
// the sealing VFS).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/cli_app.h"
#include "cli/output.h"
#include "engram/clock.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

struct EncryptionBenchFlags {
  int items = 20000;    // memories in the searched store
  int adds = 300;       // single adds per round and database
  int searches = 2000;  // searches per round and database
  int rounds = 3;
  std::string dir;  // default: a temporary directory, removed
};

const char* const kWords[] = {"hiking",  "coffee",  "jazz",    "Python", "Tokyo",  "cooking",
                              "running", "cats",    "movies",  "tennis", "garden", "chess",
                              "sister",  "allergy", "peanuts", "Berlin", "violin", "salmon"};

std::string Sentence(std::mt19937& rng, int i) {
  std::uniform_int_distribution<int> w(0, 17);
  return std::string("note ") + std::to_string(i) + ": likes " + kWords[w(rng)] + " and " +
         kWords[w(rng)] + ", visited " + kWords[w(rng)] + " with a friend about " + kWords[w(rng)];
}

double Ms(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Side {
  std::string name;
  std::shared_ptr<const EncryptionKey> key;
  std::unique_ptr<Engine> cached, uncached;  // the same file, item cache on and off
  std::vector<double> add_ms, search_ms, search_nocache_ms;
  double search_s = 0, search_nocache_s = 0;
};

Result<std::unique_ptr<Engine>> OpenSide(const Context& ctx, const std::string& path,
                                         std::shared_ptr<const EncryptionKey> key,
                                         size_t item_cache) {
  EngineOptions o;
  o.path = path;
  o.encryption_key = std::move(key);
  o.item_cache_bytes = item_cache;
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return embedder.status();
  o.embedder = *embedder;
  return Engine::Open(o);
}

int RunEncryptionBench(Context& ctx, const EncryptionBenchFlags& f) {
  std::string dir = f.dir;
  bool remove_dir = false;
  if (dir.empty()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "engram-encbench-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      return ctx.Fail(Status::IOError("cannot make a temporary directory"));
    dir = tmpl;
    remove_dir = true;
  }
  std::filesystem::create_directories(dir);
  std::vector<Side> sides(2);
  sides[0].name = "plain";
  sides[1].name = "sealed";
  sides[1].key = std::make_shared<const EncryptionKey>(EncryptionKey::Generate());
  const Scope store_scope{"bench", "reader", "", ""};
  for (Side& s : sides) {
    const std::string path = dir + "/" + s.name + ".db";
    std::filesystem::remove(path);
    auto engine = OpenSide(ctx, path, s.key, EngineOptions{}.item_cache_bytes);
    if (!engine.ok()) return ctx.Fail(engine.status());
    s.cached = std::move(engine).value();
    std::mt19937 rng(11);  // both stores hold the same memories
    std::cerr << s.name << ": storing " << f.items << " memories..." << std::flush;
    for (int start = 0; start < f.items; start += 1000) {
      std::vector<NewMemory> batch;
      for (int i = start; i < std::min(f.items, start + 1000); ++i) {
        NewMemory m;
        m.content = Sentence(rng, i);
        batch.push_back(std::move(m));
      }
      auto added = s.cached->AddBatch(store_scope, batch);
      if (!added.ok()) return ctx.Fail(added.status());
      std::cerr << "\r" << s.name << ": storing " << f.items << " memories... "
                << std::min(f.items, start + 1000) << std::flush;
    }
    std::cerr << "\n";
    auto uncached = OpenSide(ctx, path, s.key, 0);
    if (!uncached.ok()) return ctx.Fail(uncached.status());
    s.uncached = std::move(uncached).value();
  }
  for (int round = 0; round < f.rounds; ++round) {
    std::cerr << "round " << round + 1 << " of " << f.rounds << "\n";
    for (Side& s : sides) {
      std::mt19937 rng(100 + round);
      const Scope writer{"bench", "writer" + std::to_string(round), "", ""};
      for (int i = 0; i < f.adds; ++i) {
        NewMemory m;
        m.content = Sentence(rng, i);
        const auto t0 = SteadyClock::now();
        auto added = s.cached->Add(writer, m);
        s.add_ms.push_back(Ms(t0, SteadyClock::now()));
        if (!added.ok()) return ctx.Fail(added.status());
      }
      for (bool cache : {true, false}) {
        Engine& engine = cache ? *s.cached : *s.uncached;
        std::mt19937 qrng(200 + round);
        std::uniform_int_distribution<int> w(0, 17);
        const auto start = SteadyClock::now();
        for (int i = 0; i < f.searches; ++i) {
          SearchQuery q;
          q.text = std::string("who likes ") + kWords[w(qrng)] + " and " + kWords[w(qrng)];
          q.k = 10;
          const auto t0 = SteadyClock::now();
          auto hits = engine.Search(store_scope, q);
          (cache ? s.search_ms : s.search_nocache_ms).push_back(Ms(t0, SteadyClock::now()));
          if (!hits.ok()) return ctx.Fail(hits.status());
        }
        (cache ? s.search_s : s.search_nocache_s) +=
            std::chrono::duration<double>(SteadyClock::now() - start).count();
      }
    }
  }
  auto summary = [&](const Side& s) {
    const double adds = static_cast<double>(s.add_ms.size());
    double add_total = 0;
    for (double v : s.add_ms) add_total += v;
    const double searches = static_cast<double>(f.searches) * f.rounds;
    return json{{"adds_per_s", adds / (add_total / 1000)},
                {"add_p50_ms", Percentile(s.add_ms, 0.5)},
                {"add_p99_ms", Percentile(s.add_ms, 0.99)},
                {"searches_per_s", searches / s.search_s},
                {"search_p50_ms", Percentile(s.search_ms, 0.5)},
                {"search_p99_ms", Percentile(s.search_ms, 0.99)},
                {"searches_per_s_no_item_cache", searches / s.search_nocache_s},
                {"search_no_item_cache_p99_ms", Percentile(s.search_nocache_ms, 0.99)}};
  };
  const json plain = summary(sides[0]), sealed = summary(sides[1]);
  auto cost = [&](const char* field, bool higher_better) {
    const double p = plain[field].get<double>(), s = sealed[field].get<double>();
    return higher_better ? (p - s) / p : (s - p) / p;
  };
  const json result = {
      {"items", f.items},
      {"rounds", f.rounds},
      {"plain", plain},
      {"sealed", sealed},
      {"cost",
       {{"single_add_latency", cost("adds_per_s", true)},
        {"search_throughput", cost("searches_per_s", true)},
        {"search_throughput_no_item_cache", cost("searches_per_s_no_item_cache", true)}}}};
  for (Side& s : sides) {
    s.cached.reset();
    s.uncached.reset();
  }
  if (remove_dir) std::filesystem::remove_all(dir);
  if (ctx.json) {
    std::cout << result.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << std::fixed << std::setprecision(2);
  std::cout << "                          plain      sealed     cost\n";
  auto row = [&](const char* label, const char* field, const char* cost_name) {
    std::cout << std::left << std::setw(26) << label << std::setw(11) << plain[field].get<double>()
              << std::setw(11) << sealed[field].get<double>();
    if (cost_name) std::cout << 100 * result["cost"][cost_name].get<double>() << " %";
    std::cout << "\n";
  };
  row("single adds/s", "adds_per_s", "single_add_latency");
  row("add p50 ms", "add_p50_ms", nullptr);
  row("add p99 ms", "add_p99_ms", nullptr);
  row("searches/s", "searches_per_s", "search_throughput");
  row("search p50 ms", "search_p50_ms", nullptr);
  row("search p99 ms", "search_p99_ms", nullptr);
  row("searches/s, no item cache", "searches_per_s_no_item_cache",
      "search_throughput_no_item_cache");
  return kExitOk;
}

}  // namespace

void AddEncryptionBenchCommand(CLI::App* bench, Context& ctx) {
  auto f = std::make_shared<EncryptionBenchFlags>();
  auto* cmd = bench->add_subcommand(
      "encryption",
      "The cost of encryption at rest: single adds and searches on a plain and a sealed "
      "database in the same run (builds its own databases)");
  cmd->add_option("--items", f->items, "Memories in the searched store")
      ->check(CLI::Range(100, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--adds", f->adds, "Single adds per round and database")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--searches", f->searches, "Searches per round, database and cache setting")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--rounds", f->rounds, "Rounds, alternating plain and sealed")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--dir", f->dir, "Directory for the databases (default: a temporary one)");
  cmd->callback([&ctx, f] { ctx.action = [&ctx, f] { return RunEncryptionBench(ctx, *f); }; });
}

}  // namespace engram::cli
