// Huge-page allocations: mmap(MAP_HUGETLB) of whole 2 MiB pages, remembered by address so that
// a free can tell them from operator new's (a few hundred live at most: one per large index
// array, so one mutex serves).
#include "index/huge_pages.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
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

std::atomic<int> switched_off{0};  // live ScopedNoHugePages

size_t RoundUp(size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

}  // namespace

void* AllocateHugePages(size_t bytes) {
#ifdef MAP_HUGETLB
  if (switched_off.load(std::memory_order_relaxed) > 0) return nullptr;
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

ScopedNoHugePages::ScopedNoHugePages() { switched_off.fetch_add(1, std::memory_order_relaxed); }
ScopedNoHugePages::~ScopedNoHugePages() { switched_off.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace engram
