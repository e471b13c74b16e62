#include "api/responses.h"

#include "codec/item_json.h"
#include "engram/clock.h"

namespace engram::api {

using json = nlohmann::json;

json AddedToJson(const std::vector<MemoryItem>& items) {
  json results = json::array();
  for (const MemoryItem& item : items) {
    results.push_back({{"id", item.id}, {"event", "ADD"}, {"memory", ItemToJson(item)}});
  }
  return json{{"results", std::move(results)}};
}

json PageToJson(const ListPage& page) {
  json results = json::array();
  for (const MemoryItem& item : page.items) results.push_back(ItemToJson(item));
  return json{{"results", std::move(results)},
              {"next_cursor", page.next_cursor.empty() ? json(nullptr) : json(page.next_cursor)}};
}

json HistoryListToJson(const std::vector<HistoryEntry>& history) {
  json results = json::array();
  for (const HistoryEntry& h : history) results.push_back(HistoryToJson(h));
  return json{{"results", std::move(results)}};
}

namespace {

json ExplainToJson(const ScoreExplain& e) {
  return json{{"keyword", e.keyword},       {"vector", e.vector},
              {"context", e.context},       {"relevance", e.relevance},
              {"recency", e.recency},       {"importance", e.importance},
              {"keyword_rank", e.keyword_rank}, {"vector_rank", e.vector_rank}};
}

json HitToJson(const SearchHit& hit, bool explain) {
  json j{{"id", hit.item.id}, {"memory", ItemToJson(hit.item)}, {"score", hit.score}};
  if (explain) j["explain"] = ExplainToJson(hit.explain);
  return j;
}

}  // namespace

json HitsToJson(const std::vector<SearchHit>& hits, bool explain) {
  json results = json::array();
  for (const SearchHit& hit : hits) results.push_back(HitToJson(hit, explain));
  return json{{"results", std::move(results)}};
}

json ContextToJson(const ContextResult& context) {
  json memories = json::array();
  for (const SearchHit& hit : context.memories) memories.push_back(HitToJson(hit, false));
  return json{{"context", context.text},
              {"memories", std::move(memories)},
              {"tokens", context.tokens}};
}

json KeyToJson(const ApiKeyInfo& k) {
  return json{{"id", k.id},
              {"tenant", k.tenant},
              {"name", k.name},
              {"role", ToString(k.role)},
              {"prefix", k.prefix},
              {"created_at", FormatTimestamp(k.created_at)},
              {"revoked_at", k.revoked_at ? json(FormatTimestamp(*k.revoked_at)) : json()}};
}

json ErrorToJson(const Status& status) {
  return json{{"error", {{"code", StatusCodeName(status.code())}, {"message", status.message()}}}};
}

}  // namespace engram::api
