// Engine: the read path of retrieval (search, context); the indexes it reads: engine_indexes.cc.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <shared_mutex>
#include <span>

#include "core/status_macros.h"
#include "engine/validation.h"
#include "engram/engine.h"
#include "retrieval/context_packer.h"
#include "retrieval/scope_index.h"
#include "retrieval/searcher.h"
#include "storage/memory_store.h"

namespace engram {
namespace {

// Counts wait at most this long on the engine's clock; between flushes an item read many times
// is written once, and the flush's page writes (and the checkpoint's copies of them) fell to
// a third against a one-second interval under the server benchmark's search load.
constexpr TimestampMs kAccessFlushIntervalMs = 5000;
// Items per transaction: a writer, or a search of one of the chunk's items, waits for one
// chunk's commit at most. At 5,000 a commit took tens of ms and searches waiting on it doubled
// the p99 latency at 2,500 searches/s (open-loop: 95 ms against 38-40 at 500 or with no wait).
constexpr size_t kAccessFlushChunkMax = 500;
// The background flush waits this many times as long as each chunk took before the next: a
// flush of 100,000 counts took ~150 ms of CPU in one burst, which halved the server's
// capacity while it ran (open loop at 4,000 searches/s: p99 135 ms, requests queuing behind
// it). Paced, it takes at most a quarter of a core; at the benchmark's rate a flush is due
// every ~2 s and ends within ~0.6 s.
constexpr int kAccessFlushPause = 3;
constexpr int kAccessFlushPollMs = 100;
// Often, so each checkpoint copies and syncs little: at one second, the copies of ~60 MB of WAL
// (2,000 adds/s) were synced at once and commits' WAL syncs waited 15-21 ms behind them.
constexpr int kCheckpointIntervalMs = 100;

// Adds `count` reads, the latest at `last`, to an item's unwritten access counts.
void AddAccess(std::unordered_map<int64_t, std::pair<int64_t, TimestampMs>>* counts, int64_t seq,
               int64_t count, TimestampMs last) {
  auto& c = (*counts)[seq];
  c.first += count;
  c.second = std::max(c.second, last);
}

}  // namespace

// Each text is embedded on its own, so a long early turn cannot drown the query text the way it
// would in one concatenated embedding; one batch call keeps remote embedders to one request.
Result<std::vector<float>> Engine::EmbedQuery(const SearchQuery& query) {
  if (query.recent_turns.empty()) return EmbedOne(query.text);
  const auto weighted = WeightedQueryTexts(query);
  std::vector<std::string> texts;
  for (const auto& [text, weight] : weighted) texts.push_back(text);
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
  const size_t dim = static_cast<size_t>(embedder_->dimension());
  std::vector<float> sum(dim, 0.0f);
  for (size_t i = 0; i < vectors.size(); ++i) {
    if (vectors.size() != texts.size() || vectors[i].size() != dim) {
      return Status::InvalidArgument("dimension mismatch: the embedder returned unexpected vectors");
    }
    for (size_t j = 0; j < dim; ++j) sum[j] += static_cast<float>(weighted[i].second) * vectors[i][j];
  }
  double norm = 0;
  for (float x : sum) norm += static_cast<double>(x) * x;
  if (norm > 0) {
    const float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : sum) x *= inv;
  }
  return sum;
}

Result<std::vector<float>> Engine::EmbedOne(const std::string& text) {
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed({text}));
  if (vectors.size() != 1 || static_cast<int>(vectors[0].size()) != embedder_->dimension()) {
    return Status::InvalidArgument("dimension mismatch: the embedder returned a vector of " +
                                   std::to_string(vectors.empty() ? 0 : vectors[0].size()) +
                                   " values, expected " + std::to_string(embedder_->dimension()));
  }
  return std::move(vectors[0]);
}

Result<Engine::IndexInfo> Engine::DescribeIndex(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
  std::shared_lock<std::shared_mutex> lock(index->mu);
  return IndexInfo{.items = static_cast<int64_t>(index->size()),
                   .vectors = static_cast<int64_t>(index->vectors().size()),
                   .approximate = index->hnsw() != nullptr,
                   .from_snapshot = index->snapshot.loaded,
                   .snapshot_status = index->snapshot.status,
                   .graph_building = index->graph_building(),
                   .unmerged = static_cast<int64_t>(index->tail_size())};
}

