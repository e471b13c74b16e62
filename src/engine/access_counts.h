// AccessCounts: the access statistics of search hits (access_count, last_accessed), counted in
// memory by searches and written to the store later in batches, so that no search waits for a
// write; an item read often between two flushes is written once.
//
// Flushes: the engine's background thread (engine/background.h) calls Flush when Due() (the
// oldest count is kFlushIntervalMs old, or flush_items items have counts), pacing itself
// between chunks; Engine::FlushAccessStats and shutdown flush without pauses. A flush writes
// at most min(flush_items / 4, kChunkMax) items per transaction, in seq order, committing
// between chunks, so writers (they share SQLite's one write lock) wait for one chunk at most.
//
// Counts never go missing or twice into a returned item: counts being written are kept "in
// flight" until their chunk is published. A search adds the counts not yet in its rows and never
// waits for a commit to know which those are (ReadHitRows): each chunk's transaction also
// advances the database's access epoch (kept in in_flight_epoch_ during the commit), which a
// search reading rows from SQLite reads in the same snapshot; after the commit, in one step
// under mu_, the chunk's counts are given to the item cache's rows and forgotten, flushes_done_
// is bumped and the chunk's seqs kept in last_flushed_, and a search that read cached rows
// while a chunk of theirs was published reads again.
//
// Threads: every method is thread-safe; one flush runs at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/clock.h"
#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

class MemoryStore;
struct ScannedItem;

struct AccessCountsOptions {
  // Items with counts that make a flush due at once (EngineOptions::access_flush_items); 0 is
  // taken as 1.
  size_t flush_items = 100'000;
  const Clock* clock = nullptr;  // the engine's clock: times of reads and flushes; required
  // Tests only: runs inside each chunk's commit, after SQLite's commit and before the counts
  // are given to the item cache and forgotten (src/engine/engine_internal.h).
  std::function<void()> on_commit;
};

class AccessCounts {
 public:
  // Counts wait at most this long on the engine's clock: between flushes an item read many
  // times is written once, and the checkpoints copy fewer pages.
  static constexpr TimestampMs kFlushIntervalMs = 5000;
  // Items per transaction: a writer waits for one chunk's commit at most (searches never wait:
  // ReadHitRows), so a chunk stays short.
  static constexpr size_t kChunkMax = 500;
  // A paced flush waits this many times as long as each chunk took before the next, so it
  // takes at most a quarter of a core instead of bursts that starve the searches.
  static constexpr int kPauseFactor = 3;

  // `store` outlives this object.
  AccessCounts(MemoryStore* store, AccessCountsOptions options);
  AccessCounts(const AccessCounts&) = delete;
  AccessCounts& operator=(const AccessCounts&) = delete;

  // Counts one read at `now` of each of `seqs`. True when this made a flush due at once
  // (flush_items items wait): the caller wakes the flusher.
  bool Note(const std::vector<int64_t>& seqs, TimestampMs now);
  // A flush is due: flush_items reached, or the oldest pending count is kFlushIntervalMs old.
  bool Due(TimestampMs now);
  // Writes the counts pending now (counts arriving meanwhile wait for the next flush). With
  // `pause`, calls it between chunks with kPauseFactor times the chunk's duration. A failure
  // keeps the unwritten counts pending. Waits for a flush in progress first.
  Status Flush(const std::function<void(std::chrono::nanoseconds)>& pause = nullptr);
  // A search's rows by seq; with `record_access`, with the counts not yet written added in.
  Result<std::vector<ScannedItem>> ReadHitRows(const Scope& scope, const std::vector<int64_t>& seqs,
                                               bool record_access);

 private:
  using Counts = std::unordered_map<int64_t, std::pair<int64_t, TimestampMs>>;  // count, last
  // Writes the pending counts of `seqs` (ascending) in one transaction.
  Status FlushChunk(std::span<const int64_t> seqs);
  // Under mu_: a commit that wrote one of `seqs` finished since `done_before`.
  bool FlushedSince(uint64_t done_before, const std::vector<int64_t>& seqs) const;

  MemoryStore* store_;
  AccessCountsOptions options_;

  std::mutex mu_;
  Counts pending_;                // guarded by mu_
  Counts in_flight_;              // guarded by mu_
  TimestampMs last_flush_ = 0;    // guarded by mu_
  bool flush_requested_ = false;  // guarded by mu_
  uint64_t flushes_done_ = 0;     // guarded by mu_
  int64_t in_flight_epoch_ = 0;   // guarded by mu_; the access epoch of the chunk committing, or 0
  std::vector<int64_t> last_flushed_;  // guarded by mu_; ascending
  std::mutex flush_mu_;                // one flush at a time
};

}  // namespace engram
