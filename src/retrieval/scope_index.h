// ScopeIndex: the in-memory search structures of one (tenant, user) scope — a BM25 index, a
// vector index for the engine's embedding model, and per-item facts the filters need — built
// from the database on first use and updated on every write after it commits.
//
// Threads: `mu` guards everything; searches hold it shared, updates exclusive.
//
// Up to hnsw_threshold vectors the scope searches a scan index (index/scan_index.h: the floats
// below 2,048 vectors, then a full scan of 1-bit codes with an exact re-rank); a write updates
// it in microseconds. Past the threshold the scan costs more than a graph search, so the scope
// wants an HNSW graph. The graph is built by a GraphBuilder outside `mu`, from a copy of the
// vectors, while the scan index keeps serving; the keys whose vectors change meanwhile are
// logged and replayed onto the graph before it replaces the scan index (see graph_builder.h).
//
// Once the scope has a graph, a write does not insert into it (an HNSW insert is a graph search
// of its own, and under the exclusive lock every search and write of the scope would wait for
// it, adds serializing behind graph work): the new vector goes to an exact "tail" (and an
// updated key's graph node is tombstoned), searches read graph and tail and merge, and the
// GraphBuilder's thread moves the tail into the graph in small batches (MergeTail). Snapshots
// are taken with an empty tail.
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
#include "index/hnsw_index.h"
#include "index/vector_index.h"
#include "retrieval/session_index.h"
#include "text/topics.h"

namespace engram {

class EntityGraph;  // retrieval/entity_graph.h

// What filters and ranking need to know about an item without reading the database.
struct DocInfo {
  std::string id;
  std::string agent_id;
  std::string session_id;
  MemoryType type = MemoryType::kFact;
  Tier tier = Tier::kSemantic;
  ItemStatus status = ItemStatus::kActive;
  TimestampMs created_at = 0;
  TimestampMs valid_from = 0;
  std::optional<TimestampMs> valid_to;
  double importance = 0.5;
  std::vector<std::string> tags;
  std::vector<std::string> entities;
  std::vector<std::pair<std::string, MetadataValue>> metadata;  // top-level scalar values
  bool kept_turn = false;  // a conversation turn the write path kept (IsKeptTurn)
  // The changeable topics it speaks of (text/topics.h): its slot's, else its text's; and
  // whether it speaks of the user (a user slot, or a first-person turn or "User …" fact that
  // names nobody else). What retrieval/freshness.h compares.
  TopicSet topics = 0;
  bool about_user = false;
  bool past = false;      // it speaks of the past ("used to", "以前"): no evidence of the present
  bool question = false;  // it asks ("where do I live?"): no evidence either
  // A kept turn's derived_ids (what it produced or restated), hashed: a turn does not
  // outdate the memories it said itself.
  std::vector<uint64_t> derived;
  // Retention's inputs (include/engram/lifecycle.h) as of the item's last write or load: reads
  // counted since then reach the index when the item is next written or the index reloaded.
  TimestampMs last_used = 0;
  int64_t access_count = 0;
  bool critical_tag = false;  // carries kCriticalTag
  std::optional<TimestampMs> expires_at;
};

// Vectors copied out of an index: keys[i] has data[i * dimension, (i + 1) * dimension).
struct VectorSet {
  std::vector<int64_t> keys;
  std::vector<float> data;
};

// The current vector of a key that changed during a graph build; none when it was removed.
struct VectorChange {
  int64_t key = 0;
  std::optional<std::vector<float>> vector;
};

struct ScopeIndexOptions {
  int dimension = 384;
  Bm25Params bm25;
  size_t hnsw_threshold = 50'000;  // switch from the scan index to HNSW past this many vectors
  bool huge_pages = false;         // the scan index's rows in huge pages (index/huge_pages.h)
};

class ScopeIndex {
 public:
  explicit ScopeIndex(const ScopeIndexOptions& options);

  // Adds or replaces an item. `vector` null keeps the item's current vector (if any).
  void Upsert(int64_t seq, const MemoryItem& item, const std::vector<float>* vector);
  void Remove(int64_t seq);
  // Replaces an item's filter and ranking facts (status, importance, tags, times...) without
  // re-indexing its text or vector: for changes that leave its content, slot and session as
  // they were (maintenance archiving thousands of items). Upsert when the item is not indexed.
  void UpdateInfo(int64_t seq, const MemoryItem& item);

  // Uses `vectors` (a graph loaded from a snapshot) as this index's vector index. Call before
  // any Upsert that carries a vector.
  void AdoptVectors(std::unique_ptr<HnswIndex> vectors);

