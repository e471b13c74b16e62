// Index arrays in the kernel's reserved huge pages (hugetlbfs, MAP_HUGETLB) when there are any.
//
// Why: a scope's float and int8 rows are read at random rows by every vector search. On 4 KiB
// pages each of those reads is likely a TLB miss. And the kernel's page-access sampling (DAMON,
// kdamond) clears the accessed bit of sampled pages of every process; in virtual machines that
// shadow page tables each clear is a trap, and a sampling pass over a few GB of index rows held a
// core for 20-40 ms at a time (measured: bench/results/server-full-2026-11-30.md, session 17).
// Huge pages from the reserved pool are not on the kernel's LRU lists, so DAMON skips them.
//
// The pool is the administrator's: `sysctl vm.nr_hugepages=N` reserves N pages of 2 MiB. With no
// pool, or the pool used up, an allocation falls back to ordinary memory (GrowableArray tries,
// as PostgreSQL's huge_pages=try does). Only allocations of at least kHugePageBytes go to huge
// pages; each is rounded up to whole huge pages.
//
// Threads: the allocator and the counters are safe to use from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>

namespace engram {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` (> 0) from the huge-page pool, rounded up to whole huge pages, or null when the pool
// has too few free pages (or the system has none). Free with FreeHugePages.
void* AllocateHugePages(size_t bytes);
// Frees what AllocateHugePages returned; false (nothing freed) when `p` is not such an
// allocation.
bool FreeHugePages(void* p);
// Bytes this process holds in huge-page allocations now (whole pages).
size_t HugePageBytesInUse();
// Free pages in the system's pool (HugePages_Free of /proc/meminfo); 0 when it cannot be read.
int64_t FreeHugePagesInPool();

// The memory of a GrowableArray: where it lives and how many bytes it has.
struct ArrayMemory {
  enum class Kind { kNone, kHeap, kMapped, kHugePages };
  void* data = nullptr;
  size_t bytes = 0;
  Kind kind = Kind::kNone;
};
// Makes `m` at least `bytes` long, keeping its first `keep` bytes. Below kHugePageBytes: malloc
// and realloc. From there: huge pages when `use_huge_pages` and the pool has room (copied into
// new pages: the kernel cannot grow a huge-page mapping in place), else a mapping of its own
// grown with mremap. Throws std::bad_alloc when there is no memory.
void GrowArrayMemory(ArrayMemory* m, size_t bytes, size_t keep, bool use_huge_pages);
void FreeArrayMemory(ArrayMemory* m);

// An array of trivially copyable T that grows without copying where it can. std::vector copies
// every element into new memory when it doubles, and each new page is a fault; in the VM of the
// benchmark (faults trap to the hypervisor) doubling a user's 25 MB of float rows took 137 ms,
// holding every add. A large array here is its own mapping, grown by mremap, which moves page
// tables: no copy, and the new pages fault in one at a time as rows are appended. In huge pages
// (see above) when made with `use_huge_pages`: there a growth copies, but into 2 MiB pages.
//
// Threads: not synchronized, like std::vector.
template <typename T>
class GrowableArray {
  static_assert(std::is_trivially_copyable_v<T>, "rows are moved as bytes");

 public:
  explicit GrowableArray(bool use_huge_pages = false) : use_huge_pages_(use_huge_pages) {}
  ~GrowableArray() { FreeArrayMemory(&memory_); }
  GrowableArray(const GrowableArray&) = delete;
  GrowableArray& operator=(const GrowableArray&) = delete;

  T* data() { return static_cast<T*>(memory_.data); }
  const T* data() const { return static_cast<const T*>(memory_.data); }
  size_t size() const { return size_; }
  size_t capacity() const { return memory_.bytes / sizeof(T); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  bool in_huge_pages() const { return memory_.kind == ArrayMemory::Kind::kHugePages; }

  // New elements are zero. Capacity at least doubles when it grows; it never shrinks.
  void resize(size_t n) {
    if (n > capacity()) {
      GrowArrayMemory(&memory_, std::max(n, 2 * capacity()) * sizeof(T), size_ * sizeof(T),
                      use_huge_pages_);
    }
    if (n > size_) std::memset(data() + size_, 0, (n - size_) * sizeof(T));
    size_ = n;
  }

 private:
  bool use_huge_pages_;
  ArrayMemory memory_;
  size_t size_ = 0;
};

}  // namespace engram
