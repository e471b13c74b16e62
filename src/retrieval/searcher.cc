#include "retrieval/searcher.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "retrieval/freshness.h"
#include "text/keyword_terms.h"
#include "text/time_expressions.h"

namespace engram {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

const MetadataValue* FindMetadata(const DocInfo& doc, const std::string& key) {
  for (const auto& [k, v] : doc.metadata) {
    if (k == key) return &v;
  }
  return nullptr;
}

// JSON equality: numbers compare by value whether integer or not.
bool SameValue(const MetadataValue& a, const MetadataValue& b) {
  auto as_number = [](const MetadataValue& v, double* out) {
    if (auto* i = std::get_if<int64_t>(&v)) return *out = static_cast<double>(*i), true;
    if (auto* d = std::get_if<double>(&v)) return *out = *d, true;
    return false;
  };
  double x, y;
  if (as_number(a, &x) && as_number(b, &y)) return x == y;
  return a == b;
}

template <typename E>
bool InSet(const std::vector<E>& set, E value) {
  return set.empty() || std::find(set.begin(), set.end(), value) != set.end();
}

constexpr int kRrfK = 60;
// Sessions past this rank get no prior.
constexpr size_t kSessionPriorDepth = 50;
constexpr double kDayMs = 86'400'000.0;

}  // namespace

bool PassesFilters(const DocInfo& doc, const Scope& scope, const SearchFilters& f) {
  if (!scope.agent_id.empty() && doc.agent_id != scope.agent_id) return false;
  if (!scope.session_id.empty() && doc.session_id != scope.session_id) return false;
  ItemStatus status = doc.status;
  if (f.as_of) {
    if (doc.valid_from > *f.as_of || (doc.valid_to && *doc.valid_to <= *f.as_of)) return false;
    if (status == ItemStatus::kSuperseded) status = ItemStatus::kActive;  // current back then
  }
  if (!InSet(f.types, doc.type) || !InSet(f.tiers, doc.tier) || !InSet(f.statuses, status)) {
    return false;
  }
  if (f.created_after && doc.created_at < *f.created_after) return false;
  if (f.created_before && doc.created_at >= *f.created_before) return false;
  if (f.expires_after && doc.expires_at && *doc.expires_at <= *f.expires_after) return false;
  for (const std::string& t : f.tags) {
    if (!Contains(doc.tags, t)) return false;
  }
  for (const std::string& e : f.entities) {
    if (!Contains(doc.entities, e)) return false;
  }
  for (const MetadataCondition& c : f.metadata) {
    const MetadataValue* v = FindMetadata(doc, c.key);
    if (!v || !SameValue(*v, c.value)) return false;
  }
  for (const SearchFilters::MetadataIn& c : f.metadata_in) {
    const MetadataValue* v = FindMetadata(doc, c.key);
    if (!v) return false;
    bool any = std::any_of(c.values.begin(), c.values.end(),
                           [&](const MetadataValue& x) { return SameValue(*v, x); });
    if (!any) return false;
  }
  return true;
}

std::vector<std::pair<std::string, double>> WeightedQueryTexts(const SearchQuery& q) {
  std::vector<std::pair<std::string, double>> out{{q.text, 1.0}};
  if (q.recent_turn_weight <= 0) return out;
  for (auto it = q.recent_turns.rbegin(); it != q.recent_turns.rend(); ++it) {
    out.emplace_back(*it, q.recent_turn_weight);
  }
  return out;
}

