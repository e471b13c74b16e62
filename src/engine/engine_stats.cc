// Engine::Impl::GetStats: counts for operators.
#include <shared_mutex>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "index/huge_pages.h"
#include "retrieval/scope_index.h"
#include "storage/memory_store.h"

namespace engram {

Result<Engine::Stats> Engine::Impl::GetStats() {
  ENGRAM_ASSIGN_OR_RETURN(MemoryStore::Counts counts, store_->CountAll());
  Stats stats;
  stats.items_active = counts.items_by_status[static_cast<size_t>(ItemStatus::kActive)];
  stats.items_superseded = counts.items_by_status[static_cast<size_t>(ItemStatus::kSuperseded)];
  stats.items_archived = counts.items_by_status[static_cast<size_t>(ItemStatus::kArchived)];
  stats.items_deleted = counts.items_by_status[static_cast<size_t>(ItemStatus::kDeleted)];
  stats.scopes = counts.scopes;
  const ItemCache& cache = store_->item_cache();
  stats.item_cache_entries = static_cast<int64_t>(cache.size());
  stats.item_cache_bytes = static_cast<int64_t>(cache.bytes());
  stats.item_cache_hits = static_cast<int64_t>(cache.hits());
  stats.item_cache_misses = static_cast<int64_t>(cache.misses());
  stats.huge_page_bytes = static_cast<int64_t>(HugePageBytesInUse());
  std::vector<std::shared_ptr<ScopeIndex>> loaded;
  {
    std::lock_guard<std::mutex> lock(indexes_mu_);
    for (const auto& [key, index] : indexes_) loaded.push_back(index);
  }
  for (const auto& index : loaded) {
    std::shared_lock<std::shared_mutex> lock(index->mu);
    ++stats.loaded_indexes;
    stats.approximate_indexes += index->hnsw() != nullptr;
    stats.indexed_items += static_cast<int64_t>(index->size());
    stats.indexed_vectors += static_cast<int64_t>(index->vectors().size());
  }
  return stats;
}

Engine::WriteHealth Engine::Impl::CheckWrites(int probe_wait_ms) {
  engram::WriteHealth h = store_->GetWriteHealth();
  if (!h.ok && probe_wait_ms >= 0) h = store_->ProbeWrites(probe_wait_ms);
  return WriteHealth{.ok = h.ok, .cause = h.cause, .failures = h.failures, .reopened = h.reopened};
}

}  // namespace engram
