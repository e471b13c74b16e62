// Engine: the embedded memory store's public face.
//
// Ownership and threads: an Engine owns its database connections. It is safe to share one
// Engine between threads: writes are serialized on a single writer connection (one writer),
// reads run concurrently on a pool of reader connections (many readers; SQLite WAL). A write
// returns OK only after its transaction has committed, so an acknowledged write survives a
// process crash (and, with synchronous=FULL, the default, a power loss).
//
// Isolation: every call takes a Scope. tenant + user_id select the only rows the call can see
// or change; an id that exists in another scope is reported as NotFound, exactly as an id
// that does not exist. Scope::agent_id / session_id, when set, narrow reads further and are
// recorded on writes.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engram/clock.h"
#include "engram/embedder.h"
#include "engram/extraction.h"
#include "engram/listings.h"
#include "engram/memory.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

class MemoryStore;
class IdGenerator;
class ScopeIndex;
struct ScannedItem;
class GraphBuilder;

struct EngineOptions {
  std::string path;                      // SQLite file; its directory is created if missing
  // false: a missing database file is NotFound and nothing is created (neither the file nor
  // its directory), for callers that only read: a mistyped path must not leave an empty
  // database behind that then answers every read with nothing.
  bool create_if_missing = true;
  size_t max_content_bytes = 16 * 1024;  // longer content is InvalidArgument
  size_t max_metadata_bytes = 16 * 1024;
  size_t max_batch_items = 100'000;      // one AddBatch / Import call
  int reader_connections = 4;
  int busy_timeout_ms = 5000;
  std::string synchronous = "FULL";      // "FULL" or "NORMAL" (see class comment)
  const Clock* clock = nullptr;          // not owned; outlives the engine; default system clock
  // Embeds content on write and queries on search; default: the hash embedder (384 dims).
  std::shared_ptr<Embedder> embedder;
  // Scopes with more vectors search an HNSW graph; smaller ones a full scan of 1-bit codes with
  // an exact re-rank (src/index/scan_index.h), or the floats themselves below 2,048 vectors.
  size_t hnsw_threshold = 50'000;
  // Loaded scope indexes (BM25, vectors, item facts; estimated ~3 KB per item with 384-dim
  // vectors) are evicted, least recently used first, while their total exceeds this; an evicted
  // graph is saved as a snapshot first. The index in use is never evicted. 0: no limit.
  size_t index_memory_budget = size_t{2} << 30;
  // Scope indexes keep their float and int8 vector rows in the system's reserved huge pages
  // (`sysctl vm.nr_hugepages`) while the pool has room, and in ordinary memory otherwise:
  // fewer TLB misses, and kernel page-access sampling (DAMON) skips them. false: never.
  bool huge_pages = true;
  // Search hits are served from a cache of items (packed, ~360 bytes each with short content;
  // recently returned ones first, least recently used evicted) instead of SQLite when present.
  // Loading a scope's index also fills the cache's free room with its items. 0: no cache.
  size_t item_cache_bytes = size_t{256} << 20;
  // Searches' access counts wait in memory until this many items have some (or the oldest is
  // five seconds old), then are written in sorted chunks of a quarter of it, at most 500
  // items each (a writer, or a search of one of the chunk's items, waits for one chunk's
  // commit at most): big batches share the pages of the access table, so a count costs a
  // fraction of a page write, and an item read often in the interval is written once. 0 is
  // taken as 1.
  size_t access_flush_items = 100'000;
  // Tests only: runs inside each commit of access counts, after SQLite's commit and before
  // the counts are given to the item cache and forgotten (searches do not wait for it).
  std::function<void()> on_access_commit;
};

// Progress of a long operation: items done so far of a total (total 0 when unknown).
using ProgressFn = std::function<void(int64_t done, int64_t total)>;

