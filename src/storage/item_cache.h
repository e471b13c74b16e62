// ItemCache: recently returned memory items by seq, so a search's hits can skip SQLite, where
// each hit row costs a B-tree descent and often a pread: a large share of a search's cost
// (bench/results/server.md).
//
// Entries are packed: one string per item holding its fields (fixed-width numbers first, then
// length-prefixed strings), ~230 bytes for a memory with 75 bytes of content against ~850 as a
// MemoryItem. The capacity is in bytes: an entry costs its packed size plus kEntryOverhead
// (hash and LRU nodes), ~360 bytes in all, so a cache of 256 MiB holds ~750,000 short memories.
//
// Consistency. An entry always equals the item's latest committed row. Writers (serialized by
// MemoryStore's write mutex) wrap each write in a WriteWindow: it makes the generation odd,
// the write erases or updates the entries it touches, and closing the window makes the
// generation even again. A reader notes the generation (Generation()) before its read
// transaction starts and offers what it read with Put(generation, ...); Put keeps it only if
// the generation is even and unchanged, i.e. no write overlapped the read. So a row read
// before a write can never be cached after that write has erased it.
//
// Tenant isolation: a hit is returned only for the (tenant, user) the entry's row belongs to.
// Thread-safe. 0 bytes disables it. A cache of 4 MiB or more is split by seq into 16 shards,
// each its own least-recently-used list of a 16th of the capacity under its own mutex: every
// search looks up several items, and with one mutex the server's event loops would wait on
// each other there. The generation is one atomic counter shared by the shards.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engram/memory.h"

namespace engram {

class ItemCache {
 public:
  // Bytes an entry costs beyond its packed item.
  static constexpr size_t kEntryOverhead = 128;
  // What caching `item` costs against the capacity.
  static size_t Footprint(const MemoryItem& item);

  explicit ItemCache(size_t capacity_bytes);
  ItemCache(const ItemCache&) = delete;
  ItemCache& operator=(const ItemCache&) = delete;

  bool enabled() const { return capacity_ > 0; }
  size_t size() const;   // entries
  size_t bytes() const;  // their footprints
  // Gets that found their item, and that did not (a disabled cache counts neither).
  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }

  // A copy of the item at `seq` if cached and it belongs to scope (tenant, user_id).
  bool Get(int64_t seq, const Scope& scope, MemoryItem* out);

  // The generation to pass to Put: taken before the read transaction that reads the row.
  uint64_t Generation() const { return generation_.load(); }
  // Caches `item` (read at `seq` since `generation`) unless a write has begun since.
  void Put(uint64_t generation, int64_t seq, const MemoryItem& item);
  // As Put, but only into free room: nothing is evicted for it (filling the cache from a whole
  // scope's rows must not push out what searches use).
  void Offer(uint64_t generation, int64_t seq, const MemoryItem& item);

  // One write (the caller holds the store's write mutex): opening it invalidates every
  // generation handed out so far; closing it (after the commit) starts a new one. Windows do
  // not nest.
  class WriteWindow {
   public:
    explicit WriteWindow(ItemCache* cache);
    ~WriteWindow();
    WriteWindow(const WriteWindow&) = delete;
    WriteWindow& operator=(const WriteWindow&) = delete;

   private:
    ItemCache* cache_;
  };
  // Inside a write window: drop an entry; drop all (a scope's rows deleted); add committed
  // access counts to an entry (the store's access-statistics flush).
  void Erase(int64_t seq);
  void Clear();
  void AddAccess(int64_t seq, int64_t count, TimestampMs last);
  // Inside a write window: every entry of (tenant, user_id) cached so far stops being returned
  // (another process changed that user's rows: a replica on PostgreSQL). O(1): the scope's
  // epoch moves on, and an entry cached under an older epoch is a miss (and dropped) when next
  // asked for. Other scopes' entries stay.
  void ForgetScope(std::string_view tenant, std::string_view user_id);

 private:
  struct Entry {
    std::string packed;                // the item (item_cache.cc: Pack)
    std::list<int64_t>::iterator lru;  // position in the shard's lru (front: most recent)
    uint64_t scope_epoch = 0;          // its scope's epoch when it was cached
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<int64_t, Entry> entries;  // guarded by mu
    std::list<int64_t> lru;                      // guarded by mu
    size_t bytes = 0;                            // guarded by mu: entries' footprints
  };
  void Insert(uint64_t generation, int64_t seq, const MemoryItem& item, bool evict);
  static void EraseEntry(Shard& shard, std::unordered_map<int64_t, Entry>::iterator it);
  Shard& ShardOf(int64_t seq) {
    return shards_[static_cast<size_t>(static_cast<uint64_t>(seq) % shard_count_)];
  }

  const size_t capacity_;
  const size_t shard_count_;
  const size_t shard_capacity_;
  std::unique_ptr<Shard[]> shards_;
  // Odd while a write window is open. Put checks it under its shard's mutex, and a write
  // erases under the same mutex after making it odd, so a row read before the write is either
  // erased after being put or refused.
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0};
  // A scope's epoch: 0 until ForgetScope first names it. Read without a shard's mutex held, or
  // under one (Get): epochs_mu_ is always taken last. An Insert reads it after its reader took
  // the generation, and ForgetScope moves it inside a write window, so an entry read before
  // a ForgetScope is either refused by the generation check or carries the older epoch.
  uint64_t ScopeEpoch(std::string_view tenant, std::string_view user_id) const;
  mutable std::mutex epochs_mu_;
  std::unordered_map<std::string, uint64_t> scope_epochs_;  // guarded by epochs_mu_
  std::atomic<bool> any_epochs_{false};                     // set once scope_epochs_ has an entry
};

}  // namespace engram
