// How a MemoryItem maps onto a row of the `items` table (docs/storage-format.md).
#pragma once

#include <string_view>

#include "engram/memory.h"
#include "engram/status.h"
#include "storage/sqlite.h"

namespace engram {

// The item columns read back by every SELECT, in ReadItemRow's order. The reads counted since
// the row was written (item_access, schema version 5) are added in: select them FROM
// kItemSelectFrom.
inline constexpr std::string_view kItemSelectColumns =
    "seq, id, agent_id, session_id, tier, type, content, entities, tags, metadata, importance, "
    "confidence, source_messages, source_session, extractor, prompt_version, created_at, "
    "updated_at, valid_from, valid_to, "
    "CASE WHEN last_read IS NULL THEN last_accessed "
    "ELSE max(coalesce(last_accessed, 0), last_read) END, "
    "access_count + coalesce(reads, 0), status, supersedes, "
    "superseded_by, embedding_model, slot, source_role, source_turns, derived_ids, expires_at";
inline constexpr std::string_view kItemSelectFrom =
    " FROM items LEFT JOIN item_access ON item_seq = seq ";

// The mutable columns, in BindMutableColumns' order (all but seq, id, scope_id).
inline constexpr std::string_view kItemMutableColumns =
    "agent_id, session_id, tier, type, content, entities, tags, metadata, importance, "
    "confidence, source_messages, source_session, extractor, prompt_version, created_at, "
    "updated_at, valid_from, valid_to, last_accessed, access_count, status, supersedes, "
    "superseded_by, embedding_model, slot, source_role, source_turns, derived_ids, expires_at";
inline constexpr int kItemMutableColumnCount = 29;

// Binds the mutable columns of `m` to parameters first..first+28.
void BindMutableColumns(Statement* st, const MemoryItem& m, int first);

// Decodes the current row (selected with kItemSelectColumns). tenant and user_id come from
// `scope`, which the caller used to select the row. Corruption if a stored value is invalid.
Result<MemoryItem> ReadItemRow(const Statement& st, const Scope& scope, int64_t* seq);

}  // namespace engram
