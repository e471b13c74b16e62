#include "api/graph_messages.h"

#include "core/status_macros.h"
#include "engram/clock.h"

namespace engram::api {
namespace {

using json = nlohmann::json;

Result<std::string> One(const Params& params, const std::string& key) {
  if (params.count(key) > 1) {
    return Status::InvalidArgument("query parameter '" + key + "' is given more than once");
  }
  auto it = params.find(key);
  return it == params.end() ? std::string() : it->second;
}

// An integer parameter in [lo, hi]; absent: `fallback`.
Result<int64_t> Integer(const Params& params, const std::string& key, int64_t fallback, int64_t lo,
                        int64_t hi) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, One(params, key));
  if (text.empty()) return fallback;
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || n < lo || n > hi) {
    return Status::InvalidArgument("query parameter '" + key + "' must be an integer between " +
                                   std::to_string(lo) + " and " + std::to_string(hi));
  }
  return n;
}

json Time(std::optional<TimestampMs> t) { return t ? json(FormatTimestamp(*t)) : json(nullptr); }

}  // namespace

Result<EntityListRequest> DecodeEntityList(const Params& params, const std::string& tenant) {
  EntityListRequest req;
  ENGRAM_ASSIGN_OR_RETURN(req.scope,
                          DecodeItemScope(params, tenant, {"kind", "name", "limit", "cursor"}));
  ENGRAM_ASSIGN_OR_RETURN(std::string kind, One(params, "kind"));
  if (!kind.empty()) {
    req.query.kind = ParseEntityKind(kind);
    if (!req.query.kind) {
      return Status::InvalidArgument(
          "query parameter 'kind' must be one of user, person, place, organization, pet, "
          "project, product; got '" +
          kind + "'");
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(req.query.name, One(params, "name"));
  ENGRAM_ASSIGN_OR_RETURN(int64_t limit, Integer(params, "limit", 100, 1, 1000));
  req.query.limit = static_cast<int>(limit);
  // The cursor is the offset the previous page's next_cursor gave.
  ENGRAM_ASSIGN_OR_RETURN(req.query.offset,
                          Integer(params, "cursor", 0, 0, std::numeric_limits<int32_t>::max()));
  return req;
}

Result<NeighboursRequest> DecodeNeighbours(const Params& params, const std::string& tenant) {
  NeighboursRequest req;
  ENGRAM_ASSIGN_OR_RETURN(req.scope,
                          DecodeItemScope(params, tenant, {"hops", "max_nodes", "include_ended"}));
  ENGRAM_ASSIGN_OR_RETURN(int64_t hops, Integer(params, "hops", 1, 1, 3));
  ENGRAM_ASSIGN_OR_RETURN(int64_t nodes, Integer(params, "max_nodes", 200, 1, 1000));
  req.walk.hops = static_cast<int>(hops);
  req.walk.max_nodes = static_cast<int>(nodes);
  ENGRAM_ASSIGN_OR_RETURN(std::string ended, One(params, "include_ended"));
  if (ended == "true" || ended == "1") {
    req.walk.include_ended = true;
  } else if (!ended.empty() && ended != "false" && ended != "0") {
    return Status::InvalidArgument("query parameter 'include_ended' must be true or false");
  }
  return req;
}

json EntityToJson(const EntityRecord& e) {
  return json{{"id", e.id},
              {"name", e.name},
              {"kind", std::string(ToString(e.kind))},
              {"aliases", e.aliases},
              {"mentions", e.mentions},
              {"edges", e.edges},
              {"active_edges", e.active_edges},
              {"created_at", FormatTimestamp(e.created_at)},
              {"updated_at", FormatTimestamp(e.updated_at)}};
}

json EdgeToJson(const EdgeRecord& e) {
  return json{{"id", e.id},
              {"subject", {{"id", e.subject_id}, {"name", e.subject_name}}},
              {"predicate", e.predicate},
              {"object", {{"id", e.object_id}, {"name", e.object_name}}},
              {"valid_from", FormatTimestamp(e.valid_from)},
              {"valid_to", Time(e.valid_to)},
              {"created_at", FormatTimestamp(e.created_at)},
              {"expired_at", Time(e.expired_at)},
              {"active", e.active()},
              {"ended_by", e.ended_by.empty() ? json(nullptr) : json(e.ended_by)},
              {"sources", e.sources}};
}

json EntityPageToJson(const EntityPage& page) {
  json list = json::array();
  for (const EntityRecord& e : page.entities) list.push_back(EntityToJson(e));
  return json{
      {"entities", std::move(list)},
      {"next_cursor", page.next_offset ? json(std::to_string(*page.next_offset)) : json(nullptr)}};
}

json EntityDetailToJson(const EntityDetail& detail) {
  json edges = json::array();
  for (const EdgeRecord& e : detail.edges) edges.push_back(EdgeToJson(e));
  return json{{"entity", EntityToJson(detail.entity)},
              {"edges", std::move(edges)},
              {"mentioned_in", detail.mentioned_in}};
}

json NeighbourhoodToJson(const Neighbourhood& n) {
  json near = json::array();
  for (const NeighbourEntity& e : n.entities) {
    near.push_back(json{{"entity", EntityToJson(e.entity)}, {"distance", e.distance}});
  }
  json edges = json::array();
  for (const EdgeRecord& e : n.edges) edges.push_back(EdgeToJson(e));
  return json{{"entity", EntityToJson(n.root)},
              {"neighbours", std::move(near)},
              {"edges", std::move(edges)},
              {"truncated", n.truncated}};
}

}  // namespace engram::api