// A memory to store as given (no extraction). Unset fields take the documented defaults.
struct NewMemory {
  std::string content;                     // required, non-empty UTF-8
  std::optional<MemoryType> type;          // default fact
  std::optional<Tier> tier;                // default DefaultTierFor(type)
  std::vector<std::string> entities;
  std::vector<std::string> tags;
  std::string metadata = "{}";             // a JSON object
  std::optional<double> importance;        // default 0.5
  std::optional<double> confidence;        // default 1.0
  Source source;                           // extractor defaults to "manual"
  std::optional<TimestampMs> created_at;   // default now
  std::optional<TimestampMs> valid_from;   // default created_at
  std::optional<TimestampMs> valid_to;
  std::string slot;                        // see MemoryItem::slot
  std::string reason;                      // recorded in the ADD history row
};

// A change to an item; only the fields that are set change. Content changes keep the id.
struct MemoryPatch {
  std::optional<std::string> content;
  std::optional<MemoryType> type;
  std::optional<Tier> tier;
  std::optional<std::vector<std::string>> entities;
  std::optional<std::vector<std::string>> tags;
  std::optional<std::string> metadata;  // replaces the whole object
  std::optional<double> importance;
  std::optional<double> confidence;
  std::optional<TimestampMs> valid_from;
  std::optional<TimestampMs> valid_to;
  bool clear_valid_to = false;
  std::optional<ItemStatus> status;  // active or archived; use Delete to delete
  // Provenance, replaced whole: for the write path (a session summary rewritten over more
  // turns, by another method); the API does not expose it.
  std::optional<Source> source;
  std::string reason;                // recorded in the UPDATE history row
};

// One change decided by the write path (include/engram/extraction.h), applied by ApplyWrite.
struct PlannedWrite {
  WriteDecision decision = WriteDecision::kAdd;
  // kAdd, kSupersede: the item to store. kUpdate: memory.content becomes the target's content
  // (entities and source message ids are added to the target's; importance and confidence
  // rise to the larger of the two). kNoop: unused.
  NewMemory memory;
  std::string target_id;  // kUpdate, kSupersede, kNoop: the active item acted on
  std::string reason;     // recorded in every history row the write makes
  // The kept turns (item ids) the candidate came from: each gets the written item's id in its
  // derived_ids, in the same transaction (no history row: a link is not a change of content);
  // kUpdate and kNoop add them to the target's source.turn_ids. A turn that no longer exists
  // (purged meanwhile) is skipped.
  std::vector<std::string> turn_ids;
  // kAdd, kSupersede: more active items the new one replaces, closed as kSupersede closes its
  // target. One that is no longer active is left as it is.
  std::vector<std::string> also_supersede;
};

// What a candidate is compared with (Engine::FindNeighbours).
struct NeighbourQuery {
  std::string content;  // the candidate's content: its nearest items by vector
  std::string slot;     // its slot: every active item of the slot, and of its family
  int k = 5;            // nearest items by vector
  std::vector<std::string> ends;  // values it says ended: the active items stating one
  // Items created at or after this time are candidates for `latest` (the most recent extracted
  // memory, for corrections); 0: none.
  TimestampMs latest_since = 0;
};

struct WriteOutcome {
  WriteDecision decision = WriteDecision::kAdd;
  bool turn = false;  // the write path kept a conversation turn (IsKeptTurn), not a memory
  // kAdd, kSupersede: the new item; kUpdate: the target after the merge; kNoop: the target
  // after reinforcement.
  MemoryItem memory;
  MemoryItem replaced;  // kSupersede: the target as closed (status superseded, valid_to set)
};

// A conversation turn as stored in its session (the durable record behind working memory).
struct StoredTurn {
  std::string message_id;
  std::string role;
  std::string content;
  TimestampMs at = 0;
  bool operator==(const StoredTurn&) const = default;
};

struct SessionInfo {
  std::string session_id;
  std::string agent_id;
  TimestampMs started_at = 0;
  std::optional<TimestampMs> last_turn_at;
  std::optional<TimestampMs> closed_at;
  std::string summary_id;          // the session's summary item, or empty
  int64_t turn_count = 0;
  std::vector<StoredTurn> recent;  // the latest turns asked for, oldest first
};

