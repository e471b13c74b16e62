// Engine: the scope indexes behind search — loading them from the database or a snapshot,
// building their graphs in the background, saving snapshots, and keeping the loaded ones
// within the memory budget (least recently used out first).
#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "index/hnsw_index.h"
#include "retrieval/scope_index.h"
#include "storage/memory_store.h"
#include "storage/postgres.h"

namespace engram {
namespace {

std::string IndexKey(const Scope& scope) { return scope.tenant + '\0' + scope.user_id; }

constexpr size_t kEmbedBatch = 256;

}  // namespace

std::shared_ptr<ScopeIndex> Engine::Impl::LoadedIndex(const Scope& scope) {
  const std::string key = IndexKey(scope);
  std::lock_guard<std::mutex> lock(indexes_mu_);
  auto it = indexes_.find(key);
  if (it == indexes_.end()) return nullptr;
  index_use_[key].last_used = ++use_clock_;
  return it->second;
}

void Engine::Impl::DropAllIndexes() {
  std::lock_guard<std::mutex> lock(indexes_mu_);
  indexes_.clear();
  index_use_.clear();
  loaded_index_bytes_ = 0;
}

uint64_t Engine::Impl::RemoteChangesOf(const std::string& key) const {
  auto it = remote_scope_changes_.find(key);
  // Sums of two counters that only grow: equal before and after only if neither moved.
  return remote_changes_.load(std::memory_order_acquire) +
         (it == remote_scope_changes_.end() ? 0 : it->second);
}

void Engine::Impl::DropRemotelyChangedIndex(const Scope& scope) {
  {
    std::lock_guard<std::mutex> lock(indexes_mu_);
    ++remote_scope_changes_[IndexKey(scope)];
  }
  DropIndex(scope);
}

void Engine::Impl::DropIndex(const Scope& scope) {
  const std::string key = IndexKey(scope);
  std::lock_guard<std::mutex> lock(indexes_mu_);
  indexes_.erase(key);
  auto use = index_use_.find(key);
  if (use == index_use_.end()) return;
  loaded_index_bytes_ -= use->second.bytes;
  index_use_.erase(use);
}

Result<std::string> Engine::Impl::SnapshotPath(const Scope& scope) {
  // None for a PostgreSQL database: a snapshot is a file of one machine, and a purge on another
  // replica could not remove it (a purged vector would outlive the purge there).
  if (IsPostgresUrl(options_.path)) return std::string();
  ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> id, store_->ScopeId(scope));
  if (!id) return std::string();
  return options_.path + ".indexes/scope-" + std::to_string(*id) + ".hnsw";
}

bool Engine::Impl::TryLoadSnapshot(const Scope& scope, ScopeIndex* index) {
  auto path = SnapshotPath(scope);
  auto fingerprint = store_->Fingerprint(scope, embedder_->model());
  if (!path.ok() || path->empty() || !fingerprint.ok()) return false;
  if (fingerprint->count < static_cast<int64_t>(options_.hnsw_threshold)) {
    // Below the threshold the scope uses the scan index. A snapshot left by a graph the scope
    // had before (more vectors, or a lower threshold in an earlier version) would never be read
    // again; it is only a cache, so it goes.
    std::error_code ignored;
    std::filesystem::remove(*path, ignored);
    return false;
  }
  HnswSnapshotMeta expected{.model = embedder_->model(),
                            .dimension = embedder_->dimension(),
                            .M = HnswOptions{}.M,
                            .ef_construction = HnswOptions{}.ef_construction,
                            .fingerprint = fingerprint->value};
  auto loaded = LoadHnswSnapshot(*path, expected, kAutoEfSearch, options_.encryption_key.get());
  if (!loaded.ok()) {
    // Missing, corrupt or stale: the graph is rebuilt from the database below.
    index->snapshot.status = loaded.status().ToString();
    return false;
  }
  index->AdoptVectors(std::move(loaded).value());
  index->snapshot = {.loaded = true, .status = "loaded", .saved_generation = 0};
  return true;
}

