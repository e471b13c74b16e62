// The entity graph's reads (include/engram/engine.h, "entity graph"): the query checked here,
// the scope enforced by the store.
#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "storage/memory_store.h"

namespace engram {
namespace {

Status ValidateEntityQuery(const EntityQuery& q) {
  if (q.limit < 1 || q.limit > 1000) {
    return Status::InvalidArgument("limit: must be between 1 and 1000, got " +
                                   std::to_string(q.limit));
  }
  if (q.offset < 0) return Status::InvalidArgument("cursor: must not be negative");
  if (q.name.size() > 256) return Status::InvalidArgument("name: longer than 256 bytes");
  return Status::Ok();
}

Status ValidateWalk(const GraphWalk& w) {
  if (w.hops < 1 || w.hops > 3) {
    return Status::InvalidArgument("hops: must be between 1 and 3, got " + std::to_string(w.hops));
  }
  if (w.max_nodes < 1 || w.max_nodes > 1000) {
    return Status::InvalidArgument("max_nodes: must be between 1 and 1000, got " +
                                   std::to_string(w.max_nodes));
  }
  return Status::Ok();
}

}  // namespace

Result<EntityPage> Engine::Impl::ListEntities(const Scope& scope, const EntityQuery& query) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateEntityQuery(query));
  return store_->ListEntities(scope, query);
}

Result<EntityDetail> Engine::Impl::GetEntity(const Scope& scope, std::string_view id) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  return store_->GetEntity(scope, id);
}

Result<Neighbourhood> Engine::Impl::EntityNeighbours(const Scope& scope, std::string_view id,
                                                     const GraphWalk& walk) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  ENGRAM_RETURN_IF_ERROR(ValidateWalk(walk));
  return store_->EntityNeighbours(scope, id, walk);
}

Result<EntityPage> Engine::ListEntities(const Scope& scope, const EntityQuery& query) {
  return impl_->ListEntities(scope, query);
}
Result<EntityDetail> Engine::GetEntity(const Scope& scope, std::string_view id) {
  return impl_->GetEntity(scope, id);
}
Result<Neighbourhood> Engine::EntityNeighbours(const Scope& scope, std::string_view id,
                                               const GraphWalk& walk) {
  return impl_->EntityNeighbours(scope, id, walk);
}

}  // namespace engram
