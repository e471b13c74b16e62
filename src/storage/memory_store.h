// MemoryStore: the SQLite-backed store of record for memory items, their history, vectors and
// scopes. Every method takes a Scope and resolves it to the (tenant, user_id) row in `scopes`;
// every statement filters on that scope's id, so no call can read or change another scope's
// rows. This is where tenant isolation is enforced (callers cannot bypass it).
//
// Threads: safe to share. Writes are serialized by write_mu_ on the single writer connection;
// reads take a connection from a pool, so they run concurrently with each other and with the
// writer (SQLite WAL). Inputs are assumed validated by Engine (sizes, UTF-8, enum ranges).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/gated_mutex.h"
#include "core/id_generator.h"
#include "engram/graph.h"
#include "engram/knowledge.h"
#include "engram/lifecycle.h"
#include "engram/listings.h"
#include "engram/memory.h"
#include "engram/profile.h"
#include "engram/records.h"
#include "engram/status.h"
#include "storage/item_cache.h"
#include "storage/sqlite.h"

namespace engram {

struct StoreOptions {
  std::string path;
  int reader_connections = 4;
  int busy_timeout_ms = 5000;
  std::string synchronous = "FULL";
  // Commits never checkpoint the WAL (a checkpoint copies and syncs pages, tens of ms to a
  // second, inside whichever commit crosses the threshold); the owner calls Checkpoint()
  // from a background thread instead.
  bool background_checkpoints = false;
  // Items kept in memory for GetBySeqs (search hits), least recently used evicted; 0: none.
  size_t item_cache_bytes = 0;
  // Set: the database is sealed with it (DatabaseOptions::key).
  std::shared_ptr<const EncryptionKey> key;
  // Where the store says that writes started failing (once, with the cause), that they work
  // again, and that it replaced its writer connection. Default: standard error.
  std::function<void(const std::string&)> log;
};

// Whether writes work. Failing from the end of a write that met a failure of the database's
// (storage/sqlite.h IsDatabaseFailure: locked past the busy timeout, I/O, full disk, read-only
// or damaged file) until a write commits again (a caller's, or ProbeWrites).
struct WriteHealth {
  bool ok = true;
  std::string cause;     // while failing: the error, as SQLite gave it
  int64_t failures = 0;  // writes that failed so, since the store opened
  int64_t reopened = 0;  // times the writer connection was replaced
};

struct ScopeFilter;  // memory_store_internal.h

// An item to insert, the reason recorded in its ADD history row, and optionally its vector
// (written in the same transaction; item.embedding_model must name vector.model).
struct PendingItem {
  MemoryItem item;
  std::string reason;
  std::optional<StoredVector> vector;
  int64_t seq = 0;  // set by Insert
  // The entities and relations the item states (include/engram/graph.h), written with it.
  GraphFacts graph;
};

// One row of a scope scan: the item, its internal key and its vector for the requested model.
struct ScannedItem {
  int64_t seq = 0;
  MemoryItem item;
  bool has_vector = false;                   // a vector of the requested model is stored
  std::optional<std::vector<float>> vector;  // its values, when the scan reads them
};

// A summary of a scope's stored vectors of one model that changes whenever any of them is
// added, replaced or removed: what an index snapshot must match to be trusted.
struct VectorFingerprint {
  int64_t count = 0;
  uint64_t value = 0;
};

// Access statistics to add to an item.
struct AccessDelta {
  int64_t seq = 0;
  int64_t count = 0;
  TimestampMs last_accessed = 0;
};

// One step of MemoryStore::Apply: insert `insert`, or change the item `id` with `mutation`.
struct StoreOp {
  std::optional<PendingItem> insert;  // set: an insert (ADD history row with its reason)
  std::string id;                     // else: the item to change
  HistoryEvent event = HistoryEvent::kUpdate;
  std::string reason;
  std::function<Result<bool>(MemoryItem& item)> mutation;
  std::optional<StoredVector> vector;  // stored with a changed item
  // false: the change writes no history row (bookkeeping such as the links between a kept turn
  // and what was extracted from it, not a change of what the item says).
  bool record_history = true;
  // true: an item that does not exist (purged meanwhile) is skipped, not an error (seq stays 0).
  bool skip_missing = false;
  // A change only: entities and relations the changed item (also) states, written with it
  // (an UPDATE or NOOP of the write path restating a fact).
  GraphFacts graph;
  // Results, set by Apply.
  MemoryItem result;  // the item as stored (unchanged items: as read)
  int64_t seq = 0;
};

// What one maintenance step writes for one scope, in one transaction
// (MemoryStore::ApplyMaintenance).
struct MaintenanceBatch {
  // archive / expire / merge: mutations with history rows; an insert (a summary) is written
  // with its ADD row and vector.
  std::vector<StoreOp> changes;
  std::vector<std::string> purge_ids;  // hard deletes (history and vectors cascade)
  std::vector<std::pair<int64_t, std::optional<TimestampMs>>> review_at;  // by items.seq
  std::vector<MaintenanceLogEntry> log;
  std::vector<int64_t> purged_seqs;  // set by ApplyMaintenance
};

// A scope maintenance may visit, and how far its last run had seen the history.
// What a scope holds that a purge must erase, as needles for a byte scan (trace_scan.h): each
// text's first 48 bytes, as stored and normalized for matching; each vector's first 64 bytes.
struct ScopeTraces {
  std::vector<std::string> texts;
  std::vector<std::string> vectors;
};

struct MaintainedScope {
  Scope scope;
  std::optional<int64_t> history_seq;  // nullopt: never maintained
};

// Items of one scope for maintenance to look at (MemoryStore::ReviewWorkList).
struct ReviewWork {
  Scope scope;
  std::vector<int64_t> seqs;
};

// The knowledge tier (memory_store_knowledge.cc). A chunk to store with its vector.
struct PendingChunk {
  KnowledgeChunk chunk;
  std::vector<float> vector;
};

// One stored chunk as an index load reads it: its key, its document and its vector (empty when
// stored for another model than the one asked for).
struct ScannedChunk {
  int64_t seq = 0;
  std::string doc_id;
  std::string agent_id;
  std::string title;
  KnowledgeChunk chunk;
  std::vector<float> vector;
};

// What changes whenever a knowledge scope's documents change (a loaded index is current while
// it matches): documents, the sum of their versions, the latest update.
struct KnowledgeFingerprint {
  int64_t documents = 0;
  int64_t versions = 0;
  int64_t updated_at = 0;
  bool operator==(const KnowledgeFingerprint&) const = default;
};

// Changes `item` in place. Returns true if it changed (the store then writes it and a history
// row), false to leave it untouched, or an error to abort.
using ItemMutation = std::function<Result<bool>(MemoryItem& item)>;

class MemoryStore {
 public:
  static Result<std::unique_ptr<MemoryStore>> Open(const StoreOptions& options, TimestampMs now);
  ~MemoryStore();

