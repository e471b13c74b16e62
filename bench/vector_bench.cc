// Vector index benchmarks.
//
// HNSW (M 16, ef_construction 100 or ENGRAM_BENCH_EFC) over N vectors of dimension 384 (the default
// embedder's), N from ENGRAM_BENCH_N (default 1,000,000): search latency at k = 10 for a sweep of
// ef_search, with recall@10 against exact results for 200 held-out queries, on two data sets:
//   random     uniform random unit vectors: the worst case for HNSW (no structure to exploit);
//   clustered  1,000 gaussian centers plus per-dimension noise (sigma 0.05; a point has cosine
//              ~0.72 with its center), closer to what text embeddings look like.
// Also: filtered search (50%, 10%, 1% of keys pass), snapshot save/load time, the cost of
// replacing a key's vector (last: it perturbs the graph), and exact brute-force search at 10,000
// and 20,000 vectors.
//
// Exact results are computed while the index is built (each new vector is scored against all
// queries), so the raw vectors are never held in memory beside the index. Building at 1M takes
// a long time: progress goes to stderr.
//
//   ENGRAM_BENCH_N=100000 ./engram_vector_bench
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/hnsw_index.h"

namespace engram {
namespace {

constexpr int kDim = 384;
constexpr size_t kQueries = 200;
constexpr size_t kK = 10;
constexpr size_t kCenters = 1000;
constexpr float kClusterNoise = 0.05f;
constexpr int kFilterModuli[] = {1, 2, 10, 100};  // key % m == 0 passes: 100%, 50%, 10%, 1%

enum Kind : int { kRandom = 0, kClustered = 1 };
const char* KindName(int kind) { return kind == kRandom ? "random" : "clustered"; }

size_t BenchN() {
  const char* env = std::getenv("ENGRAM_BENCH_N");
  return env ? std::strtoull(env, nullptr, 10) : 1'000'000;
}

// ef_construction of the graph (ENGRAM_BENCH_EFC, default the index's default, 100).
size_t BenchEfConstruction() {
  const char* env = std::getenv("ENGRAM_BENCH_EFC");
  return env ? std::strtoull(env, nullptr, 10) : HnswOptions{}.ef_construction;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Normalize(float* v) {
  double norm = 0;
  for (int i = 0; i < kDim; ++i) norm += double(v[i]) * v[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (int i = 0; i < kDim; ++i) v[i] *= inv;
}

// Unit vectors of one kind; the clustered kind draws a center, then adds noise.
class VectorSource {
 public:
  VectorSource(int kind, uint32_t seed) : kind_(kind), rng_(seed) {
    if (kind_ != kClustered) return;
    std::mt19937 center_rng(12345);  // the same centers for data and queries
    centers_.resize(kCenters * kDim);
    for (size_t c = 0; c < kCenters; ++c) Fill(center_rng, 1.0f, &centers_[c * kDim]);
  }
  void Next(float* out) {
    if (kind_ == kRandom) return Fill(rng_, 1.0f, out);
    const float* center = &centers_[(rng_() % kCenters) * kDim];
    for (int i = 0; i < kDim; ++i) out[i] = center[i] + kClusterNoise * normal_(rng_);
    Normalize(out);
  }

 private:
  void Fill(std::mt19937& rng, float sigma, float* out) {
    for (int i = 0; i < kDim; ++i) out[i] = sigma * normal_(rng);
    Normalize(out);
  }
  int kind_;
  std::mt19937 rng_;
  std::normal_distribution<float> normal_{0.0f, 1.0f};
  std::vector<float> centers_;
};

// The k best (key, score) seen so far.
class TopK {
 public:
  void Offer(int64_t key, float score) {
    if (heap_.size() == kK && score <= heap_.front().score) return;
    auto worse = [](const VectorHit& a, const VectorHit& b) { return a.score > b.score; };
    if (heap_.size() == kK) {
      std::pop_heap(heap_.begin(), heap_.end(), worse);
      heap_.pop_back();
    }
    heap_.push_back({key, score});
    std::push_heap(heap_.begin(), heap_.end(), worse);
  }
  std::set<int64_t> Keys() const {
    std::set<int64_t> keys;
    for (const auto& h : heap_) keys.insert(h.key);
    return keys;
  }

 private:
  std::vector<VectorHit> heap_;
};

// An index over N vectors of one kind, its queries, and their exact top-10 (per filter).
struct Corpus {
  int kind = -1;
  size_t n = 0;
  double build_seconds = 0;
  std::unique_ptr<HnswIndex> index;
  std::vector<float> queries;                         // kQueries x kDim
  std::vector<std::vector<std::set<int64_t>>> truth;  // [filter][query] -> keys
};

// Scores `v` against every query (queries stored transposed, so the loop vectorizes).
void ScoreAgainstQueries(const std::vector<float>& queries_t, const float* v, float* scores) {
  std::fill(scores, scores + kQueries, 0.0f);
  for (int d = 0; d < kDim; ++d) {
    const float* column = &queries_t[static_cast<size_t>(d) * kQueries];
    for (size_t q = 0; q < kQueries; ++q) scores[q] += column[q] * v[d];
  }
}

std::unique_ptr<Corpus> BuildCorpus(int kind, size_t n) {
  auto corpus = std::make_unique<Corpus>();
  corpus->kind = kind;
  corpus->n = n;
  corpus->queries.resize(kQueries * kDim);
  std::vector<float> queries_t(kQueries * kDim);
  VectorSource query_source(kind, 7);
  for (size_t q = 0; q < kQueries; ++q) {
    query_source.Next(&corpus->queries[q * kDim]);
    for (int d = 0; d < kDim; ++d) queries_t[d * kQueries + q] = corpus->queries[q * kDim + d];
  }
  corpus->index =
      HnswIndex::Create(
          {.dimension = kDim, .ef_construction = BenchEfConstruction(), .initial_capacity = n})
          .value();
  std::vector<std::vector<TopK>> top(std::size(kFilterModuli), std::vector<TopK>(kQueries));
  VectorSource source(kind, 1);
  std::vector<float> v(kDim), scores(kQueries);
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) {
    source.Next(v.data());
    if (!corpus->index->Upsert(static_cast<int64_t>(i), v.data()).ok()) std::abort();
    ScoreAgainstQueries(queries_t, v.data(), scores.data());
    for (size_t f = 0; f < std::size(kFilterModuli); ++f) {
      if (i % kFilterModuli[f] != 0) continue;
      for (size_t q = 0; q < kQueries; ++q) top[f][q].Offer(static_cast<int64_t>(i), scores[q]);
    }
    if ((i + 1) % std::max<size_t>(n / 20, 1) == 0) {
      std::fprintf(stderr, "[vector_bench] %s: %zu/%zu vectors, %.0f s\n", KindName(kind), i + 1, n,
                   SecondsSince(start));
    }
  }
  corpus->build_seconds = SecondsSince(start);
  corpus->truth.resize(top.size());
  for (size_t f = 0; f < top.size(); ++f) {
    for (const TopK& t : top[f]) corpus->truth[f].push_back(t.Keys());
  }
  return corpus;
}

// One corpus at a time: switching kind frees the previous index.
Corpus& GetCorpus(int kind) {
  static std::unique_ptr<Corpus> cached;
  if (!cached || cached->kind != kind) {
    cached.reset();
    cached = BuildCorpus(kind, BenchN());
  }
  return *cached;
}

KeyFilter FilterFor(size_t f) {
  if (kFilterModuli[f] == 1) return {};
  const int64_t m = kFilterModuli[f];
  return [m](int64_t key) { return key % m == 0; };
}

double MeasureRecall(const Corpus& c, size_t f) {
  const KeyFilter filter = FilterFor(f);
  double found = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    for (const auto& h : c.index->Search(&c.queries[q * kDim], kK, filter)) {
      found += c.truth[f][q].count(h.key);
    }
  }
  return found / double(kQueries * kK);
}

void RunSearch(benchmark::State& state, Corpus& c, size_t f) {
  const KeyFilter filter = FilterFor(f);
  size_t q = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.index->Search(&c.queries[q * kDim], kK, filter));
    q = (q + 1) % kQueries;
  }
  state.counters["recall@10"] = MeasureRecall(c, f);
  state.counters["N"] = double(c.n);
  state.counters["build_s"] = c.build_seconds;
  state.counters["inserts/s"] = double(c.n) / c.build_seconds;
  state.SetLabel(KindName(c.kind));
}

