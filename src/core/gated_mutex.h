// A mutex whose waiters are served about in turn. std::mutex lets the thread that just
// unlocked take it straight back, so a thread committing back to back can keep another
// (the WAL checkpoint, which needs a moment without commits) waiting for thousands of
// commits. Here every locker first passes a gate, and holds the gate while it waits: the
// thread that unlocks and comes back queues at the gate behind the waiter.
//
// Threads: safe to share; lock()/unlock() as std::mutex (use with std::lock_guard).
#pragma once

#include <mutex>

namespace engram {

class GatedMutex {
 public:
  void lock() {
    std::lock_guard<std::mutex> gate(gate_);
    mu_.lock();
  }
  void unlock() { mu_.unlock(); }

 private:
  std::mutex gate_;  // held by at most one thread waiting for mu_
  std::mutex mu_;
};

}  // namespace engram
