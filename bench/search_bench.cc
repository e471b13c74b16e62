// Retrieval benchmarks (issue 3):
//   BM_HashEmbed        — built-in embedder throughput on short texts (one core)
//   BM_Search10k        — hybrid search, k=10, one scope of 10k memories; p50/p99 (wall and
//                         the searching thread's CPU time) as counters
//   BM_SearchGraph10k/0|1 — the same search over 10k memories that name people, organisations
//                         and projects (2,000 entities, 4,000 relations), the graph channel off
//                         (0) and on (1); every query names one or two of the entities
//   BM_ScanIndex100x10k — the scan index alone as the server benchmark uses it: 100 scopes of
//                         10k vectors (2 GB, far beyond the CPU caches), k=30 (the vector
//                         channel's pool for k=10) in a random scope per search
//   BM_ScanCodes/<kernel> — the fast-scan kernel alone over one scope's codes (10k rows of 384
//                         dimensions, 480 KB: in the L2/L3 caches), per kernel the CPU can run
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "engram/engine.h"
#include "index/scan_index.h"

namespace engram {
namespace {

const char* kWords[] = {"tea",      "coffee",   "hiking",  "Beijing", "Shanghai", "violin",
                        "daughter", "marathon", "allergy", "peanuts", "nurse",    "hospital",
                        "cat",      "dog",      "garden",  "book",    "novel",    "piano",
                        "travel",   "Japan",    "sushi",   "work",    "meeting",  "project",
                        "deadline", "birthday", "party",   "music",   "jazz",     "running",
                        "swimming", "doctor",   "school",  "exam",    "movie",    "friend"};
const char* kZh[] = {"我喜欢喝绿茶", "周末去爬山",       "女儿在学小提琴", "对花生过敏",
                     "在医院当护士", "下个月去日本旅行", "最近在读小说",   "养了一只猫"};

double ThreadCpuMicros() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

std::string Sentence(std::mt19937& rng, int n) {
  std::string s = "I told you about";
  for (int i = 0; i < n; ++i) s += std::string(" ") + kWords[rng() % std::size(kWords)];
  if (rng() % 4 == 0) s += std::string("，") + kZh[rng() % std::size(kZh)];
  return s;
}

void BM_HashEmbed(benchmark::State& state) {
  auto embedder = std::move(MakeHashEmbedder({})).value();
  std::mt19937 rng(1);
  std::vector<std::string> texts;
  for (int i = 0; i < 1000; ++i) texts.push_back(Sentence(rng, 8));
  for (auto _ : state) {
    auto v = embedder->Embed(texts);
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * texts.size()));
}
BENCHMARK(BM_HashEmbed)->Unit(benchmark::kMillisecond);

void BM_Search10k(benchmark::State& state) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-sbench-XXXXXX").string();
  std::string dir = mkdtemp(tmpl.data());
  EngineOptions options;
  options.path = dir + "/s.db";
  options.synchronous = "NORMAL";
  auto engine = std::move(Engine::Open(options)).value();
  Scope scope{"default", "bench", "", ""};
  std::mt19937 rng(2);
  for (int b = 0; b < 10; ++b) {
    std::vector<NewMemory> batch(1000);
    for (auto& m : batch) m.content = Sentence(rng, 10);
    if (!engine->AddBatch(scope, batch).ok()) std::abort();
  }
  SearchQuery warm;
  warm.text = "tea";
  (void)engine->Search(scope, warm);  // loads the scope index
  engine->WaitForIndexBuilds();       // past hnsw_threshold: the graph is built in the background
  std::vector<double> latencies, cpu;
  for (auto _ : state) {
    SearchQuery q;
    q.text = Sentence(rng, 3) + "?";
    q.record_access = false;
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuMicros();
    auto hits = engine->Search(scope, q);
    cpu.push_back(ThreadCpuMicros() - c0);
    latencies.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    if (!hits.ok()) state.SkipWithError(hits.status().ToString().c_str());
  }
  std::sort(latencies.begin(), latencies.end());
  state.counters["p50_us"] = latencies[latencies.size() / 2];
  state.counters["p99_us"] = latencies[latencies.size() * 99 / 100];
  // CPU time of the searching thread: steadier than wall time when other work shares the cores.
  std::sort(cpu.begin(), cpu.end());
  state.counters["cpu_p50_us"] = cpu[cpu.size() / 2];
  state.counters["cpu_p99_us"] = cpu[cpu.size() * 99 / 100];
  engine.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Search10k)->Unit(benchmark::kMicrosecond)->Iterations(2000);

// People, organisations and projects with relations between them, named by the memories.
std::string Person(int i) { return "Person" + std::to_string(i); }
std::string Org(int i) { return "Org" + std::to_string(i); }
std::string Project(int i) { return "Project" + std::to_string(i); }
constexpr int kPeople = 1000, kOrgs = 500, kProjects = 500;

