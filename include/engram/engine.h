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

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/embedder.h"
#include "engram/encryption.h"
#include "engram/extraction.h"
#include "engram/graph.h"
#include "engram/knowledge.h"
#include "engram/lifecycle.h"
#include "engram/listings.h"
#include "engram/llm.h"
#include "engram/memory.h"
#include "engram/profile.h"
#include "engram/records.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

struct EngineOptions {
  std::string path;  // SQLite file; its directory is created if missing
  // false: a missing database file is NotFound and nothing is created (neither the file nor
  // its directory), for callers that only read: a mistyped path must not leave an empty
  // database behind that then answers every read with nothing.
  bool create_if_missing = true;
  size_t max_content_bytes = 16 * 1024;  // longer content is InvalidArgument
  size_t max_metadata_bytes = 16 * 1024;
  size_t max_batch_items = 100'000;  // one AddBatch / Import call
  int reader_connections = 4;
  int busy_timeout_ms = 5000;
  std::string synchronous = "FULL";  // "FULL" or "NORMAL" (see class comment)
  const Clock* clock = nullptr;      // not owned; outlives the engine; default system clock
  // Embeds content on write and queries on search; default: the hash embedder (384 dims).
  std::shared_ptr<Embedder> embedder;
  // Scopes with more vectors search an HNSW graph; smaller ones a full scan of 1-bit codes with
  // an exact re-rank (src/index/scan_index.h), or the floats themselves below 2,048 vectors.
  size_t hnsw_threshold = 50'000;
  // Loaded scope indexes (BM25, vectors, item facts; estimated ~3 KB per item with 384-dim
  // vectors) are evicted, least recently used first, while their total exceeds this; an evicted
  // graph is saved as a snapshot first. The index in use is never evicted. 0: no limit.
  size_t index_memory_budget = size_t{2} << 30;
  // true: scope indexes keep their float and int8 vector rows in the system's reserved huge pages
  // (`sysctl vm.nr_hugepages`) while the pool has room, and in ordinary memory otherwise: fewer
  // TLB misses, and kernel page-access sampling (DAMON) skips them. Off by default because the
  // pool is the administrator's to reserve and size (index/huge_pages.h).
  bool huge_pages = false;
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
  // The lifecycle (include/engram/lifecycle.h): how retention decays and enters ranking, and
  // what maintenance archives, expires and purges.
  RetentionPolicy retention;
  MaintenancePolicy maintenance;
  // An incremental Maintain() of every scope runs this often, on a thread of its own (never
  // delaying the checkpoints and access flushes); 0: off (`engram serve` sets it).
  int64_t maintenance_interval_ms = 0;
  // Writes the summaries maintenance folds faded turns into (prompts/summarize-v1.txt); null:
  // extractive summaries (the turns' own words). A reply that is not the JSON contract, is cut
  // off, or is empty leaves that group of turns as it was (nothing written; the next run tries
  // again). The same model writes the profile's summary (prompts/profile-v1.txt) in each run
  // that finds a user's profile lines changed; a bad reply keeps the summary written before.
  std::shared_ptr<LlmClient> summarizer;
  // Encryption at rest (include/engram/encryption.h): set, the database, its WAL and journal
  // and the index snapshots are sealed with this key, and a new database is created sealed;
  // a sealed database cannot be opened without it. Null: plain files.
  std::shared_ptr<const EncryptionKey> encryption_key;
  // The knowledge tier's limits on reading documents (include/engram/knowledge.h).
  KnowledgeOptions knowledge;
};

// Progress of a long operation: items done so far of a total (total 0 when unknown).
using ProgressFn = std::function<void(int64_t done, int64_t total)>;

