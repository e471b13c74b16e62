#include "index/quantized_vectors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ENGRAM_X86_DISPATCH 1
#endif

namespace engram {
namespace {

int32_t DotInt8Portable(const int8_t* a, const int8_t* b, size_t n) {
  int32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

#ifdef ENGRAM_X86_DISPATCH
// Sign-extends 16 codes to 16-bit lanes and multiply-adds pairs into 32-bit lanes; two
// accumulators hide the latency of the additions. Exact: |products| <= 127², and n <= 65536
// keeps every lane sum below 2^31.
__attribute__((target("avx2"))) int32_t DotInt8Avx2(const int8_t* a, const int8_t* b, size_t n) {
  __m256i acc0 = _mm256_setzero_si256();
  __m256i acc1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i a0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i b0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m256i a1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 16)));
    const __m256i b1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16)));
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, b0));
    acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(a1, b1));
  }
  const __m256i acc = _mm256_add_epi32(acc0, acc1);
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_hadd_epi32(s, s);
  s = _mm_hadd_epi32(s, s);
  return _mm_cvtsi128_si32(s) + DotInt8Portable(a + i, b + i, n - i);
}

using DotFn = int32_t (*)(const int8_t*, const int8_t*, size_t);
const DotFn kDot = __builtin_cpu_supports("avx2") ? &DotInt8Avx2 : &DotInt8Portable;
#endif

}  // namespace

int32_t DotInt8(const int8_t* a, const int8_t* b, size_t n) {
#ifdef ENGRAM_X86_DISPATCH
  return kDot(a, b, n);
#else
  return DotInt8Portable(a, b, n);
#endif
}

float QuantizeInt8(const float* v, size_t n, int8_t* codes) {
  float max_abs = 0;
  for (size_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(v[i]));
  if (!(max_abs > 0) || !std::isfinite(max_abs)) {
    std::memset(codes, 0, n);
    return 0;
  }
  const float scale = max_abs / 127.0f;
  const float inverse = 127.0f / max_abs;
  for (size_t i = 0; i < n; ++i) {
    const float q = std::nearbyint(v[i] * inverse);
    codes[i] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
  }
  return scale;
}

void QuantizedVectors::Resize(size_t rows) {
  codes_.Resize(rows);
  scales_.resize(rows, 0.0f);
}

void QuantizedVectors::Set(size_t row, const float* v) {
  if (row >= rows()) Resize(row + 1);  // new chunks are not touched until written
  scales_[row] = QuantizeInt8(v, dimension_, codes_.row(row));
}

void QuantizedVectors::Clear(size_t row) {
  if (row >= rows()) return;
  std::memset(codes_.row(row), 0, dimension_);
  scales_[row] = 0;
}

}  // namespace engram
