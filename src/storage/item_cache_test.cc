#include "storage/item_cache.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

MemoryItem Item(const std::string& id, const std::string& tenant = "t", const std::string& user = "u") {
  MemoryItem m;
  m.id = id;
  m.content = "content of " + id;
  m.scope = Scope{tenant, user, "", ""};
  return m;
}

const Scope kScope{"t", "u", "", ""};

TEST(ItemCacheTest, ReturnsWhatWasPutForItsOwnScopeOnly) {
  ItemCache cache(10);
  cache.Put(cache.Generation(), 7, Item("a"));
  MemoryItem got;
  ASSERT_TRUE(cache.Get(7, kScope, &got));
  EXPECT_EQ(got.id, "a");
  EXPECT_EQ(got.content, "content of a");
  EXPECT_FALSE(cache.Get(8, kScope, &got));
  // Another tenant or user asking for the same seq is a miss, never the item.
  EXPECT_FALSE(cache.Get(7, Scope{"other", "u", "", ""}, &got));
  EXPECT_FALSE(cache.Get(7, Scope{"t", "someone", "", ""}, &got));
}

TEST(ItemCacheTest, RefusesRowsReadBeforeOrDuringAWrite) {
  ItemCache cache(10);
  const uint64_t before = cache.Generation();
  {
    ItemCache::WriteWindow window(&cache);
    const uint64_t during = cache.Generation();
    cache.Put(during, 1, Item("read during the write"));
    cache.Put(before, 2, Item("read before the write"));
    EXPECT_EQ(cache.size(), 0u);
  }
  cache.Put(before, 3, Item("read before, offered after"));
  EXPECT_EQ(cache.size(), 0u);
  cache.Put(cache.Generation(), 4, Item("read after the write"));
  MemoryItem got;
  EXPECT_TRUE(cache.Get(4, kScope, &got));
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ItemCacheTest, WritesEraseAndAccessCountsAdd) {
  ItemCache cache(10);
  MemoryItem a = Item("a");
  a.access_count = 3;
  a.last_accessed = 100;
  cache.Put(cache.Generation(), 1, a);
  cache.Put(cache.Generation(), 2, Item("b"));
  {
    ItemCache::WriteWindow window(&cache);
    cache.AddAccess(1, 2, 50);   // an older access time leaves last_accessed alone
    cache.AddAccess(1, 1, 200);
    cache.AddAccess(9, 1, 200);  // not cached: nothing happens
    cache.Erase(2);
  }
  MemoryItem got;
  ASSERT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_EQ(got.access_count, 6);
  EXPECT_EQ(got.last_accessed, 200);
  EXPECT_FALSE(cache.Get(2, kScope, &got));
  {
    ItemCache::WriteWindow window(&cache);
    cache.Clear();
  }
  EXPECT_FALSE(cache.Get(1, kScope, &got));
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ItemCacheTest, EvictsTheLeastRecentlyUsed) {
  ItemCache cache(3);
  for (int64_t seq = 1; seq <= 3; ++seq) cache.Put(cache.Generation(), seq, Item(std::to_string(seq)));
  MemoryItem got;
  ASSERT_TRUE(cache.Get(1, kScope, &got));  // 1 is now the most recent; 2 the least
  cache.Put(cache.Generation(), 4, Item("4"));
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_FALSE(cache.Get(2, kScope, &got));
  EXPECT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_TRUE(cache.Get(3, kScope, &got));
  EXPECT_TRUE(cache.Get(4, kScope, &got));
  // Putting a cached seq again replaces it without evicting anything.
  MemoryItem newer = Item("3");
  newer.content = "newer";
  cache.Put(cache.Generation(), 3, newer);
  EXPECT_EQ(cache.size(), 3u);
  ASSERT_TRUE(cache.Get(3, kScope, &got));
  EXPECT_EQ(got.content, "newer");
}

// A large cache is split into shards by seq, each evicting its own least recently used: the
// capacity holds overall, recent entries stay, and write windows and counts reach every shard.
TEST(ItemCacheTest, AShardedCacheKeepsItsCapacityAndItsRules) {
  const size_t capacity = 32 * 1024;
  ItemCache cache(capacity);
  for (int64_t seq = 1; seq <= 50'000; ++seq) cache.Put(cache.Generation(), seq, Item("x"));
  EXPECT_EQ(cache.size(), capacity);  // consecutive seqs fill the shards evenly
  MemoryItem got;
  EXPECT_FALSE(cache.Get(1, kScope, &got));      // among the oldest: evicted
  EXPECT_TRUE(cache.Get(50'000, kScope, &got));  // the newest stay
  EXPECT_TRUE(cache.Get(49'000, kScope, &got));
  const uint64_t before = cache.Generation();
  {
    ItemCache::WriteWindow window(&cache);
    for (int64_t seq = 49'990; seq <= 50'000; ++seq) cache.AddAccess(seq, 2, 77);
    cache.Erase(49'000);
    cache.Put(cache.Generation(), 60'001, Item("during"));  // refused in any shard
  }
  cache.Put(before, 60'002, Item("read before the write"));  // refused
  EXPECT_FALSE(cache.Get(60'001, kScope, &got));
  EXPECT_FALSE(cache.Get(60'002, kScope, &got));
  EXPECT_FALSE(cache.Get(49'000, kScope, &got));
  for (int64_t seq = 49'990; seq <= 50'000; ++seq) {
    ASSERT_TRUE(cache.Get(seq, kScope, &got));
    EXPECT_EQ(got.access_count, 2);
    EXPECT_EQ(got.last_accessed, 77);
  }
  EXPECT_FALSE(cache.Get(50'000, Scope{"other", "u", "", ""}, &got));
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ItemCacheTest, CapacityZeroCachesNothing) {
  ItemCache cache(0);
  EXPECT_FALSE(cache.enabled());
  cache.Put(cache.Generation(), 1, Item("a"));
  MemoryItem got;
  EXPECT_FALSE(cache.Get(1, kScope, &got));
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace engram