// A memory to store as given (no extraction). Unset fields take the documented defaults.
struct NewMemory {
  std::string content;             // required, non-empty UTF-8
  std::optional<MemoryType> type;  // default fact
  std::optional<Tier> tier;        // default DefaultTierFor(type)
  std::vector<std::string> entities;
  std::vector<std::string> tags;
  std::string metadata = "{}";            // a JSON object
  std::optional<double> importance;       // default 0.5
  std::optional<double> confidence;       // default 1.0
  Source source;                          // extractor defaults to "manual"
  std::optional<TimestampMs> created_at;  // default now
  std::optional<TimestampMs> valid_from;  // default created_at
  std::optional<TimestampMs> valid_to;
  std::string slot;                       // see MemoryItem::slot
  std::string reason;                     // recorded in the ADD history row
  std::optional<TimestampMs> expires_at;  // see MemoryItem::expires_at; default never
  // Entities and relations the memory states (include/engram/graph.h), stored with it in its
  // transaction; a relation's valid_from defaults to the memory's. The write path fills it.
  GraphFacts graph;
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
  std::optional<TimestampMs> expires_at;
  bool clear_expires_at = false;     // never expires
  std::optional<ItemStatus> status;  // active or archived; use Delete to delete
  // Provenance, replaced whole: for the write path (a session summary rewritten over more
  // turns, by another method); the API does not expose it.
  std::optional<Source> source;
  std::string reason;  // recorded in the UPDATE history row
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
  // kSupersede with this set (a kept turn's id): nothing is inserted; the target is closed as
  // corrected by that turn (superseded_by it, an empty validity: it never held), and the turn
  // names the target in its derived_ids. For a correction whose value cannot be put into the
  // old fact's words: what the user said is the current evidence, no text is made up.
  std::string superseded_by_turn;
  // The vector of memory.content (kAdd, kSupersede, kUpdate) when the caller has it already
  // (Engine::WriteBatch::Embed): the text is then not embedded again. Empty: embedded here.
  std::vector<float> vector;
};

// What a candidate is compared with (Engine::FindNeighbours).
struct NeighbourQuery {
  std::string content;            // the candidate's content: its nearest items by vector
  std::string slot;               // its slot: every active item of the slot, and of its family
  int k = 5;                      // nearest items by vector
  std::vector<std::string> ends;  // values it says ended: the active items stating one
  // Items created at or after this time are candidates for `latest` (the most recent extracted
  // memory, for corrections); 0: none.
  TimestampMs latest_since = 0;
  // The candidate states an amount: the user's active budgets and amounts (slot families
  // user/budget and user/amount) are neighbours too (Neighbour::amount).
  bool amounts = false;
  // The vector of `content` when the caller has it already (Engine::WriteBatch::Embed); empty:
  // `content` is embedded here.
  std::vector<float> vector;
};

struct WriteOutcome {
  WriteDecision decision = WriteDecision::kAdd;
  bool turn = false;  // the write path kept a conversation turn (IsKeptTurn), not a memory
  // kAdd, kSupersede: the new item; kUpdate: the target after the merge; kNoop: the target
  // after reinforcement.
  MemoryItem memory;
  MemoryItem replaced;  // kSupersede: the target as closed (status superseded, valid_to set)
};

class Engine {
 public:
  // Opens or creates the database at options.path and migrates it to the current schema.
  // Corruption if the file is not an Engram database or is newer than this build.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  // Encryption at rest: rewrites the database at `path`, read with `old_key` (null: it is
  // plain), sealed with `new_key` (null: plain again), and removes its index snapshots (they
  // are rebuilt, under the new key, when next needed). A crash leaves the old file or the new
  // one, whole. Nothing may have the database open (stop the server first). Errors: a wrong or
  // missing key as Open reports it; InvalidArgument when nothing would change.
  static Result<RekeyReport> Rekey(const std::string& path,
                                   std::shared_ptr<const EncryptionKey> old_key,
                                   std::shared_ptr<const EncryptionKey> new_key);
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
  // A message's writes, planned one by one and then committed in one transaction (the write
  // path: MemoryWriter::Remember plans a message's kept turns and each candidate's decision,
  // then commits them together). See WriteBatch below.
  class WriteBatch;
  std::unique_ptr<WriteBatch> BeginWrites(const Scope& scope);

