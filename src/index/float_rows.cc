// FloatRows: keyed dense rows, scanned with a dot product the compiler vectorizes.
// Removal swaps the last row into the hole, keeping the array dense.
#include "index/float_rows.h"

#include <algorithm>

namespace engram {
namespace {

// Eight independent partial sums: without -ffast-math the compiler may not reorder a single
// float reduction, but it vectorizes independent lanes. Cloned for AVX2 (chosen at load time
// where the CPU has it) and for the x86-64 baseline.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
float Dot(const float* a, const float* b, int n) {
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) lanes[l] += a[i + l] * b[i + l];
  }
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (float l : lanes) sum += l;
  return sum;
}

}  // namespace

std::pair<size_t, bool> FloatRows::Upsert(int64_t key, const float* vector) {
  auto [it, added] = row_of_.try_emplace(key, keys_.size());
  if (added) {
    keys_.push_back(key);
    data_.Resize(keys_.size());
  }
  std::copy(vector, vector + dim_, data_.row(it->second));
  return {it->second, added};
}

std::optional<FloatRows::Moved> FloatRows::Remove(int64_t key) {
  auto it = row_of_.find(key);
  if (it == row_of_.end()) return std::nullopt;
  const Moved moved{it->second, keys_.size() - 1};
  if (moved.row != moved.last) {
    std::copy(row(moved.last), row(moved.last) + dim_, data_.row(moved.row));
    keys_[moved.row] = keys_[moved.last];
    row_of_[keys_[moved.row]] = moved.row;
  }
  keys_.pop_back();
  data_.Resize(keys_.size());
  row_of_.erase(it);
  return moved;
}

const float* FloatRows::Peek(int64_t key) const {
  auto it = row_of_.find(key);
  return it == row_of_.end() ? nullptr : row(it->second);
}

bool FloatRows::Get(int64_t key, std::vector<float>* out) const {
  const float* v = Peek(key);
  if (!v) return false;
  out->assign(v, v + dim_);
  return true;
}

std::vector<VectorHit> FloatRows::Search(const float* query, size_t k,
                                         const KeyFilter& filter) const {
  std::vector<VectorHit> hits;
  if (k == 0) return hits;
  hits.reserve(std::min(keys_.size(), k * 4));
  auto worse = [](const VectorHit& a, const VectorHit& b) { return a.score > b.score; };
  const int n = static_cast<int>(dim_);
  const size_t per_chunk = data_.rows_per_chunk();
  for (size_t first = 0; first < keys_.size(); first += per_chunk) {
    const float* rows = row(first);  // a chunk's rows are contiguous
    const size_t end = std::min(keys_.size(), first + per_chunk);
    for (size_t r = first; r < end; ++r) {
      if (filter && !filter(keys_[r])) continue;
      const float score = Dot(query, rows + (r - first) * dim_, n);
      if (hits.size() < k) {
        hits.push_back({keys_[r], score});
        std::push_heap(hits.begin(), hits.end(), worse);
      } else if (score > hits.front().score) {
        std::pop_heap(hits.begin(), hits.end(), worse);
        hits.back() = {keys_[r], score};
        std::push_heap(hits.begin(), hits.end(), worse);
      }
    }
  }
  std::sort_heap(hits.begin(), hits.end(), worse);
  return hits;
}

}  // namespace engram
