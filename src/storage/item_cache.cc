#include "storage/item_cache.h"

#include <algorithm>

namespace engram {

size_t ItemCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

bool ItemCache::Get(int64_t seq, const Scope& scope, MemoryItem* out) {
  if (!enabled()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(seq);
  if (it == entries_.end()) return false;
  const MemoryItem& item = it->second.item;
  if (item.scope.tenant != scope.tenant || item.scope.user_id != scope.user_id) return false;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  *out = item;
  return true;
}

uint64_t ItemCache::Generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

void ItemCache::Put(uint64_t generation, int64_t seq, const MemoryItem& item) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (generation != generation_ || generation % 2 != 0) return;  // a write overlapped the read
  auto it = entries_.find(seq);
  if (it != entries_.end()) {
    it->second.item = item;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return;
  }
  if (entries_.size() >= capacity_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(seq);
  entries_.emplace(seq, Entry{item, lru_.begin()});
}

ItemCache::WriteWindow::WriteWindow(ItemCache* cache) : cache_(cache) {
  std::lock_guard<std::mutex> lock(cache_->mu_);
  ++cache_->generation_;
}

ItemCache::WriteWindow::~WriteWindow() {
  std::lock_guard<std::mutex> lock(cache_->mu_);
  ++cache_->generation_;
}

void ItemCache::Erase(int64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(seq);
  if (it == entries_.end()) return;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

void ItemCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  lru_.clear();
}

void ItemCache::AddAccess(int64_t seq, int64_t count, TimestampMs last) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(seq);
  if (it == entries_.end()) return;
  MemoryItem& item = it->second.item;
  item.access_count += count;
  item.last_accessed = std::max(item.last_accessed.value_or(0), last);
}

}  // namespace engram