namespace {

// Every query text's keyword terms, weighted as the text is.
std::vector<WeightedTerm> WeightedKeywordTerms(const SearchQuery& q) {
  std::vector<WeightedTerm> terms;
  for (const auto& [text, weight] : WeightedQueryTexts(q)) {
    for (std::string& t : KeywordTerms(text)) {
      if (!IsCharacterTerm(t)) {
        terms.push_back({std::move(t), weight});
      } else if (q.cjk_character_weight > 0) {
        terms.push_back({std::move(t), weight * q.cjk_character_weight});
      }
    }
  }
  return terms;
}

// A hit of one channel that passed the filters, with its index entry.
template <typename Hit>
struct Found {
  Hit hit;
  const DocInfo* doc;
};

// How many more hits than wanted to ask of an unfiltered search so that, after filtering,
// enough are likely left: half as many again, or, when only the status filter can fail an
// entry (no agent or session narrowing, filters that only ask for active items), at most the
// index's inactive entries, since no other entry can fail. Searches of scopes without
// superseded or archived items then ask for just what they want: the extra half cost the
// vector channel a third more re-ranked rows, each a cache miss.
size_t OverAsk(size_t want, const ScopeIndex& index, const Scope& scope, const SearchFilters& f) {
  const bool only_status = scope.agent_id.empty() && scope.session_id.empty() && f.types.empty() &&
                           f.tiers.empty() && InSet(f.statuses, ItemStatus::kActive) &&
                           !f.created_after && !f.created_before && !f.as_of && f.tags.empty() &&
                           f.entities.empty() && f.metadata.empty() && f.metadata_in.empty();
  return only_status ? std::min(want / 2, index.inactive()) : want / 2;
}

// Runs `search` unfiltered for more than the wanted hits (OverAsk) and filters the result, which
// is far cheaper than testing every scored key when most items pass (the usual case: active
// items); falls back to a filtered search when too few survive. Each hit comes with its index
// entry, looked up once.
template <typename Search>
auto FilteredAfter(const Search& search, size_t want, const ScopeIndex& index, const Scope& scope,
                   const SearchFilters& filters) {
  using Hit = typename decltype(search(size_t{0}, KeyFilter()))::value_type;
  auto passing = [&](int64_t seq) -> const DocInfo* {
    const DocInfo* d = index.Find(seq);
    return d && PassesFilters(*d, scope, filters) ? d : nullptr;
  };
  const size_t ask = want + OverAsk(want, index, scope, filters);
  auto hits = search(ask, KeyFilter());
  std::vector<Found<Hit>> found;
  found.reserve(hits.size());
  for (const Hit& h : hits) {
    if (const DocInfo* d = passing(h.key)) found.push_back({h, d});
  }
  if (found.size() < want && hits.size() == ask) {
    found.clear();
    for (const Hit& h : search(want, [&](int64_t seq) { return passing(seq) != nullptr; })) {
      found.push_back({h, index.Find(h.key)});
    }
  }
  if (found.size() > want) found.resize(want);
  return found;
}

// A candidate and its index entry (valid while the index's lock is held), looked up once.
struct Candidate {
  RankedCandidate ranked;
  const DocInfo* doc = nullptr;
};
// A search's candidates (a few hundred at most), in the order first seen: a flat array with an
// open-addressing index, where a node-based map cost an allocation per candidate.
class Candidates {
 public:
  // The entry for `seq`, added with its index entry when new. Valid until the next addition.
  RankedCandidate& Entry(int64_t seq, const DocInfo* doc) {
    if (2 * (items_.size() + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(seq) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        items_.push_back({});
        slots_[i] = static_cast<uint32_t>(items_.size());
        Candidate& c = items_.back();
        c.ranked.seq = seq;
        c.doc = doc;
        return c.ranked;
      }
      Candidate& c = items_[slots_[i] - 1];
      if (c.ranked.seq == seq) {
        if (!c.doc) c.doc = doc;
        return c.ranked;
      }
    }
  }
  size_t size() const { return items_.size(); }
  std::vector<Candidate>::iterator begin() { return items_.begin(); }
  std::vector<Candidate>::iterator end() { return items_.end(); }

