#include "engine/access_counts.h"

#include <algorithm>

#include "core/status_macros.h"
#include "storage/memory_store.h"

namespace engram {
namespace {

// Adds `count` reads, the latest at `last`, to an item's unwritten access counts.
void AddAccess(std::unordered_map<int64_t, std::pair<int64_t, TimestampMs>>* counts, int64_t seq,
               int64_t count, TimestampMs last) {
  auto& c = (*counts)[seq];
  c.first += count;
  c.second = std::max(c.second, last);
}

}  // namespace

AccessCounts::AccessCounts(MemoryStore* store, AccessCountsOptions options)
    : store_(store), options_(std::move(options)) {}

bool AccessCounts::Note(const std::vector<int64_t>& seqs, TimestampMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t seq : seqs) AddAccess(&pending_, seq, 1, now);
  if (last_flush_ == 0) last_flush_ = now;
  const size_t due = std::max<size_t>(1, options_.flush_items);
  if (pending_.size() < due || flush_requested_) return false;
  flush_requested_ = true;
  return true;
}

bool AccessCounts::Due(TimestampMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  return flush_requested_ || (!pending_.empty() && now - last_flush_ >= kFlushIntervalMs);
}

Status AccessCounts::Flush(const std::function<void(std::chrono::nanoseconds)>& pause) {
  std::lock_guard<std::mutex> one_at_a_time(flush_mu_);
  std::vector<int64_t>
      due;  // what is pending now; counts arriving meanwhile wait for the next flush
  {
    std::lock_guard<std::mutex> lock(mu_);
    flush_requested_ = false;
    last_flush_ = options_.clock->NowMs();
    due.reserve(pending_.size());
    for (const auto& [seq, p] : pending_) due.push_back(seq);
  }
  // In rowid order: rows near each other share B-tree pages, and each page is visited once.
  std::sort(due.begin(), due.end());
  // Sorted, each chunk covers a range of rows and so of the access table's pages.
  const size_t chunk = std::clamp<size_t>(options_.flush_items / 4, 1, kChunkMax);
  for (size_t from = 0; from < due.size(); from += chunk) {
    const size_t to = std::min(due.size(), from + chunk);
    const auto started = std::chrono::steady_clock::now();
    ENGRAM_RETURN_IF_ERROR(FlushChunk(std::span(due).subspan(from, to - from)));
    if (!pause || to == due.size()) continue;
    pause((std::chrono::steady_clock::now() - started) * kPauseFactor);
  }
  return Status::Ok();
}

// Moves the counts of `seqs` (ascending) from pending to in flight, writes them in one
// transaction and forgets them at its commit.
Status AccessCounts::FlushChunk(std::span<const int64_t> seqs) {
  std::vector<AccessDelta> deltas;
  deltas.reserve(seqs.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t seq : seqs) {
      auto it = pending_.find(seq);
      if (it == pending_.end()) continue;
      deltas.push_back({seq, it->second.first, it->second.second});
      in_flight_.insert(*it);
      pending_.erase(it);
    }
  }
  if (deltas.empty()) return Status::Ok();
  Status written =
      store_->RecordAccess(deltas, [&](int64_t epoch, const std::function<Status()>& commit,
                                       const std::function<void()>& publish) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          in_flight_epoch_ = epoch;
        }
        Status s = commit();
        if (options_.on_commit) options_.on_commit();
        // The cached rows take the counts as the in-flight copies go: a search that read a
        // cached row before this sees flushes_done_ move and reads again.
        std::lock_guard<std::mutex> lock(mu_);
        in_flight_epoch_ = 0;
        if (!s.ok()) return s;
        publish();
        in_flight_.clear();
        last_flushed_.assign(seqs.begin(), seqs.end());
        ++flushes_done_;
        return s;
      });
  if (!written.ok()) {  // nothing written: the counts wait for the next flush
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [seq, p] : in_flight_) AddAccess(&pending_, seq, p.first, p.second);
    in_flight_.clear();
  }
  return written;
}

// Without counting, any read will do. Counting, the counts not in the rows (pending, or being
// written) are added under mu_, and no search waits for a commit (see the header):
// - a cached row holds the counts of every chunk published before it was read; a chunk is
//   published, its in-flight counts forgotten and flushes_done_ bumped in one step under mu_,
//   so if one of the rows' chunks was published since the read began, the rows are read again;
// - a row read from SQLite holds the in-flight chunk's counts if and only if its snapshot's
//   access epoch has reached the chunk's (the chunk's transaction advanced it).
Result<std::vector<ScannedItem>> AccessCounts::ReadHitRows(const Scope& scope,
                                                           const std::vector<int64_t>& seqs,
                                                           bool record_access) {
  if (!record_access) return store_->GetBySeqs(scope, seqs);
  for (;;) {
    uint64_t done_before = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_before = flushes_done_;
    }
    MemoryStore::ReadSource source;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScannedItem> rows, store_->GetBySeqs(scope, seqs, &source));
    std::lock_guard<std::mutex> lock(mu_);
    if (FlushedSince(done_before, seqs)) continue;
    // Epochs are given in commit order: a snapshot at or past the in-flight chunk's holds it.
    const bool snapshot_has_in_flight =
        in_flight_epoch_ > 0 && source.access_epoch >= in_flight_epoch_;
    for (ScannedItem& row : rows) {
      // from_db is short and usually empty: most rows come from the item cache.
      const bool read_from_db =
          std::find(source.from_db.begin(), source.from_db.end(), row.seq) != source.from_db.end();
      for (const Counts* counts : {&pending_, &in_flight_}) {
        if (counts == &in_flight_ && read_from_db && snapshot_has_in_flight) continue;
        auto it = counts->find(row.seq);
        if (it == counts->end()) continue;
        row.item.access_count += it->second.first;
        row.item.last_accessed = std::max(row.item.last_accessed.value_or(0), it->second.second);
      }
    }
    return rows;
  }
}

bool AccessCounts::FlushedSince(uint64_t done_before, const std::vector<int64_t>& seqs) const {
  if (flushes_done_ == done_before) return false;
  if (flushes_done_ - done_before > 1) return true;  // the earlier chunks are not kept
  for (int64_t seq : seqs) {
    if (std::binary_search(last_flushed_.begin(), last_flushed_.end(), seq)) return true;
  }
  return false;
}

}  // namespace engram