struct ListQuery {
  std::vector<MemoryType> types;                          // empty: any type
  std::vector<Tier> tiers;                                // empty: any tier
  std::vector<ItemStatus> statuses{ItemStatus::kActive};  // empty: any status
  std::optional<TimestampMs> created_after;   // inclusive
  std::optional<TimestampMs> created_before;  // exclusive
  // What held at this time: items whose validity [valid_from, valid_to) contains it. A
  // superseded item counts as active for the status filter (it was current then), so the
  // default status filter returns the facts believed true at `as_of`.
  std::optional<TimestampMs> as_of;
  std::vector<std::string> tags;              // the item carries every one of these
  std::vector<MetadataCondition> metadata;    // all must hold
  std::string slot;                           // items of this slot only; empty: any
  // Items of this slot family only: the slot equals it or starts with it followed by ':'
  // ("user/pet" → "user/pet", "user/pet:豆包"); empty: any.
  std::string slot_family;
  int limit = 50;                             // 1..1000
  std::string cursor;                         // "" for the first page
};

// Newest first (created_at, then insertion order). next_cursor is empty on the last page.
// Cursors are stable: items added after a page was read do not shift later pages.
struct ListPage {
  std::vector<MemoryItem> items;
  std::string next_cursor;
};

struct StoredVector {
  std::string model;
  std::vector<float> values;
  bool operator==(const StoredVector&) const = default;
};

// Everything stored about one item: what export writes and import reads back.
struct MemoryRecord {
  MemoryItem item;
  std::vector<HistoryEntry> history;  // oldest first
  std::vector<StoredVector> vectors;
};

enum class OnConflict { kFail, kSkip };

struct ImportStats {
  int64_t imported = 0;
  int64_t skipped = 0;  // ids already present, with OnConflict::kSkip
};

struct ScopeSummary {
  std::string tenant;
  std::string user_id;
  int64_t items = 0;  // every status
};

class Engine {
 public:
  // Opens or creates the database at options.path and migrates it to the current schema.
  // Corruption if the file is not an Engram database or is newer than this build.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Stores `memory` as given; writes the item and an ADD history row in one transaction.
  Result<MemoryItem> Add(const Scope& scope, const NewMemory& memory);
  // All or nothing: every memory is validated first, then all are written in one transaction.
  Result<std::vector<MemoryItem>> AddBatch(const Scope& scope,
                                           const std::vector<NewMemory>& memories);

  // The write path's primitive: one decided change in one transaction.
  //  kAdd: stores write.memory (ADD history row).
  //  kSupersede: stores write.memory with supersedes = target, and closes the target: status
  //    superseded, superseded_by = the new id, valid_to = the new item's valid_from (or the
  //    target's valid_from if later). SUPERSEDE history row on the target, ADD on the new item.
  //  kUpdate: merges into the target (see PlannedWrite), re-embedding it; UPDATE history row.
  //  kNoop: reinforces the target: importance += 0.1·(1 − importance), access_count + 1,
  //    last_accessed = now; an UPDATE history row whose reason starts with "NOOP".
  // The target must be an active item of the scope: NotFound, or Conflict when it is not active.
  Result<WriteOutcome> ApplyWrite(const Scope& scope, const PlannedWrite& write);
  // What a candidate is compared with before a decision: the scope's active items with the
  // same (non-empty) slot, and the k active items nearest to `content` by vector, each with
  // its cosine similarity to `content`. scope.session_id is ignored (facts outlive sessions).
  Result<std::vector<Neighbour>> FindNeighbours(const Scope& scope, const std::string& content,
                                                const std::string& slot, int k);
  // The same, and also: the active items of the slot's family (Neighbour::same_family), those
  // stating a value in query.ends (Neighbour::ended, matched on analyzer terms), and the user's
  // latest extracted memory since query.latest_since (Neighbour::latest). Kept conversation
  // turns are never neighbours.
  Result<std::vector<Neighbour>> FindNeighbours(const Scope& scope, const NeighbourQuery& query);

