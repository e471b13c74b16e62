#include <filesystem>

#include "core/group_commit.h"
#include "core/id_generator.h"
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "retrieval/scope_index.h"
#include "storage/memory_store.h"
#include "storage/postgres.h"

namespace engram {
namespace {

Status EnsureParentDirectory(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec)
    return Status::IOError("cannot create directory " + parent.string() + ": " + ec.message());
  return Status::Ok();
}

Status ValidatePatch(const MemoryPatch& p, const EngineOptions& options) {
  if (p.content) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("content", *p.content, options.max_content_bytes));
    if (p.content->empty()) return Status::InvalidArgument("content must not be empty");
  }
  if (p.entities) ENGRAM_RETURN_IF_ERROR(ValidateStringList("entities", *p.entities));
  if (p.tags) ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags", *p.tags));
  if (p.importance) ENGRAM_RETURN_IF_ERROR(ValidateUnit("importance", *p.importance));
  if (p.confidence) ENGRAM_RETURN_IF_ERROR(ValidateUnit("confidence", *p.confidence));
  if (p.status && *p.status != ItemStatus::kActive && *p.status != ItemStatus::kArchived) {
    return Status::InvalidArgument("status can only be set to active or archived by update");
  }
  if (p.valid_to && p.clear_valid_to) {
    return Status::InvalidArgument("valid_to cannot be both set and cleared");
  }
  if (p.expires_at && p.clear_expires_at) {
    return Status::InvalidArgument("expires_at cannot be both set and cleared");
  }
  if (p.source) {
    ENGRAM_RETURN_IF_ERROR(ValidateStringList("source.message_ids", p.source->message_ids));
    for (const std::string* s :
         {&p.source->session_id, &p.source->extractor, &p.source->prompt_version}) {
      ENGRAM_RETURN_IF_ERROR(ValidateText("source", *s, kMaxListEntryBytes));
    }
  }
  return ValidateText("reason", p.reason, options.max_content_bytes);
}

// Applies a validated patch; true if any field changed.
bool ApplyPatch(const MemoryPatch& p, const std::string& metadata, MemoryItem* m) {
  const MemoryItem before = *m;
  if (p.content) m->content = *p.content;
  if (p.type) m->type = *p.type;
  if (p.tier) m->tier = *p.tier;
  if (p.entities) m->entities = *p.entities;
  if (p.tags) m->tags = *p.tags;
  if (p.metadata) m->metadata = metadata;
  if (p.importance) m->importance = *p.importance;
  if (p.confidence) m->confidence = *p.confidence;
  if (p.valid_from) m->valid_from = *p.valid_from;
  if (p.valid_to) m->valid_to = *p.valid_to;
  if (p.clear_valid_to) m->valid_to.reset();
  if (p.expires_at) m->expires_at = *p.expires_at;
  if (p.clear_expires_at) m->expires_at.reset();
  if (p.status) m->status = *p.status;
  if (p.source) m->source = *p.source;
  return !(before == *m);
}

}  // namespace

// Group commit of adds (core/group_commit.h): concurrent AddBatch calls are written in one
// transaction (one WAL sync; a failing add rolled back alone), then the loaded indexes are
// updated, before any of the callers returns. A lone add commits by itself, as before.
struct Engine::Impl::PendingAdd {
  const Scope* scope;
  std::vector<PendingItem>* items;
  TimestampMs now;
  Status status;
};

struct Engine::Impl::AddGroup : GroupCommit<PendingAdd> {};

// Often, so each checkpoint copies and syncs little and no commit waits long behind one.
constexpr std::chrono::milliseconds kCheckpointInterval{100};
// The access flush looks at every pass of the background thread whether its counts are due
// (AccessCounts::Due, on the engine's clock); a search wakes it when enough items wait.
constexpr std::chrono::milliseconds kAccessFlushPoll{100};
constexpr char kAccessFlushTask[] = "access-counts";

