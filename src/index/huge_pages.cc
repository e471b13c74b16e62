// Huge-page allocations: mmap(MAP_HUGETLB) of whole 2 MiB pages, remembered by address so that
// a free can tell them from operator new's (a few hundred live at most: one per large index
// array, so one mutex serves).
#include "index/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace engram {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<void*, size_t> mapped;  // address -> mapped bytes; guarded by mu
  size_t bytes = 0;                          // sum of mapped; guarded by mu
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: arrays may be freed during exit
  return *r;
}

size_t RoundUp(size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

}  // namespace

void* AllocateHugePages(size_t bytes) {
#ifdef MAP_HUGETLB
  const size_t length = RoundUp(bytes);
  // Without MAP_NORESERVE the kernel reserves every page now, so a short pool fails here and
  // not with SIGBUS at first touch.
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.mapped.emplace(p, length);
  r.bytes += length;
  return p;
#else
  (void)bytes;
  return nullptr;
#endif
}

bool FreeHugePages(void* p) {
  Registry& r = registry();
  size_t length = 0;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.mapped.find(p);
    if (it == r.mapped.end()) return false;
    length = it->second;
    r.mapped.erase(it);
    r.bytes -= length;
  }
  ::munmap(p, length);
  return true;
}

size_t HugePageBytesInUse() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.bytes;
}

int64_t FreeHugePagesInPool() {
  std::ifstream in("/proc/meminfo");
  const std::string name = "HugePages_Free:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) == 0) return std::strtoll(line.c_str() + name.size(), nullptr, 10);
  }
  return 0;
}

namespace {

size_t PageRoundUp(size_t bytes) {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

void FreeArrayMemory(ArrayMemory* m) {
  switch (m->kind) {
    case ArrayMemory::Kind::kNone:
      break;
    case ArrayMemory::Kind::kHeap:
      std::free(m->data);
      break;
    case ArrayMemory::Kind::kMapped:
      ::munmap(m->data, m->bytes);
      break;
    case ArrayMemory::Kind::kHugePages:
      FreeHugePages(m->data);
      break;
  }
  *m = ArrayMemory{};
}

void GrowArrayMemory(ArrayMemory* m, size_t bytes, size_t keep, bool use_huge_pages) {
  if (bytes <= m->bytes) return;
  keep = std::min(keep, m->bytes);
  if (bytes < kHugePageBytes) {  // small: the heap (a larger array never comes back here)
    void* p = std::realloc(m->kind == ArrayMemory::Kind::kHeap ? m->data : nullptr, bytes);
    if (p == nullptr) throw std::bad_alloc();
    m->data = p;
    m->bytes = bytes;
    m->kind = ArrayMemory::Kind::kHeap;
    return;
  }
  ArrayMemory grown;
  if (use_huge_pages) {
    if (void* p = AllocateHugePages(bytes)) {
      grown = {p, (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes,
               ArrayMemory::Kind::kHugePages};
    }
  }
  if (grown.data == nullptr) {
    const size_t length = PageRoundUp(bytes);
    if (m->kind == ArrayMemory::Kind::kMapped) {
      void* p = ::mremap(m->data, m->bytes, length, MREMAP_MAYMOVE);
      if (p != MAP_FAILED) {
        m->data = p;
        m->bytes = length;
        return;
      }
    }
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    grown = {p, length, ArrayMemory::Kind::kMapped};
  }
  if (keep > 0) std::memcpy(grown.data, m->data, keep);
  FreeArrayMemory(m);
  *m = grown;
}

}  // namespace engram
