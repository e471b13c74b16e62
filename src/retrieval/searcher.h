// Ranking: candidates from the keyword and vector channels of a ScopeIndex, filtered, fused
// with importance and recency, scaled by retention (include/engram/lifecycle.h), thresholded and
// diversified (MMR). Pure computation over the
// index; the engine fetches the winning items from the store.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engram/lifecycle.h"
#include "engram/search.h"
#include "retrieval/entity_graph.h"
#include "retrieval/scope_index.h"

namespace engram {

struct RankedCandidate {
  int64_t seq = 0;
  double score = 0;
  ScoreExplain explain;
};

// True if the item may be returned for `scope` (agent/session narrowing) under `filters`.
bool PassesFilters(const DocInfo& doc, const Scope& scope, const SearchFilters& filters);

// The query text (weight 1) followed by its recent turns, newest first, each weighted
// recent_turn_weight (none when that weight is 0).
std::vector<std::pair<std::string, double>> WeightedQueryTexts(const SearchQuery& query);

// Maximal marginal relevance: the indices of up to `k` candidates (given best score first), in
// pick order. Each round takes the candidate with the best
// λ·score − (1−λ)·(its max redundancy with those already picked), the first on ties, where
// redundancy is 0 up to query.mmr_similarity_floor of similarity, rising linearly to 1 at 1.
// Lazy: `similarity(i, p)` (i a candidate, p a pick) is asked only for candidates that could
// still win a round — about k²/2 calls when near-duplicates are rare, instead of pool × k.
std::vector<size_t> MmrPicks(std::span<const double> scores, size_t k, const SearchQuery& query,
                             const std::function<double(size_t, size_t)>& similarity);

// The graph channel's input: the walk from the entities the query names, and the graph it
// walked (for the names explain gives).
struct GraphChannel {
  const EntityGraph* graph = nullptr;
  GraphWalkResult walk;
};

// The seeds of `query` in `graph` (its text, then its recent turns at their weight) and the walk
// from them; empty when the query turns the channel off.
GraphChannel WalkQueryGraph(const EntityGraph& graph, const SearchQuery& query);

// The caller holds index.mu (shared). `query_vector` has index.dimension() floats. `graph`:
// the graph channel's walk (null: no graph channel).
std::vector<RankedCandidate> RankCandidates(const ScopeIndex& index, const Scope& scope,
                                            const SearchQuery& query,
                                            const std::vector<float>& query_vector, TimestampMs now,
                                            const RetentionPolicy& retention = RetentionPolicy(),
                                            const GraphChannel* graph = nullptr);

}  // namespace engram