Engine::Impl::Impl(EngineOptions options, std::unique_ptr<MemoryStore> store,
                   const EngineHooks& hooks)
    : options_(std::move(options)),
      store_(std::move(store)),
      ids_(std::make_unique<IdGenerator>()),
      embedder_(options_.embedder),
      add_group_(std::make_unique<AddGroup>()),
      access_(store_.get(), AccessCountsOptions{.flush_items = options_.access_flush_items,
                                                .clock = options_.clock,
                                                .on_commit = hooks.on_access_commit}),
      background_(BackgroundOptions{.poll = kAccessFlushPoll}) {
  StartBackground();
  if (IsPostgresUrl(options_.path)) StartChangeListener();
}

void Engine::Impl::StartChangeListener() {
  PgChangeListener::Callbacks callbacks;
  callbacks.changed = [this](const std::string& tenant, const std::string& user_id) {
    const Scope scope{tenant, user_id, "", ""};
    store_->ForgetCachedItems(scope);
    DropRemotelyChangedIndex(scope);
  };
  callbacks.lost = [this] {
    remote_changes_.fetch_add(1, std::memory_order_acq_rel);
    store_->ForgetCachedItems();
    DropAllIndexes();
  };
  callbacks.own = [this](int pid) { return pid == store_->WriterBackendPid(); };
  change_listener_ = std::make_unique<PgChangeListener>(options_.path, std::move(callbacks));
}

Engine::Impl::~Impl() {
  change_listener_.reset();  // its callbacks use the indexes
  maintenance_.Stop();       // a run in progress finishes its current batch's commit first
  background_.Stop();        // joins the thread, cancels graph builds, writes the pending counts
  (void)SaveIndexSnapshots();
}

void Engine::Impl::StartBackground() {
  // The store's commits never checkpoint the WAL (StoreOptions::background_checkpoints).
  background_.Register({.name = "wal-checkpoint", .interval = kCheckpointInterval, .run = [this] {
                          (void)store_->Checkpoint();
                        }});  // a busy database: next time
  background_.Register({.name = kAccessFlushTask,
                        .interval = kAccessFlushPoll,
                        .run =
                            [this] {
                              if (!access_.Due(Now())) return;
                              // Paced; at shutdown Sleep returns at once. A failure keeps the
                              // counts pending.
                              (void)access_.Flush(
                                  [this](std::chrono::nanoseconds d) { background_.Sleep(d); });
                            },
                        .at_stop = [this] { (void)access_.Flush(); }});
  background_.Start();
  if (options_.maintenance_interval_ms > 0) {
    maintenance_.Register(
        {.name = "maintenance",
         .interval = std::chrono::milliseconds(options_.maintenance_interval_ms),
         .run = [this] { (void)Maintain(MaintenanceRequest{}, nullptr); }});  // next time
    maintenance_.Start();
  }
}

void Engine::Impl::NoteAccess(const std::vector<int64_t>& seqs, TimestampMs now) {
  if (access_.Note(seqs, now)) background_.Wake(kAccessFlushTask);
}

Status Engine::Impl::FlushAccessStats() { return access_.Flush(); }

Result<std::unique_ptr<Engine>> EngineInternals::Open(const EngineOptions& options,
                                                      const EngineHooks& hooks) {
  EngineOptions opts = options;
  if (opts.path.empty()) return Status::InvalidArgument("database path must not be empty");
  if (!opts.clock) opts.clock = SystemClock::Default();
  if (opts.reader_connections < 1) return Status::InvalidArgument("reader_connections must be ≥ 1");
  if (opts.max_content_bytes == 0) return Status::InvalidArgument("max_content_bytes must be > 0");
  if (!opts.embedder) {
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> hash, MakeHashEmbedder({}));
    opts.embedder = std::move(hash);
  }
  const bool server = IsPostgresUrl(opts.path);
  if (!opts.create_if_missing && !server) {
    std::error_code ec;
    if (!std::filesystem::exists(opts.path, ec)) {
      return Status::NotFound("no database at " + opts.path +
                              " (only commands that write create one)");
    }
  }
  if (!server) ENGRAM_RETURN_IF_ERROR(EnsureParentDirectory(opts.path));
  StoreOptions store_options{.path = opts.path,
                             .reader_connections = opts.reader_connections,
                             .busy_timeout_ms = opts.busy_timeout_ms,
                             .synchronous = opts.synchronous,
                             .background_checkpoints = true,  // by the background thread
                             .item_cache_bytes = opts.item_cache_bytes,
                             .key = opts.encryption_key};
  ENGRAM_ASSIGN_OR_RETURN(auto store, MemoryStore::Open(store_options, opts.clock->NowMs()));
  return std::unique_ptr<Engine>(
      new Engine(std::make_unique<Engine::Impl>(std::move(opts), std::move(store), hooks)));
}

