#include "index/scan_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "index/dot_product.h"
#include "index/float_rows.h"
#include "index/quantized_vectors.h"

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics start from an undefined register, which -Wmaybe-uninitialized
// reports at their own lines in the header (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#define ENGRAM_X86_DISPATCH 1
#define ENGRAM_AVX512 __attribute__((target("avx512f,avx512bw")))
#endif

namespace engram {
namespace {

constexpr size_t kRows = 32;  // rows per code block
constexpr int kRounds = 3;    // rotation rounds (two already mix as well on our data)
constexpr uint64_t kSeed = 0x5EED'CAFE'0001ULL;
constexpr size_t kScanChunk = 64;  // blocks scanned before their estimates are read (8 KiB)

// In-place Walsh–Hadamard transform of n (a power of two) floats, scaled to stay orthogonal.
void Fwht(float* a, size_t n) {
  for (size_t h = 1; h < n; h *= 2) {
    for (size_t i = 0; i < n; i += 2 * h) {
      for (size_t j = i; j < i + h; ++j) {
        const float x = a[j], y = a[j + h];
        a[j] = x + y;
        a[j + h] = x - y;
      }
    }
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(n));
  for (size_t i = 0; i < n; ++i) a[i] *= scale;
}

#ifdef ENGRAM_X86_DISPATCH
// Two groups per 32-byte load: the low lane holds group 2p's bytes, the high lane group 2p+1's,
// and the table register holds their two 16-entry tables, so one shuffle looks up 32 nibbles.
// Byte sums go to 16-bit lanes (even and odd bytes apart); at most 256 pairs are added before
// the lanes are emptied into 32-bit sums, so no lane overflows (256 × 255 < 65,536).
__attribute__((target("avx2"))) void ScanCodesAvx2(const uint8_t* codes, size_t blocks,
                                                   const uint8_t* lut, size_t groups,
                                                   uint32_t* out) {
  const size_t pairs = groups / 2;
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i low8 = _mm256_set1_epi16(0x00FF);
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* block = codes + b * groups * 16;
    uint32_t* o = out + b * kRows;
    std::fill(o, o + kRows, 0u);
    for (size_t from = 0; from < pairs; from += 256) {
      const size_t to = std::min(pairs, from + 256);
      __m256i lo_even = _mm256_setzero_si256(), lo_odd = _mm256_setzero_si256();
      __m256i hi_even = _mm256_setzero_si256(), hi_odd = _mm256_setzero_si256();
      for (size_t p = from; p < to; ++p) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + p * 32));
        const __m256i t = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lut + p * 32));
        const __m256i rl = _mm256_shuffle_epi8(t, _mm256_and_si256(x, low4));
        const __m256i rh = _mm256_shuffle_epi8(t, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4));
        lo_even = _mm256_add_epi16(lo_even, _mm256_and_si256(rl, low8));
        lo_odd = _mm256_add_epi16(lo_odd, _mm256_srli_epi16(rl, 8));
        hi_even = _mm256_add_epi16(hi_even, _mm256_and_si256(rh, low8));
        hi_odd = _mm256_add_epi16(hi_odd, _mm256_srli_epi16(rh, 8));
      }
      alignas(32) uint16_t le[16], lo[16], he[16], ho[16];
      _mm256_store_si256(reinterpret_cast<__m256i*>(le), lo_even);
      _mm256_store_si256(reinterpret_cast<__m256i*>(lo), lo_odd);
      _mm256_store_si256(reinterpret_cast<__m256i*>(he), hi_even);
      _mm256_store_si256(reinterpret_cast<__m256i*>(ho), hi_odd);
      // 16-bit lane j of the low half covers rows 2j and 2j+1 for group 2p, lane j + 8 the same
      // rows for group 2p+1.
      for (size_t j = 0; j < 8; ++j) {
        o[2 * j] += uint32_t{le[j]} + le[j + 8];
        o[2 * j + 1] += uint32_t{lo[j]} + lo[j + 8];
        o[16 + 2 * j] += uint32_t{he[j]} + he[j + 8];
        o[16 + 2 * j + 1] += uint32_t{ho[j]} + ho[j + 8];
      }
    }
  }
}

