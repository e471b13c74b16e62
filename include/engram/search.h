// Retrieval: hybrid keyword + vector search over one scope, and token-budgeted context.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engram/knowledge.h"
#include "engram/memory.h"

namespace engram {

enum class FusionMode {
  kWeighted,        // relevance = keyword_weight·bm25/max + (1−keyword_weight)·cosine
  kReciprocalRank,  // relevance = Σ 1/(60 + rank) over the channels, scaled to 0..1
};

// Filters every candidate must pass. Empty lists mean "any".
struct SearchFilters {
  std::vector<MemoryType> types;
  std::vector<Tier> tiers;
  std::vector<ItemStatus> statuses{ItemStatus::kActive};
  std::optional<TimestampMs> created_after;   // inclusive
  std::optional<TimestampMs> created_before;  // exclusive
  // What held at this time: items whose validity [valid_from, valid_to) contains it. A
  // superseded item counts as active for the status filter (it was current then), so the
  // default status filter returns the facts believed true at `as_of`.
  std::optional<TimestampMs> as_of;
  std::vector<std::string> tags;            // all must be present
  std::vector<std::string> entities;        // all must be present
  std::vector<MetadataCondition> metadata;  // key = value, all must hold
  // key ∈ values: for each condition, the metadata value must equal one of `values`.
  struct MetadataIn {
    std::string key;
    std::vector<MetadataValue> values;
  };
  std::vector<MetadataIn> metadata_in;
  // Expired items (MemoryItem::expires_at at or before the search's time) leave search at once;
  // true keeps them (to see what maintenance will archive).
  bool include_expired = false;
  // Items expiring at or before this time are left out. Engine::Search sets it to its "now"
  // unless include_expired; nullopt: no expiry check.
  std::optional<TimestampMs> expires_after;
};

struct SearchQuery {
  std::string text;  // required
  int k = 10;        // 1..100
  SearchFilters filters;
  std::optional<double> min_score;  // drop results scoring below this (0..1)
  bool explain = false;
  FusionMode fusion = FusionMode::kWeighted;
  // Final score = relevance_weight·relevance + importance_weight·importance
  //             + recency_weight·recency; the weights must sum to 1.
  double relevance_weight = 0.6;
  double importance_weight = 0.3;
  double recency_weight = 0.1;
  double keyword_weight = 0.7;  // share of the keyword channel in relevance (kWeighted)
  // Weight of a query's single CJK characters in the keyword channel against its words and
  // bigrams' 1: related Chinese words often share a character but no bigram.
  double cjk_character_weight = 0.5;
  // Conversational context: a memory gains this share of the relevance of the memories just
  // before and after it in the same session (a reply is relevant when its question is).
  double context_weight = 0.5;
  // Hierarchical prior: sessions are scored as documents (BM25 over all their memories,
  // 0..1 relative to the best session) and a memory's relevance is scaled by
  // 1 − session_weight + session_weight·(its session's score): a turn that says little by
  // itself is still likely relevant when its conversation is on topic. Memories without a
  // session are not scaled.
  double session_weight = 0.5;
  // Time prior: when the query text names a time ("in December 2023", "on 3 June", "last
  // week", "去年5月"), resolved against the search time, a memory's relevance is scaled by
  // 1 − time_weight + time_weight·(how close its time — valid_from — is to that span): 1
  // inside it, decaying after it (people talk about an event days or weeks later) and, faster,
  // before it. No scaling when the query names no time or no candidate is near the span.
  double time_weight = 0.7;
  double recency_half_life_days = 30;
  // Graph channel (issue 39): the entities the query and its recent turns name (by name or
  // alias, in the user's entity graph, include/engram/graph.h) seed a walk of up to graph_hops
  // relations that still hold, visiting at most graph_max_nodes entities; the memories that
  // mention a reached entity or state a walked relation form a third ranked list. It adds
  // graph_weight·(its credit relative to the best) to a memory's relevance (kWeighted), or a
  // third reciprocal rank (kReciprocalRank). false or weight 0: off.
  bool graph = true;
  double graph_weight = 0.3;
  int graph_hops = 2;        // 1..3
  int graph_max_nodes = 32;  // 1..1000
  // Conversational read path: the turns just before `text` (oldest first). They join the query
  // in both channels, each weighted recent_turn_weight against the query text's 1: the latest
  // line usually says what the next reply needs, the earlier ones still carry the topic.
  // The weight is flat, not decaying with distance: the topic is often set several turns
  // back (bench/results/evaluation.md).
  std::vector<std::string> recent_turns;  // at most 64
  double recent_turn_weight = 0.5;
  // A conversation turn the write path kept (IsKeptTurn) has its relevance scaled by this: when
  // a turn and a current fact extracted from it both match, the fact ranks first; a turn still
  // answers what no fact holds. A returned turn whose extracted memories were all replaced has
  // its score scaled by it once more. 1: no preference.
  double turn_weight = 0.7;
  // Newest evidence wins: for a question about a topic people change (where they live, their
  // work, partner, diet, pets, budget, schedule, devices, school, health, languages) and not
  // about the past, an older fact of the user on that topic ranks below a newer fact, or a
  // newer turn nothing was extracted from, that speaks of the user on it: a change the write
  // path missed is still answered right. Off for `as_of` searches.
  bool newest_evidence = true;
  bool diversify = true;    // maximal marginal relevance over near-duplicates
  double mmr_lambda = 0.7;  // 1: no diversity penalty
  // Cosine similarity up to which two memories count as not redundant for MMR; above it the
  // penalty rises linearly to 1; 0 is plain MMR. Memories of one user share much vocabulary,
  // so plain MMR also pushes away distinct relevant memories. 0.6 is the middle of the range
  // of floors that rank alike on the conversational benchmarks (bench/results/evaluation.md).
  double mmr_similarity_floor = 0.6;
  bool record_access = true;  // count this read in the items' access statistics
};

// Each signal, 0..1, as it entered the score.
struct ScoreExplain {
  double keyword = 0;    // bm25 normalized by the best keyword score of the query
  double vector = 0;     // cosine similarity (clipped at 0)
  double context = 0;    // best relevance of the memory's session neighbours
  double session = 0;    // BM25 of the memory's session relative to the best session's
  double time = 0;       // closeness of the memory's time to the time the query names
  double relevance = 0;  // the fused relevance, context and session prior included
  double recency = 0;    // 0.5^(age / half-life)
  double importance = 0;
  // Retention (include/engram/lifecycle.h) and the factor it scaled the score by.
  double retention = 1;
  double retention_factor = 1;
  int keyword_rank = 0;  // 1-based; 0: not a keyword candidate
  int vector_rank = 0;   // 1-based; 0: not a vector candidate
  // The graph channel: the memory's credit relative to the best (0..1), its rank (0: not
  // reached), and the entity that credited it most with its distance in relations from an
  // entity the query named (0: named itself).
  double graph = 0;
  int graph_rank = 0;
  std::string graph_via;
  int graph_hops = 0;
  // Set when a newer memory of the user on the same changeable topic outranks this one
  // (SearchQuery::newest_evidence): that memory's id, and why ("newer on work").
  std::string demoted_by;
  std::string demotion;
};

struct SearchHit {
  MemoryItem item;
  double score = 0;
  ScoreExplain explain;  // filled when SearchQuery::explain
};

struct ContextTurn {
  std::string role;
  std::string content;
};

struct ContextRequest {
  SearchQuery search;       // search.text is the query; k caps the memories considered
  int token_budget = 1000;  // 16..32768
  // The conversation in progress (working memory): its summary and latest turns, oldest
  // first. They come before the memories and take at most session_share of the budget; the
  // newest turns are kept when not all fit.
  std::string session_summary;
  std::vector<ContextTurn> session_turns;
  double session_share = 0.5;
  // The user's profile as text (include/engram/profile.h, ProfileText), placed first; the
  // caller sizes it (the HTTP API gives it at most profile_share of the budget).
  std::string profile;
  // What the block draws on: the user's memories and the knowledge tier's documents of the
  // scope's tenant (shared) and agent (include/engram/knowledge.h). Either can be left out.
  bool memories = true;
  bool knowledge = true;
  // Knowledge chunks considered, and the least score one needs (KnowledgeQuery). When both
  // memories and chunks are found, the chunks take at most knowledge_share of what the
  // profile and session block leave, and the memories the rest (each side gets what the other
  // leaves unused). A scope without documents packs exactly as without this.
  int knowledge_k = 5;
  double knowledge_min_score = 0.15;
  double knowledge_share = 0.4;
};

struct ContextResult {
  std::string text;                     // the packed block; never over token_budget tokens
  std::vector<SearchHit> memories;      // the memories included, in the order they appear
  int tokens = 0;                       // approximate tokens of `text`
  int session_turns = 0;                // recent turns included
  bool session_summary = false;         // whether the session summary is included
  bool profile = false;                 // whether the profile leads the block
  std::vector<KnowledgeHit> knowledge;  // the chunks included, in the order they appear
};

}  // namespace engram
