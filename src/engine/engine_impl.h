// Engine::Impl: what stands behind the public Engine (include/engram/engine.h), which forwards
// every call here. Private to src/engine.
//
// Parts: the store (MemoryStore), the loaded scope indexes (engine_indexes.cc: loading,
// snapshots, the memory budget), the write path's primitives (engine.cc, engine_write.cc),
// search (engine_search.cc), sessions and stats; the access counts of search hits
// (access_counts.h) and the background work (background.h: the WAL checkpoints, the access
// flushes and the index graphs' builds and merges; the lifecycle's maintenance schedule on a
// thread of its own, engine_maintain.cc).
//
// Locking: write_mu_ serializes every write with the index update that follows its commit, so
// loaded indexes apply changes in commit order; it is also held while an index loads and while
// snapshots are written. indexes_mu_ guards the map of loaded indexes and their use records; it
// is taken inside write_mu_, never around it. An index's own mu guards its contents.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/access_counts.h"
#include "engine/background.h"
#include "engine/engine_internal.h"
#include "engine/knowledge_indexes.h"
#include "engram/engine.h"

namespace engram {

class MemoryStore;
class PgChangeListener;
struct ScannedItem;
struct PendingItem;
struct StoreOp;
struct MaintenanceBatch;
class IdGenerator;
class ScopeIndex;
class EntityGraph;  // retrieval/entity_graph.h

class Engine::Impl {
 public:
  // Starts the background work; `options` are complete (Engine::Open filled the defaults).
  Impl(EngineOptions options, std::unique_ptr<MemoryStore> store, const EngineHooks& hooks);
  // Stops the background work, then writes pending access counts and changed snapshots.
  ~Impl();

