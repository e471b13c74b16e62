// Plain records: the value types the engine's API shares with the layers below it (the store
// reads and writes them; sessions, export and the job queue pass them on). They hold data
// only: no behaviour, no threads, no dependency on the Engine class, so a lower layer can
// include this header without the engine's (include/engram/engine.h includes it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/lifecycle.h"
#include "engram/memory.h"
#include "engram/profile.h"

namespace engram {

// A conversation turn as stored in its session (the durable record behind working memory).
struct StoredTurn {
  std::string message_id;
  std::string role;
  std::string content;
  TimestampMs at = 0;
  bool operator==(const StoredTurn&) const = default;
};

// One conversation session of a user, without its turns (Engine::ListSessions lists these).
struct SessionSummary {
  std::string session_id;
  std::string agent_id;
  TimestampMs started_at = 0;
  std::optional<TimestampMs> last_turn_at;
  std::optional<TimestampMs> closed_at;
  std::string summary_id;  // the session's summary item, or empty
  int64_t turn_count = 0;
  bool operator==(const SessionSummary&) const = default;
};

// A session with its latest turns (Engine::GetSession).
struct SessionInfo : SessionSummary {
  std::vector<StoredTurn> recent;  // the latest turns asked for, oldest first
  // The store's number of the newest turn (Engine::GetSession; 0 elsewhere). With turn_count,
  // a version of the turns: an append raises it, a hard delete lowers the count, so a copy of
  // the turns (a replica's working buffer) can tell it is stale.
  int64_t last_turn_seq = 0;
};

struct ListQuery {
  std::vector<MemoryType> types;                          // empty: any type
  std::vector<Tier> tiers;                                // empty: any tier
  std::vector<ItemStatus> statuses{ItemStatus::kActive};  // empty: any status
  std::optional<TimestampMs> created_after;               // inclusive
  std::optional<TimestampMs> created_before;              // exclusive
  // What held at this time: items whose validity [valid_from, valid_to) contains it. A
  // superseded item counts as active for the status filter (it was current then), so the
  // default status filter returns the facts believed true at `as_of`.
  std::optional<TimestampMs> as_of;
  std::vector<std::string> tags;            // the item carries every one of these
  std::vector<MetadataCondition> metadata;  // all must hold
  std::string slot;                         // items of this slot only; empty: any
  // Items of this slot family only: the slot equals it or starts with it followed by ':'
  // ("user/pet" → "user/pet", "user/pet:豆包"); empty: any.
  std::string slot_family;
  int limit = 50;      // 1..1000
  std::string cursor;  // "" for the first page
};

// Newest first (created_at, then insertion order). next_cursor is empty on the last page.
// Cursors are stable: items added after a page was read do not shift later pages.
struct ListPage {
  std::vector<MemoryItem> items;
  std::string next_cursor;
};

struct StoredVector {
  std::string model;
  std::vector<float> values;
  bool operator==(const StoredVector&) const = default;
};

// Everything stored about one item: what export writes and import reads back.
struct MemoryRecord {
  MemoryItem item;
  std::vector<HistoryEntry> history;  // oldest first
  std::vector<StoredVector> vectors;
};

enum class OnConflict { kFail, kSkip };

struct ImportStats {
  int64_t imported = 0;
  int64_t skipped = 0;  // ids already present, with OnConflict::kSkip
};

struct ScopeSummary {
  std::string tenant;
  std::string user_id;
  int64_t items = 0;  // every status
};

// A queued asynchronous job as stored (include/engram/jobs.h: JobQueue).
enum class JobState { kQueued, kRunning, kDone, kFailed };
inline std::string_view ToString(JobState state) {
  switch (state) {
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kQueued:
      break;
  }
  return "queued";
}

struct JobInfo {
  std::string id;
  std::string kind;
  JobState state = JobState::kQueued;
  int attempts = 0;
  std::string result;  // the handler's result text when done
  std::string error;   // the last failure
  TimestampMs created_at = 0;
  TimestampMs updated_at = 0;
  TimestampMs next_attempt_at = 0;
};

// A hard delete of one memory (Engine::Purge).
struct PurgeOptions {
  // Also erase the conversation it came from: the kept turns it was extracted from
  // (source.turn_ids), their session turns (the `turns` rows of source.message_ids, which
  // working memory and /v1/context serve) and the summaries written from those turns. Other
  // memories extracted from the same turns stay. Default on: a hard delete means the words are
  // gone, not only one reading of them.
  bool source_turns = true;
};

// What a hard delete removed.
struct PurgeResult {
  std::vector<std::string> ids;  // the memory first, then its kept turns and summaries
  std::vector<int64_t> seqs;     // their items.seq, in the same order
  int64_t session_turns = 0;     // rows of the turns table
  int64_t jobs = 0;              // asynchronous write jobs that produced any of them
};

// A byte scan of the files Engram writes for what should no longer be there (Engine::FindTraces).
struct TraceReport {
  int64_t files = 0;    // files scanned: the database, its WAL and shared memory, snapshots
  int64_t bytes = 0;    // bytes read
  int64_t needles = 0;  // texts (as stored and normalized) and vectors looked for
  // Needles found, but held by data that stays (another user who said the same words).
  int64_t shared = 0;
  // What was found: "<file> at byte <offset>: text '<first bytes>'" or "...: vector bytes".
  std::vector<std::string> traces;
};

// A user's hard delete, then the scan for what was stored about them (Engine::PurgeScopeVerified).
struct VerifiedPurge {
  int64_t removed = 0;  // memories
  TraceReport scan;
  int64_t purge_ms = 0, scan_ms = 0;
};

// What is stored about a user besides their memories (Engine::ExportUserExtras): the sessions
// with every turn, the profile summary, the maintenance log. With the memories (their history
// and vectors), everything an export carries.
struct UserExtras {
  std::vector<SessionInfo> sessions;  // each with all its turns in `recent`, oldest first
  std::optional<ProfileSummary> profile;
  std::vector<MaintenanceLogEntry> maintenance_log;  // oldest first
};

struct ExtrasImportStats {
  int64_t sessions = 0, turns = 0, profiles = 0, log_entries = 0;
  int64_t skipped_sessions = 0;  // present already (OnConflict::kSkip)
};

}  // namespace engram
