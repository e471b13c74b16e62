// Group commit, leader/follower: callers that arrive while a commit is in progress wait; the
// first caller to find none takes everything queued so far (its own entry included) and
// commits it as one group, then wakes the others. Each caller returns once the group holding
// its entry is committed. Used for the engine's adds and the job store's inserts, so concurrent
// writes share one transaction (one WAL sync) while a lone write commits by itself.
#pragma once

#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

namespace engram {

template <typename Entry>
class GroupCommit {
 public:
  // Queues `entry` and returns when it has been committed by `commit(const std::vector<Entry*>&)`,
  // run on this thread or another; `commit` reports each entry's outcome in the entry itself.
  template <typename Commit>
  void Run(Entry* entry, Commit&& commit) {
    Waiter me{entry};
    std::unique_lock<std::mutex> lock(mu_);
    queued_.push_back(&me);
    while (!me.done) {
      if (committing_) {
        committed_.wait(lock);
        continue;
      }
      committing_ = true;
      std::vector<Waiter*> group;
      group.swap(queued_);
      lock.unlock();
      std::vector<Entry*> entries;
      entries.reserve(group.size());
      for (Waiter* w : group) entries.push_back(w->entry);
      commit(entries);
      lock.lock();
      for (Waiter* w : group) w->done = true;
      committing_ = false;
      committed_.notify_all();
    }
  }

 private:
  struct Waiter {
    Entry* entry;
    bool done = false;
  };
  std::mutex mu_;
  std::condition_variable committed_;
  std::vector<Waiter*> queued_;  // guarded by mu_
  bool committing_ = false;      // guarded by mu_
};

}  // namespace engram