  // Graph builds, in this order; every call needs `mu` exclusive.
  // True once per need: the index is exact, past the threshold, and no graph was requested yet
  // (nor failed to build). The caller then hands the index to a GraphBuilder.
  bool RequestGraph();
  // Copies every vector, ordered by key, and starts logging the keys whose vectors change.
  VectorSet BeginGraphBuild();
  // The vectors changed since BeginGraphBuild or the previous call.
  std::vector<VectorChange> TakeVectorChanges();
  // Ends the build: `graph` (holding every change taken) replaces the scan index; null means
  // the build failed or was abandoned, and the scan index stays (slower).
  void EndGraphBuild(std::unique_ptr<HnswIndex> graph, bool retry_later);
  bool graph_building() const { return graph_state_ == GraphState::kBuilding; }
  // The HNSW graph when the index is approximate, for snapshots; null while exact.
  const HnswIndex* hnsw() const;
  // Vectors written since the graph was adopted and not yet inserted into it.
  size_t tail_size() const;
  // True once per need: the tail holds vectors and no merge was requested since it was last
  // emptied. The caller then hands the index to a GraphBuilder (EnqueueMerge). Needs `mu`
  // exclusive.
  bool RequestMerge();
  // Inserts up to `max` tail vectors into the graph (oldest first); returns how many remain.
  // When none remain, a later write may request a merge again. Needs `mu` exclusive.
  size_t MergeTail(size_t max);
  // Incremented by every vector change; lets the owner skip rewriting an unchanged snapshot.
  uint64_t vector_generation() const { return vector_generation_; }

  const DocInfo* Find(int64_t seq) const;
  // The id of what replaced the superseded item whose id hashes to `id_hash` (std::hash of
  // its id), or null when no superseded item of the scope has it. Lets ranking see that every
  // memory a kept turn produced has since been replaced (retrieval/freshness.h).
  const std::string* ReplacedBy(uint64_t id_hash) const;
  // The items just before and after `seq` (whose entry is `doc`) in time within its session
  // (0 when none), so that ranking can credit a turn for the context around it.
  std::pair<int64_t, int64_t> SessionNeighbours(int64_t seq, const DocInfo& doc) const;
  const Bm25Index& keyword() const { return bm25_; }
  // Sessions as documents, for the session-level prior.
  const SessionIndex& sessions() const { return session_index_; }
  const VectorIndex& vectors() const { return *vectors_; }
  size_t size() const { return docs_.size(); }
  // Entries whose status is not active (superseded, archived, ...): while there are none, a
  // search with the default filters keeps every hit.
  size_t inactive() const { return inactive_; }
  // Heap memory held, estimated in O(1): what the engine's index memory budget counts.
  size_t MemoryBytes() const;
  int dimension() const { return options_.dimension; }

  // The scope's entity graph, for the graph channel (retrieval/entity_graph.h): read from the
  // database on first use and dropped by every change of the index (a write may add or end
  // relations), to be read again by the next search that wants it. Null: not loaded. Reading
  // needs `mu` shared; SetEntityGraph needs it exclusive.
  std::shared_ptr<const EntityGraph> entity_graph() const { return entity_graph_; }
  // Incremented by every Upsert, Remove and UpdateInfo.
  uint64_t change_generation() const { return change_generation_; }
  // Keeps `graph` unless the index changed since change_generation() returned `generation`
  // (the graph, read before that change, may miss it).
  void SetEntityGraph(std::shared_ptr<const EntityGraph> graph, uint64_t generation);

  mutable std::shared_mutex mu;

  // Where the vector graph came from and whether it has been saved since; kept by the engine
  // under its write lock.
  struct SnapshotState {
    bool loaded = false;            // the graph was read from a snapshot file
    std::string status = "none";    // how the last load attempt went
    uint64_t saved_generation = 0;  // vector_generation() at the last load or save
  } snapshot;

 private:
  void RemoveFromSession(int64_t seq);
  void NoteVectorChange(int64_t seq);
  void NoteChange();

  enum class GraphState { kNone, kRequested, kBuilding, kFailed };

  ScopeIndexOptions options_;
  Bm25Index bm25_;
  SessionIndex session_index_;
  std::unique_ptr<VectorIndex> vectors_;
  class LayeredVectors;
  LayeredVectors* layered_ = nullptr;  // vectors_ as graph + tail once the scope has a graph
  bool merge_requested_ = false;
  uint64_t vector_generation_ = 0;
  GraphState graph_state_ = GraphState::kNone;
  std::set<int64_t> changed_during_build_;
  std::unordered_map<int64_t, DocInfo> docs_;
  size_t inactive_ = 0;  // entries of docs_ whose status is not kActive
  // Superseded entries: std::hash of the id → the id of what replaced it.
  std::unordered_map<uint64_t, std::string> replaced_;
  void NoteStatus(const DocInfo& doc, const MemoryItem* item);
  std::shared_ptr<const EntityGraph> entity_graph_;
  size_t entity_graph_bytes_ = 0;
  uint64_t change_generation_ = 0;
  // session_id → its items ordered by (created_at, seq); items without a session are absent.
  std::unordered_map<std::string, std::set<std::pair<TimestampMs, int64_t>>> sessions_;
};

}  // namespace engram