  Result<MemoryItem> Add(const Scope& scope, const NewMemory& memory);
  Result<std::vector<MemoryItem>> AddBatch(const Scope& scope,
                                           const std::vector<NewMemory>& memories);
  Result<WriteOutcome> ApplyWrite(const Scope& scope, const PlannedWrite& write);
  Result<std::vector<Neighbour>> FindNeighbours(const Scope& scope, const std::string& content,
                                                const std::string& slot, int k);
  Result<std::vector<Neighbour>> FindNeighbours(const Scope& scope, const NeighbourQuery& query);
  // The write path's planning (engine_write.cc, Engine::WriteBatch): the store operations one
  // write makes, checked and embedded (unless the write brings its vector), not yet applied.
  struct WriteOps;
  Result<WriteOps> BuildWriteOps(const Scope& scope, const PlannedWrite& write, TimestampMs now);
  // Applies planned operations in one transaction, then to the scope's loaded index.
  Status CommitWriteOps(const Scope& scope, std::vector<StoreOp>& ops, TimestampMs now);
  Result<std::vector<std::vector<float>>> EmbedTexts(const std::vector<std::string>& texts);
  Result<std::vector<StoredTurn>> AppendTurns(const Scope& scope, const std::vector<Turn>& turns,
                                              int64_t* last_turn_seq = nullptr);
  Result<SessionInfo> GetSession(const Scope& scope, int recent);
  Status SetSessionSummary(const Scope& scope, const std::string& summary_id, bool close);
  Result<MemoryItem> Get(const Scope& scope, std::string_view id);
  Result<ListPage> List(const Scope& scope, const ListQuery& query);
  Result<MemoryItem> Update(const Scope& scope, std::string_view id, const MemoryPatch& patch);
  Status Delete(const Scope& scope, std::string_view id, std::string_view reason);
  Result<PurgeResult> Purge(const Scope& scope, std::string_view id, const PurgeOptions& options);
  int64_t PurgeGeneration() const { return purge_generation_.load(std::memory_order_acquire); }
  Result<int64_t> PurgeScope(const Scope& scope);
  Result<VerifiedPurge> PurgeScopeVerified(const Scope& scope);
  Result<VerifiedPurge> PurgeTenant(std::string_view tenant, bool verify, int64_t* users);
  Result<TraceReport> FindTraces(const std::vector<std::string>& texts,
                                 const std::vector<std::string>& vectors);
  Result<std::vector<HistoryEntry>> History(const Scope& scope, std::string_view id);
  // engine_graph.cc
  Result<EntityPage> ListEntities(const Scope& scope, const EntityQuery& query);
  Result<EntityDetail> GetEntity(const Scope& scope, std::string_view id);
  Result<Neighbourhood> EntityNeighbours(const Scope& scope, std::string_view id,
                                         const GraphWalk& walk);
  Status PutVector(const Scope& scope, std::string_view id, std::string_view model,
                   const std::vector<float>& values);
  Result<std::vector<float>> GetVector(const Scope& scope, std::string_view id,
                                       std::string_view model);
  Status Export(const Scope& scope, const std::function<Status(const MemoryRecord&)>& sink);
  Result<ImportStats> Import(const std::vector<MemoryRecord>& records, OnConflict on_conflict);
  Result<UserExtras> ExportUserExtras(const Scope& scope);
  Result<ExtrasImportStats> ImportUserExtras(const Scope& scope, const UserExtras& extras,
                                             OnConflict on_conflict);
  Result<std::vector<SearchHit>> Search(const Scope& scope, const SearchQuery& query);
  // Search with the query's vector given (the write path has its candidates' vectors).
  Result<std::vector<SearchHit>> SearchWithVector(const Scope& scope, const SearchQuery& query,
                                                  const std::vector<float>& query_vector);
  Result<ContextResult> BuildContext(const Scope& scope, const ContextRequest& request);
  Result<int64_t> Reembed(const ProgressFn& progress);
  Status FlushAccessStats();
  Result<IndexInfo> DescribeIndex(const Scope& scope);
  Status SaveIndexSnapshots();
  void WaitForIndexBuilds();
  Result<Stats> GetStats();
  WriteHealth CheckWrites(int probe_wait_ms);
  Result<MaintenanceReport> Maintain(const MaintenanceRequest& request, const ProgressFn& progress);
  Result<std::vector<MaintenanceLogEntry>> MaintenanceLog(const Scope& scope, int limit);
  // Writes one maintenance batch (MemoryStore::ApplyMaintenance) and applies it to the scope's
  // loaded index under write_mu_, so the index follows the commits in order.
  Status CommitMaintenance(const Scope& scope, MaintenanceBatch& batch, TimestampMs now);
  // Maintenance's promotion of hot conversations among those `examined` touches.
  Status PromoteHotSessions(const Scope& scope, const std::vector<ScannedItem>& examined,
                            const MaintenanceRequest& request, TimestampMs now,
                            MaintenanceUserCounts* counts, MaintenanceReport* report);
  // Maintenance's rewrite of the scope's profile summary when its lines changed (with
  // options_.summarizer); an unusable reply goes to report->problems and changes nothing.
  Status RefreshProfileSummary(const Scope& scope, const MaintenanceRequest& request,
                               TimestampMs now, MaintenanceUserCounts* counts,
                               MaintenanceReport* report);
  Result<Profile> GetProfile(const Scope& scope, const ProfileOptions& options);
  // The summary maintenance folds faded kept turns into (engine_maintain.cc); a dry run asks
  // no LLM.
  Result<PendingItem> SummaryOf(
      const Scope& scope, const std::vector<std::pair<const ScannedItem*, std::string>>& turns,
      TimestampMs now, bool dry_run);
  // Maintenance's consolidation of one scope's near-duplicates among `examined`
  // (MaintenancePolicy::merge_above); engine_maintain.cc.
  Status MergeNearDuplicates(const Scope& scope, const std::vector<ScannedItem>& examined,
                             bool whole, const MaintenanceRequest& request, TimestampMs now,
                             MaintenanceUserCounts* counts, MaintenanceReport* report);
  Result<std::vector<ScopeSummary>> ListScopes(std::string_view tenant);
  Result<UserPage> ListUsers(std::string_view tenant, const PageRequest& page);
  Result<SessionPage> ListSessions(const Scope& scope, const PageRequest& page);

  // The knowledge tier (engine_knowledge.cc).
  Result<IngestResult> IngestDocument(const KnowledgeScope& scope, const NewDocument& document,
                                      DocumentProblem* rejection);
  Result<std::vector<KnowledgeDocument>> ListDocuments(const KnowledgeScope& scope);
  Result<DocumentDetail> GetDocument(const KnowledgeScope& scope, std::string_view doc_id);
  Result<DocumentDeletion> DeleteDocument(const KnowledgeScope& scope, std::string_view doc_id,
                                          bool verify);
  Result<std::vector<KnowledgeHit>> SearchKnowledge(const KnowledgeScope& scope,
                                                    const KnowledgeQuery& query);

  const EngineOptions& options() const { return options_; }
  TimestampMs Now() const { return options_.clock->NowMs(); }

 private:
  Result<MemoryItem> Materialize(const Scope& scope, const NewMemory& m, TimestampMs now);

