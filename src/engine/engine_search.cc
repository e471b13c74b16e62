// Engine: the read path of retrieval (search, context); the indexes it reads: engine_indexes.cc;
// the access counts of its hits: access_counts.cc.
#include <algorithm>
#include <cmath>
#include <shared_mutex>

#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "retrieval/context_packer.h"
#include "retrieval/entity_graph.h"
#include "retrieval/scope_index.h"
#include "retrieval/searcher.h"
#include "storage/memory_store.h"

namespace engram {

// Each text is embedded on its own, so a long early turn cannot drown the query text the way it
// would in one concatenated embedding; one batch call keeps remote embedders to one request.
Result<std::vector<float>> Engine::Impl::EmbedQuery(const SearchQuery& query) {
  if (query.recent_turns.empty()) return EmbedOne(query.text);
  const auto weighted = WeightedQueryTexts(query);
  std::vector<std::string> texts;
  for (const auto& [text, weight] : weighted) texts.push_back(text);
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
  const size_t dim = static_cast<size_t>(embedder_->dimension());
  std::vector<float> sum(dim, 0.0f);
  for (size_t i = 0; i < vectors.size(); ++i) {
    if (vectors.size() != texts.size() || vectors[i].size() != dim) {
      return Status::InvalidArgument(
          "dimension mismatch: the embedder returned unexpected vectors");
    }
    for (size_t j = 0; j < dim; ++j)
      sum[j] += static_cast<float>(weighted[i].second) * vectors[i][j];
  }
  double norm = 0;
  for (float x : sum) norm += static_cast<double>(x) * x;
  if (norm > 0) {
    const float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : sum) x *= inv;
  }
  return sum;
}

Result<std::vector<float>> Engine::Impl::EmbedOne(const std::string& text) {
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed({text}));
  if (vectors.size() != 1 || static_cast<int>(vectors[0].size()) != embedder_->dimension()) {
    return Status::InvalidArgument("dimension mismatch: the embedder returned a vector of " +
                                   std::to_string(vectors.empty() ? 0 : vectors[0].size()) +
                                   " values, expected " + std::to_string(embedder_->dimension()));
  }
  return std::move(vectors[0]);
}

Result<Engine::IndexInfo> Engine::Impl::DescribeIndex(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
  std::shared_lock<std::shared_mutex> lock(index->mu);
  return IndexInfo{.items = static_cast<int64_t>(index->size()),
                   .vectors = static_cast<int64_t>(index->vectors().size()),
                   .approximate = index->hnsw() != nullptr,
                   .from_snapshot = index->snapshot.loaded,
                   .snapshot_status = index->snapshot.status,
                   .graph_building = index->graph_building(),
                   .unmerged = static_cast<int64_t>(index->tail_size())};
}

Result<std::shared_ptr<const EntityGraph>> Engine::Impl::EntityGraphFor(const Scope& scope,
                                                                        ScopeIndex& index) {
  uint64_t generation = 0;
  {
    std::shared_lock<std::shared_mutex> lock(index.mu);
    if (auto graph = index.entity_graph()) return graph;
    generation = index.change_generation();
  }
  // Read outside the index's lock: searches go on meanwhile, and a write that lands during the
  // read changes the generation, so that this (possibly older) graph serves this search only.
  ENGRAM_ASSIGN_OR_RETURN(GraphRows rows, store_->LoadGraphRows(scope));
  auto graph = std::make_shared<const EntityGraph>(rows);
  std::unique_lock<std::shared_mutex> lock(index.mu);
  index.SetEntityGraph(graph, generation);
  return graph;
}

Result<std::vector<SearchHit>> Engine::Impl::Search(const Scope& scope, const SearchQuery& query) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateSearchQuery(query, options_.max_content_bytes));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> query_vector, EmbedQuery(query));
  return SearchWithVector(scope, query, query_vector);
}

