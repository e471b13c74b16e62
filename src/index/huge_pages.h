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
// pool, or the pool used up, an allocation falls back to ordinary memory (the allocator tries,
// as PostgreSQL's huge_pages=try does). Only allocations of at least kHugePageBytes go to huge
// pages; each is rounded up to whole huge pages.
//
// Threads: the allocator and the counters are safe to use from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

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

// A standard allocator that places arrays of at least kHugePageBytes in huge pages when it was
// made with `use_huge_pages` and the pool has room, and everything else with operator new.
template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  explicit HugePageAllocator(bool use_huge_pages) : use_huge_pages_(use_huge_pages) {}
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>& other)  // NOLINT: rebinding, as allocators do
      : use_huge_pages_(other.use_huge_pages()) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (use_huge_pages_ && bytes >= kHugePageBytes) {
      if (void* p = AllocateHugePages(bytes)) return static_cast<T*>(p);
    }
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= kHugePageBytes && FreeHugePages(p)) return;
    ::operator delete(p);
  }

  bool use_huge_pages() const { return use_huge_pages_; }
  // Equal allocators can free each other's arrays: any of these frees either kind.
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }

 private:
  bool use_huge_pages_ = false;
};

}  // namespace engram