  // The loaded search index of the scope's (tenant, user), loading it on first use.
  Result<std::shared_ptr<ScopeIndex>> IndexFor(const Scope& scope);
  std::shared_ptr<ScopeIndex> LoadedIndex(const Scope& scope);
  void DropIndex(const Scope& scope);
  Result<std::vector<float>> EmbedOne(const std::string& text);
  Result<std::vector<Neighbour>> FindNeighbours(const Scope& scope, const std::string& content,
                                                const std::vector<float>& vector,
                                                const std::string& slot, int k);
  void DemoteStaleTurns(const Scope& scope, const SearchQuery& query, std::vector<SearchHit>* hits);
  // The query's vector: with recent turns, the normalized weighted sum of each text's vector.
  Result<std::vector<float>> EmbedQuery(const SearchQuery& query);
  // The scope's entity graph (retrieval/entity_graph.h): the index's, or read from the store
  // and kept in the index until its next change.
  Result<std::shared_ptr<const EntityGraph>> EntityGraphFor(const Scope& scope, ScopeIndex& index);
  // The snapshot file of the scope's graph, or "" when the scope has no row yet.
  Result<std::string> SnapshotPath(const Scope& scope);
  // Tries to load the scope's graph from its snapshot; false if unusable (status says why).
  bool TryLoadSnapshot(const Scope& scope, ScopeIndex* index);
  // Queues a graph build or merge when the index has just become due for one. Holds index->mu
  // exclusive.
  void RequestGraphIfDue(const std::shared_ptr<ScopeIndex>& index);
  // Writes the index's graph snapshot if it changed since loaded or saved. Holds write_mu_.
  Status SaveSnapshot(const std::string& key, ScopeIndex& index);
  // Records the scope's index size after a load or change and evicts over the budget. Holds
  // write_mu_ (evicted graphs are saved, which must match the database).
  void TrackIndexBytes(const Scope& scope, size_t bytes);
  std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> TakeEvictionsLocked(
      const std::string& keep);
  // Counts a search's reads; wakes the flusher when enough items wait.
  void NoteAccess(const std::vector<int64_t>& seqs, TimestampMs now);
  // Registers the periodic tasks (WAL checkpoint, access flush) and starts the thread.
  void StartBackground();
  // Adds waiting at the same time share one transaction (group commit); see engine.cc.
  struct PendingAdd;
  struct AddGroup;
  void CommitAddGroup(const std::vector<PendingAdd*>& group);

  EngineOptions options_;
  std::unique_ptr<MemoryStore> store_;
  std::unique_ptr<IdGenerator> ids_;
  std::shared_ptr<Embedder> embedder_;

  std::mutex write_mu_;                       // see the file comment
  std::atomic<int64_t> purge_generation_{0};  // PurgeGeneration()
  std::mutex indexes_mu_;
  std::unordered_map<std::string, std::shared_ptr<ScopeIndex>> indexes_;  // guarded by indexes_mu_
  struct IndexUse {
    uint64_t last_used = 0;
    size_t bytes = 0;  // MemoryBytes() at the last load or write
  };
  std::unordered_map<std::string, IndexUse> index_use_;  // guarded by indexes_mu_; keys as indexes_
  uint64_t use_clock_ = 0;                               // guarded by indexes_mu_
  size_t loaded_index_bytes_ = 0;                        // guarded by indexes_mu_
  // On PostgreSQL: changes other processes committed, as heard (StartChangeListener). A scope
  // they changed is dropped and reloaded by its next search; an index loaded while a change of
  // its scope was heard (or a loss of notices, counted in remote_changes_) is used once, not
  // kept (it may have been read before that change). Per scope: a replica hears every other
  // replica's writes, and those of other users must not cost it the index it is loading.
  std::atomic<uint64_t> remote_changes_{0};
  std::unordered_map<std::string, uint64_t> remote_scope_changes_;  // guarded by indexes_mu_
  std::unique_ptr<PgChangeListener> change_listener_;
  void StartChangeListener();
  void DropAllIndexes();
  // Under indexes_mu_: what IndexFor compares before publishing an index of `key`.
  uint64_t RemoteChangesOf(const std::string& key) const;
  // Another process changed the scope: its index goes, and a load of it in progress is not kept.
  void DropRemotelyChangedIndex(const Scope& scope);

  // The knowledge tier's loaded indexes (engine_knowledge.cc builds them from the store).
  std::unique_ptr<KnowledgeIndexes> MakeKnowledgeIndexes();
  Result<std::shared_ptr<const KnowledgeIndex>> LoadKnowledgeIndex(
      const KnowledgeScope& scope, KnowledgeFingerprint* fingerprint);
  std::unique_ptr<KnowledgeIndexes> knowledge_indexes_ = MakeKnowledgeIndexes();

  std::unique_ptr<AddGroup> add_group_;
  AccessCounts access_;
  std::mutex maintain_mu_;  // one maintenance run at a time (engine_maintain.cc)
  // Last: stopped explicitly in ~Impl, and destroyed first otherwise, since their tasks use the
  // members above. Maintenance has a thread of its own: a run takes seconds to minutes, and
  // the checkpoints and access flushes must not wait for it.
  Background background_;
  Background maintenance_{
      BackgroundOptions{.thread_name = "engram-maintain", .graph_builder = false}};
};

}  // namespace engram
