// Listings of what a tenant holds beyond memories: its users, and a user's sessions. The
// value types of Engine::ListUsers and Engine::ListSessions (include/engram/engine.h).
//
// Pages follow GET /v1/memories: at most `limit` entries, and a `next_cursor` that is empty on
// the last page. Cursors are opaque; a cursor of one listing given to another, or altered, is
// InvalidArgument or reads from an arbitrary point, never another tenant's rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/records.h"  // SessionSummary

namespace engram {

struct PageRequest {
  int limit = 50;      // 1..1000
  std::string cursor;  // "" for the first page
};

// One user of a tenant: a user appears once something was stored for them (a memory or a
// session turn) and disappears when everything of theirs is purged.
struct UserSummary {
  std::string user_id;
  int64_t items = 0;     // memories of every status, kept turns included
  int64_t sessions = 0;  // conversation sessions, open or closed
  bool operator==(const UserSummary&) const = default;
};

// Ordered by user_id (bytewise).
struct UserPage {
  std::vector<UserSummary> users;
  std::string next_cursor;
};

// Newest session first (the order sessions were started in, reversed).
struct SessionPage {
  std::vector<SessionSummary> sessions;
  std::string next_cursor;
};

}  // namespace engram
