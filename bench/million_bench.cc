// One scope of N memories (default 1,000,000) through the Engine: hybrid search latency at
// k = 10 with the hash embedder, and recall@10 of the vector channel's HNSW graph against an
// exact scan.
//
// Texts: a 20,000-word vocabulary of syllable words drawn with a Zipf law (s = 1), and 5,000
// topics of 12 words each; a memory (8-19 words) takes about half its words from its topic —
// a user's memories return to the same people, places and subjects. Queries (3-6 words) are
// drawn the same way. Hash embeddings of uniformly random word bags are close to random
// vectors, on which no graph index reaches high recall (see bench/results/retrieval.md).
//
// The database is cached in $ENGRAM_BENCH_DIR (default /var/tmp/engram-bench-1m), so the
// slow parts run once: adding the memories, then building the graph (in the background, as the
// engine does past hnsw_threshold) and saving its snapshot on close. Later runs load the
// snapshot. Progress goes to stderr.
//
//   ENGRAM_BENCH_N=1000000 ./engram_million_bench
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engram/engine.h"
#include "index/dot_product.h"
#include "index/hnsw_index.h"

namespace engram {
namespace {

constexpr int kVocabulary = 20'000;
constexpr int kTopics = 5'000;
constexpr int kTopicWords = 12;
constexpr int kQueries = 200;
constexpr size_t kBatch = 5'000;
constexpr size_t kK = 10;

size_t EnvSize(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : fallback;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double ThreadCpuMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Deterministic texts: the i-th memory is the same on every run.
class TextGenerator {
 public:
  TextGenerator() {
    const char* syllables[] = {"ka", "ri",  "to", "mo", "na", "se", "lu", "vi", "de", "po",
                               "ga", "shi", "ne", "ro", "ta", "mi", "zu", "be", "fa", "lo"};
    std::mt19937 rng(1);
    for (int i = 0; i < kVocabulary; ++i) {
      std::string w;
      for (int j = 0, n = 2 + static_cast<int>(rng() % 3); j < n; ++j) w += syllables[rng() % 20];
      vocabulary_.push_back(w);
    }
    double sum = 0;
    for (int i = 1; i <= kVocabulary; ++i) cdf_.push_back(sum += 1.0 / i);
    for (double& c : cdf_) c /= sum;
  }

  std::string Memory(uint64_t i) const { return Text(i * 2 + 1, 8, 12); }
  std::string Query(uint64_t i) const { return Text(i * 2 + (uint64_t{1} << 40), 3, 4); }

 private:
  std::string Text(uint64_t seed, int min_words, int spread) const {
    std::mt19937_64 rng(seed);
    const uint64_t topic = rng() % kTopics;
    const int words = min_words + static_cast<int>(rng() % spread);
    std::string s;
    for (int w = 0; w < words; ++w) {
      if (w) s += ' ';
      if (rng() % 2) {
        std::mt19937_64 topic_rng(topic * 7919 + static_cast<uint64_t>(rng() % kTopicWords));
        s += vocabulary_[200 + topic_rng() % (kVocabulary - 200)];  // not among the commonest
      } else {
        const double u = std::uniform_real_distribution<double>(0, 1)(rng);
        s += vocabulary_[std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin()];
      }
    }
    return s;
  }

  std::vector<std::string> vocabulary_;
  std::vector<double> cdf_;
};

std::unique_ptr<Engine> OpenEngine(const std::string& path) {
  EngineOptions options;
  options.path = path;
  options.synchronous = "NORMAL";
  options.index_memory_budget = 0;
  auto engine = Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "open %s: %s\n", path.c_str(), engine.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(engine).value();
}

const Scope kScope{"default", "million", "", ""};

// Adds memories until the scope holds n (resuming an interrupted fill).
void Fill(Engine& engine, const TextGenerator& gen, size_t n) {
  auto scopes = engine.ListScopes("default");
  size_t have = 0;
  for (const ScopeSummary& s : scopes.value()) {
    if (s.user_id == kScope.user_id) have = static_cast<size_t>(s.items);
  }
  const auto start = std::chrono::steady_clock::now();
  for (size_t done = have; done < n;) {
    std::vector<NewMemory> batch(std::min(kBatch, n - done));
    for (size_t j = 0; j < batch.size(); ++j) batch[j].content = gen.Memory(done + j);
    auto added = engine.AddBatch(kScope, batch);
    if (!added.ok())
      std::fprintf(stderr, "add: %s\n", added.status().ToString().c_str()), std::exit(1);
    done += batch.size();
    if (done % 100'000 == 0 || done == n) {
      std::fprintf(stderr, "  added %zu / %zu (%.0f s)\n", done, n, Seconds(start));
    }
  }
}

// Loads the index; without a snapshot, waits for the background graph build (progress shown).
void LoadIndex(Engine& engine) {
  auto start = std::chrono::steady_clock::now();
  auto info = engine.DescribeIndex(kScope);
  if (!info.ok())
    std::fprintf(stderr, "load: %s\n", info.status().ToString().c_str()), std::exit(1);
  std::fprintf(stderr, "  index loaded in %.1f s (snapshot: %s)\n", Seconds(start),
               info->snapshot_status.c_str());
  std::atomic<bool> built{false};
  std::thread waiter([&] {
    engine.WaitForIndexBuilds();
    built = true;
  });
  while (!built) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    static double last = 0;
    if (Seconds(start) - last >= 30) {
      last = Seconds(start);
      std::fprintf(stderr, "  building the graph... %.0f s\n", last);
    }
  }
  waiter.join();
  info = engine.DescribeIndex(kScope);
  std::fprintf(stderr, "  ready after %.1f s: %lld vectors, approximate %d\n", Seconds(start),
               static_cast<long long>(info->vectors), info->approximate);
}

struct Latency {
  double p50_ms, p99_ms, cpu_p50_ms, cpu_p99_ms;
};

Latency MeasureSearch(Engine& engine, const TextGenerator& gen) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < kQueries; ++i) {
    SearchQuery q;
    q.text = gen.Query(static_cast<uint64_t>(i));
    q.record_access = false;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuMs();
    auto hits = engine.Search(kScope, q);
    cpu.push_back(ThreadCpuMs() - c0);
    wall.push_back(Seconds(t0) * 1e3);
    if (!hits.ok())
      std::fprintf(stderr, "search: %s\n", hits.status().ToString().c_str()), std::exit(1);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], wall[wall.size() * 99 / 100], cpu[cpu.size() / 2],
          cpu[cpu.size() * 99 / 100]};
}

