// Engine::Maintain: the lifecycle's maintenance run (include/engram/lifecycle.h).
//
// For each item looked at, one decision:
//   active, expires_at passed           → archived ("expire"), grace starts
//   active, retention < archive_below   → archived ("archive"), unless critical
//   archived, grace (purge_after_days) over → purged, unless critical
//   otherwise                           → its next review time is stored: when its retention
//                                         will cross the threshold, it expires, or its grace ends
// The next run then reads only the items whose review time has come and those changed since
// (history rows past the scope's mark), which is what makes a run incremental: an item nobody
// touched is not read again until it is due. A use (a search hit, a restatement) postpones an
// item's decline; when its review time comes it is judged again with its current counts and
// rescheduled if it is still worth keeping.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "index/vector_index.h"
#include "llm/maintenance_writer.h"
#include "llm/prompts.h"
#include "retrieval/scope_index.h"
#include "storage/memory_store.h"
#include "text/language.h"
#include "text/utf8.h"

namespace engram {
namespace {

constexpr double kMsPerDay = 86'400'000.0;
// Changes, purges and review times written per transaction: adds and searches wait for at
// most one such commit.
constexpr size_t kBatchOps = 256;

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Days(double days) {
  return Fixed(days, days < 10 ? 1 : 0) + (days == 1 ? " day" : " days");
}

struct Decision {
  std::optional<MaintenanceAction> action;
  std::string reason;
  std::optional<TimestampMs> review_at;
};

Decision Decide(const MemoryItem& item, const RetentionPolicy& retention,
                const MaintenancePolicy& policy, TimestampMs now) {
  Decision d;
  const bool critical = IsCritical(item, retention);
  const TimestampMs grace_ms = static_cast<TimestampMs>(policy.purge_after_days * kMsPerDay);
  if (item.status == ItemStatus::kArchived) {
    if (critical || policy.purge_after_days <= 0) return d;  // kept archived, never purged
    // A turn folded into a summary stays, archived, for the summary to be drilled into.
    if (IsKeptTurn(item) && !item.superseded_by.empty()) return d;
    const TimestampMs due = item.updated_at + grace_ms;
    if (due > now) {
      d.review_at = due;
      return d;
    }
    d.action = MaintenanceAction::kPurge;
    d.reason = "archived since " + FormatTimestamp(item.updated_at) + ", past the grace of " +
               Days(policy.purge_after_days);
    return d;
  }
  if (item.expires_at && *item.expires_at <= now) {
    d.action = MaintenanceAction::kExpire;
    d.reason = "expired at " + FormatTimestamp(*item.expires_at);
    return d;
  }
  const RetentionInputs in = RetentionInputsOf(item, retention);
  const double r = Retention(in, retention, now);
  if (!critical && policy.archive_below > 0 && r < policy.archive_below) {
    d.action = MaintenanceAction::kArchive;
    const double base = EffectiveHalfLifeDays(
        RetentionInputs{.type = in.type, .importance = in.importance}, retention);
    d.reason = "retention " + Fixed(r, 3) + " below " + Fixed(policy.archive_below, 3) + " (" +
               std::string(ToString(item.type)) + ", half-life " + Days(base) +
               (in.access_count > 0 ? " ×" + Fixed(EffectiveHalfLifeDays(in, retention) / base, 2) +
                                          " for " + std::to_string(in.access_count) + " uses"
                                    : "") +
               ", importance " + Fixed(item.importance, 2) + ", last used " +
               FormatTimestamp(in.last_used) + ")";
    return d;
  }
  std::optional<TimestampMs> next = RetentionFallsBelow(in, retention, policy.archive_below);
  if (item.expires_at && (!next || *item.expires_at < *next)) next = item.expires_at;
  if (next) d.review_at = std::max(*next, now + 1);
  return d;
}

}  // namespace

Result<MaintenanceReport> Engine::Impl::Maintain(const MaintenanceRequest& request,
                                                 const ProgressFn& progress) {
  ENGRAM_RETURN_IF_ERROR(ValidateText("tenant", request.tenant, kMaxListEntryBytes));
  ENGRAM_RETURN_IF_ERROR(ValidateText("user_id", request.user_id, kMaxListEntryBytes));
  if (!request.user_id.empty() && request.tenant.empty()) {
    return Status::InvalidArgument("a user is named within a tenant: give the tenant too");
  }
  std::lock_guard<std::mutex> one_run(maintain_mu_);
  const auto started = std::chrono::steady_clock::now();
  // Reads counted so far are uses: write them, so that every item is judged with them.
  ENGRAM_RETURN_IF_ERROR(access_.Flush());
  const TimestampMs now = Now();
  ENGRAM_ASSIGN_OR_RETURN(int64_t latest_history, store_->LatestHistorySeq());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<MaintainedScope> scopes,
                          store_->MaintenanceScopes(request.tenant, request.user_id));
  // A scope maintained before is looked at incrementally (unless the request is for a full
  // run); one never maintained, whole.
  std::optional<int64_t> min_seen;
  for (const MaintainedScope& s : scopes) {
    if (s.history_seq) min_seen = std::min(min_seen.value_or(*s.history_seq), *s.history_seq);
  }
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> due;
  if (!request.full && min_seen) {
    ENGRAM_ASSIGN_OR_RETURN(
        std::vector<ReviewWork> listed,
        store_->ReviewWorkList(request.tenant, request.user_id, now, *min_seen));
    for (ReviewWork& w : listed) {
      due[{w.scope.tenant, w.scope.user_id}] = std::move(w.seqs);
    }
  }
  struct Visit {
    Scope scope;
    bool whole = false;
    std::vector<int64_t> seqs;
  };
  std::vector<Scope> maintained;  // every scope of the request: none has anything left to do
  for (const MaintainedScope& s : scopes) maintained.push_back(s.scope);
  std::vector<Visit> work;
  bool full = true;
  for (MaintainedScope& s : scopes) {
    if (request.full || !s.history_seq) {
      work.push_back(Visit{std::move(s.scope), true, {}});
      continue;
    }
    full = false;
    auto it = due.find({s.scope.tenant, s.scope.user_id});
    if (it != due.end()) work.push_back(Visit{s.scope, false, std::move(it->second)});
  }

