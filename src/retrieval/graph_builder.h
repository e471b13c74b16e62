// GraphBuilder: builds the HNSW graphs of scope indexes on a background thread, so that a
// scope crossing hnsw_threshold (or loading past it without a snapshot) does not hold the
// engine's write lock for the seconds or minutes a graph takes.
//
// A build copies the scope's vectors under the index lock (milliseconds), builds the graph
// with no lock held while the scan index keeps serving searches and writes, then replays the
// vectors changed meanwhile: in rounds outside the lock while many changed, and the last few
// under the exclusive lock just before the graph replaces the scan index. Every change made
// after the copy is therefore in the graph, once, in its latest state.
//
// It also merges the tails of scopes that have a graph (ScopeIndex::MergeTail): kMergeBatch
// vectors per hold of the exclusive lock, scopes taking turns, merges before queued builds.
//
// Threads: all methods are thread-safe. One job runs at a time; a large build inserts from
// several threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "index/hnsw_index.h"
#include "retrieval/scope_index.h"

namespace engram {

struct GraphBuilderOptions {
  int max_threads = 0;            // inserting threads for large builds; 0: one per core
  size_t parallel_from = 50'000;  // vectors from which a build uses max_threads
  HnswOptions graph;              // dimension is taken from the index
};

class GraphBuilder {
 public:
  explicit GraphBuilder(const GraphBuilderOptions& options);
  // Cancels a running build (its index stays exact), drops queued ones, joins the thread.
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  // Queues a build for an index whose RequestGraph() returned true. The builder holds the index
  // weakly: an index dropped before its turn is skipped.
  void Enqueue(const std::shared_ptr<ScopeIndex>& index);
  // Queues a tail merge for an index whose RequestMerge() returned true.
  void EnqueueMerge(const std::shared_ptr<ScopeIndex>& index);
  // Blocks until no build or merge is queued or running.
  void WaitIdle();

  // Vectors merged per hold of the index's exclusive lock: each is a graph insert, so a small
  // batch keeps the wait of the searches and writes queued on the lock short, without taking
  // the lock once per vector.
  static constexpr size_t kMergeBatch = 16;

 private:
  struct Job {
    std::weak_ptr<ScopeIndex> index;
    bool merge = false;
  };
  void Run();
  void StartLocked();
  // Queues a merge after the merges already queued and before the builds.
  void QueueMergeLocked(Job job);
  // One batch; true if the index's tail still holds vectors to merge.
  static bool MergeBatch(ScopeIndex& index);
  void Build(ScopeIndex& index);
  // Applies the changes taken from the index to `graph`; false if one failed.
  static bool Replay(const std::vector<VectorChange>& changes, HnswIndex* graph);

  GraphBuilderOptions options_;
  std::atomic<bool> cancel_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // guarded by mu_
  bool busy_ = false;      // guarded by mu_: a build is running
  bool stop_ = false;      // guarded by mu_
  std::thread worker_;     // started by the first Enqueue
};

}  // namespace engram
