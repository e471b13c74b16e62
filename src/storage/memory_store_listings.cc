// MemoryStore: the listings of a tenant's users and of a user's sessions.
#include <charconv>

#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"

namespace engram {

Result<UserPage> MemoryStore::ListUsers(std::string_view tenant, const PageRequest& page) {
  // An empty tenant would not match every tenant here (the condition is equality), but it is
  // refused anyway so that a caller's missing tenant is an error, not an empty listing.
  if (tenant.empty()) return Status::InvalidArgument("tenant is required");
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(lease.db()->BindTenant(tenant));
  // One row more than the page: whether there is a next page, without a count.
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare("SELECT s.user_id, "
                          "(SELECT count(*) FROM items i WHERE i.scope_id = s.id), "
                          "(SELECT count(*) FROM sessions x WHERE x.scope_id = s.id) "
                          "FROM scopes s WHERE s.tenant = ? AND s.user_id > ? "
                          "ORDER BY s.user_id LIMIT ?"));
  st->Bind(1, tenant).Bind(2, std::string_view(page.cursor)).Bind(3, int64_t{page.limit} + 1);
  UserPage out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    if (static_cast<int>(out.users.size()) == page.limit) {
      out.next_cursor = out.users.back().user_id;  // the first page after it starts above it
      break;
    }
    out.users.push_back({st->String(0), st->Int(1), st->Int(2)});
  }
  st->Reset();
  return out;
}

Result<SessionPage> MemoryStore::ListSessions(const Scope& scope, const PageRequest& page) {
  // The cursor is the seq of the page's last session: later pages hold smaller ones.
  int64_t before = INT64_MAX;
  if (!page.cursor.empty()) {
    const char* end = page.cursor.data() + page.cursor.size();
    auto [ptr, ec] = std::from_chars(page.cursor.data(), end, before);
    if (ec != std::errc() || ptr != end || before <= 0) {
      return Status::InvalidArgument("cursor is not one this listing returned");
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  SessionPage out;
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  if (!scope_id) return out;
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT seq, session_id, agent_id, started_at, last_turn_at, closed_at, "
                  "summary_id, (SELECT count(*) FROM turns WHERE session_seq = sessions.seq) "
                  "FROM sessions WHERE scope_id = ?1 AND (?2 = '' OR agent_id = ?2) "
                  "AND seq < ?3 ORDER BY seq DESC LIMIT ?4"));
  st->Bind(1, *scope_id)
      .Bind(2, std::string_view(scope.agent_id))
      .Bind(3, before)
      .Bind(4, int64_t{page.limit} + 1);
  int64_t last_seq = 0;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    if (static_cast<int>(out.sessions.size()) == page.limit) {
      out.next_cursor = std::to_string(last_seq);
      break;
    }
    last_seq = st->Int(0);
    out.sessions.push_back({st->String(1), st->String(2), st->Int(3), st->OptionalInt(4),
                            st->OptionalInt(5), st->String(6), st->Int(7)});
  }
  st->Reset();
  return out;
}

}  // namespace engram