Result<std::unique_ptr<Engine>> OpenEngineWithHooks(const EngineOptions& options,
                                                    const EngineHooks& hooks) {
  return EngineInternals::Open(options, hooks);
}

Result<MemoryItem> Engine::Impl::Materialize(const Scope& scope, const NewMemory& m,
                                             TimestampMs now) {
  ENGRAM_RETURN_IF_ERROR(ValidateText("content", m.content, options_.max_content_bytes));
  if (m.content.empty()) return Status::InvalidArgument("content must not be empty");
  MemoryItem item;
  item.scope = scope;
  item.type = m.type.value_or(MemoryType::kFact);
  item.tier = m.tier.value_or(DefaultTierFor(item.type));
  item.content = m.content;
  item.entities = m.entities;
  item.tags = m.tags;
  ENGRAM_ASSIGN_OR_RETURN(item.metadata,
                          CanonicalMetadata(m.metadata, options_.max_metadata_bytes));
  item.importance = m.importance.value_or(0.5);
  item.confidence = m.confidence.value_or(1.0);
  item.source = m.source;
  if (item.source.extractor.empty()) item.source.extractor = "manual";
  if (item.source.session_id.empty()) item.source.session_id = scope.session_id;
  item.created_at = m.created_at.value_or(now);
  item.updated_at = now;
  item.valid_from = m.valid_from.value_or(item.created_at);
  item.valid_to = m.valid_to;
  item.expires_at = m.expires_at;
  item.slot = m.slot;
  item.id = ids_->Next(item.created_at);
  ENGRAM_RETURN_IF_ERROR(ValidateItem(item, LimitsOf(options_)));
  ENGRAM_RETURN_IF_ERROR(ValidateText("reason", m.reason, options_.max_content_bytes));
  return item;
}

Result<MemoryItem> Engine::Impl::Add(const Scope& scope, const NewMemory& memory) {
  ENGRAM_ASSIGN_OR_RETURN(auto items, AddBatch(scope, {memory}));
  return std::move(items.front());
}

Result<std::vector<MemoryItem>> Engine::Impl::AddBatch(const Scope& scope,
                                                       const std::vector<NewMemory>& memories) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  if (memories.empty()) return Status::InvalidArgument("batch is empty");
  if (memories.size() > options_.max_batch_items) {
    return Status::InvalidArgument("batch has " + std::to_string(memories.size()) +
                                   " items, over the limit of " +
                                   std::to_string(options_.max_batch_items));
  }
  const TimestampMs now = Now();
  std::vector<PendingItem> pending;
  pending.reserve(memories.size());
  for (size_t i = 0; i < memories.size(); ++i) {
    auto item = Materialize(scope, memories[i], now);
    if (!item.ok()) {
      return memories.size() == 1 ? item.status()
                                  : item.status().WithContext("item " + std::to_string(i));
    }
    pending.push_back({std::move(item).value(), memories[i].reason});
    pending.back().graph = memories[i].graph;
  }
  std::vector<std::string> texts;
  texts.reserve(pending.size());
  for (const PendingItem& p : pending) texts.push_back(p.item.content);
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
  if (vectors.size() != pending.size()) return Status::Internal("embedder returned a wrong count");
  for (size_t i = 0; i < pending.size(); ++i) {
    if (static_cast<int>(vectors[i].size()) != embedder_->dimension()) {
      return Status::InvalidArgument("dimension mismatch: the embedder returned a vector of " +
                                     std::to_string(vectors[i].size()) + " values, expected " +
                                     std::to_string(embedder_->dimension()));
    }
    pending[i].item.embedding_model = embedder_->model();
    pending[i].vector = StoredVector{embedder_->model(), std::move(vectors[i])};
  }
  PendingAdd me{&scope, &pending, now, Status::Ok()};
  add_group_->Run(&me, [this](const std::vector<PendingAdd*>& group) { CommitAddGroup(group); });
  ENGRAM_RETURN_IF_ERROR(me.status);
  std::vector<MemoryItem> out;
  out.reserve(pending.size());
  for (PendingItem& p : pending) out.push_back(std::move(p.item));
  return out;
}