// The snapshot's own header gives the meta LoadHnswSnapshot checks (storage-format.md).
HnswSnapshotMeta ReadMeta(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string h(48, '\0');
  in.read(h.data(), 48);
  auto le = [&](size_t at, int bytes) {
    uint64_t v = 0;
    for (int b = bytes - 1; b >= 0; --b) v = (v << 8) | static_cast<uint8_t>(h[at + b]);
    return v;
  };
  HnswSnapshotMeta meta{.dimension = static_cast<int>(le(16, 4)),
                        .M = le(20, 8),
                        .ef_construction = le(28, 8),
                        .fingerprint = le(36, 8)};
  meta.model.resize(le(44, 4));
  in.read(meta.model.data(), static_cast<std::streamsize>(meta.model.size()));
  return meta;
}

// recall@10 of the graph against an exact scan of the same texts' embeddings, for the automatic
// ef_search (what the engine uses) and fixed ones, traversing with int8 rows (the engine's
// way) and with the float rows (before). A hit counts if it scores at least the exact 10th
// score (ties). Prints one line per ef and traversal with the graph search time.
void MeasureRecall(const std::string& snapshot, const TextGenerator& gen, size_t n) {
  auto graph = LoadHnswSnapshot(snapshot, ReadMeta(snapshot));
  if (!graph.ok())
    std::fprintf(stderr, "snapshot: %s\n", graph.status().ToString().c_str()), std::exit(1);
  auto embedder = std::move(MakeHashEmbedder({})).value();
  const size_t dim = 384;
  std::vector<std::vector<float>> queries;
  for (int i = 0; i < kQueries; ++i) queries.push_back(embedder->Embed({gen.Query(i)}).value()[0]);
  std::vector<std::vector<float>> scores(kQueries);  // the best kK exact scores per query
  std::vector<float> got;
  for (size_t start = 0; start < n; start += 10'000) {
    std::vector<std::string> texts;
    for (size_t i = start; i < std::min(n, start + 10'000); ++i) texts.push_back(gen.Memory(i));
    auto vectors = embedder->Embed(texts).value();
    // Items were added in order into an empty database: item i has seq i + 1.
    if (!(*graph)->Get(static_cast<int64_t>(start + 1), &got) || got != vectors[0]) {
      std::fprintf(stderr, "the graph does not hold the generated vectors (seq %zu)\n", start + 1);
      std::exit(1);
    }
    for (int q = 0; q < kQueries; ++q) {
      for (const auto& v : vectors)
        scores[q].push_back(InnerProduct(queries[q].data(), v.data(), dim));
      std::nth_element(scores[q].begin(), scores[q].begin() + kK - 1, scores[q].end(),
                       std::greater<float>());
      scores[q].resize(kK);
    }
  }
  for (size_t ef :
       {kAutoEfSearch, size_t{64}, size_t{128}, size_t{256}, size_t{384}, size_t{512}, size_t{768}})
    for (bool quantized : {true, false}) {
      (*graph)->set_ef_search(ef);
      (*graph)->set_quantized_traversal(quantized);
      double recall = 0, cpu = 0;
      for (int q = 0; q < kQueries; ++q) {
        const float kth = *std::min_element(scores[q].begin(), scores[q].end());
        const double c0 = ThreadCpuMs();
        auto hits = (*graph)->Search(queries[q].data(), kK, {});
        cpu += ThreadCpuMs() - c0;
        size_t hit = 0;
        for (const VectorHit& h : hits) hit += h.score >= kth - 1e-6f;
        recall += static_cast<double>(hit) / kK;
      }
      std::printf(
          "vector recall@10 vs exact, ef_search %zu%s, %s traversal: %.3f (graph search "
          "%.2f ms cpu/query)\n",
          (*graph)->effective_ef_search(), ef == kAutoEfSearch ? " (automatic)" : "",
          quantized ? "int8" : "float", recall / kQueries, cpu / kQueries);
      std::fflush(stdout);
    }
  if (std::getenv("ENGRAM_BENCH_SAVE")) {  // times a snapshot save of the loaded graph
    const std::string scratch = snapshot + ".bench-save";
    const auto start = std::chrono::steady_clock::now();
    const Status saved = SaveHnswSnapshot(**graph, scratch, ReadMeta(snapshot));
    std::printf("snapshot save (%s): %.1f s\n", saved.ToString().c_str(), Seconds(start));
    std::filesystem::remove(scratch);
  }
}

}  // namespace
}  // namespace engram

