// The vector channel's index choice for mid-size scopes: the 1-bit scan index (scan_index.h)
// against the HNSW graph the engine builds past hnsw_threshold, and the exact float scan, on
// the server benchmark's texts with the hash embedder.
//
// For each scope size N, S scopes of N memories each (S × N ≤ ~400k, so that the indexes, like
// the server's 100 users, do not fit in the CPU caches) are built from the memory file, and
// every query runs against a random scope on one thread. Printed per index: microseconds per
// search (k = 45, what the engine asks of the vector channel for k = 10), recall@10 and
// recall@45 against the exact scan, build time and memory per vector. Progress on stderr.
//
//   scripts/scan_bench.sh [build-dir]   (writes the text files with bench/server/corpus.py)
//   ENGRAM_SCAN_MEMORIES=file ENGRAM_SCAN_QUERIES=file ENGRAM_SCAN_SIZES=5000,10000
//   [ENGRAM_SCAN_ONLY=exact|scan|hnsw] [ENGRAM_SCAN_RERANK_FACTOR=8 ENGRAM_SCAN_RERANK_MIN=200]
//   [ENGRAM_SCAN_REPEAT=1] engram_scan_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engram/embedder.h"
#include "index/hnsw_index.h"
#include "index/scan_index.h"
#include "index/vector_index.h"

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::vector<std::string> Lines(const char* env) {
  const char* path = std::getenv(env);
  if (!path) {
    std::fprintf(stderr, "%s is not set\n", env);
    std::exit(2);
  }
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  if (out.empty()) {
    std::fprintf(stderr, "%s: no lines in %s\n", env, path);
    std::exit(2);
  }
  return out;
}

std::vector<float> Embed(Embedder& embedder, const std::vector<std::string>& texts) {
  const size_t dim = static_cast<size_t>(embedder.dimension());
  std::vector<float> out(texts.size() * dim);
  for (size_t from = 0; from < texts.size(); from += 1000) {
    std::vector<std::string> batch(
        texts.begin() + static_cast<ptrdiff_t>(from),
        texts.begin() + static_cast<ptrdiff_t>(std::min(texts.size(), from + 1000)));
    auto vectors = embedder.Embed(batch);
    if (!vectors.ok()) {
      std::fprintf(stderr, "embedding failed: %s\n", vectors.status().ToString().c_str());
      std::exit(1);
    }
    for (size_t i = 0; i < vectors->size(); ++i) {
      std::memcpy(&out[(from + i) * dim], (*vectors)[i].data(), dim * sizeof(float));
    }
    std::fprintf(stderr, "\rembedded %zu/%zu", std::min(texts.size(), from + 1000), texts.size());
  }
  std::fprintf(stderr, "\n");
  return out;
}

double Recall(const std::vector<VectorHit>& got, const std::vector<VectorHit>& truth, size_t k) {
  std::set<int64_t> keys;
  for (size_t i = 0; i < std::min(k, got.size()); ++i) keys.insert(got[i].key);
  size_t found = 0;
  for (size_t i = 0; i < std::min(k, truth.size()); ++i) found += keys.count(truth[i].key);
  return static_cast<double>(found) / static_cast<double>(std::min(k, truth.size()));
}

struct Row {
  std::string index;
  double us = 0, recall10 = 0, recall45 = 0, build_s = 0, bytes_per_vector = 0;
};