void Engine::Impl::CommitAddGroup(const std::vector<PendingAdd*>& group) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::vector<MemoryStore::InsertRequest> requests;
  requests.reserve(group.size());
  for (PendingAdd* a : group) requests.push_back({a->scope, a->items, a->now, Status::Ok()});
  store_->InsertGroup(requests);
  for (size_t i = 0; i < group.size(); ++i) {
    group[i]->status = requests[i].status;
    if (!requests[i].status.ok()) continue;
    const Scope& scope = *group[i]->scope;
    if (auto index = LoadedIndex(scope)) {
      size_t bytes = 0;
      {
        std::unique_lock<std::shared_mutex> index_lock(index->mu);
        for (const PendingItem& p : *group[i]->items)
          index->Upsert(p.seq, p.item, &p.vector->values);
        RequestGraphIfDue(index);
        bytes = index->MemoryBytes();
      }
      TrackIndexBytes(scope, bytes);
    }
  }
}

Result<MemoryItem> Engine::Impl::Get(const Scope& scope, std::string_view id) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  return store_->Get(scope, id);
}

Result<ListPage> Engine::Impl::List(const Scope& scope, const ListQuery& query) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateListQuery(query));
  return store_->List(scope, query);
}

Result<MemoryItem> Engine::Impl::Update(const Scope& scope, std::string_view id,
                                        const MemoryPatch& patch) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  ENGRAM_RETURN_IF_ERROR(ValidatePatch(patch, options_));
  std::string metadata;
  if (patch.metadata) {
    ENGRAM_ASSIGN_OR_RETURN(metadata,
                            CanonicalMetadata(*patch.metadata, options_.max_metadata_bytes));
  }
  std::optional<StoredVector> vector;
  if (patch.content) {
    ENGRAM_ASSIGN_OR_RETURN(auto values, EmbedOne(*patch.content));
    vector = StoredVector{embedder_->model(), std::move(values)};
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  int64_t seq = 0;
  auto updated = store_->Mutate(
      scope, id, HistoryEvent::kUpdate, patch.reason, Now(),
      [&](MemoryItem& m) -> Result<bool> {
        if (m.status == ItemStatus::kDeleted) {
          return Status::Conflict("memory '" + m.id + "' is deleted and cannot be updated");
        }
        bool changed = ApplyPatch(patch, metadata, &m);
        if (m.valid_to && *m.valid_to < m.valid_from) {
          return Status::InvalidArgument("valid_to must not be before valid_from");
        }
        if (m.expires_at && *m.expires_at <= m.created_at) {
          return Status::InvalidArgument("expires_at must be after created_at");
        }
        return changed;
      },
      vector ? &*vector : nullptr, &seq);
  if (updated.ok()) {
    if (auto index = LoadedIndex(scope)) {
      std::unique_lock<std::shared_mutex> index_lock(index->mu);
      index->Upsert(seq, *updated, vector ? &vector->values : nullptr);
      RequestGraphIfDue(index);
    }
  }
  return updated;
}