 private:
  static size_t Hash(int64_t seq) {
    return static_cast<size_t>((static_cast<uint64_t>(seq) * 0x9E3779B97F4A7C15ull) >> 32);
  }
  void Grow() {
    slots_.assign(std::max<size_t>(256, 2 * slots_.size()), 0);
    items_.reserve(slots_.size() / 2);
    const size_t mask = slots_.size() - 1;
    for (size_t n = 0; n < items_.size(); ++n) {
      size_t i = Hash(items_[n].ranked.seq) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = static_cast<uint32_t>(n + 1);
    }
  }
  std::vector<Candidate> items_;
  std::vector<uint32_t> slots_;  // 1 + index into items_; 0: empty; a power of two long
};

// How many of the graph channel's memories join the candidates.
size_t GraphPool(const SearchQuery& q) { return std::max<size_t>(10, static_cast<size_t>(q.k)); }

// Collects the channels' candidates with their raw signals and ranks.
Candidates Gather(const ScopeIndex& index, const Scope& scope, const SearchQuery& q,
                  const std::vector<WeightedTerm>& terms, const std::vector<float>& qv,
                  const GraphChannel* graph) {
  // The keyword channel feeds most of the relevance (keyword_weight), so it gets the deeper pool.
  const size_t pool = std::max<size_t>(50, static_cast<size_t>(q.k) * 5);
  const size_t vector_pool = std::max<size_t>(30, static_cast<size_t>(q.k) * 3);
  Candidates out;
  auto keyword = FilteredAfter(
      [&](size_t n, const KeyFilter& f) { return index.keyword().SearchWeighted(terms, n, f); },
      pool, index, scope, q.filters);
  const double best = keyword.empty() ? 1.0 : keyword.front().hit.score;
  for (size_t i = 0; i < keyword.size(); ++i) {
    RankedCandidate& c = out.Entry(keyword[i].hit.key, keyword[i].doc);
    c.explain.keyword = best > 0 ? keyword[i].hit.score / best : 0;
    c.explain.keyword_rank = static_cast<int>(i) + 1;
  }
  auto vector = FilteredAfter(
      [&](size_t n, const KeyFilter& f) { return index.vectors().Search(qv.data(), n, f); },
      vector_pool, index, scope, q.filters);
  for (size_t i = 0; i < vector.size(); ++i) {
    RankedCandidate& c = out.Entry(vector[i].hit.key, vector[i].doc);
    c.explain.vector = std::max(0.0, static_cast<double>(vector[i].hit.score));
    c.explain.vector_rank = static_cast<int>(i) + 1;
  }
  if (graph && graph->graph && !graph->walk.credits.empty()) {
    int rank = 0;
    for (const GraphCredit& credit : graph->walk.credits) {
      const DocInfo* d = index.Find(credit.seq);
      if (!d || !PassesFilters(*d, scope, q.filters)) continue;
      RankedCandidate& c = out.Entry(credit.seq, d);
      c.explain.graph = std::min(1.0, credit.score);
      c.explain.graph_rank = ++rank;
      c.explain.graph_via = graph->graph->name(credit.via);
      c.explain.graph_hops = credit.hops;
      if (static_cast<size_t>(rank) >= GraphPool(q)) break;
    }
    // The other channels' candidates get the credit the walk gives them too: a keyword match
    // that names the entity asked about ranks above one that does not.
    for (Candidate& c : out) {
      if (c.ranked.explain.graph_rank) continue;
      const GraphCredit credit = graph->graph->CreditOf(c.ranked.seq, graph->walk);
      if (credit.score <= 0) continue;
      c.ranked.explain.graph = std::min(1.0, credit.score);
      c.ranked.explain.graph_via = graph->graph->name(credit.via);
      c.ranked.explain.graph_hops = credit.hops;
    }
  }
  return out;
}

double Relevance(const ScoreExplain& e, const SearchQuery& q) {
  if (q.fusion == FusionMode::kReciprocalRank) {
    double rrf = 0;
    if (e.keyword_rank) rrf += 1.0 / (kRrfK + e.keyword_rank);
    if (e.vector_rank) rrf += 1.0 / (kRrfK + e.vector_rank);
    if (e.graph_rank) rrf += 1.0 / (kRrfK + e.graph_rank);
    return rrf / (2.0 / (kRrfK + 1));
  }
  return q.keyword_weight * e.keyword + (1.0 - q.keyword_weight) * e.vector +
         q.graph_weight * e.graph;
}

// Credits each candidate's session neighbours with its own relevance (before context), adding
// neighbours that were not candidates themselves.
void AddSessionContext(const ScopeIndex& index, const Scope& scope, const SearchQuery& q,
                       Candidates* candidates) {
  if (q.context_weight <= 0) return;
  std::vector<std::pair<int64_t, double>> credits;
  for (const Candidate& c : *candidates) {
    double own = Relevance(c.ranked.explain, q);
    auto [before, after] = index.SessionNeighbours(c.ranked.seq, *c.doc);
    for (int64_t n : {before, after}) {
      if (n != 0) credits.emplace_back(n, own);
    }
  }
  for (const auto& [seq, credit] : credits) {
    const DocInfo* d = index.Find(seq);
    if (!d || !PassesFilters(*d, scope, q.filters)) continue;
    RankedCandidate& c = candidates->Entry(seq, d);
    c.explain.context = std::max(c.explain.context, credit);
  }
}

// Hierarchical retrieval: sessions are scored as documents (BM25 over their concatenated
// memories, relative to the best session) and each candidate learns its session's score.
// False when no session matches the query: there is no prior then.
bool AddSessionPrior(const ScopeIndex& index, const SearchQuery& q,
                     const std::vector<WeightedTerm>& terms, Candidates* candidates) {
  if (q.session_weight <= 0 || index.sessions().sessions() == 0) return false;
  const auto scores = index.sessions().Search(terms, kSessionPriorDepth);
  if (scores.empty()) return false;
  for (Candidate& c : *candidates) {
    if (c.doc->session_id.empty()) continue;
    auto it = scores.find(c.doc->session_id);
    if (it != scores.end()) c.ranked.explain.session = it->second;
  }
  return true;
}

// The session prior scales a session memory's relevance from 1 − session_weight (its session
// matches nothing) to 1 (the best session). Scaling, not adding, leaves memories without a
// session on par with those of the best session, and the order within one session unchanged.
double SessionFactor(const ScoreExplain& e, const SearchQuery& q) {
  return 1.0 - q.session_weight + q.session_weight * e.session;
}

// A span of time the query names: [from, to) in ms.
struct TimeSpan {
  TimestampMs from = 0;
  TimestampMs to = 0;
};

// The spans named in the query text (not its recent turns), resolved against `now`.
std::vector<TimeSpan> QueryTimeSpans(const std::string& text, TimestampMs now) {
  std::vector<TimeExpression> found = FindEnglishTimeExpressions(text, now);
  for (TimeExpression& t : FindChineseTimeExpressions(text, now)) found.push_back(t);
  std::vector<TimeSpan> spans;
  for (const TimeExpression& t : found) {
    const int64_t day = static_cast<int64_t>(std::floor(t.at / kDayMs));
    int64_t y;
    unsigned m, d;
    CivilFromDays(day, &y, &m, &d);
    int64_t end = day + 1;
    switch (t.granularity) {
      case TimeGranularity::kDay:
        break;
      case TimeGranularity::kWeek:
        end = day + 7;
        break;
      case TimeGranularity::kMonth:
        end = m == 12 ? DaysFromCivil(y + 1, 1, 1) : DaysFromCivil(y, m + 1, 1);
        break;
      case TimeGranularity::kYear:
        end = DaysFromCivil(y + 1, 1, 1);
        break;
    }
    spans.push_back({t.at, static_cast<TimestampMs>(end * kDayMs)});
  }
  return spans;
}

// 1 inside the span; after it, halved every max(7 days, the span's length) — an event is told
// days or weeks after it happened; before it, halved every day.
double TimeCloseness(TimestampMs at, const TimeSpan& span) {
  if (at >= span.from && at < span.to) return 1.0;
  if (at < span.from) return std::pow(0.5, static_cast<double>(span.from - at) / kDayMs);
  const double half = std::max(7 * kDayMs, static_cast<double>(span.to - span.from));
  return std::pow(0.5, static_cast<double>(at - span.to) / half);
}

// Each candidate's closeness to the query's time; false when the query names no time or no
// candidate is within a half-life of it: there is no prior then.
bool AddTimePrior(const SearchQuery& q, TimestampMs now, Candidates* candidates) {
  if (q.time_weight <= 0) return false;
  const std::vector<TimeSpan> spans = QueryTimeSpans(q.text, now);
  if (spans.empty()) return false;
  bool near = false;
  for (Candidate& candidate : *candidates) {
    const DocInfo* d = candidate.doc;
    ScoreExplain& e = candidate.ranked.explain;
    const TimestampMs at = d->valid_from != 0 ? d->valid_from : d->created_at;
    for (const TimeSpan& span : spans) e.time = std::max(e.time, TimeCloseness(at, span));
    near |= e.time >= 0.5;
  }
  return near;
}

// Of two vectors of `n` floats; 0 when either is missing.
float Cosine(const float* a, const float* b, size_t n) {
  if (!a || !b) return 0;
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // independent lanes vectorize
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t l = 0; l < 8; ++l) lanes[l] += a[i + l] * b[i + l];
  }
  float dot = 0;
  for (; i < n; ++i) dot += a[i] * b[i];
  for (float l : lanes) dot += l;
  return dot;
}