  // Inserts all items (each with an ADD history row) in one transaction. Every item's
  // tenant/user_id must equal the scope's (InvalidArgument otherwise).
  // Sets each PendingItem::seq.
  Status Insert(const Scope& scope, std::vector<PendingItem>& items, TimestampMs now);

  // Group commit: several Inserts (of any scopes) in one transaction, each inside its own
  // savepoint, so one failing request is rolled back alone and the rest commit with one WAL
  // sync. Sets each request's status (the commit's error for all when the commit fails).
  struct InsertRequest {
    const Scope* scope;
    std::vector<PendingItem>* items;
    TimestampMs now;
    Status status;
  };
  void InsertGroup(std::vector<InsertRequest>& requests);

  // Reads the item, applies `mutation` and, if it changed, writes the item and a history row
  // (`event`, `reason`, the previous item) in one transaction. Returns the item as stored.
  // `vector`, when given, is stored (replacing that model's vector) in the same transaction if
  // the item changed. *seq (optional) receives the item's internal key.
  Result<MemoryItem> Mutate(const Scope& scope, std::string_view id, HistoryEvent event,
                            const std::string& reason, TimestampMs now,
                            const ItemMutation& mutation, const StoredVector* vector = nullptr,
                            int64_t* seq = nullptr);

  // Every op in order, in one transaction: all are written or none.
  Status Apply(const Scope& scope, std::vector<StoreOp>& ops, TimestampMs now);