Status Engine::Impl::Delete(const Scope& scope, std::string_view id, std::string_view reason) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  ENGRAM_RETURN_IF_ERROR(ValidateText("reason", reason, options_.max_content_bytes));
  std::lock_guard<std::mutex> lock(write_mu_);
  int64_t seq = 0;
  auto deleted = store_->Mutate(
      scope, id, HistoryEvent::kDelete, std::string(reason), Now(),
      [](MemoryItem& m) -> Result<bool> {
        if (m.status == ItemStatus::kDeleted) return false;
        m.status = ItemStatus::kDeleted;
        return true;
      },
      nullptr, &seq);
  if (!deleted.ok()) return deleted.status();
  if (auto index = LoadedIndex(scope)) {
    std::unique_lock<std::shared_mutex> index_lock(index->mu);
    index->Upsert(seq, *deleted, nullptr);
  }
  return Status::Ok();
}

Result<PurgeResult> Engine::Impl::Purge(const Scope& scope, std::string_view id,
                                        const PurgeOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  std::lock_guard<std::mutex> lock(write_mu_);
  ENGRAM_ASSIGN_OR_RETURN(PurgeResult purged,
                          store_->Purge(scope, id, options, options_.clock->NowMs()));
  purge_generation_.fetch_add(1, std::memory_order_acq_rel);
  if (auto index = LoadedIndex(scope)) {
    std::unique_lock<std::shared_mutex> index_lock(index->mu);
    for (int64_t seq : purged.seqs) index->Remove(seq);
  }
  // A snapshot on disk still holds the purged vectors: remove it (rewritten at the next save).
  auto snapshot = SnapshotPath(scope);
  std::error_code ec;
  if (snapshot.ok() && !snapshot->empty()) std::filesystem::remove(*snapshot, ec);
  return purged;
}

Result<int64_t> Engine::Impl::PurgeScope(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  Scope whole{scope.tenant, scope.user_id, "", ""};
  std::lock_guard<std::mutex> lock(write_mu_);
  auto snapshot = SnapshotPath(whole);
  auto removed = store_->PurgeScope(whole);
  purge_generation_.fetch_add(1, std::memory_order_acq_rel);
  DropIndex(whole);
  std::error_code ec;
  if (snapshot.ok() && !snapshot->empty()) std::filesystem::remove(*snapshot, ec);
  return removed;
}

Result<std::vector<HistoryEntry>> Engine::Impl::History(const Scope& scope, std::string_view id) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  return store_->History(scope, id);
}

Status Engine::Impl::PutVector(const Scope& scope, std::string_view id, std::string_view model,
                               const std::vector<float>& values) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  ENGRAM_RETURN_IF_ERROR(ValidateText("model", model, kMaxListEntryBytes));
  if (model.empty()) return Status::InvalidArgument("model must not be empty");
  if (values.empty()) return Status::InvalidArgument("vector must not be empty");
  std::lock_guard<std::mutex> lock(write_mu_);
  Status st = store_->PutVector(scope, id, StoredVector{std::string(model), values}, Now());
  DropIndex(scope);  // rare: reload rather than track which vector the index holds
  return st;
}

Result<std::vector<float>> Engine::Impl::GetVector(const Scope& scope, std::string_view id,
                                                   std::string_view model) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  return store_->GetVector(scope, id, model);
}

Status Engine::Impl::Export(const Scope& scope,
                            const std::function<Status(const MemoryRecord&)>& sink) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  return store_->Export(scope, sink);
}

