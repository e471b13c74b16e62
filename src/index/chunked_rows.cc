// ChunkedBytes: chunk sizing, allocation (huge pages or calloc) and growth without copying
// past the first chunk.
#include "index/chunked_rows.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "index/huge_pages.h"

namespace engram {
namespace {

constexpr size_t kFirstRows = 16;  // the first chunk's first capacity

size_t RoundToPages(size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

// log2 of the rows of a full chunk: the smallest power of two of rows filling at least one huge
// page, or a larger one (up to 8 times) that wastes under 1/16 of its last page.
unsigned ChunkShift(size_t row_bytes) {
  unsigned shift = 0;
  while ((size_t{1} << shift) * row_bytes < kHugePageBytes) ++shift;
  for (unsigned extra = 0; extra <= 3; ++extra) {
    const size_t bytes = (size_t{1} << (shift + extra)) * row_bytes;
    if ((RoundToPages(bytes) - bytes) * 16 < kHugePageBytes) return shift + extra;
  }
  return shift;
}

}  // namespace

ChunkedBytes::ChunkedBytes(size_t row_bytes, bool huge_pages)
    : row_bytes_(std::max<size_t>(row_bytes, 1)),
      huge_pages_(huge_pages),
      shift_(ChunkShift(row_bytes_)),
      mask_((size_t{1} << shift_) - 1) {}

ChunkedBytes::~ChunkedBytes() { Release(); }

ChunkedBytes::ChunkedBytes(ChunkedBytes&& other) noexcept
    : row_bytes_(other.row_bytes_),
      huge_pages_(other.huge_pages_),
      shift_(other.shift_),
      mask_(other.mask_),
      size_(std::exchange(other.size_, 0)),
      first_capacity_(std::exchange(other.first_capacity_, 0)),
      chunks_(std::move(other.chunks_)) {
  other.chunks_.clear();
}

ChunkedBytes& ChunkedBytes::operator=(ChunkedBytes&& other) noexcept {
  if (this != &other) {
    Release();
    row_bytes_ = other.row_bytes_;
    huge_pages_ = other.huge_pages_;
    shift_ = other.shift_;
    mask_ = other.mask_;
    size_ = std::exchange(other.size_, 0);
    first_capacity_ = std::exchange(other.first_capacity_, 0);
    chunks_ = std::move(other.chunks_);
    other.chunks_.clear();
  }
  return *this;
}

void ChunkedBytes::Release() {
  for (const Chunk& chunk : chunks_) Free(chunk);
  chunks_.clear();
  size_ = 0;
  first_capacity_ = 0;
}

ChunkedBytes::Chunk ChunkedBytes::Allocate(size_t bytes) const {
  if (huge_pages_ && bytes >= kHugePageBytes) {
    if (void* p = AllocateHugePages(bytes)) {  // anonymous mappings read as zero
      return {static_cast<uint8_t*>(p), RoundToPages(bytes), true};
    }
  }
  // calloc of a large block maps fresh zero pages, touched only when written.
  void* p = std::calloc(bytes, 1);
  if (!p) throw std::bad_alloc();
  return {static_cast<uint8_t*>(p), bytes, false};
}

void ChunkedBytes::Free(const Chunk& chunk) {
  if (chunk.huge) {
    FreeHugePages(chunk.data);
  } else {
    std::free(chunk.data);
  }
}

void ChunkedBytes::Resize(size_t rows) {
  const size_t full = rows_per_chunk();
  if (rows > size_) {
    // The first chunk, while not full: doubled (copying what it holds) until it holds `rows`
    // or is full.
    if (first_capacity_ < std::min(rows, full)) {
      size_t capacity = std::max(first_capacity_, kFirstRows);
      while (capacity < std::min(rows, full)) capacity *= 2;
      capacity = std::min(capacity, full);
      const Chunk grown = Allocate(capacity * row_bytes_);
      if (!chunks_.empty()) {
        std::memcpy(grown.data, chunks_[0].data, size_ * row_bytes_);
        Free(chunks_[0]);
        chunks_[0] = grown;
      } else {
        chunks_.push_back(grown);
      }
      first_capacity_ = capacity;
    }
    // Full chunks after it, as many as `rows` needs.
    const size_t needed = (rows + full - 1) / full;
    while (chunks_.size() < needed) chunks_.push_back(Allocate(full * row_bytes_));
  } else if (rows < size_) {
    // Zero the dropped rows, chunk by chunk, so that rows past size() stay zero.
    for (size_t r = rows; r < size_;) {
      const size_t end = std::min(size_, (r | mask_) + 1);
      std::memset(row(r), 0, (end - r) * row_bytes_);
      r = end;
    }
    // Keep the chunk holding the last row and one more; the first chunk always stays.
    const size_t keep = std::max<size_t>(1, (rows + full - 1) / full + 1);
    while (chunks_.size() > keep) {
      Free(chunks_.back());
      chunks_.pop_back();
    }
  }
  size_ = rows;
}

size_t ChunkedBytes::AllocatedBytes() const {
  size_t bytes = chunks_.capacity() * sizeof(Chunk);
  for (const Chunk& chunk : chunks_) bytes += chunk.bytes;
  return bytes;
}

size_t ChunkedBytes::HugePageChunks() const {
  return static_cast<size_t>(
      std::count_if(chunks_.begin(), chunks_.end(), [](const Chunk& c) { return c.huge; }));
}

}  // namespace engram