  // Sessions (scope.session_id names one; required). AppendTurns records turns in order,
  // creating the session on first use; a turn without an id gets one ("msg_" + UUIDv7) and a
  // turn without a time gets now. Conflict when the session is closed or a message id repeats.
  // `last_turn_seq`, when given, receives the store's number of the last turn written
  // (SessionInfo::last_turn_seq).
  Result<std::vector<StoredTurn>> AppendTurns(const Scope& scope, const std::vector<Turn>& turns,
                                              int64_t* last_turn_seq = nullptr);
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

  // Hard delete: the item, its history, vectors, maintenance log rows and the asynchronous jobs
  // that produced it are removed from every table, the search index and the index snapshot,
  // and the WAL is checkpointed before the call returns (secure_delete zeroes freed pages).
  // With options.source_turns (the default) the conversation it came from goes too: its kept
  // turns, their session turns and the summaries written from them (PurgeOptions, records.h).
  Result<PurgeResult> Purge(const Scope& scope, std::string_view id, const PurgeOptions& options);
  Status Purge(const Scope& scope, std::string_view id);  // with the default options
  // Moves with every hard delete: a cache of stored words outside the engine (the sessions'
  // working memory) reloads when it has moved since it was filled.
  int64_t PurgeGeneration() const;
  // Hard delete of everything stored for scope.tenant + scope.user_id (all agents and
  // sessions). Returns the number of items removed.
  Result<int64_t> PurgeScope(const Scope& scope);
  // PurgeScope, proven: reads what the user's rows hold (each memory's and turn's text, as
  // stored and normalized for matching; history's previous texts; each vector's bytes), purges,
  // then scans every file the engine writes for those bytes (FindTraces).
  Result<VerifiedPurge> PurgeScopeVerified(const Scope& scope);
  // Erases a whole tenant: PurgeScope for every user it has (memories, history, vectors, kept
  // turns, sessions, jobs, profiles, maintenance log); with `verify`, reads what their rows
  // hold first and scans every file for it afterwards, as PurgeScopeVerified does for one user
  // (words another tenant also stored count as shared). API keys are not touched (revoke them
  // with KeyStore); the audit log keeps its rows (who did what, never content).
  // `users` (if set) receives how many users were erased.
  Result<VerifiedPurge> PurgeTenant(std::string_view tenant, bool verify, int64_t* users = nullptr);
  // Scans the database file, its WAL and shared-memory files and the index snapshots for each
  // text and vector (byte strings of at least 8 bytes; shorter ones are skipped). A needle that
  // data still stored also holds is counted as shared, not as a trace.
  Result<TraceReport> FindTraces(const std::vector<std::string>& texts,
                                 const std::vector<std::string>& vectors);

  Result<std::vector<HistoryEntry>> History(const Scope& scope, std::string_view id);

  // The entity graph of scope's (tenant, user) (include/engram/graph.h; engine_graph.cc). The
  // graph is the user's: agent_id and session_id are ignored. InvalidArgument for a query out
  // of range (limit 1..1000, offset >= 0, hops 1..3, max_nodes 1..1000); NotFound for an entity
  // id that is not the scope's. A user with nothing stored has an empty graph, not NotFound.
  Result<EntityPage> ListEntities(const Scope& scope, const EntityQuery& query);
  Result<EntityDetail> GetEntity(const Scope& scope, std::string_view id);
  Result<Neighbourhood> EntityNeighbours(const Scope& scope, std::string_view id,
                                         const GraphWalk& walk);

  // Stores a vector for an item, replacing one of the same model; the item's
  // embedding_model becomes `model`.
  Status PutVector(const Scope& scope, std::string_view id, std::string_view model,
                   const std::vector<float>& values);
  Result<std::vector<float>> GetVector(const Scope& scope, std::string_view id,
                                       std::string_view model);

