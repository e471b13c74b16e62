// JobStore: the `jobs` table (docs/storage-format.md, version 4) on its own connection, the
// persistence behind JobQueue. Every read and write by id is filtered on the job's scope.
//
// Threads: safe to share (one connection, serialized by mu_). Statements are reset when each
// call ends, so no call leaves a read transaction open that would block the engine's writer.
// Inserts are group-committed: concurrent callers' jobs go into one transaction (one WAL sync)
// and each caller returns once the transaction holding its job has committed.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/group_commit.h"
#include "engram/encryption.h"
#include "engram/records.h"
#include "storage/sqlite.h"

namespace engram {

struct ClaimedJob {
  int64_t seq = 0;
  Scope scope;
  JobInfo info;
  std::string payload;
};

class JobStore {
 public:
  static Result<std::unique_ptr<JobStore>> Open(const std::string& path, TimestampMs now,
                                                std::shared_ptr<const EncryptionKey> key = nullptr);

  Status Insert(const Scope& scope, const std::string& id, const std::string& kind,
                const std::string& payload, TimestampMs now);
  Result<JobInfo> Get(const Scope& scope, const std::string& id);
  // The oldest queued job due at `now`, marked running with one more attempt; nullopt if none.
  Result<std::optional<ClaimedJob>> ClaimDue(TimestampMs now);
  // Records how the claimed job ended. A job erased meanwhile (its user's data purged) is left
  // erased: its row's seq may by then belong to another job (seqs of deleted rows are reused),
  // so the row is matched by seq and id together, and a row that is gone is not an error.
  Status Finish(const ClaimedJob& job, JobState state, const std::string& result,
                const std::string& error, TimestampMs next_attempt_at, TimestampMs now);
  // Jobs left running by a process that died are queued again; returns how many.
  Result<int64_t> RequeueRunning(TimestampMs now);
  // Deletes done and failed jobs last changed before `before` (their payload and result hold
  // what was said); returns how many.
  Result<int64_t> PurgeFinished(TimestampMs before);
  // The earliest next_attempt_at of a queued job, if any.
  Result<std::optional<TimestampMs>> NextDue();

 private:
  struct PendingInsert {
    const Scope* scope;
    const std::string* id;
    const std::string* kind;
    const std::string* payload;
    TimestampMs now;
    Status status;
  };

  explicit JobStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  // Inserts every pending job in one transaction; on failure, each alone (one bad job does
  // not fail the others). Sets each one's status.
  void InsertGroup(const std::vector<PendingInsert*>& group);
  Status InsertOne(const PendingInsert& job);  // within an open transaction; caller holds mu_

  std::mutex mu_;
  std::unique_ptr<Database> db_;  // guarded by mu_

  GroupCommit<PendingInsert> inserts_;
};

}  // namespace engram