int main() {
  using namespace engram;
  const size_t n = EnvSize("ENGRAM_BENCH_N", 1'000'000);
  const char* dir_env = std::getenv("ENGRAM_BENCH_DIR");
  const std::string dir = dir_env ? dir_env : "/var/tmp/engram-bench-1m";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/n" + std::to_string(n) + ".db";
  TextGenerator gen;
  std::fprintf(stderr, "%zu memories in one scope, database %s\n", n, path.c_str());
  {
    auto engine = OpenEngine(path);
    Fill(*engine, gen, n);
    LoadIndex(*engine);
    const Latency cold = MeasureSearch(*engine, gen);
    Latency warm = MeasureSearch(*engine, gen);
    // More passes (ENGRAM_BENCH_PASSES) leave time to attach a profiler; the last one counts.
    for (size_t pass = 1; pass < EnvSize("ENGRAM_BENCH_PASSES", 1); ++pass) {
      warm = MeasureSearch(*engine, gen);
    }
    std::printf(
        "search k=10 hybrid, %d queries: p50 %.2f ms, p99 %.2f ms, cpu p50 %.2f ms, "
        "cpu p99 %.2f ms (first pass p50 %.2f ms)\n",
        kQueries, warm.p50_ms, warm.p99_ms, warm.cpu_p50_ms, warm.cpu_p99_ms, cold.p50_ms);
    std::fflush(stdout);
    auto start = std::chrono::steady_clock::now();
    engine.reset();  // saves the snapshot if the graph was built in this run
    std::fprintf(stderr, "  closed in %.1f s\n", Seconds(start));
  }
  const std::string snapshot = path + ".indexes/scope-1.hnsw";
  MeasureRecall(snapshot, gen, n);
  return 0;
}
