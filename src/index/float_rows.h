// Keyed vectors of one dimension in dense rows (ChunkedRows: chunks that never move), and the
// exact top-k scan over them: the storage of the exact index and of the scan index (which keeps
// its codes by the same rows). Removal moves the last row into the hole, so the rows stay dense.
//
// Threads: not synchronized, like its owners (concurrent reads are safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "index/chunked_rows.h"
#include "index/vector_index.h"

namespace engram {

class FloatRows {
 public:
  // `huge_pages`: the floats go to the huge-page pool when large enough (huge_pages.h).
  explicit FloatRows(size_t dimension, bool huge_pages = false)
      : dim_(dimension), data_(dimension, huge_pages) {}

  size_t dimension() const { return dim_; }
  size_t size() const { return keys_.size(); }
  int64_t key(size_t row) const { return keys_[row]; }
  const float* row(size_t row) const { return data_.row(row); }

  // Stores `vector` for `key`: its row, and whether that row was appended (the key was new).
  std::pair<size_t, bool> Upsert(int64_t key, const float* vector);
  // A removal: the emptied row, and the former last row, which now lives in it (equal when the
  // removed row was the last).
  struct Moved {
    size_t row;
    size_t last;
  };
  // Removes `key` (nullopt if absent); the last row moves into its place.
  std::optional<Moved> Remove(int64_t key);
  // The row of `key` in place, or null.
  const float* Peek(int64_t key) const;
  bool Get(int64_t key, std::vector<float>* out) const;
  // The k best rows passing `filter` by exact inner product, best first.
  std::vector<VectorHit> Search(const float* query, size_t k, const KeyFilter& filter) const;

  // Floats, keys and a hash-map node (key, row, next pointer, bucket) per row: as allocated
  // (capacity), or for the rows in use only.
  size_t AllocatedBytes() const {
    return data_.AllocatedBytes() + keys_.capacity() * sizeof(int64_t) + row_of_.size() * 40;
  }
  size_t UsedBytes() const {
    return data_.UsedBytes() + keys_.size() * sizeof(int64_t) + row_of_.size() * 40;
  }

 private:
  size_t dim_;
  std::vector<int64_t> keys_;
  ChunkedRows<float> data_;
  std::unordered_map<int64_t, size_t> row_of_;
};

}  // namespace engram
