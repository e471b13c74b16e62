#include <algorithm>
#include <chrono>
#include <iostream>

#include "core/id_generator.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "engram/jobs.h"
#include "storage/job_store.h"

namespace engram {

Result<std::unique_ptr<JobQueue>> JobQueue::Open(Engine* engine, JobQueueOptions options) {
  if (!options.clock) options.clock = SystemClock::Default();
  if (options.workers < 1 || options.max_attempts < 1) {
    return Status::InvalidArgument("a job queue needs at least one worker and one attempt");
  }
  const TimestampMs now = options.clock->NowMs();
  ENGRAM_ASSIGN_OR_RETURN(
      auto store, JobStore::Open(engine->options().path, now, engine->options().encryption_key));
  ENGRAM_RETURN_IF_ERROR(store->RequeueRunning(now).status());
  return std::unique_ptr<JobQueue>(new JobQueue(engine, options, std::move(store)));
}

JobQueue::JobQueue(Engine* engine, JobQueueOptions options, std::unique_ptr<JobStore> store)
    : engine_(engine),
      options_(options),
      store_(std::move(store)),
      ids_(std::make_unique<IdGenerator>()) {}

JobQueue::~JobQueue() { Stop(); }

void JobQueue::Log(const std::string& line) const {
  if (options_.log)
    options_.log(line);
  else
    std::cerr << line << "\n";
}

void JobQueue::Handle(const std::string& kind, JobHandler handler) {
  handlers_[kind] = std::move(handler);
}

void JobQueue::Start() {
  PurgeFinishedIfDue();  // takes mu_ itself
  std::lock_guard<std::mutex> lock(mu_);
  if (!workers_.empty()) return;
  stopping_ = false;
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

void JobQueue::Stop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  wake_.notify_all();
  for (std::thread& t : workers) t.join();
}

Result<std::string> JobQueue::Submit(const Scope& scope, const std::string& kind,
                                     const std::string& payload) {
  if (!handlers_.count(kind)) return Status::InvalidArgument("no handler for job kind " + kind);
  const TimestampMs now = options_.clock->NowMs();
  std::string id = "job_" + ids_->Next(now);
  ENGRAM_RETURN_IF_ERROR(store_->Insert(scope, id, kind, payload, now));
  wake_.notify_one();
  return id;
}

Result<JobInfo> JobQueue::Get(const Scope& scope, const std::string& id) {
  if (!IsValidId(id)) return Status::InvalidArgument("invalid job id '" + id + "'");
  return store_->Get(scope, id);
}

bool JobQueue::RunOne() {
  // Counted as running before the claim, so WaitIdle never sees a claimed job as neither
  // queued nor running.
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++running_;
  }
  auto done_running = [this] {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
    }
    idle_.notify_all();
  };
  const TimestampMs now = options_.clock->NowMs();
  auto claimed = store_->ClaimDue(now);
  if (!claimed.ok()) {
    Log("engram: job queue: cannot claim a job: " + claimed.status().ToString());
    done_running();
    return false;
  }
  if (!claimed->has_value()) {
    done_running();
    return false;
  }
  ClaimedJob job = std::move(**claimed);
  auto handler = handlers_.find(job.info.kind);
  Result<std::string> result =
      handler == handlers_.end()
          ? Result<std::string>(Status::InvalidArgument("no handler for job kind " + job.info.kind))
          : handler->second(job.scope, job.payload, job.info.attempts >= options_.max_attempts);
  const TimestampMs done_at = options_.clock->NowMs();
  Status finished;
  if (result.ok()) {
    finished = store_->Finish(job, JobState::kDone, *result, "", done_at, done_at);
  } else {
    const bool retry = result.status().code() == StatusCode::kUnavailable &&
                       job.info.attempts < options_.max_attempts;
    const int64_t backoff = options_.initial_backoff_ms << std::min(job.info.attempts - 1, 16);
    finished =
        store_->Finish(job, retry ? JobState::kQueued : JobState::kFailed, "",
                       result.status().ToString(), retry ? done_at + backoff : done_at, done_at);
  }
  if (!finished.ok()) {
    // The job stays `running` and is queued again at the next start.
    Log("engram: job queue: cannot record the end of " + job.info.id + ": " + finished.ToString());
  }
  done_running();
  return true;
}

void JobQueue::PurgeFinishedIfDue() {
  if (options_.finished_retention_ms <= 0) return;
  const TimestampMs now = options_.clock->NowMs();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_cleanup_ != 0 && now - last_cleanup_ < 60 * 60 * 1000) return;
    last_cleanup_ = now;
  }
  auto removed = store_->PurgeFinished(now - options_.finished_retention_ms);
  if (!removed.ok())
    Log("engram: job queue: cannot purge finished jobs: " + removed.status().ToString());
}

void JobQueue::WorkerLoop() {
  // Asynchronous adds are background work: they yield the cores to the requests being served
  // (and to the chunks of streams in flight), which wait on them for nothing.
  NameAndDeprioritizeThisThread("engram-jobs", kBackgroundNice);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (RunOne()) continue;
    PurgeFinishedIfDue();
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    idle_.notify_all();
    wake_.wait_for(lock, std::chrono::milliseconds(options_.poll_interval_ms));
  }
}

void JobQueue::WaitIdle() {
  while (true) {
    auto next = store_->NextDue();
    const TimestampMs now = options_.clock->NowMs();
    bool pending = next.ok() && next->has_value();
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!pending && running_ == 0) return;
      if (pending && **next <= now) wake_.notify_one();
      idle_.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
}

}  // namespace engram
