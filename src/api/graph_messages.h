// The entity graph's messages (issue 39): query strings of GET /v1/entities… decoded into native
// requests, and the graph's records encoded as JSON. Shared by the HTTP routes and the MCP tools.
// Field names: docs/http-api.md ("Entity graph") and docs/openapi.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/requests.h"
#include "engram/graph.h"

namespace engram::api {

// GET /v1/entities?user_id=…&kind=…&name=…&limit=…&cursor=…
struct EntityListRequest {
  Scope scope;
  EntityQuery query;
};
Result<EntityListRequest> DecodeEntityList(const Params& params, const std::string& tenant);

// GET /v1/entities/{id}/neighbours?user_id=…&hops=…&max_nodes=…&include_ended=…
struct NeighboursRequest {
  Scope scope;
  GraphWalk walk;
};
Result<NeighboursRequest> DecodeNeighbours(const Params& params, const std::string& tenant);

// {id, name, kind, aliases, mentions, edges, active_edges, created_at, updated_at}
nlohmann::json EntityToJson(const EntityRecord& e);
// {id, subject: {id, name}, predicate, object: {id, name}, valid_from, valid_to, created_at,
//  expired_at, active, ended_by, sources}
nlohmann::json EdgeToJson(const EdgeRecord& e);
// {entities: [...], next_cursor}
nlohmann::json EntityPageToJson(const EntityPage& page);
// {entity, edges, mentioned_in}
nlohmann::json EntityDetailToJson(const EntityDetail& detail);
// {entity, neighbours: [{entity, distance}], edges, truncated}
nlohmann::json NeighbourhoodToJson(const Neighbourhood& n);

}  // namespace engram::api