Result<ImportStats> Engine::Impl::Import(const std::vector<MemoryRecord>& records,
                                         OnConflict on_conflict) {
  if (records.size() > options_.max_batch_items) {
    return Status::InvalidArgument("import batch over the limit of " +
                                   std::to_string(options_.max_batch_items));
  }
  std::vector<MemoryRecord> canonical = records;
  for (size_t i = 0; i < canonical.size(); ++i) {
    MemoryRecord& r = canonical[i];
    Status st = ValidateItem(r.item, LimitsOf(options_));
    if (st.ok()) {
      auto md = CanonicalMetadata(r.item.metadata, options_.max_metadata_bytes);
      if (md.ok()) r.item.metadata = *md;
      st = md.status();
    }
    for (const HistoryEntry& h : r.history) {
      if (!st.ok()) break;
      if (h.old_content) st = ValidateText("history old_content", *h.old_content, SIZE_MAX);
      if (st.ok() && h.new_content)
        st = ValidateText("history new_content", *h.new_content, SIZE_MAX);
      if (st.ok()) st = ValidateText("history reason", h.reason, SIZE_MAX);
    }
    for (const StoredVector& v : r.vectors) {
      if (st.ok() && (v.model.empty() || v.values.empty())) {
        st = Status::InvalidArgument("vector needs a model and values");
      }
    }
    if (!st.ok()) return st.WithContext("record " + std::to_string(i) + " (" + r.item.id + ")");
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  auto stats = store_->Import(canonical, on_conflict);
  for (const MemoryRecord& r : canonical) DropIndex(r.item.scope);
  return stats;
}

Result<std::vector<ScopeSummary>> Engine::Impl::ListScopes(std::string_view tenant) {
  return store_->ListScopes(tenant);
}

// ---- Engine: the public facade forwards every call to its Impl ----

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  return EngineInternals::Open(options, EngineHooks{});
}

const EngineOptions& Engine::options() const { return impl_->options(); }
TimestampMs Engine::Now() const { return impl_->Now(); }

Result<MemoryItem> Engine::Add(const Scope& scope, const NewMemory& memory) {
  return impl_->Add(scope, memory);
}
Result<std::vector<MemoryItem>> Engine::AddBatch(const Scope& scope,
                                                 const std::vector<NewMemory>& memories) {
  return impl_->AddBatch(scope, memories);
}
Result<WriteOutcome> Engine::ApplyWrite(const Scope& scope, const PlannedWrite& write) {
  return impl_->ApplyWrite(scope, write);
}
Result<std::vector<Neighbour>> Engine::FindNeighbours(const Scope& scope,
                                                      const std::string& content,
                                                      const std::string& slot, int k) {
  return impl_->FindNeighbours(scope, content, slot, k);
}
Result<std::vector<Neighbour>> Engine::FindNeighbours(const Scope& scope,
                                                      const NeighbourQuery& query) {
  return impl_->FindNeighbours(scope, query);
}
Result<std::vector<StoredTurn>> Engine::AppendTurns(const Scope& scope,
                                                    const std::vector<Turn>& turns,
                                                    int64_t* last_turn_seq) {
  return impl_->AppendTurns(scope, turns, last_turn_seq);
}
Result<SessionInfo> Engine::GetSession(const Scope& scope, int recent) {
  return impl_->GetSession(scope, recent);
}
Status Engine::SetSessionSummary(const Scope& scope, const std::string& summary_id, bool close) {
  return impl_->SetSessionSummary(scope, summary_id, close);
}
Result<MemoryItem> Engine::Get(const Scope& scope, std::string_view id) {
  return impl_->Get(scope, id);
}
Result<ListPage> Engine::List(const Scope& scope, const ListQuery& query) {
  return impl_->List(scope, query);
}
Result<MemoryItem> Engine::Update(const Scope& scope, std::string_view id,
                                  const MemoryPatch& patch) {
  return impl_->Update(scope, id, patch);
}
Status Engine::Delete(const Scope& scope, std::string_view id, std::string_view reason) {
  return impl_->Delete(scope, id, reason);
}
Result<PurgeResult> Engine::Purge(const Scope& scope, std::string_view id,
                                  const PurgeOptions& options) {
  return impl_->Purge(scope, id, options);
}
Status Engine::Purge(const Scope& scope, std::string_view id) {
  return impl_->Purge(scope, id, PurgeOptions{}).status();
}
int64_t Engine::PurgeGeneration() const { return impl_->PurgeGeneration(); }
Result<int64_t> Engine::PurgeScope(const Scope& scope) { return impl_->PurgeScope(scope); }
Result<UserExtras> Engine::ExportUserExtras(const Scope& scope) {
  return impl_->ExportUserExtras(scope);
}
Result<ExtrasImportStats> Engine::ImportUserExtras(const Scope& scope, const UserExtras& extras,
                                                   OnConflict on_conflict) {
  return impl_->ImportUserExtras(scope, extras, on_conflict);
}
Result<VerifiedPurge> Engine::PurgeTenant(std::string_view tenant, bool verify, int64_t* users) {
  return impl_->PurgeTenant(tenant, verify, users);
}

