#include "index/chunked_rows.h"

#include <gtest/gtest.h>

#include <cstring>

#include "index/huge_pages.h"

namespace engram {
namespace {

bool AllZero(const float* row, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (row[i] != 0.0f) return false;
  }
  return true;
}

void Fill(ChunkedRows<float>& rows, size_t from, size_t to) {
  for (size_t r = from; r < to; ++r) {
    for (size_t i = 0; i < rows.width(); ++i) rows.row(r)[i] = static_cast<float>(r * 1000 + i);
  }
}

bool Holds(const ChunkedRows<float>& rows, size_t r) {
  for (size_t i = 0; i < rows.width(); ++i) {
    if (rows.row(r)[i] != static_cast<float>(r * 1000 + i)) return false;
  }
  return true;
}

TEST(ChunkedRowsTest, FullChunksFillWholeHugePages) {
  // 384 floats (1,536 bytes): 4,096 rows are 6 MiB, three huge pages with nothing left over.
  EXPECT_EQ(ChunkedRows<float>(384, false).rows_per_chunk(), 4096u);
  EXPECT_EQ(ChunkedRows<int8_t>(384, false).rows_per_chunk(), 16384u);
  EXPECT_EQ(ChunkedRows<float>(1024, false).rows_per_chunk(), 512u);  // 2 MiB exactly
  // No power of two of 400-byte rows fills whole pages closely: the smallest reaching one page.
  const ChunkedRows<float> odd(100, false);
  EXPECT_EQ(odd.rows_per_chunk(), 8192u);
  EXPECT_GE(odd.rows_per_chunk() * 400, kHugePageBytes);
}

TEST(ChunkedRowsTest, RowsKeepTheirValuesAndFullChunksNeverMove) {
  ChunkedRows<float> rows(384, false);
  const size_t per = rows.rows_per_chunk();
  // Through the first chunk's doublings: values are copied along.
  for (size_t n = 1; n <= per; n = n * 3 + 1) {
    const size_t before = rows.size();
    rows.Resize(n);
    Fill(rows, before, n);
    for (size_t r = 0; r < n; ++r) ASSERT_TRUE(Holds(rows, r)) << "row " << r << " of " << n;
  }
  rows.Resize(per);
  Fill(rows, 0, per);
  const float* first = rows.row(0);
  const float* last_of_first = rows.row(per - 1);
  rows.Resize(per + 1);
  Fill(rows, per, per + 1);
  const float* second = rows.row(per);
  // Past a full chunk: new chunks, and no row already there moves.
  rows.Resize(4 * per + 17);
  Fill(rows, per + 1, 4 * per + 17);
  EXPECT_EQ(rows.row(0), first);
  EXPECT_EQ(rows.row(per - 1), last_of_first);
  EXPECT_EQ(rows.row(per), second);
  EXPECT_EQ(rows.row(per - 1) + 384, rows.row(0) + per * 384) << "a chunk's rows are contiguous";
  for (size_t r = 0; r < rows.size(); r += 97) ASSERT_TRUE(Holds(rows, r)) << r;
  EXPECT_TRUE(Holds(rows, rows.size() - 1));
}

TEST(ChunkedRowsTest, NewRowsAreZeroAlsoAfterShrinking) {
  ChunkedRows<float> rows(8, false);
  const size_t per = rows.rows_per_chunk();
  rows.Resize(2 * per + 5);
  for (size_t r = 0; r < rows.size(); r += 7) EXPECT_TRUE(AllZero(rows.row(r), 8)) << r;
  Fill(rows, 0, rows.size());
  // Shrink into the first chunk, and across no boundary; then grow again.
  rows.Resize(per - 3);
  rows.Resize(2 * per + 5);
  EXPECT_TRUE(Holds(rows, per - 4));
  for (size_t r = per - 3; r < rows.size(); ++r) ASSERT_TRUE(AllZero(rows.row(r), 8)) << r;
  Fill(rows, 0, rows.size());
  rows.Resize(2 * per + 1);
  rows.Resize(2 * per + 5);
  EXPECT_TRUE(Holds(rows, 2 * per));
  for (size_t r = 2 * per + 1; r < rows.size(); ++r) ASSERT_TRUE(AllZero(rows.row(r), 8)) << r;
}

TEST(ChunkedRowsTest, ShrinkingFreesChunksButOneSpare) {
  ChunkedRows<float> rows(384, false);
  const size_t per = rows.rows_per_chunk();
  const size_t chunk_bytes = per * 384 * sizeof(float);
  rows.Resize(5 * per);
  EXPECT_GE(rows.AllocatedBytes(), 5 * chunk_bytes);
  rows.Resize(per + 1);  // in chunk 1: chunks 0, 1 and a spare 2 remain
  EXPECT_GE(rows.AllocatedBytes(), 3 * chunk_bytes);
  EXPECT_LT(rows.AllocatedBytes(), 4 * chunk_bytes);
  rows.Resize(2 * per + 1);  // into the spare: no allocation, the rows are where they were
  const float* spare_row = rows.row(2 * per);
  rows.Resize(2 * per);
  rows.Resize(2 * per + 1);
  EXPECT_EQ(rows.row(2 * per), spare_row);
  rows.Resize(0);
  EXPECT_LT(rows.AllocatedBytes(), chunk_bytes + 4096) << "the first chunk stays";
  rows.Resize(3);
  EXPECT_TRUE(AllZero(rows.row(2), 384));
}

// Rows asked to live in huge pages: full chunks come from the pool when `pool` (the pool has room
// and is not switched off), from ordinary memory otherwise; the rows hold the same either way.
void ExpectChunksWhereThePoolAllows(bool pool) {
  const size_t before = HugePageBytesInUse();
  const size_t chunk_in_pool = pool ? 3 * kHugePageBytes : 0;  // 6 MiB a full chunk
  {
    ChunkedRows<float> rows(384, true);
    const size_t per = rows.rows_per_chunk();
    rows.Resize(100);  // 150 KB: ordinary memory
    EXPECT_EQ(rows.HugePageChunks(), 0u);
    EXPECT_EQ(HugePageBytesInUse(), before);
    rows.Resize(per + 1);  // a full first chunk and a second
    EXPECT_EQ(rows.HugePageChunks(), pool ? 2u : 0u);
    EXPECT_EQ(HugePageBytesInUse(), before + 2 * chunk_in_pool);
    EXPECT_GE(rows.AllocatedBytes(), 2 * 3 * kHugePageBytes) << "full chunks either way";
    Fill(rows, 0, rows.size());
    EXPECT_TRUE(Holds(rows, 0));
    EXPECT_TRUE(Holds(rows, per - 1));
    EXPECT_TRUE(Holds(rows, per));
    ChunkedRows<float> plain(384, false);
    plain.Resize(per + 1);
    EXPECT_EQ(plain.HugePageChunks(), 0u) << "not asked";
    ChunkedRows<float> moved = std::move(rows);
    EXPECT_TRUE(Holds(moved, per));
    EXPECT_EQ(HugePageBytesInUse(), before + 2 * chunk_in_pool);
  }
  EXPECT_EQ(HugePageBytesInUse(), before) << "freed with the rows";
}

TEST(ChunkedRowsTest, FullChunksComeFromTheHugePagePoolWhenAsked) {
  ExpectChunksWhereThePoolAllows(FreeHugePagesInPool() >= 12);
}

TEST(ChunkedRowsTest, FullChunksFallBackToOrdinaryMemory) {
  ScopedNoHugePages off;
  ExpectChunksWhereThePoolAllows(false);
}

}  // namespace
}  // namespace engram