  std::set<std::pair<std::string, std::string>> retry;  // scopes to leave unmarked
  MaintenanceReport report;
  report.dry_run = request.dry_run;
  report.full = full;
  report.at = now;
  const RetentionPolicy& retention = options_.retention;
  const MaintenancePolicy& policy = options_.maintenance;
  for (size_t w = 0; w < work.size(); ++w) {
    // The engine is closing: stop between scopes (no scope is marked maintained, so the next
    // run looks at what this one did not reach).
    if (!maintenance_.Sleep(std::chrono::nanoseconds(0))) {
      return Status::Unavailable("maintenance stopped: the engine is closing");
    }
    const Scope& scope = work[w].scope;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScannedItem> items,
                            store_->ReviewItems(scope, work[w].whole ? nullptr : &work[w].seqs));
    MaintenanceUserCounts counts{scope.tenant, scope.user_id};
    MaintenanceBatch batch;
    auto flush = [&]() -> Status {
      if (request.dry_run || (batch.changes.empty() && batch.purge_ids.empty() &&
                              batch.review_at.empty() && batch.log.empty())) {
        batch = MaintenanceBatch();
        return Status::Ok();
      }
      ENGRAM_RETURN_IF_ERROR(CommitMaintenance(scope, batch, now));
      batch = MaintenanceBatch();
      return Status::Ok();
    };
    // Archives (or expires) one item; `into` names the summary it was folded into.
    auto archive = [&](const ScannedItem& scanned, MaintenanceAction action,
                       const std::string& reason, const std::string& into) {
      const MemoryItem& item = scanned.item;
      ++(action == MaintenanceAction::kExpire ? counts.expired : counts.archived);
      StoreOp op;
      op.id = item.id;
      op.event = HistoryEvent::kUpdate;
      op.reason = "maintenance: " + std::string(ToString(action)) + ": " + reason;
      op.mutation = [into](MemoryItem& m) -> Result<bool> {
        if (m.status != ItemStatus::kActive) return false;  // changed since it was read
        m.status = ItemStatus::kArchived;
        if (!into.empty()) m.superseded_by = into;
        return true;
      };
      batch.changes.push_back(std::move(op));
      // Its grace starts now: the next review is when it ends (never for critical items, nor
      // for turns a summary stands for).
      if (!IsCritical(item, retention) && policy.purge_after_days > 0 && into.empty()) {
        batch.review_at.emplace_back(
            scanned.seq, now + static_cast<TimestampMs>(policy.purge_after_days * kMsPerDay));
      } else {
        batch.review_at.emplace_back(scanned.seq, std::nullopt);
      }
      batch.log.push_back(MaintenanceLogEntry{item.id, action, reason, now});
      if (report.actions.size() < request.max_actions_listed) {
        report.actions.push_back(MaintenanceActionRecord{scope.tenant, scope.user_id, item.id,
                                                         action, reason, item.content});
      }
    };
    // Kept turns that faded, by session (or day): folded into summaries below.
    std::map<std::string, std::vector<std::pair<const ScannedItem*, std::string>>> faded_turns;
    for (ScannedItem& scanned : items) {
      const MemoryItem& item = scanned.item;
      ++counts.examined;
      Decision d = Decide(item, retention, policy, now);
      if (!d.action) {
        batch.review_at.emplace_back(scanned.seq, d.review_at);
      } else if (*d.action == MaintenanceAction::kPurge) {
        ++counts.purged;
        batch.purge_ids.push_back(item.id);
        batch.log.push_back(MaintenanceLogEntry{item.id, *d.action, d.reason, now});
        if (report.actions.size() < request.max_actions_listed) {
          report.actions.push_back(MaintenanceActionRecord{scope.tenant, scope.user_id, item.id,
                                                           *d.action, d.reason, item.content});
        }
      } else if (*d.action == MaintenanceAction::kArchive && IsKeptTurn(item) &&
                 policy.summarize_at_least > 0) {
        const std::string group = !item.scope.session_id.empty()
                                      ? "session " + item.scope.session_id
                                      : "day " + FormatTimestamp(item.created_at).substr(0, 10);
        faded_turns[group].emplace_back(&scanned, d.reason);
      } else {
        archive(scanned, *d.action, d.reason, "");
      }
      if (batch.changes.size() + batch.purge_ids.size() + batch.review_at.size() >= kBatchOps) {
        ENGRAM_RETURN_IF_ERROR(flush());
      }
    }
    for (auto& [group, turns] : faded_turns) {
      if (turns.size() < static_cast<size_t>(policy.summarize_at_least)) {
        for (const auto& [scanned, reason] : turns) {
          archive(*scanned, MaintenanceAction::kArchive, reason, "");
        }
        continue;
      }
      auto made = SummaryOf(scope, turns, now, request.dry_run);
      if (!made.ok()) {
        // Nothing is written for the group: its turns stay active and due, for the next run.
        if (made.status().code() != StatusCode::kUnavailable) return made.status();
        report.problems.push_back(scope.tenant + "/" + scope.user_id + ": " + group + ": " +
                                  made.status().message());
        continue;
      }
      PendingItem summary = std::move(made).value();
      const std::string summary_id = summary.item.id;
      ++counts.summaries;
      if (report.actions.size() < request.max_actions_listed) {
        report.actions.push_back(MaintenanceActionRecord{
            scope.tenant, scope.user_id, summary_id, MaintenanceAction::kSummarize,
            summary.reason + " (" + group + ")", summary.item.content});
      }
      StoreOp insert;
      insert.insert = std::move(summary);
      batch.changes.push_back(std::move(insert));
      for (const auto& [scanned, reason] : turns) {
        ++counts.summarized;
        archive(*scanned, MaintenanceAction::kArchive,
                "summarized into " + summary_id + "; " + reason, summary_id);
      }
      if (batch.changes.size() + batch.purge_ids.size() + batch.review_at.size() >= kBatchOps) {
        ENGRAM_RETURN_IF_ERROR(flush());
      }
    }
    ENGRAM_RETURN_IF_ERROR(flush());
    if (policy.promote_heat > 0) {
      ENGRAM_RETURN_IF_ERROR(PromoteHotSessions(scope, items, request, now, &counts, &report));
    }
    if (policy.merge_above > 0) {
      ENGRAM_RETURN_IF_ERROR(
          MergeNearDuplicates(scope, items, work[w].whole, request, now, &counts, &report));
    }
    // Last, so that it is written from the lines this run left. A reply it could not use
    // leaves the scope unmarked, so that the next incremental run comes back to it.
    if (options_.summarizer) {
      const size_t problems = report.problems.size();
      ENGRAM_RETURN_IF_ERROR(RefreshProfileSummary(scope, request, now, &counts, &report));
      if (report.problems.size() > problems) retry.insert({scope.tenant, scope.user_id});
    }
    report.examined += counts.examined;
    report.archived += counts.archived;
    report.expired += counts.expired;
    report.purged += counts.purged;
    report.merged += counts.merged;
    report.summarized += counts.summarized;
    report.summaries += counts.summaries;
    report.promoted += counts.promoted;
    report.profiles += counts.profiles;
    if (counts.examined > 0) report.users.push_back(std::move(counts));
    if (progress) progress(static_cast<int64_t>(w + 1), static_cast<int64_t>(work.size()));
  }
  if (!request.dry_run) {
    std::erase_if(maintained, [&](const Scope& m) {
      return retry.count({m.tenant, m.user_id}) > 0;
    });
    ENGRAM_RETURN_IF_ERROR(store_->MarkMaintained(maintained, latest_history, now));
  }
  report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
  return report;
}

