// Engine: listings of a tenant's users and of a user's sessions (include/engram/listings.h).
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "storage/memory_store.h"

namespace engram {
namespace {

constexpr int kMaxPageSize = 1000;

Status ValidatePage(const PageRequest& page) {
  if (page.limit < 1 || page.limit > kMaxPageSize) {
    return Status::InvalidArgument("limit must be between 1 and " + std::to_string(kMaxPageSize));
  }
  return ValidateText("cursor", page.cursor, 1024);
}

}  // namespace

Result<UserPage> Engine::Impl::ListUsers(std::string_view tenant, const PageRequest& page) {
  if (tenant.empty()) return Status::InvalidArgument("tenant is required");
  ENGRAM_RETURN_IF_ERROR(ValidateText("tenant", tenant, 1024));
  ENGRAM_RETURN_IF_ERROR(ValidatePage(page));
  return store_->ListUsers(tenant, page);
}

Result<SessionPage> Engine::Impl::ListSessions(const Scope& scope, const PageRequest& page) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidatePage(page));
  return store_->ListSessions(scope, page);
}

}  // namespace engram