// Loads the scope's items from the database, and its vector graph from the snapshot when one
// matches the database (otherwise from the stored vectors). Items without a vector of the
// current model (written before it was chosen) are embedded and their vectors stored.
Result<std::shared_ptr<ScopeIndex>> Engine::Impl::IndexFor(const Scope& scope) {
  if (auto loaded = LoadedIndex(scope)) return loaded;
  std::lock_guard<std::mutex> lock(write_mu_);  // no write may slip between scan and publish
  if (auto loaded = LoadedIndex(scope)) return loaded;
  auto index =
      std::make_shared<ScopeIndex>(ScopeIndexOptions{.dimension = embedder_->dimension(),
                                                     .hnsw_threshold = options_.hnsw_threshold,
                                                     .huge_pages = options_.huge_pages});
  uint64_t remote_before = 0;
  {
    std::lock_guard<std::mutex> remote(indexes_mu_);
    remote_before = RemoteChangesOf(IndexKey(scope));
  }
  const bool from_snapshot = TryLoadSnapshot(scope, index.get());
  std::vector<ScannedItem> unembedded;
  const size_t dim = static_cast<size_t>(embedder_->dimension());
  ENGRAM_RETURN_IF_ERROR(
      store_->Scan(scope, embedder_->model(), !from_snapshot, [&](ScannedItem&& s) {
        if (from_snapshot && s.has_vector) {
          index->Upsert(s.seq, s.item, nullptr);  // the graph already holds its vector
        } else if (s.vector && s.vector->size() == dim) {
          index->Upsert(s.seq, s.item, &*s.vector);
        } else {
          unembedded.push_back(std::move(s));
        }
        return Status::Ok();
      }));
  for (size_t start = 0; start < unembedded.size(); start += kEmbedBatch) {
    size_t end = std::min(unembedded.size(), start + kEmbedBatch);
    std::vector<std::string> texts;
    for (size_t i = start; i < end; ++i) texts.push_back(unembedded[i].item.content);
    ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
    for (size_t i = start; i < end; ++i) {
      const MemoryItem& item = unembedded[i].item;
      StoredVector v{embedder_->model(), std::move(vectors[i - start])};
      ENGRAM_RETURN_IF_ERROR(store_->PutVector(item.scope, item.id, v, Now()));
      index->Upsert(unembedded[i].seq, item, &v.values);
    }
  }
  if (!from_snapshot) index->snapshot.saved_generation = UINT64_MAX;  // never saved
  {
    std::lock_guard<std::mutex> publish(indexes_mu_);
    // Another process's change heard while this one read: it may be missing, so this search
    // uses the index and the next loads afresh.
    if (RemoteChangesOf(IndexKey(scope)) != remote_before) return index;
    indexes_[IndexKey(scope)] = index;
  }
  size_t bytes = 0;
  {
    std::unique_lock<std::shared_mutex> index_lock(index->mu);
    RequestGraphIfDue(index);
    bytes = index->MemoryBytes();
  }
  TrackIndexBytes(scope, bytes);
  return index;
}

void Engine::Impl::RequestGraphIfDue(const std::shared_ptr<ScopeIndex>& index) {
  background_.RequestGraphWork(index);
}

void Engine::Impl::WaitForIndexBuilds() { background_.WaitForGraphs(); }

Status Engine::Impl::SaveIndexSnapshots() {
  std::lock_guard<std::mutex> lock(write_mu_);  // the indexes match the database while held
  std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> loaded;
  {
    std::lock_guard<std::mutex> guard(indexes_mu_);
    for (const auto& [key, index] : indexes_) loaded.emplace_back(key, index);
  }
  Status first_error;
  for (const auto& [key, index] : loaded) {
    Status st = SaveSnapshot(key, *index);
    if (!st.ok() && first_error.ok()) first_error = st;
  }
  return first_error;
}

Status Engine::Impl::SaveSnapshot(const std::string& key, ScopeIndex& index) {
  std::unique_lock<std::shared_mutex> index_lock(index.mu);
  // A snapshot holds the graph only, and must hold every vector.
  index.MergeTail(std::numeric_limits<size_t>::max());
  if (!index.hnsw() || index.snapshot.saved_generation == index.vector_generation()) {
    return Status::Ok();
  }
  const Scope scope{key.substr(0, key.find('\0')), key.substr(key.find('\0') + 1), "", ""};
  auto path = SnapshotPath(scope);
  auto fingerprint = store_->Fingerprint(scope, embedder_->model());
  if (!path.ok() || path->empty() || !fingerprint.ok()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(*path).parent_path(), ec);
  HnswSnapshotMeta meta{.model = embedder_->model(),
                        .dimension = embedder_->dimension(),
                        .M = index.hnsw()->M(),
                        .ef_construction = index.hnsw()->ef_construction(),
                        .fingerprint = fingerprint->value};
  Status st = SaveHnswSnapshot(*index.hnsw(), *path, meta, options_.encryption_key.get());
  if (st.ok()) index.snapshot.saved_generation = index.vector_generation();
  return st;
}

void Engine::Impl::TrackIndexBytes(const Scope& scope, size_t bytes) {
  const std::string key = IndexKey(scope);
  std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> evicted;
  {
    std::lock_guard<std::mutex> lock(indexes_mu_);
    if (!indexes_.count(key)) return;  // dropped meanwhile
    IndexUse& use = index_use_[key];
    loaded_index_bytes_ += bytes - use.bytes;
    use.bytes = bytes;
    use.last_used = ++use_clock_;
    evicted = TakeEvictionsLocked(key);
  }
  // Evicted graphs changed since their last save are written now, so that reloading them reads
  // the snapshot instead of rebuilding. Searches still holding an evicted index finish on it.
  for (const auto& [victim_key, index] : evicted) (void)SaveSnapshot(victim_key, *index);
}

// Least recently used first, never `keep` (the index in use, even when it alone is over).
std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> Engine::Impl::TakeEvictionsLocked(
    const std::string& keep) {
  std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> evicted;
  const size_t budget = options_.index_memory_budget;
  if (budget == 0 || loaded_index_bytes_ <= budget) return evicted;
  std::vector<std::pair<uint64_t, std::string>> by_age;
  for (const auto& [key, use] : index_use_) {
    if (key != keep) by_age.emplace_back(use.last_used, key);
  }
  std::sort(by_age.begin(), by_age.end());
  for (const auto& [last_used, key] : by_age) {
    if (loaded_index_bytes_ <= budget) break;
    auto it = indexes_.find(key);
    if (it != indexes_.end()) evicted.emplace_back(key, std::move(it->second));
    indexes_.erase(key);
    loaded_index_bytes_ -= index_use_[key].bytes;
    index_use_.erase(key);
  }
  return evicted;
}
}  // namespace engram