Status Engine::Impl::CommitMaintenance(const Scope& scope, MaintenanceBatch& batch,
                                       TimestampMs now) {
  std::lock_guard<std::mutex> lock(write_mu_);  // the commit and its index update, in order
  ENGRAM_RETURN_IF_ERROR(store_->ApplyMaintenance(scope, batch, now));
  if (auto index = LoadedIndex(scope)) {
    std::unique_lock<std::shared_mutex> index_lock(index->mu);
    for (const StoreOp& op : batch.changes) {
      if (op.seq == 0) continue;
      if (op.insert) {
        index->Upsert(op.seq, op.result, op.insert->vector ? &op.insert->vector->values : nullptr);
      } else {
        index->UpdateInfo(op.seq, op.result);  // a status or tier change: the text is as it was
      }
    }
    for (int64_t seq : batch.purged_seqs) index->Remove(seq);
  }
  if (!batch.purged_seqs.empty()) {
    // A snapshot on disk still holds the purged vectors (rewritten at the next save).
    auto snapshot = SnapshotPath(scope);
    std::error_code ec;
    if (snapshot.ok() && !snapshot->empty()) std::filesystem::remove(*snapshot, ec);
  }
  return Status::Ok();
}

Status Engine::Impl::PromoteHotSessions(const Scope& scope,
                                        const std::vector<ScannedItem>& examined,
                                        const MaintenanceRequest& request, TimestampMs now,
                                        MaintenanceUserCounts* counts, MaintenanceReport* report) {
  const MaintenancePolicy& policy = options_.maintenance;
  std::set<std::string> sessions;  // the conversations this run touched
  for (const ScannedItem& s : examined) {
    if (!s.item.scope.session_id.empty()) sessions.insert(s.item.scope.session_id);
  }
  MaintenanceBatch batch;
  for (const std::string& session : sessions) {
    const std::string marker = "session:" + session;
    ENGRAM_ASSIGN_OR_RETURN(bool done,
                            store_->HasLogEntry(scope, marker, MaintenanceAction::kPromote));
    if (done) continue;  // distilled once
    Scope in_session{scope.tenant, scope.user_id, "", session};
    ListQuery q;
    q.statuses = {ItemStatus::kActive, ItemStatus::kArchived};
    q.limit = 1000;
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, store_->List(in_session, q));
    int64_t visits = 0, turns = 0;
    TimestampMs last = 0;
    std::vector<const MemoryItem*> distilled;
    for (const MemoryItem& m : page.items) {
      visits += m.access_count;
      if (IsKeptTurn(m)) {
        ++turns;
        last = std::max(last, m.created_at);
      } else if (m.status == ItemStatus::kActive && m.type != MemoryType::kSummary) {
        distilled.push_back(&m);
        last = std::max(last, m.created_at);
      }
    }
    const double age_days = std::max(0.0, static_cast<double>(now - last) / kMsPerDay);
    const double recency = std::pow(0.5, age_days / 7);
    const double heat =
        static_cast<double>(visits) + 0.5 * static_cast<double>(turns) + 2 * recency;
    if (heat < policy.promote_heat || distilled.empty()) continue;
    char why[160];
    std::snprintf(why, sizeof why,
                  "from a hot conversation (session %s: heat %.1f = %lld visits, %lld turns, "
                  "recency %.2f)",
                  session.c_str(), heat, static_cast<long long>(visits),
                  static_cast<long long>(turns), recency);
    for (const MemoryItem* m : distilled) {
      ++counts->promoted;
      if (report->actions.size() < request.max_actions_listed) {
        report->actions.push_back(MaintenanceActionRecord{
            scope.tenant, scope.user_id, m->id, MaintenanceAction::kPromote, why, m->content});
      }
      StoreOp op;
      op.id = m->id;
      op.event = HistoryEvent::kUpdate;
      op.reason = std::string("maintenance: promote: ") + why;
      op.mutation = [](MemoryItem& item) -> Result<bool> {
        if (item.status != ItemStatus::kActive) return false;  // changed since it was read
        item.tier = Tier::kSemantic;
        item.importance += 0.1 * (1 - item.importance);
        return true;
      };
      batch.changes.push_back(std::move(op));
      batch.log.push_back(MaintenanceLogEntry{m->id, MaintenanceAction::kPromote, why, now});
    }
    batch.log.push_back(MaintenanceLogEntry{marker, MaintenanceAction::kPromote, why, now});
  }
  if (request.dry_run || batch.log.empty()) return Status::Ok();
  return CommitMaintenance(scope, batch, now);
}