  // Sessions (scope.session_id names one; required). AppendTurns records turns in order,
  // creating the session on first use; a turn without an id gets one ("msg_" + UUIDv7) and a
  // turn without a time gets now. Conflict when the session is closed or a message id repeats.
  Result<std::vector<StoredTurn>> AppendTurns(const Scope& scope, const std::vector<Turn>& turns);
  // The session with its latest `recent` turns (0..1000). NotFound if it has no turns yet.
  Result<SessionInfo> GetSession(const Scope& scope, int recent);
  // Records the session's summary item and, with `close`, closes it (idempotent).
  Status SetSessionSummary(const Scope& scope, const std::string& summary_id, bool close);

  Result<MemoryItem> Get(const Scope& scope, std::string_view id);
  Result<ListPage> List(const Scope& scope, const ListQuery& query);

  // Applies `patch` and records an UPDATE history row holding the previous item.
  // Conflict if the item is deleted.
  Result<MemoryItem> Update(const Scope& scope, std::string_view id, const MemoryPatch& patch);
  // Soft delete: status becomes deleted, content stays in the database and the history.
  // Deleting a deleted item is OK and records nothing.
  Status Delete(const Scope& scope, std::string_view id, std::string_view reason = "");

  // Hard delete: the item, its history and its vectors are removed from every table.
  Status Purge(const Scope& scope, std::string_view id);
  // Hard delete of everything stored for scope.tenant + scope.user_id (all agents and
  // sessions). Returns the number of items removed.
  Result<int64_t> PurgeScope(const Scope& scope);

  Result<std::vector<HistoryEntry>> History(const Scope& scope, std::string_view id);

  // Stores a vector for an item, replacing one of the same model; the item's
  // embedding_model becomes `model`.
  Status PutVector(const Scope& scope, std::string_view id, std::string_view model,
                   const std::vector<float>& values);
  Result<std::vector<float>> GetVector(const Scope& scope, std::string_view id,
                                       std::string_view model);

  // Streams every item of the scope (every status), oldest first (insertion order, so an
  // import of the stream lists items exactly as before), with history and vectors.
  // Stops at, and returns, the first error `sink` returns.
  Status Export(const Scope& scope, const std::function<Status(const MemoryRecord&)>& sink);
  // Writes records exactly as given (ids, scopes, times, history) in one transaction.
  // An id already present is Conflict (kFail: nothing written) or skipped (kSkip).
  Result<ImportStats> Import(const std::vector<MemoryRecord>& records, OnConflict on_conflict);

  // Hybrid keyword + vector search within the scope (active items by default), best first.
  // Returned items' access statistics count this read (persisted within about five seconds).
  Result<std::vector<SearchHit>> Search(const Scope& scope, const SearchQuery& query);
  // Searches, then packs the results into a block that never exceeds the token budget.
  Result<ContextResult> BuildContext(const Scope& scope, const ContextRequest& request);
  // Stores a vector from the current embedder for every item that lacks one (all scopes).
  // Vectors of other models stay stored but are never compared with this model's.
  Result<int64_t> Reembed(const ProgressFn& progress);
  // Writes pending access statistics now, without pauses, after any background flush in
  // progress (the background flusher writes them within about five seconds, paced; also done
  // on destruction).
  Status FlushAccessStats();

  // How a scope's search index is held (loading it if needed): for operators and tests.
  struct IndexInfo {
    int64_t items = 0;
    int64_t vectors = 0;
    bool approximate = false;     // HNSW graph rather than the scan index
    bool from_snapshot = false;   // the graph was loaded from its snapshot file
    std::string snapshot_status;  // "none", "loaded", or why the snapshot was not used
    bool graph_building = false;  // a graph is being built; the scan index serves meanwhile
    int64_t unmerged = 0;         // vectors written since the graph, searched exactly until merged
  };
  Result<IndexInfo> DescribeIndex(const Scope& scope);
  // Writes an HNSW snapshot for every loaded approximate index whose vectors changed since it
  // was loaded or saved (also done on destruction). Files live in `<database>.indexes/`.
  Status SaveIndexSnapshots();
  // Scopes past hnsw_threshold get their HNSW graph from a background build (the scan index
  // serves meanwhile, writes are not blocked); this blocks until no build is queued or running.
  // Destroying the engine cancels a running build instead (the next load starts it again).
  void WaitForIndexBuilds();