Result<std::vector<SearchHit>> Engine::Search(const Scope& scope, const SearchQuery& query) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateSearchQuery(query, options_.max_content_bytes));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> query_vector, EmbedQuery(query));
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
  if (index->dimension() != static_cast<int>(query_vector.size())) {
    return Status::InvalidArgument("dimension mismatch between the query vector and the index");
  }
  const TimestampMs now = Now();
  std::vector<RankedCandidate> ranked;
  {
    std::shared_lock<std::shared_mutex> lock(index->mu);
    ranked = RankCandidates(*index, scope, query, query_vector, now);
  }
  std::vector<int64_t> seqs;
  for (const RankedCandidate& c : ranked) seqs.push_back(c.seq);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ScannedItem> rows,
                          ReadHitRows(scope, seqs, query.record_access));
  std::vector<SearchHit> hits;
  std::vector<int64_t> returned;
  hits.reserve(ranked.size());
  returned.reserve(ranked.size());
  for (const RankedCandidate& c : ranked) {
    // k ≤ 100 rows: a linear look-up costs less than building a map.
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const ScannedItem& r) { return r.seq == c.seq; });
    if (row == rows.end()) continue;  // purged between ranking and reading
    SearchHit hit{std::move(row->item), c.score, query.explain ? c.explain : ScoreExplain{}};
    hits.push_back(std::move(hit));
    returned.push_back(c.seq);
  }
  DemoteStaleTurns(scope, query, &hits);
  if (query.record_access) {
    // The rows hold every earlier read (ReadHitRows added the unwritten ones); add this one.
    for (SearchHit& hit : hits) {
      hit.item.access_count += 1;
      hit.item.last_accessed = std::max(hit.item.last_accessed.value_or(0), now);
    }
    NoteAccess(returned, now);
  }
  return hits;
}

// A kept turn ranks below what was extracted from it: when a memory it produced (or that it
// reinforced) is among the hits, the turn goes just below that memory, since the memory says
// the same, distilled and current. A turn whose memories were all replaced ("I live in Boston"
// once the user moved) says what no longer holds: its score is scaled by turn_weight again. Only
// the returned turns are looked at, so a search without kept turns pays nothing.
void Engine::DemoteStaleTurns(const Scope& scope, const SearchQuery& query,
                              std::vector<SearchHit>* hits) {
  bool changed = false;
  for (SearchHit& hit : *hits) {
    if (!IsKeptTurn(hit.item) || hit.item.derived_ids.empty()) continue;
    bool stale = true;
    double below = -1;  // the score of a returned active memory the turn produced
    for (const std::string& id : hit.item.derived_ids) {
      auto in_hits = std::find_if(hits->begin(), hits->end(),
                                  [&](const SearchHit& h) { return h.item.id == id; });
      ItemStatus status = ItemStatus::kDeleted;
      if (in_hits != hits->end()) {
        status = in_hits->item.status;
        if (status == ItemStatus::kActive) below = std::max(below, in_hits->score);
      } else if (auto item = store_->Get(scope, id); item.ok()) {
        status = item->status;
      }
      if (status == ItemStatus::kActive) stale = false;
    }
    if (stale) {
      hit.score *= query.turn_weight;
      changed = true;
    } else if (below >= 0 && hit.score >= below) {
      hit.score = std::nextafter(below, 0.0);
      changed = true;
    }
  }
  if (changed) {
    std::stable_sort(hits->begin(), hits->end(),
                     [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
  }
}

Result<ContextResult> Engine::BuildContext(const Scope& scope, const ContextRequest& request) {
  if (request.token_budget < 16 || request.token_budget > 32768) {
    return Status::InvalidArgument("token_budget must be between 16 and 32768, got " +
                                   std::to_string(request.token_budget));
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SearchHit> hits, Search(scope, request.search));
  return PackContext(hits, request);
}

void Engine::NoteAccess(const std::vector<int64_t>& seqs, TimestampMs now) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(access_mu_);
    for (int64_t seq : seqs) AddAccess(&pending_access_, seq, 1, now);
    if (last_access_flush_ == 0) last_access_flush_ = now;
    const size_t due = std::max<size_t>(1, options_.access_flush_items);
    if (pending_access_.size() >= due && !access_flush_requested_) {
      access_flush_requested_ = wake = true;
    }
  }
  if (wake) access_cv_.notify_all();
}