Result<PendingItem> Engine::Impl::SummaryOf(
    const Scope& scope, const std::vector<std::pair<const ScannedItem*, std::string>>& turns,
    TimestampMs now, bool dry_run) {
  // Extractive: the turns' own words, oldest first, after a line saying when and how many.
  std::vector<const MemoryItem*> items;
  for (const auto& [scanned, reason] : turns) items.push_back(&scanned->item);
  std::sort(items.begin(), items.end(),
            [](const MemoryItem* a, const MemoryItem* b) { return a->created_at < b->created_at; });
  std::string joined;
  for (const MemoryItem* m : items) {
    if (!joined.empty()) joined += " / ";
    joined += m->content;
  }
  const bool zh = DetectLanguage(joined) == Language::kChinese;
  const std::string day = FormatTimestamp(items.front()->created_at).substr(0, 10);
  const std::string n = std::to_string(items.size());
  std::string content =
      zh ? day + "的对话（" + n + "条）：" : "Conversation on " + day + " (" + n + " turns): ";
  std::string extractor = "maintenance-summary", prompt_version;
  if (options_.summarizer && dry_run) {
    joined = "(to be written by " + options_.summarizer->model() + ")";  // no call for a preview
  } else if (options_.summarizer) {
    ENGRAM_ASSIGN_OR_RETURN(std::string written, llm::WriteTurnSummary(*options_.summarizer, items,
                                                                       options_.max_content_bytes));
    joined = std::move(written);
    extractor = "llm:" + options_.summarizer->model();
    prompt_version = std::string(llm::SummarizePrompt().version);
  }
  constexpr size_t kMaxBytes = 2000;
  if (joined.size() > kMaxBytes) {
    size_t cut = kMaxBytes;
    while (cut > 0 && (static_cast<unsigned char>(joined[cut]) & 0xC0) == 0x80) --cut;
    joined = joined.substr(0, cut) + "…";
  }
  content += joined;
  NewMemory m;
  m.content = content;
  m.type = MemoryType::kSummary;
  m.tier = Tier::kEpisodic;
  double importance = 0;
  for (const MemoryItem* t : items) {
    importance = std::max(importance, t->importance);
    m.source.turn_ids.push_back(t->id);
    for (const std::string& id : t->source.message_ids) m.source.message_ids.push_back(id);
  }
  m.importance = importance;
  m.source.extractor = extractor;
  m.source.prompt_version = prompt_version;
  m.source.session_id = items.front()->scope.session_id;
  m.created_at = items.front()->created_at;
  m.valid_from = items.front()->created_at;
  m.reason = "summary of " + n + " faded conversation turns";
  Scope owner = scope;
  owner.agent_id = items.front()->scope.agent_id;
  owner.session_id = items.front()->scope.session_id;
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, Materialize(owner, m, now));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vector, EmbedOne(item.content));
  item.embedding_model = embedder_->model();
  return PendingItem{std::move(item), m.reason,
                     StoredVector{embedder_->model(), std::move(vector)}};
}