  // What is stored about scope's (tenant, user) besides memories (UserExtras, records.h):
  // sessions with all their turns, the profile summary, the maintenance log. For export.
  Result<UserExtras> ExportUserExtras(const Scope& scope);
  // Writes them back in one transaction (import): each session with its turns (one present
  // already is Conflict, or skipped with OnConflict::kSkip), the profile summary (replacing
  // one present), the log entries (appended). Every field is checked first.
  Result<ExtrasImportStats> ImportUserExtras(const Scope& scope, const UserExtras& extras,
                                             OnConflict on_conflict);
  // Streams every item of the scope (every status), oldest first (insertion order, so an
  // import of the stream lists items exactly as before), with history and vectors.
  // Stops at, and returns, the first error `sink` returns.
  Status Export(const Scope& scope, const std::function<Status(const MemoryRecord&)>& sink);
  // Writes records exactly as given (ids, scopes, times, history) in one transaction.
  // An id already present is Conflict (kFail: nothing written) or skipped (kSkip).
  Result<ImportStats> Import(const std::vector<MemoryRecord>& records, OnConflict on_conflict);

  // The knowledge tier (engine_knowledge.cc; include/engram/knowledge.h). Reads the document
  // (a PDF through pdftotext, with limits), chunks it, embeds the chunks and stores them in one
  // transaction, replacing a document of the same id in the scope. A document that cannot be
  // read is InvalidArgument with *rejection (when given) saying why; nothing is changed then.
  Result<IngestResult> IngestDocument(const KnowledgeScope& scope, const NewDocument& document,
                                      DocumentProblem* rejection = nullptr);
  // The scope's documents (exactly that tenant and agent_id), by doc_id, with chunk counts.
  Result<std::vector<KnowledgeDocument>> ListDocuments(const KnowledgeScope& scope);
  Result<DocumentDetail> GetDocument(const KnowledgeScope& scope, std::string_view doc_id);
  // Hard delete of the document, its chunks and vectors (NotFound when absent). With `verify`,
  // the files are then scanned for its texts and vectors as PurgeScopeVerified does (the
  // embedded database only: InvalidArgument on PostgreSQL, before anything is deleted).
  Result<DocumentDeletion> DeleteDocument(const KnowledgeScope& scope, std::string_view doc_id,
                                          bool verify = false);
  // The best chunks for the query among the tenant's shared documents and, when
  // scope.agent_id is set, that agent's.
  Result<std::vector<KnowledgeHit>> SearchKnowledge(const KnowledgeScope& scope,
                                                    const KnowledgeQuery& query);

  // Hybrid keyword + vector search within the scope (active items by default), best first.
  // Returned items' access statistics count this read (persisted within about five seconds).
  Result<std::vector<SearchHit>> Search(const Scope& scope, const SearchQuery& query);
  // Searches, then packs the results into a block that never exceeds the token budget: the
  // memories of the scope and (request.knowledge) the chunks SearchKnowledge finds for the
  // scope's tenant and agent, each in a block of its own, chunks cited "[doc §section]".
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

  // The lifecycle's maintenance (engine_maintain.cc): expires items past their expires_at,
  // archives active items whose retention fell below options().maintenance.archive_below and
  // purges archived items past their grace (critical items are never archived or purged), over
  // the request's tenant and user (empty: all). Each change is a history row on the item with
  // its reason, and a row of the maintenance log (which outlives purged items). Incremental by
  // default: only the items due for review (each item's next review time is stored when it is
  // examined) and those changed since the last run are read. Works a scope at a time, in
  // transactions of at most a few hundred items, so adds and searches wait at most one commit.
  // With a summarizer, a run also rewrites the profile summary of each user it looks at whose
  // profile lines changed since theirs was written (a dry run names them and asks nothing).
  // A dry run reports the same decisions and changes nothing.
  Result<MaintenanceReport> Maintain(const MaintenanceRequest& request,
                                     const ProgressFn& progress = nullptr);
  // The profile (include/engram/profile.h) of scope's (tenant, user) across sessions, narrowed
  // to scope.agent_id when set: its lines built from the memories as they are now, and, for the
  // whole user, the summary maintenance last wrote (marked current or not).
  Result<Profile> GetProfile(const Scope& scope, const ProfileOptions& options = {});
  // The scope's (tenant, user) maintenance log, oldest first: at most `limit` (1..100000) rows.
  Result<std::vector<MaintenanceLogEntry>> MaintenanceLog(const Scope& scope, int limit = 1000);

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

