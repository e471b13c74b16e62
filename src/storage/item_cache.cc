#include "storage/item_cache.h"

#include <algorithm>

namespace engram {
namespace {

constexpr size_t kShards = 16;
constexpr size_t kShardedFrom = 16 * 1024;  // smaller caches keep one exact LRU

size_t ShardCount(size_t capacity) { return capacity >= kShardedFrom ? kShards : 1; }

}  // namespace

ItemCache::ItemCache(size_t capacity)
    : capacity_(capacity),
      shard_count_(ShardCount(capacity)),
      shard_capacity_(capacity / ShardCount(capacity)),
      shards_(new Shard[ShardCount(capacity)]) {}

size_t ItemCache::size() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    n += shards_[i].entries.size();
  }
  return n;
}

bool ItemCache::Get(int64_t seq, const Scope& scope, MemoryItem* out) {
  if (!enabled()) return false;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  if (it == shard.entries.end()) return false;
  const MemoryItem& item = it->second.item;
  if (item.scope.tenant != scope.tenant || item.scope.user_id != scope.user_id) return false;
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
  *out = item;
  return true;
}

void ItemCache::Put(uint64_t generation, int64_t seq, const MemoryItem& item) {
  if (!enabled()) return;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  const uint64_t now = generation_.load();
  if (generation != now || now % 2 != 0) return;  // a write overlapped the read
  auto it = shard.entries.find(seq);
  if (it != shard.entries.end()) {
    it->second.item = item;
    shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
    return;
  }
  if (shard.entries.size() >= shard_capacity_) {
    shard.entries.erase(shard.lru.back());
    shard.lru.pop_back();
  }
  shard.lru.push_front(seq);
  shard.entries.emplace(seq, Entry{item, shard.lru.begin()});
}

ItemCache::WriteWindow::WriteWindow(ItemCache* cache) : cache_(cache) { ++cache_->generation_; }

ItemCache::WriteWindow::~WriteWindow() { ++cache_->generation_; }

void ItemCache::Erase(int64_t seq) {
  if (!enabled()) return;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  if (it == shard.entries.end()) return;
  shard.lru.erase(it->second.lru);
  shard.entries.erase(it);
}

void ItemCache::Clear() {
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    shards_[i].entries.clear();
    shards_[i].lru.clear();
  }
}

void ItemCache::AddAccess(int64_t seq, int64_t count, TimestampMs last) {
  if (!enabled()) return;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  if (it == shard.entries.end()) return;
  MemoryItem& item = it->second.item;
  item.access_count += count;
  item.last_accessed = std::max(item.last_accessed.value_or(0), last);
}

}  // namespace engram
