#include "storage/job_store.h"

#include "core/status_macros.h"
#include "storage/migrations.h"

namespace engram {
namespace {

Result<JobState> ParseJobState(std::string_view s) {
  if (s == "queued") return JobState::kQueued;
  if (s == "running") return JobState::kRunning;
  if (s == "done") return JobState::kDone;
  if (s == "failed") return JobState::kFailed;
  return Status::Corruption("stored job state '" + std::string(s) + "' is unknown");
}

constexpr char kColumns[] =
    "jobs.id, jobs.kind, jobs.state, jobs.attempts, coalesce(jobs.result, ''), jobs.error, "
    "jobs.created_at, jobs.updated_at, jobs.next_attempt_at";

Result<JobInfo> ReadInfo(const Statement& st, int first) {
  JobInfo j;
  j.id = st.String(first);
  j.kind = st.String(first + 1);
  ENGRAM_ASSIGN_OR_RETURN(j.state, ParseJobState(st.Text(first + 2)));
  j.attempts = static_cast<int>(st.Int(first + 3));
  j.result = st.String(first + 4);
  j.error = st.String(first + 5);
  j.created_at = st.Int(first + 6);
  j.updated_at = st.Int(first + 7);
  j.next_attempt_at = st.Int(first + 8);
  return j;
}

}  // namespace

Result<std::unique_ptr<JobStore>> JobStore::Open(const std::string& path, TimestampMs now,
                                                 std::shared_ptr<const EncryptionKey> key) {
  // The engine that owns the file checkpoints it in the background; a job insert never does.
  ENGRAM_ASSIGN_OR_RETURN(
      auto db, OpenEngramDatabase(path, DatabaseOptions{.wal_autocheckpoint = 0, .key = key}, now));
  return std::unique_ptr<JobStore>(new JobStore(std::move(db)));
}

Status JobStore::Insert(const Scope& scope, const std::string& id, const std::string& kind,
                        const std::string& payload, TimestampMs now) {
  PendingInsert me{&scope, &id, &kind, &payload, now, Status::Ok()};
  inserts_.Run(&me, [this](const std::vector<PendingInsert*>& group) { InsertGroup(group); });
  return me.status;
}

void JobStore::InsertGroup(const std::vector<PendingInsert*>& group) {
  std::lock_guard<std::mutex> lock(mu_);
  auto run = [&](const std::vector<PendingInsert*>& jobs) {
    ConnectionCall call(db_.get(), "JobStore::InsertGroup");
    Transaction txn(db_.get());
    Status s = txn.Begin();
    for (size_t i = 0; s.ok() && i < jobs.size(); ++i) s = InsertOne(*jobs[i]);
    if (s.ok()) s = txn.Commit();
    return s;
  };
  Status s = run(group);
  if (s.ok() || group.size() == 1) {
    for (PendingInsert* p : group) p->status = s;
    return;
  }
  for (PendingInsert* p : group) p->status = run({p});
}

Status JobStore::InsertOne(const PendingInsert& job) {
  // A group may hold several tenants' jobs: each is written as its tenant's.
  ENGRAM_RETURN_IF_ERROR(db_->BindTenant(job.scope->tenant));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement scope_row,
                          db_->Prepare("INSERT INTO scopes(tenant, user_id) VALUES (?, ?) "
                                       "ON CONFLICT (tenant, user_id) DO NOTHING"));
  ENGRAM_RETURN_IF_ERROR(scope_row->Bind(1, job.scope->tenant).Bind(2, job.scope->user_id).Run());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("INSERT INTO jobs(id, scope_id, kind, payload, state, next_attempt_at, "
                   "created_at, updated_at) SELECT ?, id, ?, ?, 'queued', ?, ?, ? FROM scopes "
                   "WHERE tenant = ? AND user_id = ?"));
  st->Bind(1, *job.id).Bind(2, *job.kind).Bind(3, *job.payload);
  st->Bind(4, job.now).Bind(5, job.now).Bind(6, job.now);
  return st->Bind(7, job.scope->tenant).Bind(8, job.scope->user_id).Run();
}

