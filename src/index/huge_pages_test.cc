#include "index/huge_pages.h"

#include <gtest/gtest.h>

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