// How redundant a candidate is next to one already taken: 0 up to q.mmr_similarity_floor, rising
// linearly to 1 for identical vectors. Memories of one user or topic share much vocabulary
// (names, recurring phrases), so raw cosine would penalize distinct relevant memories too.
double Redundancy(double cosine, const SearchQuery& q) {
  if (cosine <= q.mmr_similarity_floor || q.mmr_similarity_floor >= 1) return 0;
  return (cosine - q.mmr_similarity_floor) / (1.0 - q.mmr_similarity_floor);
}

// The candidates' MMR order (MmrPicks) over their vectors, read only when compared.
std::vector<RankedCandidate> Diversify(const ScopeIndex& index, std::vector<RankedCandidate> ranked,
                                       const SearchQuery& q) {
  const size_t pool = std::min(ranked.size(), static_cast<size_t>(q.k) * 3);
  std::vector<double> scores(pool);
  for (size_t i = 0; i < pool; ++i) scores[i] = ranked[i].score;
  // In place where the index keeps them contiguously, else copied out.
  const VectorIndex& vectors = index.vectors();
  const size_t dim = static_cast<size_t>(vectors.dimension());
  std::vector<const float*> vecs(pool, nullptr);
  std::vector<std::vector<float>> copies(pool);
  std::vector<bool> loaded(pool, false);
  auto vector_of = [&](size_t i) -> const float* {
    if (!loaded[i]) {
      loaded[i] = true;
      vecs[i] = vectors.Peek(ranked[i].seq);
      if (!vecs[i] && vectors.Get(ranked[i].seq, &copies[i]) && copies[i].size() == dim) {
        vecs[i] = copies[i].data();
      }
    }
    return vecs[i];
  };
  std::vector<RankedCandidate> chosen;
  for (size_t i : MmrPicks(scores, static_cast<size_t>(q.k), q, [&](size_t a, size_t b) {
         return static_cast<double>(Cosine(vector_of(a), vector_of(b), dim));
       })) {
    chosen.push_back(ranked[i]);
  }
  return chosen;
}

}  // namespace