Result<std::vector<SearchHit>> Engine::Impl::SearchWithVector(
    const Scope& scope, const SearchQuery& query, const std::vector<float>& query_vector) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateSearchQuery(query, options_.max_content_bytes));
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
  if (index->dimension() != static_cast<int>(query_vector.size())) {
    return Status::InvalidArgument("dimension mismatch between the query vector and the index");
  }
  const TimestampMs now = Now();
  std::shared_ptr<const EntityGraph> entity_graph;
  GraphChannel graph;
  if (query.graph && query.graph_weight > 0) {
    ENGRAM_ASSIGN_OR_RETURN(entity_graph, EntityGraphFor(scope, *index));
    graph = WalkQueryGraph(*entity_graph, query);
  }
  std::vector<RankedCandidate> ranked;
  {
    const bool check_expiry = !query.filters.include_expired && !query.filters.expires_after;
    SearchQuery expiring;  // the query, leaving out what expired by now
    if (check_expiry) {
      expiring = query;
      expiring.filters.expires_after = now;
    }
    std::shared_lock<std::shared_mutex> lock(index->mu);
    ranked = RankCandidates(*index, scope, check_expiry ? expiring : query, query_vector, now,
                            options_.retention, entity_graph ? &graph : nullptr);
  }
  std::vector<int64_t> seqs;
  for (const RankedCandidate& c : ranked) seqs.push_back(c.seq);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ScannedItem> rows,
                          access_.ReadHitRows(scope, seqs, query.record_access));
  std::vector<SearchHit> hits;
  std::vector<int64_t> returned;
  hits.reserve(ranked.size());
  returned.reserve(ranked.size());
  for (const RankedCandidate& c : ranked) {
    // k ≤ 100 rows: a linear look-up costs less than building a map.
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const ScannedItem& r) { return r.seq == c.seq; });
    if (row == rows.end()) continue;  // purged between ranking and reading
    SearchHit hit{std::move(row->item), c.score, query.explain ? c.explain : ScoreExplain{}};
    hits.push_back(std::move(hit));
    returned.push_back(c.seq);
  }
  DemoteStaleTurns(scope, query, &hits);
  if (query.record_access) {
    // The rows hold every earlier read (ReadHitRows added the unwritten ones); add this one.
    for (SearchHit& hit : hits) {
      hit.item.access_count += 1;
      hit.item.last_accessed = std::max(hit.item.last_accessed.value_or(0), now);
    }
    NoteAccess(returned, now);
  }
  return hits;
}

// A kept turn ranks below what was extracted from it: when a memory it produced (or that it
// reinforced) is among the hits, the turn goes just below that memory, since the memory says
// the same, distilled and current. A turn whose memories were all replaced ("I live in Boston"
// once the user moved) says what no longer holds: its score is scaled by turn_weight again. Only
// the returned turns are looked at, so a search without kept turns pays nothing.
void Engine::Impl::DemoteStaleTurns(const Scope& scope, const SearchQuery& query,
                                    std::vector<SearchHit>* hits) {
  bool changed = false;
  for (SearchHit& hit : *hits) {
    if (!IsKeptTurn(hit.item) || hit.item.derived_ids.empty()) continue;
    bool stale = true;
    double below = -1;  // the score of a returned active memory the turn produced
    for (const std::string& id : hit.item.derived_ids) {
      auto in_hits = std::find_if(hits->begin(), hits->end(),
                                  [&](const SearchHit& h) { return h.item.id == id; });
      ItemStatus status = ItemStatus::kDeleted;
      if (in_hits != hits->end()) {
        status = in_hits->item.status;
        if (status == ItemStatus::kActive) below = std::max(below, in_hits->score);
      } else if (auto item = store_->Get(scope, id); item.ok()) {
        status = item->status;
      }
      if (status == ItemStatus::kActive) stale = false;
    }
    if (stale) {
      hit.score *= query.turn_weight;
      changed = true;
    } else if (below >= 0 && hit.score >= below) {
      hit.score = std::nextafter(below, 0.0);
      changed = true;
    }
  }
  if (changed) {
    std::stable_sort(hits->begin(), hits->end(),
                     [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
  }
}

Result<ContextResult> Engine::Impl::BuildContext(const Scope& scope,
                                                 const ContextRequest& request) {
  if (request.token_budget < 16 || request.token_budget > 32768) {
    return Status::InvalidArgument("token_budget must be between 16 and 32768, got " +
                                   std::to_string(request.token_budget));
  }
  if (!request.memories && !request.knowledge) {
    return Status::InvalidArgument("a context needs memories, knowledge or both");
  }
  if (request.knowledge_share < 0 || request.knowledge_share > 1) {
    return Status::InvalidArgument("knowledge_share must be 0..1");
  }
  std::vector<SearchHit> hits;
  if (request.memories) {
    ENGRAM_ASSIGN_OR_RETURN(hits, Search(scope, request.search));
  } else {
    ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  }
  std::vector<KnowledgeHit> knowledge;
  if (request.knowledge) {
    KnowledgeQuery query{.text = request.search.text,
                         .k = request.knowledge_k,
                         .min_score = request.knowledge_min_score};
    ENGRAM_ASSIGN_OR_RETURN(knowledge,
                            SearchKnowledge(KnowledgeScope{scope.tenant, scope.agent_id}, query));
  }
  return PackContext(hits, knowledge, request);
}

Result<int64_t> Engine::Impl::Reembed(const ProgressFn& progress) {
  ENGRAM_ASSIGN_OR_RETURN(auto scopes, ListScopes(""));
  int64_t total = 0, done = 0, embedded = 0;
  for (const ScopeSummary& s : scopes) total += s.items;
  for (const ScopeSummary& s : scopes) {
    Scope scope{s.tenant, s.user_id, "", ""};
    DropIndex(scope);
    ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<ScopeIndex> index, IndexFor(scope));
    done += s.items;
    embedded += static_cast<int64_t>(index->size());
    if (progress) progress(done, total);
  }
  return embedded;
}

}  // namespace engram
