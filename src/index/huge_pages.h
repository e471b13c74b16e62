// Index arrays in the kernel's reserved huge pages (hugetlbfs, MAP_HUGETLB), when asked
// (EngineOptions::huge_pages, `engram --huge-pages`; off by default) and there are any.
//
// Why: a scope's float and int8 rows are read at random rows by every vector search. On 4 KiB
// pages each of those reads is likely a TLB miss. And the kernel's page-access sampling (DAMON,
// kdamond) clears the accessed bit of sampled pages of every process; in virtual machines that
// shadow page tables each clear is a trap that can hold a core for milliseconds. Huge pages from
// the reserved pool are not on the kernel's LRU lists, so DAMON skips them. The figures are in
// bench/results/server.md.
//
// The pool is the administrator's: `sysctl vm.nr_hugepages=N` reserves N pages of 2 MiB. With no
// pool, or the pool used up, an allocation falls back to ordinary memory (the allocator tries,
// as PostgreSQL's huge_pages=try does). The index arrays (ChunkedRows, chunked_rows.h) ask for
// chunks of at least kHugePageBytes; each allocation is rounded up to whole huge pages.
//
// Threads: the functions are safe to use from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

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

// While one exists, AllocateHugePages returns null as if the pool were empty, so that the
// fallback to ordinary memory can be exercised on a machine whose pool has room (tests).
// Nesting is allowed; pages already allocated stay where they are.
class ScopedNoHugePages {
 public:
  ScopedNoHugePages();
  ~ScopedNoHugePages();
  ScopedNoHugePages(const ScopedNoHugePages&) = delete;
  ScopedNoHugePages& operator=(const ScopedNoHugePages&) = delete;
};

}  // namespace engram
