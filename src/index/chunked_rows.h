// Fixed-width rows in chunks that never move: the arrays of an index's floats, int8 rows and
// scan codes.
//
// Why not a std::vector: a vector doubles by copying. An index array of 10k rows of 384 floats
// is 15 MB, and the copy touches 30 MB of new memory (a page fault per new page) while the
// engine's write lock is held, so every add waits for it. Users who write at the same pace
// reach the same sizes together, and their copies come in bursts (bench/results/server.md).
//
// Here a full chunk holds a power of two of rows (row(r) is a shift and a mask) sized to whole
// huge pages where possible: at least kHugePageBytes, rounded to waste little of the last page
// (384 floats: 4,096 rows in 6 MiB, three pages exactly). Growing past a full chunk allocates
// one more and copies nothing; its pages are touched, one at a time, by the rows written into
// them. Only the first chunk grows by doubling, until it is full, so that a small index stays
// small. Chunks of at least kHugePageBytes come from the huge-page pool when asked for and the
// pool has room (huge_pages.h), else from ordinary memory.
//
// Rows past size() are always zero: new rows read as zero.
//
// Threads: not synchronized. Readers may run concurrently; Resize needs exclusive access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace engram {

// Untyped: rows of `row_bytes` bytes.
class ChunkedBytes {
 public:
  ChunkedBytes(size_t row_bytes, bool huge_pages);
  ~ChunkedBytes();
  ChunkedBytes(const ChunkedBytes&) = delete;
  ChunkedBytes& operator=(const ChunkedBytes&) = delete;
  ChunkedBytes(ChunkedBytes&& other) noexcept;
  ChunkedBytes& operator=(ChunkedBytes&& other) noexcept;

  size_t row_bytes() const { return row_bytes_; }
  size_t size() const { return size_; }
  // Rows of a full chunk (a power of two); chunk c holds rows [c, c + 1) × rows_per_chunk().
  size_t rows_per_chunk() const { return size_t{1} << shift_; }

  uint8_t* row(size_t r) { return chunks_[r >> shift_].data + (r & mask_) * row_bytes_; }
  const uint8_t* row(size_t r) const {
    return chunks_[r >> shift_].data + (r & mask_) * row_bytes_;
  }

  // Grows (new rows are zero) or shrinks to `rows` rows. Shrinking zeroes the dropped rows and
  // frees the chunks past the last one in use but one (so that rows added and removed at a
  // chunk's edge do not allocate and free it each time).
  void Resize(size_t rows);
  // Bytes allocated (whole huge pages for chunks in the pool).
  size_t AllocatedBytes() const;
  // Chunks in huge pages (for tests).
  size_t HugePageChunks() const;

 private:
  struct Chunk {
    uint8_t* data;
    size_t bytes;
    bool huge;
  };
  Chunk Allocate(size_t bytes) const;
  static void Free(const Chunk& chunk);
  void Release();

  size_t row_bytes_;
  bool huge_pages_;
  unsigned shift_;
  size_t mask_;
  size_t size_ = 0;
  size_t first_capacity_ = 0;  // rows the first chunk holds (grows to rows_per_chunk)
  std::vector<Chunk> chunks_;
};

// Rows of `width` values of T (trivially copyable; zero bytes are T's zero).
template <typename T>
class ChunkedRows {
 public:
  ChunkedRows(size_t width, bool huge_pages)
      : width_(width), bytes_(width * sizeof(T), huge_pages) {}

  size_t width() const { return width_; }
  size_t size() const { return bytes_.size(); }
  size_t rows_per_chunk() const { return bytes_.rows_per_chunk(); }
  T* row(size_t r) { return reinterpret_cast<T*>(bytes_.row(r)); }
  const T* row(size_t r) const { return reinterpret_cast<const T*>(bytes_.row(r)); }
  void Resize(size_t rows) { bytes_.Resize(rows); }
  size_t AllocatedBytes() const { return bytes_.AllocatedBytes(); }
  size_t UsedBytes() const { return bytes_.size() * bytes_.row_bytes(); }
  size_t HugePageChunks() const { return bytes_.HugePageChunks(); }

 private:
  size_t width_;
  ChunkedBytes bytes_;
};

}  // namespace engram