Status Engine::Impl::MergeNearDuplicates(const Scope& scope,
                                         const std::vector<ScannedItem>& examined, bool whole,
                                         const MaintenanceRequest& request, TimestampMs now,
                                         MaintenanceUserCounts* counts, MaintenanceReport* report) {
  const MaintenancePolicy& policy = options_.maintenance;
  std::vector<const ScannedItem*> candidates;
  for (const ScannedItem& s : examined) {
    if (s.item.status == ItemStatus::kActive && !IsKeptTurn(s.item)) candidates.push_back(&s);
  }
  if (candidates.empty()) return Status::Ok();
  struct Pair {
    std::string keeper, gone;
    double similarity = 0;
  };
  std::vector<Pair> pairs;
  std::set<int64_t> merged;  // merged away in this run: neither kept nor merged again
  // The same words said again (case, spaces and punctuation aside): cheap for every memory.
  {
    std::map<std::pair<MemoryType, std::string>, const ScannedItem*> first;
    for (const ScannedItem* c : candidates) {
      std::string key;
      for (char ch : c->item.content) {
        const auto u = static_cast<unsigned char>(ch);
        if (u >= 0x80 || std::isalnum(u)) key += static_cast<char>(std::tolower(u));
      }
      auto [it, inserted] = first.emplace(std::pair{c->item.type, key}, c);
      if (inserted) continue;
      pairs.push_back(Pair{it->second->item.id, c->item.id, 1.0});  // examined in seq order
      merged.insert(c->seq);
    }
  }
  // Other wordings, by vector: for the memories of an incremental run (new, changed or due),
  // each compared with every memory of the scope, when the scope's index is loaded (the user is
  // active: their new memories come with it). A scope's first or a full run compares only the
  // words above, and no index is loaded for this: a vector search per memory, or loading every
  // user's index, would make a run minutes long at scale.
  std::shared_ptr<ScopeIndex> index = whole ? nullptr : LoadedIndex(scope);
  if (index) {
    std::shared_lock<std::shared_mutex> lock(index->mu);
    std::vector<float> v;
    for (const ScannedItem* c : candidates) {
      if (merged.count(c->seq) != 0) continue;
      const DocInfo* own = index->Find(c->seq);
      // Archived above, or changed since it was read: judged by what the index holds now.
      if (own == nullptr || own->status != ItemStatus::kActive) continue;
      if (!index->vectors().Get(c->seq, &v)) continue;
      const MemoryType type = own->type;
      auto same_kind = [&](int64_t key) {
        if (key == c->seq || merged.count(key) != 0) return false;
        const DocInfo* d = index->Find(key);
        return d != nullptr && d->status == ItemStatus::kActive && !d->kept_turn && d->type == type;
      };
      for (const VectorHit& hit : index->vectors().Search(v.data(), 4, same_kind)) {
        if (hit.score < policy.merge_above) break;
        const int64_t keeper = std::min(hit.key, c->seq), gone = std::max(hit.key, c->seq);
        const DocInfo* k = index->Find(keeper);
        const DocInfo* g = index->Find(gone);
        if (k == nullptr || g == nullptr) continue;
        pairs.push_back(Pair{k->id, g->id, hit.score});
        merged.insert(gone);
        if (gone == c->seq) break;  // this one is gone: nothing more merges into it
      }
    }
  }
  if (pairs.empty()) return Status::Ok();
  MaintenanceBatch batch;
  int64_t found = 0;
  for (const Pair& p : pairs) {
    auto gone = store_->Get(scope, p.gone);
    if (!gone.ok()) continue;  // purged meanwhile
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.3f", p.similarity);
    const std::string reason = "near-duplicate of " + p.keeper + " (similarity " + similarity + ")";
    ++found;
    if (report->actions.size() < request.max_actions_listed) {
      report->actions.push_back(MaintenanceActionRecord{
          scope.tenant, scope.user_id, p.gone, MaintenanceAction::kMerge, reason, gone->content});
    }
    StoreOp keep;
    keep.id = p.keeper;
    keep.event = HistoryEvent::kMerge;
    keep.reason = "maintenance: merge: took in " + p.gone + " (" + gone->content + ")";
    keep.mutation = [g = *gone](MemoryItem& m) -> Result<bool> {
      if (m.status != ItemStatus::kActive) return Status::Conflict("changed since it was read");
      auto add_all = [](std::vector<std::string>* to, const std::vector<std::string>& from) {
        for (const std::string& x : from) {
          if (std::find(to->begin(), to->end(), x) == to->end()) to->push_back(x);
        }
      };
      add_all(&m.source.message_ids, g.source.message_ids);
      add_all(&m.source.turn_ids, g.source.turn_ids);
      add_all(&m.entities, g.entities);
      add_all(&m.tags, g.tags);
      m.importance = std::max(m.importance, g.importance);
      m.confidence = std::max(m.confidence, g.confidence);
      m.access_count += g.access_count;
      if (g.last_accessed) {
        m.last_accessed = std::max(m.last_accessed.value_or(0), *g.last_accessed);
      }
      m.valid_from = std::min(m.valid_from, g.valid_from);
      if (!g.expires_at) {
        m.expires_at.reset();  // the longer-lived statement wins
      } else if (m.expires_at) {
        m.expires_at = std::max(*m.expires_at, *g.expires_at);
      }
      return true;
    };
    StoreOp away;
    away.id = p.gone;
    away.event = HistoryEvent::kMerge;
    away.reason = "maintenance: merge: " + reason;
    away.mutation = [keeper = p.keeper](MemoryItem& m) -> Result<bool> {
      if (m.status != ItemStatus::kActive) return Status::Conflict("changed since it was read");
      m.status = ItemStatus::kArchived;
      m.superseded_by = keeper;
      return true;
    };
    batch.changes.push_back(std::move(keep));
    batch.changes.push_back(std::move(away));
    batch.log.push_back(MaintenanceLogEntry{p.gone, MaintenanceAction::kMerge, reason, now});
  }
  if (request.dry_run || batch.changes.empty()) {
    counts->merged += found;
    return Status::Ok();
  }
  // All merges of the scope in one transaction: a pair that changed since it was read fails
  // the whole batch, and nothing is merged (the next run looks again).
  Status applied = CommitMaintenance(scope, batch, now);
  if (!applied.ok()) {
    if (applied.code() != StatusCode::kConflict) return applied;
    report->actions.erase(std::remove_if(report->actions.begin(), report->actions.end(),
                                         [&](const MaintenanceActionRecord& a) {
                                           return a.action == MaintenanceAction::kMerge &&
                                                  a.tenant == scope.tenant &&
                                                  a.user_id == scope.user_id;
                                         }),
                          report->actions.end());
    return Status::Ok();
  }
  counts->merged += found;
  return Status::Ok();
}

