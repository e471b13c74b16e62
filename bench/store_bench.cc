// Storage benchmarks for the foundation (issue 2):
//   BM_BatchAdd      — items/s for AddBatch (no embedding) into a fresh database
//   BM_ListNewest100 — one user's newest 100 items with 1M items across 1,000 users
//   BM_AddOne        — a single acknowledged Add (one transaction, fsync with synchronous=FULL)
//   BM_Get           — one item by id
// Run: make bench   (or build/engram_bench --benchmark_filter=...)
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "engram/engine.h"

namespace engram {
namespace {

std::string TempPath(const std::string& name) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-bench-XXXXXX").string();
  char* dir = mkdtemp(tmpl.data());
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void RemoveDb(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ec);
}

std::vector<NewMemory> MakeBatch(size_t n, size_t offset) {
  static const char* kTopics[] = {"tea", "hiking", "Beijing", "work", "family", "music"};
  std::vector<NewMemory> batch(n);
  for (size_t i = 0; i < n; ++i) {
    batch[i].content = "User mentioned " + std::string(kTopics[(offset + i) % 6]) + " in message " +
                       std::to_string(offset + i);
    batch[i].tags = {kTopics[(offset + i) % 6]};
  }
  return batch;
}

std::unique_ptr<Engine> Open(const std::string& path, const std::string& sync = "FULL") {
  EngineOptions options;
  options.path = path;
  options.synchronous = sync;
  auto e = Engine::Open(options);
  if (!e.ok()) {
    std::fprintf(stderr, "open failed: %s\n", e.status().ToString().c_str());
    std::abort();
  }
  return std::move(e).value();
}

void BM_BatchAdd(benchmark::State& state) {
  const size_t total = 100'000;
  const size_t batch_size = static_cast<size_t>(state.range(0));
  std::vector<std::vector<NewMemory>> batches;
  for (size_t off = 0; off < total; off += batch_size)
    batches.push_back(MakeBatch(batch_size, off));
  for (auto _ : state) {
    state.PauseTiming();
    std::string path = TempPath("batch.db");
    auto engine = Open(path);
    Scope scope{"default", "bench-user", "", ""};
    state.ResumeTiming();
    for (const auto& b : batches) {
      auto r = engine->AddBatch(scope, b);
      if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    }
    state.PauseTiming();
    engine.reset();
    RemoveDb(path);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * total));
}
BENCHMARK(BM_BatchAdd)
    ->Arg(100'000)
    ->Arg(1'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

// 1M items across 1,000 users, built once and shared by the read benchmarks.
struct BigStore {
  static constexpr int kUsers = 1000;
  static constexpr int kPerUser = 1000;
  std::string path;
  std::unique_ptr<Engine> engine;
  std::vector<std::string> sample_ids;  // one id per user

  BigStore() {
    path = TempPath("big.db");
    engine = Open(path, "NORMAL");
    std::fprintf(stderr, "building 1M items across 1,000 users...\n");
    // Users are interleaved in time, as in a real deployment.
    for (int round = 0; round < 10; ++round) {
      for (int u = 0; u < kUsers; ++u) {
        Scope scope{"default", "user-" + std::to_string(u), "", ""};
        auto batch = MakeBatch(kPerUser / 10, static_cast<size_t>(round * kPerUser));
        auto r = engine->AddBatch(scope, batch);
        if (!r.ok()) std::abort();
        if (round == 0) sample_ids.push_back(r->front().id);
      }
      std::fprintf(stderr, "  %d%%\n", (round + 1) * 10);
    }
  }
  ~BigStore() {
    engine.reset();
    RemoveDb(path);
  }
  static BigStore& Get() {
    static BigStore* store = new BigStore();
    return *store;
  }
};

void BM_ListNewest100(benchmark::State& state) {
  BigStore& big = BigStore::Get();
  std::mt19937 rng(7);
  ListQuery q;
  q.limit = 100;
  size_t returned = 0;
  for (auto _ : state) {
    Scope scope{"default", "user-" + std::to_string(rng() % BigStore::kUsers), "", ""};
    auto page = big.engine->List(scope, q);
    if (!page.ok()) state.SkipWithError(page.status().ToString().c_str());
    returned += page->items.size();
  }
  state.counters["items_per_call"] = static_cast<double>(returned) / state.iterations();
}
BENCHMARK(BM_ListNewest100)->Unit(benchmark::kMicrosecond);

void BM_Get(benchmark::State& state) {
  BigStore& big = BigStore::Get();
  std::mt19937 rng(11);
  for (auto _ : state) {
    int u = static_cast<int>(rng() % BigStore::kUsers);
    Scope scope{"default", "user-" + std::to_string(u), "", ""};
    auto item = big.engine->Get(scope, big.sample_ids[u]);
    if (!item.ok()) state.SkipWithError(item.status().ToString().c_str());
  }
}
BENCHMARK(BM_Get)->Unit(benchmark::kMicrosecond);

void BM_AddOne(benchmark::State& state) {
  std::string path = TempPath("one.db");
  auto engine = Open(path, state.range(0) ? "FULL" : "NORMAL");
  Scope scope{"default", "bench-user", "", ""};
  NewMemory m;
  m.content = "I moved to Shanghai last month";
  for (auto _ : state) {
    auto r = engine->Add(scope, m);
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetLabel(state.range(0) ? "synchronous=FULL" : "synchronous=NORMAL");
  engine.reset();
  RemoveDb(path);
}
BENCHMARK(BM_AddOne)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