std::vector<size_t> MmrPicks(std::span<const double> scores, size_t k, const SearchQuery& q,
                             const std::function<double(size_t, size_t)>& similarity) {
  const size_t pool = scores.size();
  const double lambda = q.mmr_lambda;
  std::vector<double> max_sim(pool, 0.0);
  std::vector<size_t> compared(pool, 0);  // how many of `picks` max_sim[i] has seen
  std::vector<bool> used(pool, false);
  std::vector<size_t> picks;
  // With max_sim short of some picks this is an upper bound: redundancy only grows.
  auto mmr = [&](size_t i) {
    return lambda * scores[i] - (1.0 - lambda) * Redundancy(max_sim[i], q);
  };
  while (picks.size() < k && picks.size() < pool) {
    size_t best = pool;
    double best_mmr = -1e9;
    for (size_t i = 0; i < pool; ++i) {
      if (used[i]) continue;
      if (best != pool) {
        if (lambda * scores[i] <= best_mmr) break;  // nor can any later (lower) score
        if (mmr(i) <= best_mmr) continue;
      }
      for (; compared[i] < picks.size(); ++compared[i]) {
        max_sim[i] = std::max(max_sim[i], similarity(i, picks[compared[i]]));
      }
      if (const double value = mmr(i); value > best_mmr) best_mmr = value, best = i;
    }
    used[best] = true;
    picks.push_back(best);
  }
  return picks;
}