Result<Profile> Engine::Impl::GetProfile(const Scope& scope, const ProfileOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateProfileOptions(options));
  Scope user = scope;
  user.session_id.clear();  // a profile is about the user, across sessions
  ProfileBuilder builder(options);
  ListQuery q;
  q.limit = 1000;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, List(user, q));
    for (const MemoryItem& m : page.items) builder.Add(m);
    if (page.next_cursor.empty()) break;
    q.cursor = page.next_cursor;
  }
  Profile profile = builder.Finish();
  if (user.agent_id.empty() && !profile.sections.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(profile.summary, store_->GetProfileSummary(user));
    if (profile.summary)
      profile.summary->current = profile.summary->fingerprint == ProfileFingerprint(profile);
  }
  return profile;
}

Status Engine::Impl::RefreshProfileSummary(const Scope& scope, const MaintenanceRequest& request,
                                           TimestampMs now, MaintenanceUserCounts* counts,
                                           MaintenanceReport* report) {
  ENGRAM_ASSIGN_OR_RETURN(Profile profile, GetProfile(scope, ProfileOptions{}));
  if (profile.sections.empty() || (profile.summary && profile.summary->current)) {
    return Status::Ok();
  }
  const std::string why = profile.summary ? "its profile lines changed since the summary of " +
                                                FormatTimestamp(profile.summary->generated_at)
                                          : "no summary yet";
  if (request.dry_run) {
    ++counts->profiles;
    if (report->actions.size() < request.max_actions_listed) {
      report->actions.push_back(MaintenanceActionRecord{
          scope.tenant, scope.user_id, "profile", MaintenanceAction::kProfile, why,
          "(to be written by " + options_.summarizer->model() + ")"});
    }
    return Status::Ok();
  }
  auto written =
      llm::WriteProfileSummary(*options_.summarizer, profile, options_.max_content_bytes, now);
  if (!written.ok()) {
    if (written.status().code() != StatusCode::kUnavailable) return written.status();
    report->problems.push_back(scope.tenant + "/" + scope.user_id + ": " +
                               written.status().message());
    return Status::Ok();
  }
  const std::string reason = why + "; " + std::to_string(profile.items) + " lines, " +
                             std::to_string(written->item_ids.size()) + " cited";
  ENGRAM_RETURN_IF_ERROR(store_->PutProfileSummary(
      scope, *written, MaintenanceLogEntry{"profile", MaintenanceAction::kProfile, reason, now}));
  ++counts->profiles;
  if (report->actions.size() < request.max_actions_listed) {
    report->actions.push_back(MaintenanceActionRecord{scope.tenant, scope.user_id, "profile",
                                                      MaintenanceAction::kProfile, reason,
                                                      written->text});
  }
  return Status::Ok();
}

Result<std::vector<MaintenanceLogEntry>> Engine::Impl::MaintenanceLog(const Scope& scope,
                                                                      int limit) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  if (limit < 1 || limit > 100'000) {
    return Status::InvalidArgument("limit must be 1..100000");
  }
  return store_->LifecycleLog(scope, limit);
}

}  // namespace engram
