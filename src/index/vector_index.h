// Vector indexes for one scope's vectors of one model. Keys are items.seq values; scores are
// inner products of L2-normalized vectors (cosine similarity, higher is closer).
//
// Threads: not synchronized. The owner (a ScopeIndex) holds a shared lock for Search and an
// exclusive lock for Upsert/Remove.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

struct VectorHit {
  int64_t key = 0;
  float score = 0;  // cosine similarity
};

// Which keys a search may return; empty function: all.
using KeyFilter = std::function<bool(int64_t key)>;

class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  virtual int dimension() const = 0;
  virtual size_t size() const = 0;
  // Inserts or replaces the vector of `key` (dimension() floats).
  virtual Status Upsert(int64_t key, const float* vector) = 0;
  // Removes `key`; OK if absent.
  virtual Status Remove(int64_t key) = 0;
  // Copies the stored vector of `key` into *out; false if absent (or not retrievable).
  virtual bool Get(int64_t key, std::vector<float>* out) const = 0;
  // The stored vector of `key` in place (dimension() floats, valid until the next Upsert or
  // Remove), or null when absent or not kept contiguously (the caller then uses Get).
  virtual const float* Peek(int64_t /*key*/) const { return nullptr; }
  // The k best keys passing `filter`, best first.
  virtual std::vector<VectorHit> Search(const float* query, size_t k,
                                        const KeyFilter& filter) const = 0;
  // Heap memory held, estimated from counts in O(1) (for memory budgets, not accounting).
  virtual size_t MemoryBytes() const = 0;
};

// Exact search over a contiguous row-major matrix: the right choice for small scopes, and the
// ground truth for approximate indexes.
std::unique_ptr<VectorIndex> MakeExactIndex(int dimension);

}  // namespace engram