GraphChannel WalkQueryGraph(const EntityGraph& graph, const SearchQuery& q) {
  GraphChannel channel{&graph, {}};
  if (!q.graph || q.graph_weight <= 0) return channel;
  std::vector<GraphSeed> seeds;
  for (const auto& [text, weight] : WeightedQueryTexts(q)) graph.FindSeeds(text, weight, &seeds);
  // Deeper than the pool: some of the walk's memories fail the filters.
  channel.walk = graph.Walk(seeds, q.graph_hops, q.graph_max_nodes, 2 * GraphPool(q));
  return channel;
}

std::vector<RankedCandidate> RankCandidates(const ScopeIndex& index, const Scope& scope,
                                            const SearchQuery& q, const std::vector<float>& qv,
                                            TimestampMs now, const RetentionPolicy& retention,
                                            const GraphChannel* graph) {
  const std::vector<WeightedTerm> terms = WeightedKeywordTerms(q);
  auto gathered = Gather(index, scope, q, terms, qv, graph);
  AddSessionContext(index, scope, q, &gathered);
  const bool session_prior = AddSessionPrior(index, q, terms, &gathered);
  const bool time_prior = AddTimePrior(q, now, &gathered);
  const double half_life_ms = q.recency_half_life_days * 86'400'000.0;
  std::vector<RankedCandidate> ranked;
  ranked.reserve(gathered.size());
  for (Candidate& candidate : gathered) {
    RankedCandidate& c = candidate.ranked;
    const DocInfo* d = candidate.doc;
    double age = std::max<double>(0, static_cast<double>(now - d->created_at));
    c.explain.recency = half_life_ms > 0 ? std::pow(0.5, age / half_life_ms) : 0;
    c.explain.importance = d->importance;
    c.explain.relevance =
        std::min(1.0, Relevance(c.explain, q) + q.context_weight * c.explain.context);
    if (session_prior && !d->session_id.empty()) c.explain.relevance *= SessionFactor(c.explain, q);
    if (time_prior) c.explain.relevance *= 1.0 - q.time_weight + q.time_weight * c.explain.time;
    if (d->kept_turn) c.explain.relevance *= q.turn_weight;
    if (c.explain.relevance <= 0) continue;  // no evidence at all: importance alone is not a match
    c.score = q.relevance_weight * c.explain.relevance + q.importance_weight * d->importance +
              q.recency_weight * c.explain.recency;
    RetentionInputs in{
        .type = d->type,
        .importance = d->importance,
        .last_used = d->last_used,
        .access_count = d->access_count,
        .critical = d->critical_tag || d->importance >= retention.critical_importance};
    c.explain.retention = Retention(in, retention, now);
    c.explain.retention_factor = RetentionRankFactor(c.explain.retention, retention);
    c.score *= c.explain.retention_factor;
    if (q.min_score && c.score < *q.min_score) continue;
    ranked.push_back(c);
  }
  DemoteOutdated(index, q, &ranked);
  std::sort(ranked.begin(), ranked.end(), [](const RankedCandidate& a, const RankedCandidate& b) {
    return a.score != b.score ? a.score > b.score : a.seq > b.seq;
  });
  if (q.diversify && q.mmr_lambda < 1.0 && ranked.size() > 1) return Diversify(index, ranked, q);
  if (ranked.size() > static_cast<size_t>(q.k)) ranked.resize(static_cast<size_t>(q.k));
  return ranked;
}

}  // namespace engram
