// Working memory and sessions: the current conversation's recent turns, kept in process
// under a token budget and a TTL, backed by the durable `turns` table; and session summaries
// stored as episodic `summary` items linked to their turns (product.md, "Memory tiers").
//
// Threads: safe to share. The working buffer is a cache: after a restart or a TTL eviction it
// is reloaded from the stored turns, so nothing a caller appended is lost; and it is checked
// against the store's version of the turns at each use, so turns another replica appended (or
// a hard delete removed) are never missed.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/engine.h"
#include "engram/write_path.h"

namespace engram {

class LlmClient;
namespace shared {
class Redis;
}

struct SessionOptions {
  int working_token_budget = 2000;  // the buffer keeps the newest turns within this many tokens
  int working_max_turns = 50;
  int64_t ttl_ms = 30 * 60 * 1000;  // buffers idle this long leave memory (reloaded on use)
  // A summary is written (or rewritten) each time this many turns have arrived since the last
  // one; 0: only when the session is closed.
  int summarize_every = 20;
  int summary_max_tokens = 200;
  std::shared_ptr<LlmClient> llm;  // summaries by the LLM when set (extractive on failure)
  // Shared by the replicas of a deployment (null: this process only). It holds each open
  // session's count of turns since its summary, with the TTL, so the summary comes every
  // `summarize_every` turns whichever replica took them; while it cannot be reached the count
  // is this process's own. The turns themselves are never copied there: a hard delete has no
  // copy to chase. Outlives the manager.
  shared::Redis* redis = nullptr;
};

struct SessionAppendResult {
  std::vector<StoredTurn> turns;      // as stored, with their message ids
  RememberResult remembered;          // with infer: what extraction stored
  std::optional<MemoryItem> summary;  // set when this call wrote the session summary
  // Set when this call was due to write the summary and could not: the turns and what was
  // remembered are stored all the same (the summary is written at the next summary point or
  // the close), so the call still succeeds.
  std::string summary_error;
};

// What the working memory holds for a session right now.
struct WorkingMemory {
  SessionInfo session;            // from the store (recent left empty)
  std::vector<StoredTurn> turns;  // the buffer, oldest first, within the budget
  int tokens = 0;
  std::optional<MemoryItem> summary;
};

class SessionManager {
 public:
  // `engine` and `writer` outlive the manager. `clock`: default system clock.
  SessionManager(Engine* engine, MemoryWriter* writer, SessionOptions options,
                 const Clock* clock = nullptr);

  // Records the turns (scope.session_id names the session; created on first use), adds them
  // to working memory and, with `infer`, runs extraction over them with the buffer as context.
  // Writes the summary when summarize_every turns have arrived since the last one.
  Result<SessionAppendResult> Append(const Scope& scope, const std::vector<Turn>& turns, bool infer,
                                     const RememberOptions& options = {});
  // NotFound if the session has no turns.
  Result<WorkingMemory> Working(const Scope& scope);
  // Writes the final summary, closes the session (later appends are Conflict) and drops its
  // buffer. Closing a closed session returns its summary again.
  Result<std::optional<MemoryItem>> Close(const Scope& scope);

  // The summary text for these turns (LLM when configured, else extractive). Exposed for tests.
  std::string Summarize(const std::vector<StoredTurn>& turns, std::string* method);

 private:
  struct Buffer {
    std::vector<StoredTurn> turns;
    int tokens = 0;
    int64_t since_summary = 0;  // turns appended since the last summary (without Redis)
    TimestampMs last_used = 0;
    int64_t generation = 0;  // Engine::PurgeGeneration() when it was loaded
    // The store's version of the turns it reflects (SessionInfo::turn_count, last_turn_seq).
    int64_t turn_count = 0;
    int64_t last_turn_seq = 0;
  };
  // The session's buffer, reloaded when it does not reflect `stored` (the session as the store
  // has it now; null: it has no turns yet).
  Result<std::shared_ptr<Buffer>> LoadBuffer(const Scope& scope, TimestampMs now,
                                             const SessionInfo* stored);
  // Counts `turns` new turns towards the summary; true when one is due now.
  bool CountTowardsSummary(const Scope& scope, Buffer* buffer, int64_t turns);
  void Trim(Buffer* b) const;
  Result<MemoryItem> WriteSummary(const Scope& scope, const SessionInfo& info, bool close);
  std::string ExtractiveSummary(const std::vector<StoredTurn>& turns) const;
  void EvictIdle(TimestampMs now);

  Engine* engine_;
  MemoryWriter* writer_;
  SessionOptions options_;
  const Clock* clock_;

  std::mutex mu_;  // guards buffers_ and every Buffer's fields
  std::unordered_map<std::string, std::shared_ptr<Buffer>> buffers_;
  TimestampMs last_eviction_ = 0;
};

}  // namespace engram