Result<VerifiedPurge> Engine::PurgeScopeVerified(const Scope& scope) {
  return impl_->PurgeScopeVerified(scope);
}
Result<TraceReport> Engine::FindTraces(const std::vector<std::string>& texts,
                                       const std::vector<std::string>& vectors) {
  return impl_->FindTraces(texts, vectors);
}
Result<std::vector<HistoryEntry>> Engine::History(const Scope& scope, std::string_view id) {
  return impl_->History(scope, id);
}
Status Engine::PutVector(const Scope& scope, std::string_view id, std::string_view model,
                         const std::vector<float>& values) {
  return impl_->PutVector(scope, id, model, values);
}
Result<std::vector<float>> Engine::GetVector(const Scope& scope, std::string_view id,
                                             std::string_view model) {
  return impl_->GetVector(scope, id, model);
}
Status Engine::Export(const Scope& scope, const std::function<Status(const MemoryRecord&)>& sink) {
  return impl_->Export(scope, sink);
}
Result<ImportStats> Engine::Import(const std::vector<MemoryRecord>& records,
                                   OnConflict on_conflict) {
  return impl_->Import(records, on_conflict);
}
Result<std::vector<SearchHit>> Engine::Search(const Scope& scope, const SearchQuery& query) {
  return impl_->Search(scope, query);
}
Result<ContextResult> Engine::BuildContext(const Scope& scope, const ContextRequest& request) {
  return impl_->BuildContext(scope, request);
}
Result<int64_t> Engine::Reembed(const ProgressFn& progress) { return impl_->Reembed(progress); }
Status Engine::FlushAccessStats() { return impl_->FlushAccessStats(); }
Result<Engine::IndexInfo> Engine::DescribeIndex(const Scope& scope) {
  return impl_->DescribeIndex(scope);
}
Status Engine::SaveIndexSnapshots() { return impl_->SaveIndexSnapshots(); }
void Engine::WaitForIndexBuilds() { impl_->WaitForIndexBuilds(); }
Result<Engine::Stats> Engine::GetStats() { return impl_->GetStats(); }

Engine::WriteHealth Engine::CheckWrites(int probe_wait_ms) {
  return impl_->CheckWrites(probe_wait_ms);
}
Result<MaintenanceReport> Engine::Maintain(const MaintenanceRequest& request,
                                           const ProgressFn& progress) {
  return impl_->Maintain(request, progress);
}
Result<Profile> Engine::GetProfile(const Scope& scope, const ProfileOptions& options) {
  return impl_->GetProfile(scope, options);
}

Result<std::vector<MaintenanceLogEntry>> Engine::MaintenanceLog(const Scope& scope, int limit) {
  return impl_->MaintenanceLog(scope, limit);
}
Result<std::vector<ScopeSummary>> Engine::ListScopes(std::string_view tenant) {
  return impl_->ListScopes(tenant);
}

Result<UserPage> Engine::ListUsers(std::string_view tenant, const PageRequest& page) {
  return impl_->ListUsers(tenant, page);
}

Result<SessionPage> Engine::ListSessions(const Scope& scope, const PageRequest& page) {
  return impl_->ListSessions(scope, page);
}

}  // namespace engram
