#include "storage/item_cache.h"

#include <gtest/gtest.h>

#include "testing/record_support.h"

namespace engram {
namespace {

MemoryItem Item(const std::string& id, const std::string& tenant = "t",
                const std::string& user = "u") {
  MemoryItem m;
  m.id = id;
  m.content = "content of " + id;
  m.scope = Scope{tenant, user, "", ""};
  return m;
}

const Scope kScope{"t", "u", "", ""};
// Room for n entries like Item("a"): the tests' items differ only in one-character ids.
size_t Room(size_t n) { return n * ItemCache::Footprint(Item("a")); }

// Every field set (testing::EveryFieldItem), with content past one LEB128 length byte.
MemoryItem Full() {
  MemoryItem m = testing::EveryFieldItem();
  m.content.append(300, 'c');
  return m;
}

TEST(ItemCacheTest, ReturnsWhatWasPutForItsOwnScopeOnly) {
  ItemCache cache(Room(10));
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
  ItemCache cache(Room(10));
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
  ItemCache cache(Room(10));
  MemoryItem a = Item("a");
  a.access_count = 3;
  a.last_accessed = 100;
  cache.Put(cache.Generation(), 1, a);
  cache.Put(cache.Generation(), 2, Item("b"));
  {
    ItemCache::WriteWindow window(&cache);
    cache.AddAccess(1, 2, 50);  // an older access time leaves last_accessed alone
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

// Another process changed one user's rows: that user's entries stop being returned, others'
// stay; a row read before the change cannot come back; one read after it is cached again.
TEST(ItemCacheTest, ForgettingAScopeLeavesOtherScopesCached) {
  ItemCache cache(Room(10));
  const Scope other{"t", "v", "", ""};
  cache.Put(cache.Generation(), 1, Item("a"));
  cache.Put(cache.Generation(), 2, Item("b", "t", "v"));
  const uint64_t before = cache.Generation();  // a read of seq 3 begins
  {
    ItemCache::WriteWindow window(&cache);
    cache.ForgetScope("t", "u");
  }
  cache.Put(before, 3, Item("c"));  // read before the change: refused
  MemoryItem got;
  EXPECT_FALSE(cache.Get(1, kScope, &got));
  EXPECT_FALSE(cache.Get(3, kScope, &got));
  ASSERT_TRUE(cache.Get(2, other, &got));
  EXPECT_EQ(got.id, "b");
  EXPECT_EQ(cache.size(), 1u);  // the stale entry went when asked for
  cache.Put(cache.Generation(), 1, Item("a2"));
  ASSERT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_EQ(got.id, "a2");
  // A second change of the same user, and one of a user with nothing cached.
  {
    ItemCache::WriteWindow window(&cache);
    cache.ForgetScope("t", "u");
    cache.ForgetScope("t", "nobody");
  }
  EXPECT_FALSE(cache.Get(1, kScope, &got));
  EXPECT_TRUE(cache.Get(2, other, &got));
  // Another tenant's user of the same name is another scope.
  cache.Put(cache.Generation(), 5, Item("x", "t2", "u"));
  {
    ItemCache::WriteWindow window(&cache);
    cache.ForgetScope("t", "u");
  }
  EXPECT_TRUE(cache.Get(5, Scope{"t2", "u", "", ""}, &got));
}

TEST(ItemCacheTest, EvictsTheLeastRecentlyUsed) {
  ItemCache cache(Room(3));
  for (int64_t seq = 1; seq <= 3; ++seq)
    cache.Put(cache.Generation(), seq, Item(std::to_string(seq)));
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

TEST(ItemCacheTest, GivesBackEveryFieldAsPut) {
  ItemCache cache(Room(10) + ItemCache::Footprint(Full()));
  const MemoryItem full = Full();
  cache.Put(cache.Generation(), 1, full);
  MemoryItem got = Item("stale");  // every field is overwritten, optional ones included
  got.valid_to = 1;
  ASSERT_TRUE(cache.Get(1, full.scope, &got));
  EXPECT_EQ(got, full);
  MemoryItem bare = Item("b");  // optional fields absent, lists empty
  cache.Put(cache.Generation(), 2, bare);
  ASSERT_TRUE(cache.Get(2, kScope, &got));
  EXPECT_EQ(got, bare);
  // Counts added to an item never read before give it a last_accessed.
  {
    ItemCache::WriteWindow window(&cache);
    cache.AddAccess(2, 1, 123);
  }
  ASSERT_TRUE(cache.Get(2, kScope, &got));
  EXPECT_EQ(got.access_count, 1);
  EXPECT_EQ(got.last_accessed, 123);
}

// The capacity is in bytes: entries are charged their footprint, bigger items take more room,
// and an item bigger than the whole cache is not kept.
TEST(ItemCacheTest, ChargesEachEntryItsFootprint) {
  ItemCache cache(Room(4));
  const size_t small = ItemCache::Footprint(Item("a"));
  EXPECT_GT(small, ItemCache::kEntryOverhead);
  EXPECT_LT(small, 300u);  // packed: a short item is far below its ~850 bytes as a MemoryItem
  for (int64_t seq = 1; seq <= 4; ++seq) cache.Put(cache.Generation(), seq, Item("a"));
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.bytes(), 4 * small);
  MemoryItem two_rooms = Item("b");
  // One more small entry's room: its content's length now takes a second LEB128 byte.
  two_rooms.content.append(small - 1, 'x');
  ASSERT_EQ(ItemCache::Footprint(two_rooms), 2 * small);
  cache.Put(cache.Generation(), 5, two_rooms);
  EXPECT_EQ(cache.size(), 3u);  // seqs 1 and 2 made way
  MemoryItem got;
  EXPECT_FALSE(cache.Get(1, kScope, &got));
  EXPECT_FALSE(cache.Get(2, kScope, &got));
  EXPECT_TRUE(cache.Get(5, kScope, &got));
  EXPECT_LE(cache.bytes(), Room(4));
  MemoryItem huge = Item("h");
  huge.content.assign(Room(5), 'h');
  cache.Put(cache.Generation(), 6, huge);
  EXPECT_FALSE(cache.Get(6, kScope, &got));
  EXPECT_EQ(cache.size(), 3u);  // nothing was evicted for it
  {
    ItemCache::WriteWindow window(&cache);
    cache.Erase(5);
    cache.Erase(3);
    cache.Erase(4);
  }
  EXPECT_EQ(cache.bytes(), 0u);
}

// Offer (a scope's fill) takes free room only, and what it adds is evicted before what a
// search put.
TEST(ItemCacheTest, OffersTakeFreeRoomOnlyAndGoFirst) {
  ItemCache cache(Room(3));
  cache.Put(cache.Generation(), 1, Item("1"));
  cache.Offer(cache.Generation(), 2, Item("2"));
  cache.Offer(cache.Generation(), 3, Item("3"));
  cache.Offer(cache.Generation(), 4, Item("4"));  // no room: refused, nothing evicted
  MemoryItem got;
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_FALSE(cache.Get(4, kScope, &got));
  EXPECT_TRUE(cache.Get(1, kScope, &got));
  // An offer does not replace an entry that is there.
  MemoryItem other = Item("1");
  other.content = "offered later";
  cache.Offer(cache.Generation(), 1, other);
  ASSERT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_EQ(got.content, "content of 1");
  cache.Put(cache.Generation(), 5, Item("5"));  // evicts an offered entry, not the used 1
  EXPECT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_EQ(cache.Get(2, kScope, &got) + cache.Get(3, kScope, &got), 1);
  // Offers obey write windows as Put does.
  const uint64_t before = cache.Generation();
  { ItemCache::WriteWindow window(&cache); }
  ItemCache roomy(Room(10));
  roomy.Offer(before, 1, Item("1"));
  EXPECT_EQ(roomy.size(), 1u);  // its own generation had not moved
  cache.Offer(before, 6, Item("6"));
  EXPECT_FALSE(cache.Get(6, kScope, &got));
}

TEST(ItemCacheTest, CountsHitsAndMisses) {
  ItemCache cache(Room(2));
  cache.Put(cache.Generation(), 1, Item("1"));
  MemoryItem got;
  EXPECT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_TRUE(cache.Get(1, kScope, &got));
  EXPECT_FALSE(cache.Get(2, kScope, &got));
  EXPECT_FALSE(cache.Get(1, Scope{"other", "u", "", ""}, &got));  // another scope's: a miss
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 2u);
}

// A large cache is split into shards by seq, each evicting its own least recently used: the
// capacity holds overall, recent entries stay, and write windows and counts reach every shard.
TEST(ItemCacheTest, AShardedCacheKeepsItsCapacityAndItsRules) {
  const size_t capacity = 32 * 1024;  // entries: over 4 MiB, so sharded
  ItemCache cache(Room(capacity));
  for (int64_t seq = 1; seq <= 50'000; ++seq) cache.Put(cache.Generation(), seq, Item("x"));
  EXPECT_EQ(cache.size(), capacity);  // consecutive seqs fill the shards evenly
  EXPECT_EQ(cache.bytes(), Room(capacity));
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
