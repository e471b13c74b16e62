// Vector index for scopes of thousands to tens of thousands of vectors: a full scan of 1-bit
// codes, then exact re-ranking of the best estimates. It replaces the plain float scan past
// `exact_below` vectors and stands in front of an HNSW graph up to the engine's hnsw_threshold.
//
// Each vector is kept as floats (for Get and the re-rank) and as one bit per coordinate of its
// rotated copy: the signs of R·v, where R is a fixed pseudo-random orthogonal transform (three
// rounds of sign flips, a permutation and blockwise Walsh–Hadamard transforms). The rotation
// spreads a vector's energy over every coordinate, so the signs keep its direction even when the
// vector itself is sparse (the hash embedder's vectors are ~86 % zeros, whose signs say nothing).
//
// The inner product of a query q with a stored v is estimated as in RaBitQ (Gao & Long, SIGMOD
// 2024): <s, R·q> / <s, R·v> = <s, R·q> / |R·v|₁, where s is v's sign vector. The numerator is
// read from an 8-bit table of R·q per 4 coordinates (16 sign patterns each), 32 codes at a time
// with byte shuffles (AVX-512 or AVX2; a portable loop gives the same integers), the layout known
// as "fast scan" (Faiss, RaBitQ). The best max(rerank_min, rerank_factor × k) estimates are then
// scored exactly with the floats, so returned scores are exact and only membership is approximate.
//
// Why a scan rather than a graph at this size: embeddings of short texts from one vocabulary
// (the hash embedder's) have many near-ties, which a greedy graph walk misses, while the scan
// estimates every row; up to tens of thousands of vectors it takes no longer than a graph
// search, and a write only appends a row (figures: bench/results/retrieval.md).
//
// Threads: not synchronized, like every VectorIndex: concurrent Searches are safe; Upsert and
// Remove need exclusive access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "index/vector_index.h"

namespace engram {

struct ScanIndexOptions {
  size_t exact_below = 2'048;  // fewer vectors: scan the floats (exact results)
  size_t rerank_min = 100;     // best estimates re-scored: at least this many ...
  size_t rerank_factor = 4;    // ... and this many times k
  bool huge_pages = false;     // floats and int8 rows in the huge-page pool when it has room
};

std::unique_ptr<VectorIndex> MakeScanIndex(int dimension, const ScanIndexOptions& options = {});

// The fixed orthogonal transform of `dimension`-float vectors into padded_dimension() floats
// (the dimension rounded up to a multiple of 64, zero-padded): three rounds of sign flips, a
// permutation and Walsh–Hadamard transforms over blocks of the largest power of two dividing
// the padded dimension. Deterministic (fixed seed). Preserves inner products up to rounding.
class SignRotation {
 public:
  explicit SignRotation(int dimension);
  size_t dimension() const { return dimension_; }
  size_t padded_dimension() const { return padded_; }
  // out: padded_dimension() floats.
  void Apply(const float* v, float* out) const;

 private:
  size_t dimension_;
  size_t padded_;
  size_t block_;
  std::vector<std::vector<float>> signs_;     // per round
  std::vector<std::vector<uint32_t>> perms_;  // per round
};

// The fast-scan kernel, exposed for tests. `codes` holds `blocks` blocks of 32 rows; a block is
// `groups` × 16 bytes, group g's byte i holding row i's 4-bit pattern of group g in its low
// nibble and row i + 16's in its high nibble. `lut` holds 16 bytes per group (the value of each
// pattern). Writes out[b * 32 + i] = sum over groups of lut[g * 16 + pattern(row b*32+i, g)].
// `groups` must be even. The AVX-512 (BW) version is used where the CPU has it, else the AVX2
// one; all give the same sums.
void ScanCodes(const uint8_t* codes, size_t blocks, const uint8_t* lut, size_t groups,
               uint32_t* out);
void ScanCodesPortable(const uint8_t* codes, size_t blocks, const uint8_t* lut, size_t groups,
                       uint32_t* out);
// Writes the indexes r < n with values[r] >= threshold (never for NaN), ascending, to `out`,
// which has room for n + 16; returns how many. 16 comparisons a step with AVX-512.
size_t RowsAtLeast(const float* values, size_t n, float threshold, uint32_t* out);
// Every kernel this CPU can run, by name ("portable", "avx2", "avx512"), for tests and benchmarks.
using ScanKernel = void (*)(const uint8_t*, size_t, const uint8_t*, size_t, uint32_t*);
std::vector<std::pair<std::string, ScanKernel>> ScanKernels();

}  // namespace engram