int Main() {
  const std::vector<std::string> memories = Lines("ENGRAM_SCAN_MEMORIES");
  const std::vector<std::string> query_texts = Lines("ENGRAM_SCAN_QUERIES");
  std::vector<size_t> sizes = {5'000, 10'000, 20'000, 50'000, 100'000};
  if (const char* env = std::getenv("ENGRAM_SCAN_SIZES")) {
    sizes.clear();
    std::stringstream in(env);
    for (std::string part; std::getline(in, part, ',');) sizes.push_back(std::stoul(part));
  }
  const size_t budget = 400'000;  // vectors across the scopes of one size
  auto embedder = MakeHashEmbedder({});
  if (!embedder.ok()) return 1;
  const int dim = (*embedder)->dimension();
  const size_t d = static_cast<size_t>(dim);
  std::fprintf(stderr, "embedding %zu memories and %zu queries\n", memories.size(),
               query_texts.size());
  const std::vector<float> vectors = Embed(**embedder, memories);
  const std::vector<float> queries = Embed(**embedder, query_texts);
  const size_t nq = query_texts.size();
  constexpr size_t kAsk = 45;

  std::printf(
      "| N per scope | scopes | index | µs per search (k 45) | recall@10 | recall@45 | build s | "
      "bytes per vector |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (size_t n : sizes) {
    const size_t scopes = std::max<size_t>(1, std::min(budget / n, memories.size() / n));
    if (n > memories.size()) {
      std::fprintf(stderr, "skipping N=%zu: only %zu memories\n", n, memories.size());
      continue;
    }
    // Scope s holds memories [s*n, (s+1)*n) (wrapping), keyed by position.
    auto row_of = [&](size_t s, size_t i) { return (s * n + i) % memories.size(); };
    std::mt19937 rng(17);
    std::vector<size_t> scope_of_query(nq);
    for (size_t& s : scope_of_query) s = rng() % scopes;

    std::vector<std::vector<VectorHit>> truth(nq);
    {
      std::vector<std::unique_ptr<VectorIndex>> exact;
      for (size_t s = 0; s < scopes; ++s) {
        exact.push_back(MakeExactIndex(dim));
        for (size_t i = 0; i < n; ++i)
          (void)exact.back()->Upsert(static_cast<int64_t>(i), &vectors[row_of(s, i) * d]);
      }
      for (size_t q = 0; q < nq; ++q)
        truth[q] = exact[scope_of_query[q]]->Search(&queries[q * d], kAsk, {});
    }

    std::vector<Row> rows;
    const char* only = std::getenv("ENGRAM_SCAN_ONLY");  // "scan" or "hnsw": that index alone
    for (int kind = 0; kind < 3; ++kind) {
      if (only && std::string(only) != (kind == 1 ? "scan" : kind == 2 ? "hnsw" : "exact"))
        continue;
      std::vector<std::unique_ptr<VectorIndex>> built;
      const auto start = Clock::now();
      size_t bytes = 0;
      for (size_t s = 0; s < scopes; ++s) {
        std::fprintf(stderr, "\rN=%zu: building %s %zu/%zu", n,
                     kind == 0   ? "exact"
                     : kind == 1 ? "scan"
                                 : "hnsw",
                     s + 1, scopes);
        if (kind == 2) {
          std::vector<int64_t> keys(n);
          std::vector<float> data(n * d);
          for (size_t i = 0; i < n; ++i) {
            keys[i] = static_cast<int64_t>(i);
            std::memcpy(&data[i * d], &vectors[row_of(s, i) * d], d * sizeof(float));
          }
          auto graph = HnswIndex::Build({.dimension = dim}, {keys.data(), data.data(), n, 1});
          if (!graph.ok()) return 1;
          built.push_back(std::move(*graph));
        } else {
          ScanIndexOptions scan_options;
          if (const char* f = std::getenv("ENGRAM_SCAN_RERANK_FACTOR"))
            scan_options.rerank_factor = std::stoul(f);
          if (const char* m = std::getenv("ENGRAM_SCAN_RERANK_MIN"))
            scan_options.rerank_min = std::stoul(m);
          built.push_back(kind == 0 ? MakeExactIndex(dim) : MakeScanIndex(dim, scan_options));
          for (size_t i = 0; i < n; ++i)
            (void)built.back()->Upsert(static_cast<int64_t>(i), &vectors[row_of(s, i) * d]);
        }
        bytes += built.back()->MemoryBytes();
      }
      Row row;
      row.index = kind == 0 ? "exact" : kind == 1 ? "scan" : "hnsw (M 16, ef auto)";
      row.build_s = Seconds(start);
      row.bytes_per_vector = static_cast<double>(bytes) / static_cast<double>(scopes * n);
      std::fprintf(stderr, "\rN=%zu: searching %s                 ", n, row.index.c_str());
      std::vector<std::vector<VectorHit>> hits(nq);
      const auto t0 = Clock::now();
      const char* repeat_env = std::getenv("ENGRAM_SCAN_REPEAT");  // for profiles: search longer
      const size_t repeat = repeat_env ? std::max(1ul, std::stoul(repeat_env)) : 1;
      for (size_t r = 0; r < repeat; ++r) {
        for (size_t q = 0; q < nq; ++q)
          hits[q] = built[scope_of_query[q]]->Search(&queries[q * d], kAsk, {});
      }
      row.us = Seconds(t0) * 1e6 / static_cast<double>(nq * repeat);
      for (size_t q = 0; q < nq; ++q) {
        row.recall10 += Recall(hits[q], truth[q], 10);
        row.recall45 += Recall(hits[q], truth[q], kAsk);
      }
      row.recall10 /= static_cast<double>(nq);
      row.recall45 /= static_cast<double>(nq);
      rows.push_back(row);
    }
    std::fprintf(stderr, "\n");
    for (const Row& r : rows) {
      std::printf("| %zu | %zu | %s | %.0f | %.3f | %.3f | %.1f | %.0f |\n", n, scopes,
                  r.index.c_str(), r.us, r.recall10, r.recall45, r.build_s, r.bytes_per_vector);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace engram

int main() { return engram::Main(); }