  // Sessions (memory_store_sessions.cc); scope.session_id names the session.
  // Returns the seq of the last turn written (SessionInfo::last_turn_seq).
  Result<int64_t> AppendTurns(const Scope& scope, const std::vector<StoredTurn>& turns,
                              TimestampMs now);
  Result<SessionInfo> GetSession(const Scope& scope, int recent);
  Status SetSessionSummary(const Scope& scope, const std::string& summary_id,
                           std::optional<TimestampMs> closed_at);
  // Export and import of what a user has besides memories (memory_store_sessions.cc): every
  // session of scope's (tenant, user) with all its turns, the profile summary and the
  // maintenance log; and writing them back in one transaction (sessions present already:
  // Conflict, or skipped with OnConflict::kSkip; the profile summary replaces one present;
  // log entries are appended).
  Result<UserExtras> ReadUserExtras(const Scope& scope);
  Result<ExtrasImportStats> WriteUserExtras(const Scope& scope, const UserExtras& extras,
                                            OnConflict on_conflict);

  // Hard delete of one item (in `scope`) and, with options.source_turns, of the conversation it
  // came from (PurgeOptions, records.h), in one transaction: the items (history, vectors and
  // access rows cascade), their maintenance log rows, the jobs whose result names any of them,
  // the user's profile summary; then checkpoints as PurgeScope does.
  // `now` dates the maintenance-log row each erased id leaves (the fact, never the content).
  Result<PurgeResult> Purge(const Scope& scope, std::string_view id,
                            const PurgeOptions& options = {}, TimestampMs now = 0);
  Result<int64_t> PurgeScope(const Scope& scope);
  // Verified purge (memory_store_privacy.cc): the needles of scope's (tenant, user), read
  // before it is purged; and whether a needle found afterwards is held by data that stays
  // (another user who said the same words): that is not a trace (ScanLiveData).
  Result<ScopeTraces> TracesOf(const Scope& scope);
  // Visits every stored text that a purge leaves (memories, turns, history's previous texts,
  // job payloads, profile summaries, the entity graph's names and aliases) and every vector,
  // over all tenants, in one read
  // transaction: what a trace found after a purge is checked against.
  Status ScanLiveData(const std::function<void(std::string_view data, bool vector)>& visit);

  // The knowledge tier (memory_store_knowledge.cc). Every statement is bound to the
  // KnowledgeScope's tenant and agent_id: another scope's documents are NotFound.
  // Writes `doc` (doc_id, title, format, source, metadata, sizes, hash, chunking) and its chunks
  // in one transaction, replacing the chunks of a document of that id stored before (its
  // version + 1, created_at kept): a failure anywhere leaves the stored version as it was.
  // Returns the document as stored; *replaced tells whether one was stored before.
  Result<KnowledgeDocument> ReplaceDocument(const KnowledgeScope& scope,
                                            const KnowledgeDocument& doc,
                                            const std::vector<PendingChunk>& chunks,
                                            TimestampMs now, bool* replaced);
  // The scope's documents by doc_id, with their chunk counts.
  Result<std::vector<KnowledgeDocument>> ListDocuments(const KnowledgeScope& scope);
  Result<DocumentDetail> GetDocument(const KnowledgeScope& scope, std::string_view doc_id);
  // Hard delete of the document, its chunks and their vectors in one transaction, then the
  // WAL checkpointed as Purge does. Returns the chunks removed; NotFound when absent.
  Result<int64_t> DeleteDocument(const KnowledgeScope& scope, std::string_view doc_id);
  // The needles of one document (texts of its chunks, their vectors), for a verified delete.
  Result<ScopeTraces> DocumentTraces(const KnowledgeScope& scope, std::string_view doc_id);
  // Every chunk of the scope, with its vector when stored for `model`, in one read transaction.
  Status ScanKnowledge(const KnowledgeScope& scope, const std::string& model,
                       const std::function<Status(ScannedChunk&&)>& sink);
  Result<KnowledgeFingerprint> GetKnowledgeFingerprint(const KnowledgeScope& scope);
  // Stores a chunk's vector for `model` (re-embedding after a model change).
  Status PutChunkVector(const KnowledgeScope& scope, int64_t chunk_seq, const std::string& model,
                        const std::vector<float>& vector);
  // Every document of the tenant, of every agent (a tenant's erasure). Returns documents removed.
  Result<int64_t> DeleteTenantKnowledge(std::string_view tenant);
  // The entity graph of scope's (tenant, user) (memory_store_graph.cc); agent and session are
  // ignored (a user's graph is one). An entity id of another scope is NotFound.
  Result<EntityPage> ListEntities(const Scope& scope, const EntityQuery& query);
  Result<EntityDetail> GetEntity(const Scope& scope, std::string_view id);
  Result<Neighbourhood> EntityNeighbours(const Scope& scope, std::string_view id,
                                         const GraphWalk& walk);
  // All of it in one read (GraphRows): what retrieval's graph channel walks in memory.
  Result<GraphRows> LoadGraphRows(const Scope& scope);