void BM_SearchGraph10k(benchmark::State& state) {
  const bool graph = state.range(0) != 0;
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-gbench-XXXXXX").string();
  std::string dir = mkdtemp(tmpl.data());
  EngineOptions options;
  options.path = dir + "/g.db";
  options.synchronous = "NORMAL";
  auto engine = std::move(Engine::Open(options)).value();
  Scope scope{"default", "bench", "", ""};
  std::mt19937 rng(3);
  for (int b = 0; b < 10; ++b) {
    std::vector<NewMemory> batch(1000);
    for (auto& m : batch) {
      const int p = static_cast<int>(rng() % kPeople);
      const int o = static_cast<int>(rng() % kOrgs);
      const int j = static_cast<int>(rng() % kProjects);
      m.content = Person(p) + " of " + Org(o) + " works on " + Project(j) + ", " + Sentence(rng, 6);
      m.graph.entities = {{Person(p), EntityKind::kPerson, {}},
                          {Org(o), EntityKind::kOrganization, {}},
                          {Project(j), EntityKind::kProject, {}}};
      // Four relations per person on average across the memories.
      if (rng() % 5 < 2) m.graph.relations.push_back({Person(p), "works_at", Org(o), {}, false});
      if (rng() % 5 < 2) m.graph.relations.push_back({Person(p), "leads", Project(j), {}, false});
    }
    if (!engine->AddBatch(scope, batch).ok()) std::abort();
  }
  SearchQuery warm;
  warm.text = Person(1);
  (void)engine->Search(scope, warm);  // loads the scope index and the entity graph
  engine->WaitForIndexBuilds();
  std::vector<double> latencies;
  for (auto _ : state) {
    SearchQuery q;
    q.text = "what is " + Person(static_cast<int>(rng() % kPeople)) + " doing" +
             (rng() % 2 ? " on " + Project(static_cast<int>(rng() % kProjects)) : "") + "?";
    q.record_access = false;
    q.graph = graph;
    auto t0 = std::chrono::steady_clock::now();
    auto hits = engine->Search(scope, q);
    latencies.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    if (!hits.ok()) state.SkipWithError(hits.status().ToString().c_str());
  }
  std::sort(latencies.begin(), latencies.end());
  state.counters["p50_us"] = latencies[latencies.size() / 2];
  state.counters["p99_us"] = latencies[latencies.size() * 99 / 100];
  engine.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SearchGraph10k)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Iterations(2000);

// Sparse unit vectors (~14 % non-zero, as the hash embedder's are).
std::vector<float> SparseVector(std::mt19937& rng, int dim) {
  std::vector<float> v(static_cast<size_t>(dim), 0.0f);
  std::normal_distribution<float> normal;
  double norm = 0;
  for (float& x : v) {
    if (rng() % 7 != 0) continue;
    x = normal(rng);
    norm += x * x;
  }
  for (float& x : v) x = static_cast<float>(x / std::sqrt(norm + 1e-12));
  return v;
}

void BM_ScanIndex100x10k(benchmark::State& state) {
  constexpr int kDim = 384, kScopes = 100, kPerScope = 10'000;
  static std::vector<std::unique_ptr<VectorIndex>> scopes;  // built once for every run
  std::mt19937 rng(3);
  if (scopes.empty()) {
    for (int s = 0; s < kScopes; ++s) {
      scopes.push_back(MakeScanIndex(kDim));
      for (int i = 0; i < kPerScope; ++i) {
        if (!scopes.back()->Upsert(i, SparseVector(rng, kDim).data()).ok()) std::abort();
      }
    }
  }
  std::vector<std::vector<float>> queries;
  for (int i = 0; i < 1000; ++i) queries.push_back(SparseVector(rng, kDim));
  size_t i = 0;
  for (auto _ : state) {
    const auto& q = queries[i % queries.size()];
    auto hits = scopes[rng() % kScopes]->Search(q.data(), 30, KeyFilter());
    benchmark::DoNotOptimize(hits);
    ++i;
  }
}
BENCHMARK(BM_ScanIndex100x10k)->Unit(benchmark::kMicrosecond);

void BM_ScanCodes(benchmark::State& state, ScanKernel kernel) {
  constexpr size_t kGroups = 96, kBlocks = 10'000 / 32 + 1;
  std::mt19937 rng(5);
  std::vector<uint8_t> codes(kBlocks * kGroups * 16), lut(kGroups * 16);
  for (uint8_t& c : codes) c = static_cast<uint8_t>(rng());
  for (uint8_t& x : lut) x = static_cast<uint8_t>(rng());
  std::vector<uint32_t> sums(kBlocks * 32);
  for (auto _ : state) {
    kernel(codes.data(), kBlocks, lut.data(), kGroups, sums.data());
    benchmark::DoNotOptimize(sums.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBlocks * 32));
}

[[maybe_unused]] const bool kScanCodesRegistered = [] {
  for (const auto& [name, kernel] : ScanKernels()) {
    benchmark::RegisterBenchmark(("BM_ScanCodes/" + name).c_str(), BM_ScanCodes, kernel)
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace engram
