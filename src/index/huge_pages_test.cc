#include "index/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "index/scan_index.h"

namespace engram {
namespace {

// This process's HugetlbPages in /proc/self/status ("HugetlbPages:  4096 kB"), in kB.
int64_t MyHugetlbKb() {
  std::ifstream in("/proc/self/status");
  const std::string name = "HugetlbPages:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) == 0) return std::stoll(line.substr(name.size()));
  }
  return -1;
}

// These tests need a few reserved huge pages; `make test` reserves them
// (scripts/huge-pages.sh). Without any, they fail here, saying so.
void NeedPool(int64_t pages) {
  ASSERT_GE(FreeHugePagesInPool(), pages)
      << "needs " << pages << " free huge pages: `sysctl vm.nr_hugepages=128` (make test does)";
}

TEST(HugePagesTest, AllocatesWholePagesFromThePoolAndGivesThemBack) {
  NeedPool(2);
  const size_t before = HugePageBytesInUse();
  const int64_t kb_before = MyHugetlbKb();
  void* p = AllocateHugePages(kHugePageBytes + 1);  // two pages
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(HugePageBytesInUse(), before + 2 * kHugePageBytes);
  std::memset(p, 0x5A, 2 * kHugePageBytes);  // both pages are there to write
  EXPECT_EQ(MyHugetlbKb(), kb_before + 4096) << "the kernel counts them as this process's";
  EXPECT_TRUE(FreeHugePages(p));
  EXPECT_EQ(HugePageBytesInUse(), before);
  EXPECT_EQ(MyHugetlbKb(), kb_before);
}

TEST(HugePagesTest, AShortPoolGivesNothingAndOtherMemoryIsNotFreedAsHugePages) {
  NeedPool(1);
  const size_t too_many = static_cast<size_t>(FreeHugePagesInPool() + 1) * kHugePageBytes;
  EXPECT_EQ(AllocateHugePages(too_many), nullptr);
  EXPECT_EQ(HugePageBytesInUse(), 0u);
  std::vector<char> ordinary(kHugePageBytes);
  EXPECT_FALSE(FreeHugePages(ordinary.data()));
}

TEST(HugePagesTest, AnArrayUsesThePoolOnlyWhenLargeAndAskedTo) {
  NeedPool(4);
  {
    GrowableArray<float> small(/*use_huge_pages=*/true);
    small.resize(1000);
    EXPECT_EQ(HugePageBytesInUse(), 0u) << "4 KB stays in ordinary memory";
    GrowableArray<float> off;
    off.resize(kHugePageBytes);
    EXPECT_FALSE(off.in_huge_pages()) << "an array not asked to never uses the pool";
    EXPECT_EQ(HugePageBytesInUse(), 0u);
    GrowableArray<float> big(/*use_huge_pages=*/true);
    for (size_t i = 0; i < kHugePageBytes / sizeof(float) + 10; ++i) {
      big.resize(i + 1);  // grows from ordinary memory into huge pages
      big[i] = static_cast<float>(i);
    }
    EXPECT_TRUE(big.in_huge_pages());
    EXPECT_GE(HugePageBytesInUse(), 2 * kHugePageBytes);
    for (size_t i = 0; i < big.size(); ++i) ASSERT_EQ(big[i], static_cast<float>(i));
  }
  EXPECT_EQ(HugePageBytesInUse(), 0u);
  // Larger than the free pool: ordinary memory, freed as such.
  GrowableArray<int8_t> codes(/*use_huge_pages=*/true);
  codes.resize(static_cast<size_t>(FreeHugePagesInPool() + 1) * kHugePageBytes);
  EXPECT_FALSE(codes.in_huge_pages());
  EXPECT_EQ(HugePageBytesInUse(), 0u);
  codes[codes.size() - 1] = 7;
  EXPECT_EQ(codes[codes.size() - 1], 7);
}

TEST(GrowableArrayTest, KeepsItsElementsAndNewOnesAreZero) {
  GrowableArray<int64_t> a;
  for (int64_t i = 0; i < 300'000; ++i) {  // heap, then a mapping of its own (2.4 MB)
    a.resize(static_cast<size_t>(i) + 1);
    a[static_cast<size_t>(i)] = i * 3;
  }
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], static_cast<int64_t>(i) * 3);
  a.resize(10);  // shorter, then longer again: the elements past 10 come back as zero
  a.resize(1000);
  EXPECT_EQ(a[9], 27);
  for (size_t i = 10; i < 1000; ++i) ASSERT_EQ(a[i], 0);
  EXPECT_GE(a.capacity(), 300'000u);
}

long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// std::vector would copy 64 MB into new memory, a fault for each of its 16,384 new pages
// (measured in the VM: 137 ms for a 25 MB growth). mremap moves the page tables instead.
TEST(GrowableArrayTest, ALargeArrayGrowsWithoutTouchingItsPagesAgain) {
  constexpr size_t kBytes = size_t{64} << 20;
  GrowableArray<char> a;
  a.resize(kBytes);
  std::memset(a.data(), 0x33, kBytes);  // every page resident
  const long before = MinorFaults();
  a.resize(kBytes + 1);
  const long faults = MinorFaults() - before;
  EXPECT_GE(a.capacity(), 2 * kBytes);
  EXPECT_LT(faults, 1000) << "the rows were copied into new pages";
  EXPECT_EQ(a[0], 0x33);
  EXPECT_EQ(a[kBytes - 1], 0x33);
  EXPECT_EQ(a[kBytes], 0);
}

TEST(HugePagesTest, AScanIndexInHugePagesFindsWhatOneInOrdinaryMemoryFinds) {
  NeedPool(16);
  constexpr int kDim = 384;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  auto plain = MakeScanIndex(kDim);
  auto huge = MakeScanIndex(kDim, {.huge_pages = true});
  std::vector<float> v(kDim);
  for (int64_t key = 1; key <= 6000; ++key) {  // 9 MB of floats, 2.3 MB of int8 rows
    for (float& x : v) x = normal(rng);
    ASSERT_TRUE(plain->Upsert(key, v.data()).ok());
    ASSERT_TRUE(huge->Upsert(key, v.data()).ok());
  }
  EXPECT_GE(HugePageBytesInUse(), 7 * kHugePageBytes) << "floats and int8 rows";
  for (int q = 0; q < 20; ++q) {
    for (float& x : v) x = normal(rng);
    const auto a = plain->Search(v.data(), 10, {});
    const auto b = huge->Search(v.data(), 10, {});
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].key, b[i].key);
      EXPECT_EQ(a[i].score, b[i].score);
    }
  }
  huge.reset();
  EXPECT_EQ(HugePageBytesInUse(), 0u);
}

}  // namespace
}  // namespace engram
