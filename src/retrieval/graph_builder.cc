#include "retrieval/graph_builder.h"

#include <pthread.h>

#include <algorithm>

namespace engram {
namespace {

// Changes replayed under the exclusive lock at most: each is a graph insert (a graph search of
// its own) while the scope's searches and writes wait, so more are replayed outside it first,
// for at most kMaxOpenRounds rounds.
constexpr size_t kLockedReplay = 256;
constexpr int kMaxOpenRounds = 8;

}  // namespace

GraphBuilder::GraphBuilder(const GraphBuilderOptions& options) : options_(options) {
  if (options_.max_threads <= 0) {
    options_.max_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
}

GraphBuilder::~GraphBuilder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cancel_ = true;
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void GraphBuilder::Enqueue(const std::shared_ptr<ScopeIndex>& index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  queue_.push_back({index, false});
  StartLocked();
}

// Merges go after the merges already queued and before the builds: a build takes seconds, and
// a growing tail slows every search of its scope.
void GraphBuilder::EnqueueMerge(const std::shared_ptr<ScopeIndex>& index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  QueueMergeLocked({index, true});
  StartLocked();
}

void GraphBuilder::QueueMergeLocked(Job job) {
  auto first_build =
      std::find_if(queue_.begin(), queue_.end(), [](const Job& j) { return !j.merge; });
  queue_.insert(first_build, std::move(job));
}

void GraphBuilder::StartLocked() {
  if (!worker_.joinable()) {
    worker_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "engram-graphs");  // as top -H and perf show it
      Run();
    });
  }
  cv_.notify_all();
}

bool GraphBuilder::MergeBatch(ScopeIndex& index) {
  std::unique_lock<std::shared_mutex> lock(index.mu);
  return index.MergeTail(kMergeBatch) > 0;
}

void GraphBuilder::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return stop_ || (queue_.empty() && !busy_); });
}

void GraphBuilder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = queue_.front();
    queue_.pop_front();
    std::shared_ptr<ScopeIndex> index = job.index.lock();
    if (!index) continue;
    busy_ = true;
    lock.unlock();
    bool again = false;
    if (job.merge) {
      again = MergeBatch(*index);
    } else {
      Build(*index);
    }
    index.reset();
    lock.lock();
    busy_ = false;
    if (again && !stop_) QueueMergeLocked(std::move(job));  // after the other scopes' merges
    cv_.notify_all();
  }
}

bool GraphBuilder::Replay(const std::vector<VectorChange>& changes, HnswIndex* graph) {
  for (const VectorChange& c : changes) {
    Status st = c.vector ? graph->Upsert(c.key, c.vector->data()) : graph->Remove(c.key);
    if (!st.ok()) return false;
  }
  return true;
}

void GraphBuilder::Build(ScopeIndex& index) {
  VectorSet set;
  {
    std::unique_lock<std::shared_mutex> lock(index.mu);
    set = index.BeginGraphBuild();
  }
  HnswOptions graph_options = options_.graph;
  graph_options.dimension = index.dimension();
  const HnswBuildInput input{
      .keys = set.keys.data(),
      .data = set.data.data(),
      .count = set.keys.size(),
      .threads = set.keys.size() >= options_.parallel_from ? options_.max_threads : 1,
      .cancel = &cancel_};
  auto built = HnswIndex::Build(graph_options, input);
  set = VectorSet();  // the copy is no longer needed: free it before replaying
  std::unique_ptr<HnswIndex> graph = built.ok() ? std::move(built).value() : nullptr;
  for (int round = 0; graph && !cancel_ && round <= kMaxOpenRounds; ++round) {
    std::unique_lock<std::shared_mutex> lock(index.mu);
    std::vector<VectorChange> changes = index.TakeVectorChanges();
    if (changes.size() > kLockedReplay && round < kMaxOpenRounds) {
      lock.unlock();
      if (!Replay(changes, graph.get())) graph.reset();
      continue;
    }
    if (!Replay(changes, graph.get())) graph.reset();
    index.EndGraphBuild(std::move(graph), /*retry_later=*/false);
    return;
  }
  std::unique_lock<std::shared_mutex> lock(index.mu);
  index.EndGraphBuild(nullptr, /*retry_later=*/cancel_.load());
}

}  // namespace engram