// Args: kind, ef_search.
void BM_HnswSearch(benchmark::State& state) {
  Corpus& c = GetCorpus(static_cast<int>(state.range(0)));
  c.index->set_ef_search(static_cast<size_t>(state.range(1)));
  RunSearch(state, c, 0);
}
// Kind-major, so each data set is built once.
BENCHMARK(BM_HnswSearch)
    ->ArgNames({"kind", "ef"})
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int ef : {16, 32, 64, 128, 256, 512, 1024, 2048}) b->Args({kRandom, ef});
      for (int ef : {10, 16, 32, 64, 128, 256, 512}) b->Args({kClustered, ef});
    })
    ->Unit(benchmark::kMicrosecond);

// Args: kind, ef_search, filter (1: 50% pass, 2: 10%, 3: 1%).
void BM_HnswSearchFiltered(benchmark::State& state) {
  Corpus& c = GetCorpus(static_cast<int>(state.range(0)));
  c.index->set_ef_search(static_cast<size_t>(state.range(1)));
  RunSearch(state, c, static_cast<size_t>(state.range(2)));
  state.counters["pass%"] = 100.0 / kFilterModuli[state.range(2)];
}
BENCHMARK(BM_HnswSearchFiltered)
    ->ArgNames({"kind", "ef", "filter"})
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int ef : {64, 128}) {
        for (int filter : {1, 2, 3}) b->Args({kClustered, ef, filter});
      }
    })
    ->Unit(benchmark::kMicrosecond);

