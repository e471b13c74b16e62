// ItemCache: recently returned memory items by seq, so a search's hits can skip SQLite. Under
// the server's search load, reading the ten hit rows was ~20 % of a request's CPU, and hits are
// skewed (in the 100 users × 10k benchmark, the 100k most returned items took 78 % of returns).
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
// Thread-safe. Capacity in entries (least recently used evicted); 0 disables it.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <span>
#include <unordered_map>

#include "engram/memory.h"

namespace engram {

class ItemCache {
 public:
  explicit ItemCache(size_t capacity) : capacity_(capacity) {}
  ItemCache(const ItemCache&) = delete;
  ItemCache& operator=(const ItemCache&) = delete;

  bool enabled() const { return capacity_ > 0; }
  size_t size() const;

  // A copy of the item at `seq` if cached and it belongs to scope (tenant, user_id).
  bool Get(int64_t seq, const Scope& scope, MemoryItem* out);

  // The generation to pass to Put: taken before the read transaction that reads the row.
  uint64_t Generation() const;
  // Caches `item` (read at `seq` since `generation`) unless a write has begun since.
  void Put(uint64_t generation, int64_t seq, const MemoryItem& item);

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

 private:
  struct Entry {
    MemoryItem item;
    std::list<int64_t>::iterator lru;  // position in lru_ (front: most recent)
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  uint64_t generation_ = 0;  // guarded by mu_; odd while a write window is open
  std::unordered_map<int64_t, Entry> entries_;  // guarded by mu_
  std::list<int64_t> lru_;                      // guarded by mu_
};

}  // namespace engram
