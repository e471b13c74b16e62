// ScopeIndex: the in-memory search structures of one (tenant, user) scope — a BM25 index, a
// vector index for the engine's embedding model, and per-item facts the filters need — built
// from the database on first use and updated on every write after it commits.
//
// Threads: `mu` guards everything; searches hold it shared, updates exclusive.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/memory.h"
#include "index/bm25_index.h"
#include "index/vector_index.h"

namespace engram {

// What filters and ranking need to know about an item without reading the database.
struct DocInfo {
  std::string id;
  std::string agent_id;
  std::string session_id;
  MemoryType type = MemoryType::kFact;
  Tier tier = Tier::kSemantic;
  ItemStatus status = ItemStatus::kActive;
  TimestampMs created_at = 0;
  double importance = 0.5;
  std::vector<std::string> tags;
  std::vector<std::string> entities;
  std::vector<std::pair<std::string, MetadataValue>> metadata;  // top-level scalar values
};

// The terms the keyword channel indexes for `text`: analyzer words plus CJK bigrams (marked so
// that a bigram never equals a word).
std::vector<std::string> KeywordTerms(std::string_view text);

struct ScopeIndexOptions {
  int dimension = 384;
  Bm25Params bm25;
  size_t hnsw_threshold = 5'000;  // switch from exact to HNSW search past this many vectors
};

class ScopeIndex {
 public:
  explicit ScopeIndex(const ScopeIndexOptions& options);

  // Adds or replaces an item. `vector` null keeps the item's current vector (if any).
  void Upsert(int64_t seq, const MemoryItem& item, const std::vector<float>* vector);
  void Remove(int64_t seq);

  const DocInfo* Find(int64_t seq) const;
  // The items just before and after `seq` in time within its session (0 when none), so that
  // ranking can credit a turn for the context around it.
  std::pair<int64_t, int64_t> SessionNeighbours(int64_t seq) const;
  const Bm25Index& keyword() const { return bm25_; }
  const VectorIndex& vectors() const { return *vectors_; }
  size_t size() const { return docs_.size(); }
  int dimension() const { return options_.dimension; }

  mutable std::shared_mutex mu;

 private:
  void MaybeSwitchToHnsw();
  void RemoveFromSession(int64_t seq);

  ScopeIndexOptions options_;
  Bm25Index bm25_;
  std::unique_ptr<VectorIndex> vectors_;
  bool approximate_ = false;
  std::unordered_map<int64_t, DocInfo> docs_;
  // session_id → its items ordered by (created_at, seq); items without a session are absent.
  std::unordered_map<std::string, std::set<std::pair<TimestampMs, int64_t>>> sessions_;
};

}  // namespace engram