  // Whether writes work: failing from a write that met a failure of the database's (a lock held
  // past the busy timeout, an I/O error, a full disk, a read-only or damaged file) until a write
  // commits again. With `probe_wait_ms` >= 0 and writes failing, a write that changes nothing is
  // tried first (waiting at most that long for the lock), so a recovered database reads as
  // healthy without waiting for a caller's write. Thread-safe.
  struct WriteHealth {
    bool ok = true;
    std::string cause;     // while failing: the error, as the database gave it
    int64_t failures = 0;  // writes that failed so since the engine opened
    int64_t reopened = 0;  // times the writer connection was replaced by a fresh one
  };
  WriteHealth CheckWrites(int probe_wait_ms = -1);

  // The (tenant, user) scopes holding items; `tenant` empty means every tenant. Admin use.
  Result<std::vector<ScopeSummary>> ListScopes(std::string_view tenant);
  // The users of `tenant` (required: never another tenant's) with their counts, by user_id.
  // (engine_listings.cc)
  Result<UserPage> ListUsers(std::string_view tenant, const PageRequest& page);
  // The sessions of scope's (tenant, user), narrowed to scope.agent_id when set; newest first.
  // A user with nothing stored has no sessions (an empty page, not NotFound).
  Result<SessionPage> ListSessions(const Scope& scope, const PageRequest& page);

  const EngineOptions& options() const;
  // The engine's clock: what "now" is for every write and search (EngineOptions::clock).
  TimestampMs Now() const;

 private:
  // Everything else: the store, the loaded indexes, the background work (src/engine/).
  class Impl;
  friend struct EngineInternals;  // src/engine/engine_internal.h: opening with test hooks
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Planned writes of one scope, committed together. Plan checks a write as ApplyWrite would and
// applies it at once to the batch's own view of the items, so that the batch's FindNeighbours,
// Planned and Inserted see what earlier plans wrote (a message's second candidate is compared
// with its first) while nothing is stored. Commit writes every planned change in one
// transaction, or none: a failure leaves the database as it was. A batch belongs to one thread;
// other writers may change the items it read meanwhile, which Commit then reports (NotFound,
// Conflict), and the caller plans again.
class Engine::WriteBatch {
 public:
  ~WriteBatch();
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  // The engine's vectors of `texts`, in one call to the embedder (one request to a remote
  // one). Given back as PlannedWrite::vector and NeighbourQuery::vector, each text of a
  // message is embedded once.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts);
  // Plans one write (ApplyWrite's decisions and errors: NotFound, or Conflict when its target
  // is not active in the batch's view, which includes what this batch changed). The outcome is
  // the batch's view of the items; ids are those they will be stored with. A failed Plan
  // leaves the batch as it was.
  Result<WriteOutcome> Plan(const PlannedWrite& write);
  // Engine::FindNeighbours seen through the batch: items it changed as it changed them (one it
  // superseded is no longer a neighbour), and the items it inserts compared like stored ones.
  Result<std::vector<Neighbour>> FindNeighbours(const NeighbourQuery& query);
  // The batch's view of an item it inserted or changed; nullptr for one it did not touch.
  const MemoryItem* Planned(std::string_view id) const;
  // The items the batch inserts, in the order planned, as the batch now sees them.
  std::vector<const MemoryItem*> Inserted() const;
  // Writes everything planned in one transaction; the outcome of each Plan, in order, with
  // each item as stored at the end of the transaction. The batch is spent afterwards.
  Result<std::vector<WriteOutcome>> Commit();

 private:
  friend class Engine;
  friend class Engine::Impl;  // ApplyWrite is a batch of one
  struct State;
  explicit WriteBatch(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace engram
