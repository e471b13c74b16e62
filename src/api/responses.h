// The v1 API's response bodies, encoded from the engine's native results. Shared by the HTTP
// and MCP servers (field names: docs/http-api.md and docs/openapi.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/requests.h"
#include "engram/engine.h"
#include "engram/jobs.h"
#include "engram/keys.h"
#include "engram/profile.h"
#include "engram/search.h"
#include "engram/sessions.h"
#include "engram/status.h"
#include "engram/write_path.h"

namespace engram::api {

// {"results": [{"id", "event": "ADD", "memory": {...}}]}. The *JsonText encoders write the
// text directly (codec/json_text.h) for the routes called at high rate; the JSON values are
// parsed from that text, so each shape has one definition.
std::string AddedJsonText(const std::vector<MemoryItem>& items);
nlohmann::json AddedToJson(const std::vector<MemoryItem>& items);
// {"results": [items], "next_cursor": "..." | null}
// infer=true: {results: [{id, event, memory, replaced?}], extractor, extraction_errors: []}.
// The results of several Remember calls (a batch) are concatenated.
nlohmann::json RememberedToJson(const std::vector<RememberResult>& results);
// 202 body of an asynchronous add.
nlohmann::json JobAcceptedToJson(const std::string& job_id);
nlohmann::json JobToJson(const JobInfo& job);
nlohmann::json TurnToJson(const StoredTurn& turn);
nlohmann::json WorkingMemoryToJson(const WorkingMemory& working);

std::string PageJsonText(const ListPage& page);
nlohmann::json PageToJson(const ListPage& page);
// GET /v1/users: {"results": [{"user_id", "items", "sessions"}], "next_cursor": "..." | null}
nlohmann::json UserPageToJson(const UserPage& page);
// GET /v1/sessions: {"results": [{"session_id", "agent_id", "started_at", "last_turn_at",
// "closed_at", "summary_id", "turn_count"}], "next_cursor": "..." | null}; times ISO-8601 or
// null, summary_id null when none.
nlohmann::json SessionPageToJson(const SessionPage& page);
// {"results": [history entries, oldest first]}
nlohmann::json HistoryListToJson(const std::vector<HistoryEntry>& history);
// {"results": [{"id", "memory", "score", "explain"?}]}
std::string HitsJsonText(const std::vector<SearchHit>& hits, bool explain);
nlohmann::json HitsToJson(const std::vector<SearchHit>& hits, bool explain);
// One knowledge chunk found: {"doc_id", "agent_id", "title", "title_path", "ordinal",
// "char_start", "char_end", "text", "score", "citation"}.
nlohmann::json KnowledgeHitsToJson(const std::vector<KnowledgeHit>& hits);
// {"context", "memories": [{"id", "memory", "score"}], "tokens"}, and "knowledge" (the chunks
// included, as KnowledgeHitsToJson) when any are
nlohmann::json ContextToJson(const ContextResult& context);

// {"id", "tenant", "name", "role", "prefix", "created_at", "revoked_at"}; never the secret.
nlohmann::json KeyToJson(const ApiKeyInfo& key);

// A response's `warnings`: [{"code": "deprecated_field", "field", "replacement", "message"}].
nlohmann::json WarningsToJson(const std::vector<Deprecation>& warnings);

// {"error": {"code": StatusCodeName(code), "message"}}
nlohmann::json ErrorToJson(const Status& status);

// A maintenance run: {"dry_run", "full", "at", "examined", "archived", "expired", "purged",
// "duration_ms", "users": [{tenant, user_id, examined, archived, expired, purged}],
// "actions": [{tenant, user_id, id, action, reason, content}]}.
nlohmann::json MaintenanceReportToJson(const MaintenanceReport& report);
// {"sections": [{"kind", "lines": [{"text", "memory_ids", "type", "slot", "importance"}]}],
// "memories", "updated_at" (the latest change of a cited memory, or null), "summary" (null, or
// {"text", "memory_ids", "current", "generated_at", "model", "prompt_version"}), "text" (for a
// prompt)}.
// `text` is ProfileText(profile, …), given by the caller (it counts tokens).
// A hard delete: {"id", "deleted": true, "hard": true, "purged": [ids: the memory, then its kept
// turns and summaries], "session_turns", "jobs"}.
nlohmann::json PurgeToJson(const std::string& id, const PurgeResult& purged);
nlohmann::json ProfileToJson(const Profile& profile, const std::string& text);
// {"results": [{"id", "memory", "score", "reason"}]}, best first; empty when nothing is worth
// raising.
nlohmann::json RecallToJson(const std::vector<RecallHit>& hits);
// {"results": [{"id", "action", "reason", "at"}]}, oldest first.
nlohmann::json MaintenanceLogToJson(const std::vector<MaintenanceLogEntry>& log);

}  // namespace engram::api
