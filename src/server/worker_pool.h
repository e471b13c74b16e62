// WorkerPool: a fixed set of threads running submitted tasks in submission order. The HTTP
// server runs the requests that may block (disk syncs of writes, remote providers, long
// exports) here, so its event loops keep serving the other connections meanwhile.
//
// The workers run at a lower CPU priority (`nice` above the process's, 0: the same) than the
// threads that move bytes (the event loops, the relay, the stream pump): when a burst of
// requests makes every worker runnable at once, a chunk in flight or a reply ready to go does not
// wait for the workers' time slices. Raising one's own niceness needs no privilege.
//
// Thread-safe. Shutdown() (also run by the destructor) runs every task already submitted,
// then joins the threads; Submit after Shutdown returns false and drops the task.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engram::server {

class WorkerPool {
 public:
  explicit WorkerPool(int threads, int nice = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool Submit(std::function<void()> task);
  void Shutdown();

 private:
  void Run(int nice);

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool closed_ = false;                      // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace engram::server