// The sums of 16-bit lane pairs (2e, 2e+1), e = 0..3, over the four 128-bit lanes of `v`: lane
// e of *even holds lane 2e's, of *odd lane 2e+1's. (Shifts and lane swaps only: GCC 12 warns
// about its own headers' widening conversions.)
ENGRAM_AVX512 inline void FoldLanes(__m512i v, __m128i* even, __m128i* odd) {
  __m512i e = _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF));
  __m512i o = _mm512_srli_epi32(v, 16);
  e = _mm512_add_epi32(e, _mm512_shuffle_i32x4(e, e, 0x4E));  // + the other 256 bits
  o = _mm512_add_epi32(o, _mm512_shuffle_i32x4(o, o, 0x4E));
  e = _mm512_add_epi32(e, _mm512_shuffle_i32x4(e, e, 0xB1));  // + the neighbouring 128 bits
  o = _mm512_add_epi32(o, _mm512_shuffle_i32x4(o, o, 0xB1));
  *even = _mm512_castsi512_si128(e);
  *odd = _mm512_castsi512_si128(o);
}

// Adds 16 rows' sums to out[0..15]. Row 2j's sum is 16-bit lane j of `even_rows`, row 2j+1's of
// `odd_rows` (j = 0..7, each summed over the four 128-bit lanes); rows 4e..4e+3 are lanes 2e
// and 2e+1 of the two, put in order by a 4 × 4 transpose.
ENGRAM_AVX512 inline void AddRows(__m512i even_rows, __m512i odd_rows, bool first, uint32_t* out) {
  __m128i ee, eo, oe, oo;  // (even rows | odd rows) × (even | odd lane of a pair)
  FoldLanes(even_rows, &ee, &eo);
  FoldLanes(odd_rows, &oe, &oo);
  const __m128i t0 = _mm_unpacklo_epi32(ee, oe), t1 = _mm_unpacklo_epi32(eo, oo);
  const __m128i t2 = _mm_unpackhi_epi32(ee, oe), t3 = _mm_unpackhi_epi32(eo, oo);
  const __m128i rows[4] = {_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
                           _mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)};
  for (int i = 0; i < 4; ++i) {
    __m128i* at = reinterpret_cast<__m128i*>(out + 4 * i);
    _mm_storeu_si128(at, first ? rows[i] : _mm_add_epi32(rows[i], _mm_loadu_si128(at)));
  }
}