  // Counts for operators (the server's /metrics): stored items by status over every tenant,
  // scopes, and the search indexes loaded in memory. Scans the items table; not a hot path.
  struct Stats {
    int64_t items_active = 0, items_superseded = 0, items_archived = 0, items_deleted = 0;
    int64_t scopes = 0;
    int64_t loaded_indexes = 0;       // scopes whose search index is in memory
    int64_t approximate_indexes = 0;  // of those, the ones searching an HNSW graph
    int64_t indexed_items = 0;        // documents across the loaded indexes
    int64_t indexed_vectors = 0;      // vectors across the loaded indexes
    // The item cache (EngineOptions::item_cache_bytes): entries, their bytes, and lookups
    // since start that found their item or did not.
    int64_t item_cache_entries = 0, item_cache_bytes = 0;
    int64_t item_cache_hits = 0, item_cache_misses = 0;
    // Bytes of vector rows in huge pages (EngineOptions::huge_pages), across the process.
    int64_t huge_page_bytes = 0;
  };
  Result<Stats> GetStats();

  // The (tenant, user) scopes holding items; `tenant` empty means every tenant. Admin use.
  Result<std::vector<ScopeSummary>> ListScopes(std::string_view tenant);
  // The users of `tenant` (required: never another tenant's) with their counts, by user_id.
  // (engine_listings.cc)
  Result<UserPage> ListUsers(std::string_view tenant, const PageRequest& page);
  // The sessions of scope's (tenant, user), narrowed to scope.agent_id when set; newest first.
  // A user with nothing stored has no sessions (an empty page, not NotFound).
  Result<SessionPage> ListSessions(const Scope& scope, const PageRequest& page);

  const EngineOptions& options() const { return options_; }
  // The engine's clock: what "now" is for every write and search (EngineOptions::clock).
  TimestampMs Now() const { return options_.clock->NowMs(); }

 private:
  Engine(EngineOptions options, std::unique_ptr<MemoryStore> store);
  Result<MemoryItem> Materialize(const Scope& scope, const NewMemory& m, TimestampMs now);

  // The loaded search index of the scope's (tenant, user), loading it on first use.
  Result<std::shared_ptr<ScopeIndex>> IndexFor(const Scope& scope);
  std::shared_ptr<ScopeIndex> LoadedIndex(const Scope& scope);
  void DropIndex(const Scope& scope);
  Result<std::vector<float>> EmbedOne(const std::string& text);
  void DemoteStaleTurns(const Scope& scope, const SearchQuery& query, std::vector<SearchHit>* hits);
  // The query's vector: with recent turns, the normalized weighted sum of each text's vector.
  Result<std::vector<float>> EmbedQuery(const SearchQuery& query);
  // The snapshot file of the scope's graph, or "" when the scope has no row yet.
  Result<std::string> SnapshotPath(const Scope& scope);
  // Tries to load the scope's graph from its snapshot; false if unusable (status says why).
  bool TryLoadSnapshot(const Scope& scope, ScopeIndex* index);
  // Queues a graph build when the index has just become due for one. Holds index->mu exclusive.
  void RequestGraphIfDue(const std::shared_ptr<ScopeIndex>& index);
  // Writes the index's graph snapshot if it changed since loaded or saved. Holds write_mu_.
  Status SaveSnapshot(const std::string& key, ScopeIndex& index);
  // Records the scope's index size after a load or change and evicts over the budget. Holds
  // write_mu_ (evicted graphs are saved, which must match the database).
  void TrackIndexBytes(const Scope& scope, size_t bytes);
  std::vector<std::pair<std::string, std::shared_ptr<ScopeIndex>>> TakeEvictionsLocked(
      const std::string& keep);
  void NoteAccess(const std::vector<int64_t>& seqs, TimestampMs now);
  // Adds waiting at the same time share one transaction (group commit); see engine.cc.
  struct PendingAdd;
  struct AddGroup;
  void CommitAddGroup(const std::vector<PendingAdd*>& group);