  Result<MemoryItem> Get(const Scope& scope, std::string_view id);
  Result<ListPage> List(const Scope& scope, const ListQuery& query);
  Result<std::vector<HistoryEntry>> History(const Scope& scope, std::string_view id);

  Status PutVector(const Scope& scope, std::string_view id, const StoredVector& vector,
                   TimestampMs now);
  Result<std::vector<float>> GetVector(const Scope& scope, std::string_view id,
                                       std::string_view model);

  Status Export(const Scope& scope, const std::function<Status(const MemoryRecord&)>& sink);

  // Every item of the scope's (tenant, user) — all agents, sessions and statuses — with its
  // vector for `model` when one is stored, in one read transaction.
  // `with_vectors` false reads only whether each vector exists (has_vector), not its values.
  // Each item is offered to the item cache (taken into free room only).
  Status Scan(const Scope& scope, const std::string& model, bool with_vectors,
              const std::function<Status(ScannedItem&&)>& sink);
  Result<VectorFingerprint> Fingerprint(const Scope& scope, const std::string& model);
  const ItemCache& item_cache() const { return cache_; }
  // The internal id of the scope's (tenant, user) row, or nullopt if never written.
  Result<std::optional<int64_t>> ScopeId(const Scope& scope);
  // The items with these keys that belong to the scope (others are skipped), in key order.
  // `from_db`, when given, gets the seqs of the rows read from SQLite (the rest came from the
  // item cache) and the access epoch (RecordAccess) of the snapshot they were read in.
  struct ReadSource {
    std::vector<int64_t> from_db;
    int64_t access_epoch = -1;  // -1: nothing read from SQLite
  };
  Result<std::vector<ScannedItem>> GetBySeqs(const Scope& scope, const std::vector<int64_t>& seqs,
                                             ReadSource* from_db = nullptr);
  // Adds access counts and raises last_accessed, in one transaction that also advances the
  // access epoch by one (so each committed chunk has its own number, in commit order even
  // across processes). `around_commit`, when set, is called with that chunk's epoch, the COMMIT
  // to run and `publish`, which gives the committed counts to the item cache's entries; it
  // must call publish() after a successful commit (the engine does so under the lock under
  // which it forgets its in-flight counts, so that no cached row holds a count that is also
  // still in flight).
  using CommitWrapper = std::function<Status(int64_t epoch, const std::function<Status()>& commit,
                                             const std::function<void()>& publish)>;
  // Copies committed WAL frames into the database file (a PASSIVE checkpoint on its own
  // connection, never waiting for readers). For background_checkpoints. When the WAL holds
  // more than `restart_frames` frames, finishes with a second pass under the write lock, so
  // the next commit starts the WAL over: under a steady stream of commits no checkpoint ever
  // catches up on its own, and a WAL that only grows makes every commit's sync also commit
  // the file system's journal (the file's new blocks and size). Holds writers for that
  // second pass only: the frames committed during the first, and a sync.
  static constexpr int kWalRestartFrames = 8192;  // 32 MiB of 4 KiB pages
  Status Checkpoint(int restart_frames = kWalRestartFrames);