// As ScanCodesAvx2 with four groups per 64-byte load: 128-bit lane L holds group 4q+L's bytes
// and the table register the four groups' tables, so one shuffle looks up 64 nibbles (half the
// instructions per group). A last pair of groups (groups % 4 == 2) is loaded with the upper
// half masked to zero, where the zero table adds nothing. Flushed every 256 quads as above.
ENGRAM_AVX512 void ScanCodesAvx512(const uint8_t* codes, size_t blocks, const uint8_t* lut,
                                   size_t groups, uint32_t* out) {
  const size_t quads = (groups + 3) / 4;
  const bool pair_last = groups % 4 != 0;  // the last load holds two groups, not four
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  const __m512i low8 = _mm512_set1_epi16(0x00FF);
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* block = codes + b * groups * 16;
    uint32_t* o = out + b * kRows;
    for (size_t from = 0; from < quads; from += 256) {
      const size_t to = std::min(quads, from + 256);
      __m512i lo_even = _mm512_setzero_si512(), lo_odd = _mm512_setzero_si512();
      __m512i hi_even = _mm512_setzero_si512(), hi_odd = _mm512_setzero_si512();
      for (size_t q = from; q < to; ++q) {
        __m512i x, t;
        if (q + 1 < quads || !pair_last) {  // masked loads from memory were 4× slower (Zen 4)
          x = _mm512_loadu_si512(block + q * 64);
          t = _mm512_loadu_si512(lut + q * 64);
        } else {
          x = _mm512_maskz_loadu_epi8(__mmask64{0xFFFF'FFFF}, block + q * 64);
          t = _mm512_maskz_loadu_epi8(__mmask64{0xFFFF'FFFF}, lut + q * 64);
        }
        const __m512i rl = _mm512_shuffle_epi8(t, _mm512_and_si512(x, low4));
        const __m512i rh = _mm512_shuffle_epi8(t, _mm512_and_si512(_mm512_srli_epi16(x, 4), low4));
        lo_even = _mm512_add_epi16(lo_even, _mm512_and_si512(rl, low8));
        lo_odd = _mm512_add_epi16(lo_odd, _mm512_srli_epi16(rl, 8));
        hi_even = _mm512_add_epi16(hi_even, _mm512_and_si512(rh, low8));
        hi_odd = _mm512_add_epi16(hi_odd, _mm512_srli_epi16(rh, 8));
      }
      AddRows(lo_even, lo_odd, from == 0, o);
      AddRows(hi_even, hi_odd, from == 0, o + 16);
    }
  }
}

using ScanFn = void (*)(const uint8_t*, size_t, const uint8_t*, size_t, uint32_t*);
const ScanFn kScan = __builtin_cpu_supports("avx512bw") ? &ScanCodesAvx512
                     : __builtin_cpu_supports("avx2")   ? &ScanCodesAvx2
                                                        : &ScanCodesPortable;
#endif

// Writes the indexes from <= r < n with values[r] >= threshold (NaN never) to out, ascending;
// returns how many. `out` has room for n - from + 16.
size_t RowsAtLeastFrom(const float* values, size_t from, size_t n, float threshold, uint32_t* out) {
  size_t count = 0;
  for (size_t r = from; r < n; ++r) {
    out[count] = static_cast<uint32_t>(r);
    count += values[r] >= threshold ? 1 : 0;
  }
  return count;
}

size_t RowsAtLeastPortable(const float* values, size_t n, float threshold, uint32_t* out) {
  return RowsAtLeastFrom(values, 0, n, threshold, out);
}

#ifdef ENGRAM_X86_DISPATCH
// 16 comparisons a step; the passing indexes are compressed in a register and stored whole, the
// next store overwriting the rest (compressing straight to memory is reported to be slow on
// Zen 4; not measured here).
ENGRAM_AVX512 size_t RowsAtLeastAvx512(const float* values, size_t n, float threshold,
                                       uint32_t* out) {
  const __m512 t = _mm512_set1_ps(threshold);
  __m512i index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i sixteen = _mm512_set1_epi32(16);
  size_t count = 0, r = 0;
  for (; r + 16 <= n; r += 16) {
    const __mmask16 pass = _mm512_cmp_ps_mask(_mm512_loadu_ps(values + r), t, _CMP_GE_OQ);
    _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(pass, index));
    count += static_cast<size_t>(__builtin_popcount(pass));
    index = _mm512_add_epi32(index, sixteen);
  }
  return count + RowsAtLeastFrom(values, r, n, threshold, out + count);
}

using RowsAtLeastFn = size_t (*)(const float*, size_t, float, uint32_t*);
const RowsAtLeastFn kRowsAtLeast =
    __builtin_cpu_supports("avx512bw") ? &RowsAtLeastAvx512 : &RowsAtLeastPortable;
#endif

struct Estimate {
  float value;
  uint32_t row;
};

// A search's working memory, kept per thread: otherwise every search would allocate and free
// ~25 KB in seven pieces.
struct SearchScratch {
  std::vector<float> rotated, values, estimates, sample;
  std::vector<uint8_t> lut;
  std::vector<uint32_t> sums, passing;
  std::vector<Estimate> kept;
  std::vector<int8_t> query_codes;
};
thread_local SearchScratch scratch;

class ScanIndex final : public VectorIndex {
 public:
  ScanIndex(int dimension, const ScanIndexOptions& options)
      : dim_(static_cast<size_t>(dimension)),
        options_(options),
        rotation_(dimension),
        groups_(rotation_.padded_dimension() / 4),
        block_bytes_(groups_ * 16),
        rows_(dim_, options.huge_pages),
        int8_(dim_, options.huge_pages),
        codes_(block_bytes_, options.huge_pages) {}

  int dimension() const override { return static_cast<int>(dim_); }
  size_t size() const override { return rows_.size(); }

  Status Upsert(int64_t key, const float* vector) override {
    const auto [row, added] = rows_.Upsert(key, vector);
    if (added) {
      inv_l1_.push_back(0);
      if (row % kRows == 0) codes_.Resize(codes_.size() + 1);
    }
    int8_.Set(row, vector);
    std::vector<uint8_t> patterns(groups_);
    inv_l1_[row] = Encode(vector, patterns.data());
    SetPatterns(row, patterns.data());
    return Status::Ok();
  }

  // The last row moves into the hole (FloatRows), its codes with it, keeping every array dense.
  Status Remove(int64_t key) override {
    const auto moved = rows_.Remove(key);
    if (!moved) return Status::Ok();
    const size_t row = moved->row, last = moved->last;
    std::vector<uint8_t> patterns(groups_);
    if (row != last) {
      GetPatterns(last, patterns.data());
      SetPatterns(row, patterns.data());
      int8_.Set(row, rows_.row(row));
      inv_l1_[row] = inv_l1_[last];
    }
    std::fill(patterns.begin(), patterns.end(), 0);
    SetPatterns(last, patterns.data());
    inv_l1_.pop_back();
    int8_.Clear(last);
    if (last % kRows == 0) codes_.Resize(codes_.size() - 1);
    return Status::Ok();
  }

  const float* Peek(int64_t key) const override { return rows_.Peek(key); }
  bool Get(int64_t key, std::vector<float>* out) const override { return rows_.Get(key, out); }

  size_t MemoryBytes() const override {
    // Floats, keys, codes and 1/L1 norms of the rows in use, as HnswIndex counts: the rows of
    // a chunk past the last in use are not backed by memory until written (in ordinary memory).
    // Counting capacity would overstate a grown index by its unused part, and the memory
    // budget would evict scopes that fit.
    return rows_.UsedBytes() + codes_.size() * block_bytes_ + int8_.MemoryBytes() +
           inv_l1_.size() * sizeof(float);
  }

  std::vector<VectorHit> Search(const float* query, size_t k,
                                const KeyFilter& filter) const override {
    if (k == 0 || rows_.size() == 0) return {};
    const size_t rerank = std::max(options_.rerank_min, options_.rerank_factor * k);
    if (rows_.size() < options_.exact_below || rows_.size() <= rerank) {
      return rows_.Search(query, k, filter);
    }
    // The query's table: for each group of 4 rotated coordinates c, the value of each sign
    // pattern p (bit j set: +c[j], else −c[j]) minus the group's smallest (−Σ|c|), in steps of
    // a common `step` so that every entry fits a byte. Shifted so, pattern 0 is 2·Σ max(−c, 0)
    // and setting bit j adds 2·c[j].
    std::vector<float>& rotated = scratch.rotated;
    rotated.resize(rotation_.padded_dimension());
    rotation_.Apply(query, rotated.data());
    std::vector<float>& values = scratch.values;
    values.resize(groups_ * 16);
    double base = 0;  // sum of the groups' smallest values
    float widest = 0;
    for (size_t g = 0; g < groups_; ++g) {
      const float* c = rotated.data() + 4 * g;
      float* v = values.data() + g * 16;
      v[0] = 0;
      float low = 0;
      for (size_t j = 0; j < 4; ++j) {
        v[0] += 2 * std::max(-c[j], 0.0f);
        low -= std::fabs(c[j]);
      }
      for (size_t pattern = 1; pattern < 16; ++pattern) {
        v[pattern] =
            v[pattern & (pattern - 1)] + 2 * c[__builtin_ctz(static_cast<unsigned>(pattern))];
      }
      base += low;
      widest = std::max(widest, *std::max_element(v, v + 16));
    }
    const float step = widest > 0 ? widest / 255.0f : 1.0f;
    std::vector<uint8_t>& lut = scratch.lut;
    lut.resize(groups_ * 16);
    const float inv_step = 1.0f / step;
    for (size_t i = 0; i < lut.size(); ++i) {  // vectorized (nearbyint was a library call each)
      lut[i] = static_cast<uint8_t>(std::clamp(values[i] * inv_step + 0.5f, 0.0f, 255.0f));
    }

    // Every row's estimate first (4 bytes a row: 40 KB for 10k rows, staying in cache).
    const size_t rows = rows_.size();
    const size_t blocks = (rows + kRows - 1) / kRows;
    std::vector<uint32_t>& sums = scratch.sums;
    sums.resize(kScanChunk * kRows);
    std::vector<float>& estimates = scratch.estimates;
    estimates.resize(blocks * kRows);
    const float base_f = static_cast<float>(base);
    const size_t per_chunk = codes_.rows_per_chunk();
    for (size_t from = 0, n = 0; from < blocks; from += n) {
      // kScanChunk blocks at a time, never past the end of a chunk of codes.
      n = std::min({kScanChunk, blocks - from, per_chunk - (from & (per_chunk - 1))});
      ScanCodes(codes_.row(from), n, lut.data(), groups_, sums.data());
      const size_t first = from * kRows, count = std::min(rows, first + n * kRows) - first;
      const float* inv = inv_l1_.data() + first;
      float* out = estimates.data() + first;
      for (size_t i = 0; i < count; ++i) {  // vectorized
        out[i] = (step * static_cast<float>(sums[i]) + base_f) * inv[i];
      }
    }
    std::vector<Estimate>& kept = scratch.kept;
    SelectBest(estimates.data(), rows, rerank, filter, &kept);

    // The kept rows by their int8 copies (a quarter of the floats' memory traffic), then the
    // best of those exactly. The rows are far apart: each is fetched a few rows ahead so that
    // their cache misses overlap.
    constexpr size_t kAhead = 4;
    std::vector<int8_t>& query_codes = scratch.query_codes;
    query_codes.resize(dim_);
    const float query_scale = QuantizeInt8(query, dim_, query_codes.data());
    auto fetch = [](const void* p, size_t bytes) {
      for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(static_cast<const char*>(p) + b);
    };
    for (size_t i = 0; i < kept.size(); ++i) {
      if (i + kAhead < kept.size()) fetch(int8_.codes(kept[i + kAhead].row), dim_);
      kept[i].value = int8_.Dot(query_codes.data(), query_scale, kept[i].row);
    }
    const size_t exact = std::min(kept.size(), k + std::max<size_t>(8, k / 4));
    if (exact < kept.size()) {
      std::nth_element(kept.begin(), kept.begin() + static_cast<ptrdiff_t>(exact - 1), kept.end(),
                       [](const Estimate& a, const Estimate& b) { return a.value > b.value; });
      kept.resize(exact);
    }
    std::vector<VectorHit> hits;
    hits.reserve(kept.size());
    for (size_t i = 0; i < kept.size(); ++i) {
      if (i + kAhead < kept.size()) fetch(rows_.row(kept[i + kAhead].row), dim_ * sizeof(float));
      const size_t row = kept[i].row;
      hits.push_back({rows_.key(row), InnerProduct(query, rows_.row(row), dim_)});
    }
    return Best(std::move(hits), k);
  }

 private:
  static std::vector<VectorHit> Best(std::vector<VectorHit> hits, size_t k) {
    auto order = [](const VectorHit& a, const VectorHit& b) {
      return a.score != b.score ? a.score > b.score : a.key < b.key;
    };
    if (hits.size() > k) {
      std::partial_sort(hits.begin(), hits.begin() + static_cast<ptrdiff_t>(k), hits.end(), order);
      hits.resize(k);
    } else {
      std::sort(hits.begin(), hits.end(), order);
    }
    return hits;
  }

  // The `want` rows (fewer if fewer pass `filter`) with the largest estimates, in `kept`, in no
  // particular order.
  //
  // A threshold comes from a strided sample of ~kSample estimates: the value ranked so that,
  // in expectation, 1.5 × `want` (+ a margin) rows reach it. One pass collects the rows at or
  // above it, and if at least `want` of them pass the filter, they hold the best `want`
  // (every row above the true cut-off is at or above the threshold). Else, by a floor that
  // rises as estimates gather, which calls the filter and pushes for several times as many rows.
  void SelectBest(const float* estimates, size_t rows, size_t want, const KeyFilter& filter,
                  std::vector<Estimate>* kept) const {
    constexpr size_t kSample = 1024;
    auto better = [](const Estimate& a, const Estimate& b) { return a.value > b.value; };
    kept->clear();
    const size_t stride = std::max<size_t>(1, rows / kSample);
    if (stride > 1) {
      // The rank-th largest sampled estimate (from 0), as the least of a min-heap of the
      // rank + 1 largest: most samples lose one comparison with its top, where nth_element's
      // partitioning of all ~1,000 mispredicts a branch for about every other sample.
      const size_t count = (rows + stride - 1) / stride;
      const size_t rank = std::min(count - 1, (3 * want * count) / (2 * rows) + 4);
      std::vector<float>& top = scratch.sample;
      top.clear();
      const auto least_first = std::greater<float>();
      for (size_t r = 0; r < rows; r += stride) {
        const float v = estimates[r];
        if (top.size() <= rank) {
          top.push_back(v);
          std::push_heap(top.begin(), top.end(), least_first);
        } else if (v > top.front()) {
          std::pop_heap(top.begin(), top.end(), least_first);
          top.back() = v;
          std::push_heap(top.begin(), top.end(), least_first);
        }
      }
      const float threshold = top.front();
      std::vector<uint32_t>& passing = scratch.passing;
      passing.resize(rows + 16);
      const size_t n = RowsAtLeast(estimates, rows, threshold, passing.data());
      for (size_t i = 0; i < n; ++i) {
        const uint32_t r = passing[i];
        if (filter && !filter(rows_.key(r))) continue;
        kept->push_back({estimates[r], r});
      }
      if (kept->size() >= want) {
        std::nth_element(kept->begin(), kept->begin() + static_cast<ptrdiff_t>(want - 1),
                         kept->end(), better);
        kept->resize(want);
        return;
      }
      kept->clear();
    }
    // Estimates above a floor are collected; whenever twice `want` have gathered, the best
    // `want` are kept and the floor rises to the worst of them.
    kept->reserve(2 * want);
    float floor = -INFINITY;
    auto trim = [&] {
      std::nth_element(kept->begin(), kept->begin() + static_cast<ptrdiff_t>(want - 1), kept->end(),
                       better);
      kept->resize(want);
      floor = kept->back().value;
    };
    for (size_t r = 0; r < rows; ++r) {
      if (!(estimates[r] > floor)) continue;
      if (filter && !filter(rows_.key(r))) continue;
      kept->push_back({estimates[r], static_cast<uint32_t>(r)});
      if (kept->size() == 2 * want) trim();
    }
    if (kept->size() > want) trim();
  }

  // The 4-bit sign patterns of the rotated `v`; returns 1 / |R·v|₁ (0 for a zero or
  // non-finite vector, whose estimates are then 0).
  float Encode(const float* v, uint8_t* patterns) const {
    std::vector<float> rotated(rotation_.padded_dimension());
    rotation_.Apply(v, rotated.data());
    double l1 = 0;
    for (size_t g = 0; g < groups_; ++g) {
      uint8_t p = 0;
      for (size_t j = 0; j < 4; ++j) {
        const float c = rotated[4 * g + j];
        if (c > 0) p |= static_cast<uint8_t>(1u << j);
        l1 += std::fabs(c);
      }
      patterns[g] = p;
    }
    return l1 > 0 && std::isfinite(l1) ? static_cast<float>(1.0 / l1) : 0.0f;
  }

  void SetPatterns(size_t row, const uint8_t* patterns) {
    uint8_t* block = codes_.row(row / kRows);
    const size_t slot = row % kRows;
    const bool high = slot >= 16;
    for (size_t g = 0; g < groups_; ++g) {
      uint8_t& byte = block[g * 16 + (slot & 15)];
      byte = high ? static_cast<uint8_t>((byte & 0x0F) | (patterns[g] << 4))
                  : static_cast<uint8_t>((byte & 0xF0) | patterns[g]);
    }
  }

  void GetPatterns(size_t row, uint8_t* patterns) const {
    const uint8_t* block = codes_.row(row / kRows);
    const size_t slot = row % kRows;
    for (size_t g = 0; g < groups_; ++g) {
      const uint8_t byte = block[g * 16 + (slot & 15)];
      patterns[g] = slot >= 16 ? byte >> 4 : byte & 0x0F;
    }
  }

  size_t dim_;
  ScanIndexOptions options_;
  SignRotation rotation_;
  size_t groups_;              // 4-coordinate groups of the padded dimension (a multiple of 16)
  size_t block_bytes_;         // one block of 32 rows' codes
  FloatRows rows_;             // keys and floats
  std::vector<float> inv_l1_;  // by row
  QuantizedVectors int8_;      // by row: the re-rank's first pass
  ChunkedBytes codes_;         // by block of 32 rows (ScanCodes layout)
};

}  // namespace

SignRotation::SignRotation(int dimension)
    : dimension_(static_cast<size_t>(dimension)), padded_((dimension_ + 63) / 64 * 64) {
  block_ = padded_ & (~padded_ + 1);  // largest power of two dividing padded_
  std::mt19937_64 random(kSeed);
  for (int r = 0; r < kRounds; ++r) {
    std::vector<float> signs(padded_);
    for (float& s : signs) s = (random() & 1) ? 1.0f : -1.0f;
    std::vector<uint32_t> perm(padded_);
    for (size_t i = 0; i < padded_; ++i) perm[i] = static_cast<uint32_t>(i);
    for (size_t i = padded_ - 1; i > 0; --i) std::swap(perm[i], perm[random() % (i + 1)]);
    signs_.push_back(std::move(signs));
    perms_.push_back(std::move(perm));
  }
}

void SignRotation::Apply(const float* v, float* out) const {
  thread_local std::vector<float> current;
  current.assign(padded_, 0.0f);
  std::copy(v, v + dimension_, current.begin());
  for (size_t r = 0; r < signs_.size(); ++r) {
    for (size_t i = 0; i < padded_; ++i) out[i] = current[perms_[r][i]] * signs_[r][i];
    for (size_t b = 0; b < padded_; b += block_) Fwht(out + b, block_);
    if (r + 1 < signs_.size()) std::copy(out, out + padded_, current.begin());
  }
}

void ScanCodesPortable(const uint8_t* codes, size_t blocks, const uint8_t* lut, size_t groups,
                       uint32_t* out) {
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* block = codes + b * groups * 16;
    for (size_t slot = 0; slot < kRows; ++slot) {
      uint32_t sum = 0;
      for (size_t g = 0; g < groups; ++g) {
        const uint8_t byte = block[g * 16 + (slot & 15)];
        sum += lut[g * 16 + (slot >= 16 ? byte >> 4 : byte & 0x0F)];
      }
      out[b * kRows + slot] = sum;
    }
  }
}