// Wakes every kAccessFlushPollMs (real time) and flushes when access_flush_items wait or the
// oldest pending count is kAccessFlushIntervalMs old on the engine's clock.
// Also checkpoints the WAL every kCheckpointIntervalMs, so no commit has to.
void Engine::AccessFlushLoop() {
  std::unique_lock<std::mutex> lock(access_mu_);
  auto last_checkpoint = std::chrono::steady_clock::now();
  while (!access_flusher_stopping_) {
    access_cv_.wait_for(lock, std::chrono::milliseconds(kAccessFlushPollMs),
                        [this] { return access_flusher_stopping_ || access_flush_requested_; });
    if (access_flusher_stopping_) break;
    if (std::chrono::steady_clock::now() - last_checkpoint >=
        std::chrono::milliseconds(kCheckpointIntervalMs)) {
      lock.unlock();
      (void)store_->Checkpoint();  // a busy database is checkpointed next time
      lock.lock();
      last_checkpoint = std::chrono::steady_clock::now();
    }
    const bool due = access_flush_requested_ ||
                     (!pending_access_.empty() && Now() - last_access_flush_ >= kAccessFlushIntervalMs);
    if (!due) continue;
    lock.unlock();
    (void)FlushAccessCounts(/*paced=*/true);  // a failure keeps the counts pending
    lock.lock();
  }
}

Status Engine::FlushAccessStats() { return FlushAccessCounts(/*paced=*/false); }

Status Engine::FlushAccessCounts(bool paced) {
  std::lock_guard<std::mutex> one_at_a_time(access_flush_mu_);
  std::vector<int64_t> due;  // what is pending now; counts arriving meanwhile wait for the next flush
  {
    std::lock_guard<std::mutex> lock(access_mu_);
    access_flush_requested_ = false;
    last_access_flush_ = Now();
    due.reserve(pending_access_.size());
    for (const auto& [seq, p] : pending_access_) due.push_back(seq);
  }
  // In rowid order: rows near each other share B-tree pages, and each page is visited once.
  std::sort(due.begin(), due.end());
  // Sorted, each chunk covers a range of rows and so of the access table's pages.
  const size_t chunk = std::clamp<size_t>(options_.access_flush_items / 4, 1, kAccessFlushChunkMax);
  for (size_t from = 0; from < due.size(); from += chunk) {
    const size_t to = std::min(due.size(), from + chunk);
    const auto started = std::chrono::steady_clock::now();
    ENGRAM_RETURN_IF_ERROR(FlushAccessChunk(std::span(due).subspan(from, to - from)));
    if (!paced || to == due.size()) continue;
    const auto pause = (std::chrono::steady_clock::now() - started) * kAccessFlushPause;
    std::unique_lock<std::mutex> lock(access_mu_);
    access_cv_.wait_for(lock, pause, [this] { return access_flusher_stopping_; });
  }
  return Status::Ok();
}