  EngineOptions options_;
  std::unique_ptr<MemoryStore> store_;
  std::unique_ptr<IdGenerator> ids_;
  std::shared_ptr<Embedder> embedder_;

  // Serializes every write with the index update that follows its commit, so loaded
  // indexes apply changes in commit order; also held while an index loads.
  std::mutex write_mu_;
  std::mutex indexes_mu_;
  std::unordered_map<std::string, std::shared_ptr<ScopeIndex>> indexes_;  // guarded by indexes_mu_
  struct IndexUse {
    uint64_t last_used = 0;
    size_t bytes = 0;  // MemoryBytes() at the last load or write
  };
  std::unordered_map<std::string, IndexUse> index_use_;  // guarded by indexes_mu_; keys as indexes_
  uint64_t use_clock_ = 0;                               // guarded by indexes_mu_
  size_t loaded_index_bytes_ = 0;                        // guarded by indexes_mu_
  std::unique_ptr<GraphBuilder> graph_builder_;  // thread-safe itself

  // Access statistics: counted in memory by searches, written by a background thread (every
  // five seconds, or at once past access_flush_items items) so no search waits for the write.
  // Counts being written are kept in in_flight_access_ until their chunk is published. A
  // search adds the counts not yet in its rows, and never waits for a commit to know which
  // those are (ReadHitRows): each chunk's transaction also advances the database's access
  // epoch (kept in in_flight_epoch_ during the commit), which a search reading rows from SQLite
  // reads in the same snapshot; after the commit the flusher, in one step under access_mu_,
  // gives the counts to the item cache's rows, forgets them, bumps access_flushes_done_ and keeps
  // the chunk's seqs in last_flushed_, and a search that read cached rows while a chunk of
  // theirs was published reads again. So a returned count is never off by a flush.
  // A flush writes at most min(access_flush_items / 4, 500) items per transaction,
  // committing between chunks, so that writers (they share SQLite's one write lock) wait for
  // one chunk at most.
  void AccessFlushLoop();
  // `paced`: after each chunk, waits kAccessFlushPause times as long as the chunk took (unless
  // the engine is stopping), so a flush never holds a core for long.
  Status FlushAccessCounts(bool paced);
  // Writes the pending counts of `seqs` (ascending) in one transaction.
  Status FlushAccessChunk(std::span<const int64_t> seqs);
  // A search's rows; when counting, with the access counts not yet written added in.
  Result<std::vector<ScannedItem>> ReadHitRows(const Scope& scope,
                                               const std::vector<int64_t>& seqs,
                                               bool record_access);
  // Under access_mu_: a commit that wrote one of `seqs` finished since `done_before`.
  bool AccessFlushedSince(uint64_t done_before, const std::vector<int64_t>& seqs) const;
  std::mutex access_mu_;
  std::unordered_map<int64_t, std::pair<int64_t, TimestampMs>> pending_access_;    // guarded
  std::unordered_map<int64_t, std::pair<int64_t, TimestampMs>> in_flight_access_;  // guarded
  TimestampMs last_access_flush_ = 0;                                              // guarded
  bool access_flush_requested_ = false;                                            // guarded
  bool access_flusher_stopping_ = false;                                           // guarded
  uint64_t access_flushes_done_ = 0;                                               // guarded
  int64_t in_flight_epoch_ = 0;  // guarded; the access epoch of the chunk committing, or 0
  std::vector<int64_t> last_flushed_;  // guarded by access_mu_; ascending
  std::condition_variable access_cv_;
  std::mutex access_flush_mu_;  // one flush at a time
  std::thread access_flusher_;

  std::unique_ptr<AddGroup> add_group_;
};

}  // namespace engram