  Status RecordAccess(const std::vector<AccessDelta>& deltas,
                      const CommitWrapper& around_commit = nullptr);
  Result<ImportStats> Import(const std::vector<MemoryRecord>& records, OnConflict on_conflict);
  Result<std::vector<ScopeSummary>> ListScopes(std::string_view tenant);
  // Listings (memory_store_listings.cc). Both filter on the tenant in SQL: ListUsers reads
  // only `tenant`'s scope rows, ListSessions only the sessions of the scope's own row.
  // The page request is assumed validated (limit 1..1000); a malformed cursor is
  // InvalidArgument.
  Result<UserPage> ListUsers(std::string_view tenant, const PageRequest& page);
  Result<SessionPage> ListSessions(const Scope& scope, const PageRequest& page);
  // The lifecycle (memory_store_lifecycle.cc). The newest item_history seq.
  Result<int64_t> LatestHistorySeq();
  // The (tenant, user) scopes to maintain (`tenant` / `user_id` empty match any), each with
  // the history seq its last maintenance had seen (nullopt: never maintained).
  Result<std::vector<MaintainedScope>> MaintenanceScopes(const std::string& tenant,
                                                         const std::string& user_id);
  // An incremental run's work: the items due (review_at ≤ now) or changed since their scope's
  // last run (history rows past both `min_history_seq` and the scope's own mark), by scope (of
  // `tenant` / `user_id`; empty: any), in scope order.
  Result<std::vector<ReviewWork>> ReviewWorkList(const std::string& tenant,
                                                 const std::string& user_id, TimestampMs now,
                                                 int64_t min_history_seq);
  // The scope's active and archived items among `seqs` (nullptr: all of them), read from
  // SQLite in one read transaction, in seq order.
  Result<std::vector<ScannedItem>> ReviewItems(const Scope& scope,
                                               const std::vector<int64_t>* seqs);
  // Records that the scopes were maintained at `at`, having seen history up to `history_seq`
  // (one transaction).
  Status MarkMaintained(const std::vector<Scope>& scopes, int64_t history_seq, TimestampMs at);
  // Writes a batch in one transaction (changes, purges, review times, log rows); then, when
  // it purged anything, checkpoints as Purge does.
  Status ApplyMaintenance(const Scope& scope, MaintenanceBatch& batch, TimestampMs now);
  // The maintenance log of the scope, oldest first, at most `limit` rows.
  Result<std::vector<MaintenanceLogEntry>> LifecycleLog(const Scope& scope, int limit);
  // The profile summary of the scope's (tenant, user), if one was written.
  Result<std::optional<ProfileSummary>> GetProfileSummary(const Scope& scope);
  // Stores the (tenant, user)'s profile summary, replacing the one before, with its log row
  // (one transaction).
  Status PutProfileSummary(const Scope& scope, const ProfileSummary& summary,
                           const MaintenanceLogEntry& log);
  // Whether the scope's maintenance log has a row for `item_id` with `action`.
  Result<bool> HasLogEntry(const Scope& scope, const std::string& item_id,
                           MaintenanceAction action);

  // Items by status (indexed by ItemStatus) and scopes, over every tenant. Scans the items
  // table: for metrics, not for hot paths.
  struct Counts {
    std::array<int64_t, 4> items_by_status{};
    int64_t scopes = 0;
  };
  Result<Counts> CountAll();

  // The health of writes (see WriteHealth); cheap.
  WriteHealth GetWriteHealth() const;
  // Commits a write that changes nothing, waiting at most `wait_ms` for the write lock, and
  // returns the health after it: how a failing store finds that writes work again when no
  // caller writes (GET /readyz).
  WriteHealth ProbeWrites(int wait_ms);

  // Another process committed changes to items (a replica on PostgreSQL, as heard by its change
  // listener): the cached items of that user go (ItemCache::ForgetScope), or with no scope
  // (changes may have gone unheard) every cached item; inside a write window, so no read begun
  // before this call can put an older row back. Other users' cached items stay: in a routed
  // deployment a replica hears every other replica's writes, of users it does not serve.
  void ForgetCachedItems();
  void ForgetCachedItems(const Scope& scope);

  // The server process of the writer connection (PostgreSQL; 0 for SQLite): the changes it
  // commits are this store's own. Any thread.
  int WriterBackendPid() const { return writer_pid_.load(std::memory_order_relaxed); }

  // Tests: the writer connection, to put it in a state a bug or a fault would leave.
  Database* WriterForTesting() { return writer_.get(); }

 private:
  class ReaderLease;
  class WriterCall;

  explicit MemoryStore(StoreOptions options)
      : options_(std::move(options)), cache_(options_.item_cache_bytes) {}

  // `call` names the caller for the connection checks (storage/sqlite.h ConnectionCall).
  Result<ReaderLease> AcquireReader(const char* call = __builtin_FUNCTION());
  void ReleaseReader(std::unique_ptr<Database> db);
  // WriterCall's end: after a write that failed for a reason of the database's, a connection
  // that could not be cleaned or that failed other than by a lock is replaced by a fresh one;
  // the health is updated and its changes logged. Caller holds write_mu_.
  void AfterWrite(const char* call, int64_t errors_before, int64_t commits_before);
  void NoteWriteHealth(bool ok, const std::string& cause);
  void Log(const std::string& line) const;
  Status ReopenWriter();
  // RecordAccess on PostgreSQL: `sql` takes the deltas as three arrays (seqs, reads, last
  // reads), run once per batch of them. On the writer, in the caller's transaction.
  Status UpsertAccessBatches(const std::vector<AccessDelta>& deltas, const std::string& sql);

