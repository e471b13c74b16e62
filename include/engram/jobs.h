// JobQueue: asynchronous writes. A job is persisted (table `jobs`) before its id is returned,
// run by background workers, retried with backoff when it fails, and picked up again after a
// restart — so a 202 Accepted is as durable as a 201 Created.
//
// The queue is generic: a job is (scope, kind, payload text); the handler registered for the
// kind decodes the payload and does the work. Jobs are visible only in their scope (tenant +
// user), like memories. Threads: safe to share; Stop() (or destruction) waits for running jobs.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engram/clock.h"
#include "engram/engine.h"
#include "engram/records.h"

namespace engram {

class JobStore;
class IdGenerator;

// Does a job's work. An error whose code is Unavailable (a provider down) is retried; any
// other error fails the job at once (retrying a bad payload cannot help). `last_attempt` says
// no retry follows, so the handler can fall back to what never fails.
using JobHandler = std::function<Result<std::string>(const Scope& scope, const std::string& payload,
                                                     bool last_attempt)>;

struct JobQueueOptions {
  int workers = 1;
  int max_attempts = 5;
  int64_t initial_backoff_ms = 1000;  // doubles per failed attempt
  int64_t poll_interval_ms = 1000;    // how often workers look for due retries
  // Finished (done or failed) jobs are deleted this long after they finished: a job's payload
  // and result hold what was said, and GET /v1/jobs/{id} serves them until then. Checked when
  // the queue opens and then hourly. 0: kept forever.
  int64_t finished_retention_ms = 7LL * 24 * 60 * 60 * 1000;
  const Clock* clock = nullptr;  // default system clock
  // Where store errors of the workers go (they cannot be returned to anyone); default stderr.
  std::function<void(const std::string&)> log;
};

class JobQueue {
 public:
  // `engine` outlives the queue. Jobs a previous process left running are queued again.
  static Result<std::unique_ptr<JobQueue>> Open(Engine* engine, JobQueueOptions options);
  ~JobQueue();

  // Registers the handler of `kind` (before Start).
  void Handle(const std::string& kind, JobHandler handler);
  void Start();
  // Stops taking jobs and waits for running ones.
  void Stop();

  // Persists a job and wakes a worker; returns its id ("job_" + UUIDv7).
  Result<std::string> Submit(const Scope& scope, const std::string& kind,
                             const std::string& payload);
  // NotFound for an id of another scope, exactly as for one that does not exist.
  Result<JobInfo> Get(const Scope& scope, const std::string& id);
  // Blocks until no job is queued or running (tests, shutdown of one-shot tools).
  void WaitIdle();

 private:
  JobQueue(Engine* engine, JobQueueOptions options, std::unique_ptr<JobStore> store);
  void WorkerLoop();
  bool RunOne();              // false when nothing was due
  void PurgeFinishedIfDue();  // at most hourly (finished_retention_ms)
  void Log(const std::string& line) const;

  Engine* engine_;
  JobQueueOptions options_;
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<IdGenerator> ids_;
  std::map<std::string, JobHandler> handlers_;  // set before Start, then read-only

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  bool stopping_ = false;         // guarded by mu_
  TimestampMs last_cleanup_ = 0;  // guarded by mu_: when finished jobs were last purged
  int running_ = 0;               // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace engram