// Moves the counts of `seqs` (ascending) from pending to in flight, writes them in one
// transaction and forgets them at its commit.
Status Engine::FlushAccessChunk(std::span<const int64_t> seqs) {
  std::vector<AccessDelta> deltas;
  deltas.reserve(seqs.size());
  {
    std::lock_guard<std::mutex> lock(access_mu_);
    for (int64_t seq : seqs) {
      auto it = pending_access_.find(seq);
      if (it == pending_access_.end()) continue;
      deltas.push_back({seq, it->second.first, it->second.second});
      in_flight_access_.insert(*it);
      pending_access_.erase(it);
    }
  }
  if (deltas.empty()) return Status::Ok();
  Status written = store_->RecordAccess(
      deltas, [&](int64_t epoch, const std::function<Status()>& commit,
                  const std::function<void()>& publish) {
        {
          std::lock_guard<std::mutex> lock(access_mu_);
          in_flight_epoch_ = epoch;
        }
        Status s = commit();
        if (options_.on_access_commit) options_.on_access_commit();
        // The cached rows take the counts as the in-flight copies go: a search that read a
        // cached row before this sees access_flushes_done_ move and reads again.
        std::lock_guard<std::mutex> lock(access_mu_);
        in_flight_epoch_ = 0;
        if (!s.ok()) return s;
        publish();
        in_flight_access_.clear();
        last_flushed_.assign(seqs.begin(), seqs.end());
        ++access_flushes_done_;
        return s;
      });
  if (!written.ok()) {  // nothing written: the counts wait for the next flush
    std::lock_guard<std::mutex> lock(access_mu_);
    for (const auto& [seq, p] : in_flight_access_) AddAccess(&pending_access_, seq, p.first, p.second);
    in_flight_access_.clear();
  }
  return written;
}

// Without counting, any read will do. Counting, the counts not in the rows (pending, or being
// written) are added under access_mu_, and no search waits for a commit (see engine.h):
// - a cached row holds the counts of every chunk published before it was read; a chunk is
//   published, its in-flight counts forgotten and access_flushes_done_ bumped in one step
//   under access_mu_, so if one of the rows' chunks was published since the read began, the
//   rows are read again;
// - a row read from SQLite holds the in-flight chunk's counts if and only if its snapshot's
//   access epoch has reached the chunk's (the chunk's transaction advanced it).
Result<std::vector<ScannedItem>> Engine::ReadHitRows(const Scope& scope,
                                                     const std::vector<int64_t>& seqs,
                                                     bool record_access) {
  if (!record_access) return store_->GetBySeqs(scope, seqs);
  for (;;) {
    uint64_t done_before = 0;
    {
      std::lock_guard<std::mutex> lock(access_mu_);
      done_before = access_flushes_done_;
    }
    MemoryStore::ReadSource source;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScannedItem> rows,
                            store_->GetBySeqs(scope, seqs, &source));
    std::lock_guard<std::mutex> lock(access_mu_);
    if (AccessFlushedSince(done_before, seqs)) continue;
    // Epochs are given in commit order: a snapshot at or past the in-flight chunk's holds it.
    const bool snapshot_has_in_flight =
        in_flight_epoch_ > 0 && source.access_epoch >= in_flight_epoch_;
    for (ScannedItem& row : rows) {
      // from_db is short and usually empty: most rows come from the item cache.
      const bool read_from_db =
          std::find(source.from_db.begin(), source.from_db.end(), row.seq) != source.from_db.end();
      for (const auto* counts : {&pending_access_, &in_flight_access_}) {
        if (counts == &in_flight_access_ && read_from_db && snapshot_has_in_flight) continue;
        auto it = counts->find(row.seq);
        if (it == counts->end()) continue;
        row.item.access_count += it->second.first;
        row.item.last_accessed = std::max(row.item.last_accessed.value_or(0), it->second.second);
      }
    }
    return rows;
  }
}

bool Engine::AccessFlushedSince(uint64_t done_before, const std::vector<int64_t>& seqs) const {
  if (access_flushes_done_ == done_before) return false;
  if (access_flushes_done_ - done_before > 1) return true;  // the earlier chunks are not kept
  for (int64_t seq : seqs) {
    if (std::binary_search(last_flushed_.begin(), last_flushed_.end(), seq)) return true;
  }
  return false;
}

Result<int64_t> Engine::Reembed(const ProgressFn& progress) {
  ENGRAM_ASSIGN_OR_RETURN(auto scopes, ListScopes(""));
  int64_t total = 0, done = 0, embedded = 0;
  for (const ScopeSummary& s : scopes) total += s.items;
  for (const ScopeSummary& s : scopes) {
    Scope scope{s.tenant, s.user_id, "", ""};
    DropIndex(scope);
    ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
    done += s.items;
    embedded += static_cast<int64_t>(index->size());
    if (progress) progress(done, total);
  }
  return embedded;
}

}  // namespace engram
