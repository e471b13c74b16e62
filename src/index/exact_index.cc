// Exact search: the vectors' FloatRows (one dense row-major array) and their exact scan.
#include "index/float_rows.h"
#include "index/vector_index.h"

namespace engram {
namespace {

class ExactIndex final : public VectorIndex {
 public:
  explicit ExactIndex(int dimension) : rows_(static_cast<size_t>(dimension)) {}

  int dimension() const override { return static_cast<int>(rows_.dimension()); }
  size_t size() const override { return rows_.size(); }
  Status Upsert(int64_t key, const float* vector) override {
    rows_.Upsert(key, vector);
    return Status::Ok();
  }
  Status Remove(int64_t key) override {
    rows_.Remove(key);
    return Status::Ok();
  }
  size_t MemoryBytes() const override { return rows_.AllocatedBytes(); }
  const float* Peek(int64_t key) const override { return rows_.Peek(key); }
  bool Get(int64_t key, std::vector<float>* out) const override { return rows_.Get(key, out); }
  std::vector<VectorHit> Search(const float* query, size_t k,
                                const KeyFilter& filter) const override {
    return rows_.Search(query, k, filter);
  }

 private:
  FloatRows rows_;
};

}  // namespace

std::unique_ptr<VectorIndex> MakeExactIndex(int dimension) {
  return std::make_unique<ExactIndex>(dimension);
}

}  // namespace engram
