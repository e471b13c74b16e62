// Int8 copies of an index's float vectors, for traversing a vector graph with a quarter of the
// memory traffic: a 384-dimension row is 384 bytes instead of 1,536. Each row has its own
// scale (its largest magnitude / 127), so a row's codes use the full int8 range.
//
// The inner product of two quantized rows, times both scales, approximates the float inner
// product within a small error (for L2-normalized vectors, typically under 0.01). A graph
// search ranks candidates by it and then re-ranks the survivors with the float vectors, so the
// error can change which candidates survive, never the order of the results returned.
//
// Threads: not synchronized. Readers (Dot, Quantize of a query) may run concurrently; Set,
// Clear and Resize need exclusive access. Quantize is a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/chunked_rows.h"

namespace engram {

// Writes round(v[i] / scale) to codes[0, n) and returns scale = max |v[i]| / 127 (0 for a zero
// vector, whose codes are all 0).
float QuantizeInt8(const float* v, size_t n, int8_t* codes);

// Sum of a[i] * b[i] in exact integer arithmetic (AVX2 where the CPU has it). n <= 65536.
int32_t DotInt8(const int8_t* a, const int8_t* b, size_t n);

class QuantizedVectors {
 public:
  // `huge_pages`: the codes go to the huge-page pool when large enough (huge_pages.h).
  explicit QuantizedVectors(size_t dimension, bool huge_pages = false)
      : dimension_(dimension), codes_(dimension, huge_pages) {}

  size_t dimension() const { return dimension_; }
  size_t rows() const { return scales_.size(); }
  // Grows (zero rows) or shrinks to `rows` rows.
  void Resize(size_t rows);
  // Quantizes `v` (dimension() floats) into row `row`, growing the table if needed.
  void Set(size_t row, const float* v);
  void Clear(size_t row);  // zero codes and scale
  const int8_t* codes(size_t row) const { return codes_.row(row); }
  float scale(size_t row) const { return scales_[row]; }
  // Approximate inner product of a quantized query (codes, scale) with row `row`.
  float Dot(const int8_t* query_codes, float query_scale, size_t row) const {
    return static_cast<float>(DotInt8(query_codes, codes(row), dimension_)) * query_scale *
           scales_[row];
  }
  size_t MemoryBytes() const { return codes_.UsedBytes() + scales_.size() * sizeof(float); }

 private:
  size_t dimension_;
  ChunkedRows<int8_t> codes_;  // dimension_ per row
  std::vector<float> scales_;
};

}  // namespace engram
