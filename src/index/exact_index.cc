// Exact search: vectors in one contiguous row-major array, scanned with a dot product the
// compiler vectorizes. Removal swaps the last row into the hole, keeping the array dense.
#include <algorithm>
#include <unordered_map>

#include "index/vector_index.h"

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

class ExactIndex final : public VectorIndex {
 public:
  explicit ExactIndex(int dimension) : dim_(dimension) {}

  int dimension() const override { return dim_; }
  size_t size() const override { return keys_.size(); }

  Status Upsert(int64_t key, const float* vector) override {
    auto it = row_of_.find(key);
    size_t row;
    if (it == row_of_.end()) {
      row = keys_.size();
      keys_.push_back(key);
      data_.resize(data_.size() + static_cast<size_t>(dim_));
      row_of_[key] = row;
    } else {
      row = it->second;
    }
    std::copy(vector, vector + dim_, data_.begin() + static_cast<ptrdiff_t>(row * dim_));
    return Status::Ok();
  }

  Status Remove(int64_t key) override {
    auto it = row_of_.find(key);
    if (it == row_of_.end()) return Status::Ok();
    size_t row = it->second, last = keys_.size() - 1;
    if (row != last) {
      std::copy(data_.begin() + static_cast<ptrdiff_t>(last * dim_),
                data_.begin() + static_cast<ptrdiff_t>((last + 1) * dim_),
                data_.begin() + static_cast<ptrdiff_t>(row * dim_));
      keys_[row] = keys_[last];
      row_of_[keys_[row]] = row;
    }
    keys_.pop_back();
    data_.resize(data_.size() - static_cast<size_t>(dim_));
    row_of_.erase(it);
    return Status::Ok();
  }

  size_t MemoryBytes() const override {
    // the matrix, the keys, and a hash-map node (key, row, next pointer, bucket) per row
    return data_.capacity() * sizeof(float) + keys_.capacity() * sizeof(int64_t) +
           row_of_.size() * 40;
  }

  const float* Peek(int64_t key) const override {
    auto it = row_of_.find(key);
    return it == row_of_.end() ? nullptr : data_.data() + it->second * static_cast<size_t>(dim_);
  }

  bool Get(int64_t key, std::vector<float>* out) const override {
    auto it = row_of_.find(key);
    if (it == row_of_.end()) return false;
    auto begin = data_.begin() + static_cast<ptrdiff_t>(it->second * dim_);
    out->assign(begin, begin + dim_);
    return true;
  }

  std::vector<VectorHit> Search(const float* query, size_t k,
                                const KeyFilter& filter) const override {
    std::vector<VectorHit> hits;
    if (k == 0) return hits;
    hits.reserve(std::min(keys_.size(), k * 4));
    auto worse = [](const VectorHit& a, const VectorHit& b) { return a.score > b.score; };
    for (size_t row = 0; row < keys_.size(); ++row) {
      if (filter && !filter(keys_[row])) continue;
      float score = Dot(query, data_.data() + row * static_cast<size_t>(dim_), dim_);
      if (hits.size() < k) {
        hits.push_back({keys_[row], score});
        std::push_heap(hits.begin(), hits.end(), worse);
      } else if (score > hits.front().score) {
        std::pop_heap(hits.begin(), hits.end(), worse);
        hits.back() = {keys_[row], score};
        std::push_heap(hits.begin(), hits.end(), worse);
      }
    }
    std::sort_heap(hits.begin(), hits.end(), worse);
    return hits;
  }

 private:
  int dim_;
  std::vector<int64_t> keys_;
  std::vector<float> data_;
  std::unordered_map<int64_t, size_t> row_of_;
};

}  // namespace

std::unique_ptr<VectorIndex> MakeExactIndex(int dimension) {
  return std::make_unique<ExactIndex>(dimension);
}

}  // namespace engram