  // The scopes.id of (tenant, user_id), or nullopt if that scope has never been written.
  Result<std::optional<int64_t>> FindScopeId(Database* db, const Scope& scope);
  // Same, creating the row; only on the writer connection, under write_mu_.
  Result<int64_t> EnsureScopeId(const Scope& scope);
  Result<ScopeFilter> ResolveForRead(Database* db, const Scope& scope);
  // The items.seq of `id` in `scope`, on the writer (caller holds write_mu_); NotFound if absent.
  Result<int64_t> SeqForWrite(const Scope& scope, std::string_view id);

  Result<MemoryItem> GetOn(Database* db, const ScopeFilter& filter, const Scope& scope,
                           std::string_view id, int64_t* seq);
  Result<std::vector<HistoryEntry>> HistoryOn(Database* db, int64_t item_seq,
                                              std::string_view item_id);
  Result<std::vector<StoredVector>> VectorsOn(Database* db, int64_t item_seq);
  // keep_seq: insert with h.seq (import); otherwise SQLite assigns the next seq.
  Status InsertHistory(int64_t item_seq, const HistoryEntry& h, bool keep_seq);
  Result<bool> HistorySeqsAreFree(const std::vector<HistoryEntry>& history);
  Status InsertRow(int64_t scope_id, const MemoryItem& item, int64_t* seq);
  // Insert's and Mutate's work inside the caller's transaction (write_mu_ held).
  Status InsertLocked(int64_t scope_id, PendingItem& p, TimestampMs now);
  // Insert's work inside an open transaction (caller holds write_mu_): the scope check, the
  // scope row, then each item.
  Status InsertItemsLocked(const Scope& scope, std::vector<PendingItem>& items, TimestampMs now);
  Result<MemoryItem> MutateLocked(const Scope& scope, std::string_view id, HistoryEvent event,
                                  bool record_history, const std::string& reason, TimestampMs now,
                                  const ItemMutation& mutation, const StoredVector* vector,
                                  int64_t* seq_out);
  Status InsertVector(int64_t item_seq, const StoredVector& vector, TimestampMs now);
  // The entity graph's writes, inside the caller's transaction (memory_store_graph.cc): the
  // entities, aliases, mentions and edges `graph` gives for the item; the edges the item states
  // ended when it stops being active (superseded or deleted).
  Status WriteGraphLocked(int64_t scope_id, int64_t item_seq, const MemoryItem& item,
                          const GraphFacts& graph, TimestampMs now);
  Status WriteEdgeLocked(int64_t scope_id, int64_t item_seq, const MemoryItem& item,
                         const std::string& subject, const GraphRelation& relation,
                         const std::string& object, TimestampMs now);
  Status EndEdgesLocked(int64_t item_seq, const MemoryItem& item, TimestampMs now);
  Result<std::string> EnsureEntityLocked(int64_t scope_id, EntityKind kind, const std::string& name,
                                         const std::string& norm, TimestampMs now);
  Status ImportOne(const MemoryRecord& record, OnConflict on_conflict, ImportStats* stats);

  const StoreOptions options_;

  GatedMutex write_mu_;               // commits, and the checkpoint's moment without them, in turn
  std::unique_ptr<Database> writer_;  // guarded by write_mu_
  DatabaseOptions writer_options_;    // how writer_ was opened, to open it again
  std::atomic<int> writer_pid_{0};    // writer_->BackendPid(), for other threads
  mutable std::mutex health_mu_;
  WriteHealth health_;  // guarded by health_mu_
  // Every write that changes or deletes existing rows opens a window on it (under write_mu_).
  ItemCache cache_;
  std::mutex checkpoint_mu_;
  std::unique_ptr<Database> checkpointer_;  // guarded by checkpoint_mu_; background_checkpoints
  int synced_frames_ = 0;  // guarded by checkpoint_mu_: WAL frames copied and synced so far

  IdGenerator graph_ids_;  // entity and edge ids (thread-safe)

  std::mutex pool_mu_;
  std::condition_variable pool_cv_;
  std::vector<std::unique_ptr<Database>> idle_readers_;  // guarded by pool_mu_
  int open_readers_ = 0;                                 // guarded by pool_mu_
};

}  // namespace engram