Result<JobInfo> JobStore::Get(const Scope& scope, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "JobStore::Get");
  ENGRAM_RETURN_IF_ERROR(db_->BindTenant(scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare(std::string("SELECT ") + kColumns +
                   " FROM jobs WHERE id = ? AND scope_id = (SELECT id FROM scopes WHERE "
                   "tenant = ? AND user_id = ?)"));
  st->Bind(1, id).Bind(2, scope.tenant).Bind(3, scope.user_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return Status::NotFound("job '" + id + "' not found");
  return ReadInfo(*st, 0);
}

Result<std::optional<ClaimedJob>> JobStore::ClaimDue(TimestampMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "JobStore::ClaimDue");
  ENGRAM_RETURN_IF_ERROR(db_->BindAllTenants());  // the queue spans tenants
  Transaction txn(db_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare(std::string("SELECT jobs.seq, scopes.tenant, scopes.user_id, payload, ") +
                   kColumns +
                   " FROM jobs JOIN scopes ON scopes.id = jobs.scope_id WHERE state = 'queued' "
                   "AND next_attempt_at <= ? ORDER BY next_attempt_at, jobs.seq LIMIT 1"));
  st->Bind(1, now);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ClaimedJob>();
  ClaimedJob job;
  job.seq = st->Int(0);
  job.scope.tenant = st->String(1);
  job.scope.user_id = st->String(2);
  job.payload = st->String(3);
  ENGRAM_ASSIGN_OR_RETURN(job.info, ReadInfo(*st, 4));
  st->Reset();
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement up,
      db_->Prepare("UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ? "
                   "WHERE seq = ? AND state = 'queued'"));
  ENGRAM_RETURN_IF_ERROR(up->Bind(1, now).Bind(2, job.seq).Run());
  // Another process sharing the database (a replica on PostgreSQL) claimed it between the
  // look and the update: the job is its to run.
  if (db_->Changes() == 0) return std::optional<ClaimedJob>();
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  job.info.state = JobState::kRunning;
  job.info.attempts += 1;
  return std::optional<ClaimedJob>(std::move(job));
}

Status JobStore::Finish(const ClaimedJob& job, JobState state, const std::string& result,
                        const std::string& error, TimestampMs next_attempt_at, TimestampMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "JobStore::Finish");
  ENGRAM_RETURN_IF_ERROR(db_->BindAllTenants());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("UPDATE jobs SET state = ?, result = ?, error = ?, next_attempt_at = ?, "
                   "updated_at = ? WHERE seq = ? AND id = ?"));
  st->Bind(1, ToString(state));
  result.empty() ? st->BindNull(2) : st->Bind(2, result);
  st->Bind(3, error).Bind(4, next_attempt_at).Bind(5, now);
  return st->Bind(6, job.seq).Bind(7, job.info.id).Run();
}

Result<int64_t> JobStore::RequeueRunning(TimestampMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "JobStore::RequeueRunning");
  ENGRAM_RETURN_IF_ERROR(db_->BindAllTenants());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("UPDATE jobs SET state = 'queued', next_attempt_at = ?, updated_at = ?, "
                   "error = 'interrupted by a restart' WHERE state = 'running'"));
  ENGRAM_RETURN_IF_ERROR(st->Bind(1, now).Bind(2, now).Run());
  return db_->Changes();
}

Result<int64_t> JobStore::PurgeFinished(TimestampMs before) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t removed = 0;
  {
    ConnectionCall call(db_.get(), "JobStore::PurgeFinished");
    ENGRAM_RETURN_IF_ERROR(db_->BindAllTenants());
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement st,
        db_->Prepare("DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < ?"));
    ENGRAM_RETURN_IF_ERROR(st->Bind(1, before).Run());
    removed = db_->Changes();
  }
  // Their payloads are what people said: out of the WAL too (secure_delete zeroed the pages).
  if (removed > 0 && db_->dialect() == SqlDialect::kSqlite) {
    (void)db_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  return removed;
}

Result<std::optional<TimestampMs>> JobStore::NextDue() {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "JobStore::NextDue");
  ENGRAM_RETURN_IF_ERROR(db_->BindAllTenants());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("SELECT min(next_attempt_at) FROM jobs WHERE state = 'queued'"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<TimestampMs>();
  return st->OptionalInt(0);
}

}  // namespace engram
