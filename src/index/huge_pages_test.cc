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

// Whether the system's pool has `pages` free now. Each test below checks the huge-page path when
// it has (CI reserves a pool; so may a developer) and the fallback to ordinary memory otherwise:
// either way it asserts what the allocator did. `make test` needs no pool and no root.
bool PoolHas(int64_t pages) { return FreeHugePagesInPool() >= pages; }

TEST(HugePagesTest, AllocatesWholePagesFromThePoolAndGivesThemBack) {
  const size_t before = HugePageBytesInUse();
  const int64_t kb_before = MyHugetlbKb();
  void* p = AllocateHugePages(kHugePageBytes + 1);  // two pages
  if (!PoolHas(2) && p == nullptr) {
    EXPECT_EQ(HugePageBytesInUse(), before) << "nothing counted when the pool has no room";
    EXPECT_EQ(MyHugetlbKb(), kb_before);
    return;
  }
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(HugePageBytesInUse(), before + 2 * kHugePageBytes);
  std::memset(p, 0x5A, 2 * kHugePageBytes);  // both pages are there to write
  EXPECT_EQ(MyHugetlbKb(), kb_before + 4096) << "the kernel counts them as this process's";
  EXPECT_TRUE(FreeHugePages(p));
  EXPECT_EQ(HugePageBytesInUse(), before);
  EXPECT_EQ(MyHugetlbKb(), kb_before);
}

TEST(HugePagesTest, AShortPoolGivesNothingAndOtherMemoryIsNotFreedAsHugePages) {
  const size_t too_many = static_cast<size_t>(FreeHugePagesInPool() + 1) * kHugePageBytes;
  EXPECT_EQ(AllocateHugePages(too_many), nullptr);
  EXPECT_EQ(HugePageBytesInUse(), 0u);
  std::vector<char> ordinary(kHugePageBytes);
  EXPECT_FALSE(FreeHugePages(ordinary.data()));
}

TEST(HugePagesTest, SwitchedOffNothingComesFromThePool) {
  {
    ScopedNoHugePages off;
    EXPECT_EQ(AllocateHugePages(kHugePageBytes), nullptr);
    {
      ScopedNoHugePages nested;
      EXPECT_EQ(AllocateHugePages(1), nullptr);
    }
    EXPECT_EQ(AllocateHugePages(1), nullptr) << "still off while the outer one lives";
    EXPECT_EQ(HugePageBytesInUse(), 0u);
  }
  void* p = AllocateHugePages(1);  // on again: the pool decides
  EXPECT_EQ(p != nullptr, PoolHas(1));
  if (p != nullptr) {
    EXPECT_TRUE(FreeHugePages(p));
  }
}

// The same rows searched from a scan index asked for huge pages and from one in ordinary memory
// give the same answers, whether the asked one got pages from the pool or fell back.
void ExpectSameAnswers(bool expect_pool) {
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
  if (expect_pool) {
    EXPECT_GE(HugePageBytesInUse(), 7 * kHugePageBytes) << "floats and int8 rows";
  } else {
    EXPECT_EQ(HugePageBytesInUse(), 0u) << "all in ordinary memory";
  }
  for (int q = 0; q < 20; ++q) {
    for (float& x : v) x = normal(rng);
    const auto a = plain->Search(v.data(), 10, {});
    const auto b = huge->Search(v.data(), 10, {});
    ASSERT_EQ(a.size(), 10u);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].key, b[i].key);
      EXPECT_EQ(a[i].score, b[i].score);
    }
  }
  huge.reset();
  EXPECT_EQ(HugePageBytesInUse(), 0u);
}

TEST(HugePagesTest, AScanIndexInHugePagesFindsWhatOneInOrdinaryMemoryFinds) {
  ExpectSameAnswers(PoolHas(16));
}

TEST(HugePagesTest, AScanIndexThatFallsBackFindsTheSame) {
  ScopedNoHugePages off;
  ExpectSameAnswers(false);
}

}  // namespace
}  // namespace engram
