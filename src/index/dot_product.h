// The inner product of two float vectors, for the approximate (HNSW) index's distance.
//
// Thirty-two independent partial sums: a single running sum is bound by the latency of one
// addition per step (about 3 cycles), whereas independent sums fill the vector units. Without
// -ffast-math the compiler may not reorder a float reduction itself, so the lanes are written
// out. The result differs from a sequential sum only in rounding (last bits of the float).
//
// Threads: a pure function.
#pragma once

#include <cstddef>

namespace engram {

float InnerProduct(const float* a, const float* b, size_t n);

}  // namespace engram