void ScanCodes(const uint8_t* codes, size_t blocks, const uint8_t* lut, size_t groups,
               uint32_t* out) {
#ifdef ENGRAM_X86_DISPATCH
  kScan(codes, blocks, lut, groups, out);
#else
  ScanCodesPortable(codes, blocks, lut, groups, out);
#endif
}

size_t RowsAtLeast(const float* values, size_t n, float threshold, uint32_t* out) {
#ifdef ENGRAM_X86_DISPATCH
  return kRowsAtLeast(values, n, threshold, out);
#else
  return RowsAtLeastPortable(values, n, threshold, out);
#endif
}

std::vector<std::pair<std::string, ScanKernel>> ScanKernels() {
  std::vector<std::pair<std::string, ScanKernel>> kernels{{"portable", &ScanCodesPortable}};
#ifdef ENGRAM_X86_DISPATCH
  if (__builtin_cpu_supports("avx2")) kernels.emplace_back("avx2", &ScanCodesAvx2);
  if (__builtin_cpu_supports("avx512bw")) kernels.emplace_back("avx512", &ScanCodesAvx512);
#endif
  return kernels;
}

std::unique_ptr<VectorIndex> MakeScanIndex(int dimension, const ScanIndexOptions& options) {
  return std::make_unique<ScanIndex>(dimension, options);
}

}  // namespace engram
