// Engine: conversation sessions — the durable record of turns behind working memory.
#include "core/id_generator.h"
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "storage/memory_store.h"

namespace engram {
namespace {

constexpr size_t kMaxTurnsPerCall = 1000;
constexpr int kMaxRecentTurns = 1000;

Status RequireSession(const Scope& scope) {
  if (scope.session_id.empty()) return Status::InvalidArgument("session_id is required");
  return Status::Ok();
}

}  // namespace

Result<std::vector<StoredTurn>> Engine::Impl::AppendTurns(const Scope& scope,
                                                          const std::vector<Turn>& turns,
                                                          int64_t* last_turn_seq) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(RequireSession(scope));
  if (turns.empty()) return Status::InvalidArgument("no messages to append");
  if (turns.size() > kMaxTurnsPerCall) {
    return Status::InvalidArgument("at most " + std::to_string(kMaxTurnsPerCall) +
                                   " messages per call");
  }
  const TimestampMs now = Now();
  std::vector<StoredTurn> stored;
  stored.reserve(turns.size());
  for (size_t i = 0; i < turns.size(); ++i) {
    const Turn& t = turns[i];
    const std::string at = "message " + std::to_string(i);
    if (t.content.empty()) return Status::InvalidArgument(at + ": content must not be empty");
    ENGRAM_RETURN_IF_ERROR(
        ValidateText("content", t.content, options_.max_content_bytes).WithContext(at));
    ENGRAM_RETURN_IF_ERROR(ValidateText("role", t.role, 64).WithContext(at));
    if (t.role.empty()) return Status::InvalidArgument(at + ": role must not be empty");
    if (!t.id.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(t.id).WithContext(at));
    stored.push_back(StoredTurn{t.id.empty() ? "msg_" + ids_->Next(now) : t.id, t.role, t.content,
                                t.at > 0 ? t.at : now});
  }
  ENGRAM_ASSIGN_OR_RETURN(int64_t last, store_->AppendTurns(scope, stored, now));
  if (last_turn_seq != nullptr) *last_turn_seq = last;
  return stored;
}

Result<SessionInfo> Engine::Impl::GetSession(const Scope& scope, int recent) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(RequireSession(scope));
  if (recent < 0 || recent > kMaxRecentTurns) {
    return Status::InvalidArgument("recent turns must be between 0 and " +
                                   std::to_string(kMaxRecentTurns));
  }
  return store_->GetSession(scope, recent);
}

Status Engine::Impl::SetSessionSummary(const Scope& scope, const std::string& summary_id,
                                       bool close) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(RequireSession(scope));
  if (!summary_id.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(summary_id));
  std::optional<TimestampMs> closed_at;
  if (close) closed_at = Now();
  return store_->SetSessionSummary(scope, summary_id, closed_at);
}

}  // namespace engram