void BM_HnswSnapshotSaveLoad(benchmark::State& state) {
  Corpus& c = GetCorpus(kClustered);
  std::string dir =
      (std::filesystem::temp_directory_path() / "engram_vector_bench_XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) return state.SkipWithError("mkdtemp failed");
  const std::string path = dir + "/bench.hnsw";
  const HnswSnapshotMeta meta{.model = "bench",
                              .dimension = kDim,
                              .M = c.index->M(),
                              .ef_construction = c.index->ef_construction(),
                              .fingerprint = c.n};
  double save_s = 0, load_s = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    if (!SaveHnswSnapshot(*c.index, path, meta).ok()) return state.SkipWithError("save failed");
    save_s = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    auto loaded = LoadHnswSnapshot(path, meta);
    if (!loaded.ok()) return state.SkipWithError("load failed");
    load_s = SecondsSince(start);
  }
  state.counters["save_s"] = save_s;
  state.counters["load_s"] = load_s;
  state.counters["file_MB"] = double(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_HnswSnapshotSaveLoad)->Iterations(1)->Unit(benchmark::kMillisecond);

// Replacing the vector of an existing key re-links its neighborhood (hnswlib's updatePoint),
// which costs more than an insert. Each iteration replaces one key's vector and puts it back.
void BM_HnswUpsertReplace(benchmark::State& state) {
  Corpus& c = GetCorpus(kClustered);
  VectorSource source(kClustered, 99);
  std::vector<float> fresh(kDim), original;
  int64_t key = 0;
  for (auto _ : state) {
    if (!c.index->Get(key, &original)) return state.SkipWithError("missing key");
    source.Next(fresh.data());
    if (!c.index->Upsert(key, fresh.data()).ok() || !c.index->Upsert(key, original.data()).ok()) {
      return state.SkipWithError("upsert failed");
    }
    key = (key + 7919) % static_cast<int64_t>(c.n);
  }
  state.counters["replaces/s"] =
      benchmark::Counter(2.0 * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_HnswUpsertReplace)->Unit(benchmark::kMicrosecond);

// Exact search the simple way: one pass over a contiguous matrix, a top-10 heap.
void BM_ExactSearch(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<float> data(n * kDim), queries(kQueries * kDim);
  VectorSource source(kRandom, 3);
  for (size_t i = 0; i < n; ++i) source.Next(&data[i * kDim]);
  for (size_t q = 0; q < kQueries; ++q) source.Next(&queries[q * kDim]);
  size_t q = 0;
  for (auto _ : state) {
    TopK top;
    const float* query = &queries[q * kDim];
    for (size_t i = 0; i < n; ++i) {
      const float* row = &data[i * kDim];
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // independent sums let the compiler vectorize
      for (int d = 0; d < kDim; d += 4) {
        s0 += query[d] * row[d];
        s1 += query[d + 1] * row[d + 1];
        s2 += query[d + 2] * row[d + 2];
        s3 += query[d + 3] * row[d + 3];
      }
      top.Offer(static_cast<int64_t>(i), (s0 + s1) + (s2 + s3));
    }
    benchmark::DoNotOptimize(top);
    q = (q + 1) % kQueries;
  }
  state.counters["N"] = double(n);
}
BENCHMARK(BM_ExactSearch)->Arg(10'000)->Arg(20'000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
