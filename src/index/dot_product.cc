#include "index/dot_product.h"

namespace engram {

// Cloned for AVX2 (chosen when the program loads, where the CPU has it) and for the x86-64
// baseline (SSE2), so one binary runs everywhere and is fast where it can be. No FMA: fused
// multiply-adds would round differently on different machines.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
float InnerProduct(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 32;
  float lanes[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t l = 0; l < kLanes; ++l) lanes[l] += a[i + l] * b[i + l];
  }
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (size_t l = 0; l < kLanes; l += 8) {
    float part = 0;
    for (size_t j = 0; j < 8; ++j) part += lanes[l + j];
    sum += part;
  }
  return sum;
}

}  // namespace engram
