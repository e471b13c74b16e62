#include "index/bm25_index.h"

#include <algorithm>
#include <cmath>

namespace engram {
namespace {

constexpr uint32_t kDeadDoc = UINT32_MAX;
// Contributions memoized per query term: documents with tf < kMemoTf and length < kMemoLength.
constexpr uint32_t kMemoTf = 4;
constexpr uint32_t kMemoLength = 128;

}  // namespace

uint32_t Bm25Index::TermId(const std::string& term) {
  auto [it, inserted] = term_ids_.try_emplace(term, static_cast<uint32_t>(postings_.size()));
  if (inserted) {
    postings_.emplace_back();
    doc_freq_.push_back(0);
    max_tf_.push_back(0);
    min_length_.push_back(UINT32_MAX);
  }
  return it->second;
}

void Bm25Index::Add(int64_t key, const std::vector<std::string>& terms) {
  Remove(key);
  std::unordered_map<uint32_t, uint32_t> tf;
  for (const std::string& t : terms) ++tf[TermId(t)];
  const uint32_t doc = static_cast<uint32_t>(docs_.size());
  Doc d{key, static_cast<uint32_t>(terms.size()), true, {}};
  d.terms.reserve(tf.size());
  for (const auto& [term, count] : tf) {
    postings_[term].push_back({doc, count});
    ++doc_freq_[term];
    max_tf_[term] = std::max(max_tf_[term], count);
    min_length_[term] = std::min(min_length_[term], d.length);
    d.terms.push_back(term);
  }
  docs_.push_back(std::move(d));
  doc_length_.push_back(static_cast<uint32_t>(terms.size()));
  doc_of_key_[key] = doc;
  ++live_docs_;
  total_length_ += terms.size();
}

void Bm25Index::Remove(int64_t key) {
  auto it = doc_of_key_.find(key);
  if (it == doc_of_key_.end()) return;
  Doc& d = docs_[it->second];
  d.alive = false;
  doc_length_[it->second] = kDeadDoc;
  for (uint32_t term : d.terms) --doc_freq_[term];
  d.terms.clear();
  d.terms.shrink_to_fit();
  total_length_ -= d.length;
  --live_docs_;
  ++dead_docs_;
  doc_of_key_.erase(it);
  if (dead_docs_ > 1024 && dead_docs_ > live_docs_) Compact();
}

// Drops dead documents from the postings and renumbers the live ones.
void Bm25Index::Compact() {
  std::vector<uint32_t> new_id(docs_.size(), UINT32_MAX);
  std::vector<Doc> live;
  live.reserve(live_docs_);
  doc_length_.clear();
  for (uint32_t i = 0; i < docs_.size(); ++i) {
    if (!docs_[i].alive) continue;
    new_id[i] = static_cast<uint32_t>(live.size());
    doc_of_key_[docs_[i].key] = new_id[i];
    doc_length_.push_back(docs_[i].length);
    live.push_back(std::move(docs_[i]));
  }
  for (size_t term = 0; term < postings_.size(); ++term) {
    auto& list = postings_[term];
    size_t out = 0;
    max_tf_[term] = 0;
    min_length_[term] = UINT32_MAX;
    for (const Posting p : list) {  // a copy: the loop writes over the list it reads
      const uint32_t doc = new_id[p.doc];
      if (doc == UINT32_MAX) continue;
      list[out++] = {doc, p.tf};
      max_tf_[term] = std::max(max_tf_[term], p.tf);
      min_length_[term] = std::min(min_length_[term], doc_length_[doc]);
    }
    list.resize(out);
  }
  docs_ = std::move(live);
  dead_docs_ = 0;
}

size_t Bm25Index::MemoryBytes() const {
  // A document's distinct terms are at most its length: one Posting and one term id each.
  // Per document: Doc, its length, a key-map node. Per term: a map node with a short string,
  // its postings vector and document frequency.
  const size_t terms = total_length_ * (sizeof(Posting) + sizeof(uint32_t));
  const size_t docs = docs_.size() * (sizeof(Doc) + sizeof(uint32_t) + 40);
  const size_t vocabulary = term_ids_.size() * (64 + sizeof(std::vector<Posting>) + 4);
  return terms + docs + vocabulary;
}

double Bm25Index::Idf(const std::string& term) const {
  auto it = term_ids_.find(term);
  double df = it == term_ids_.end() ? 0 : doc_freq_[it->second];
  double n = static_cast<double>(live_docs_);
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

std::vector<Bm25Hit> Bm25Index::Search(const std::vector<std::string>& query_terms, size_t k,
                                       const KeyFilter& filter) const {
  std::vector<WeightedTerm> weighted;
  weighted.reserve(query_terms.size());
  for (const std::string& t : query_terms) weighted.push_back({t, 1.0});
  return SearchWeighted(weighted, k, filter);
}

namespace {

// One query term's BM25 contribution for a document, qtf·idf·tf·(k1+1)/(tf + k1·(1−b+b·dl/avgdl)),
// always evaluated by the same operations, so that every path gets the same bits.
struct TermScorer {
  double qtf, idf, k1, b, avgdl;
  double operator()(uint32_t tf_count, uint32_t length) const {
    const double tf = tf_count;
    const double norm = k1 * (1.0 - b + b * length / avgdl);
    return qtf * idf * tf * (k1 + 1.0) / (tf + norm);
  }
};

}  // namespace

// The query's known terms with their summed weights, the largest possible contribution first
// (ties by term id): both search paths add contributions in this order, hence the same bits.
std::vector<Bm25Index::QueryTerm> Bm25Index::QueryTerms(
    const std::vector<WeightedTerm>& query_terms, double avgdl) const {
  std::vector<QueryTerm> terms;
  for (const WeightedTerm& t : query_terms) {
    auto it = term_ids_.find(t.term);
    if (it == term_ids_.end() || doc_freq_[it->second] == 0) continue;
    auto same = std::find_if(terms.begin(), terms.end(),
                             [&](const QueryTerm& q) { return q.id == it->second; });
    if (same != terms.end()) {
      same->qtf += t.weight;
    } else {
      terms.push_back({it->second, t.weight, 0});
    }
  }
  for (QueryTerm& t : terms) {
    const double df = doc_freq_[t.id];
    const double idf = std::log(1.0 + (static_cast<double>(live_docs_) - df + 0.5) / (df + 0.5));
    const TermScorer score{t.qtf, idf, params_.k1, params_.b, avgdl};
    // The contribution grows with tf and shrinks with length; the margin covers rounding.
    t.upper_bound = score(max_tf_[t.id], min_length_[t.id]) * (1.0 + 1e-9);
  }
  std::sort(terms.begin(), terms.end(), [](const QueryTerm& a, const QueryTerm& b) {
    return a.upper_bound != b.upper_bound ? a.upper_bound > b.upper_bound : a.id < b.id;
  });
  return terms;
}

// Adds the term's contribution to acc[doc] for every live document holding it, and lists each
// document the first time it scores. A contribution depends on the document only through
// (tf, length), and a frequent term (the expensive case) meets the same few pairs thousands of
// times, so each pair's value is computed once per search and reused (the same bits).
void Bm25Index::Accumulate(const QueryTerm& term, double avgdl, std::vector<double>* acc,
                           std::vector<uint32_t>* touched) const {
  const double df = doc_freq_[term.id];
  const double idf = std::log(1.0 + (static_cast<double>(live_docs_) - df + 0.5) / (df + 0.5));
  const TermScorer contribution{term.qtf, idf, params_.k1, params_.b, avgdl};
  double memo[kMemoTf][kMemoLength] = {};  // 0: not computed yet (real values are > 0)
  double* sums = acc->data();
  for (const Posting& p : postings_[term.id]) {
    const uint32_t length = doc_length_[p.doc];
    if (length == kDeadDoc) continue;
    double value;
    if (p.tf < kMemoTf && length < kMemoLength) {
      double& slot = memo[p.tf][length];
      if (slot == 0.0) slot = contribution(p.tf, length);
      value = slot;
    } else {
      value = contribution(p.tf, length);
    }
    if (sums[p.doc] == 0.0) touched->push_back(p.doc);
    sums[p.doc] += value;
  }
}

void Bm25Index::AccumulateInto(const QueryTerm& term, double avgdl,
                               const std::vector<uint32_t>& docs, std::vector<double>* acc) const {
  const double df = doc_freq_[term.id];
  const double idf = std::log(1.0 + (static_cast<double>(live_docs_) - df + 0.5) / (df + 0.5));
  const TermScorer contribution{term.qtf, idf, params_.k1, params_.b, avgdl};
  const std::vector<Posting>& list = postings_[term.id];
  size_t at = 0;
  for (uint32_t doc : docs) {
    // Gallop: double the step until past `doc`, then binary search the last step.
    size_t step = 1, low = at;
    while (low + step < list.size() && list[low + step].doc < doc) low += step, step *= 2;
    auto it = std::lower_bound(
        list.begin() + static_cast<ptrdiff_t>(low),
        list.begin() + static_cast<ptrdiff_t>(std::min(list.size(), low + step + 1)), doc,
        [](const Posting& p, uint32_t d) { return p.doc < d; });
    at = static_cast<size_t>(it - list.begin());
    if (at == list.size()) break;
    if (it->doc == doc) (*acc)[doc] += contribution(it->tf, doc_length_[doc]);
  }
}

// Keeps the documents whose partial score plus `rest` (the bounds of the terms still to add)
// reaches `kth`; the others end strictly below the k-th score. Their sums are reset. Keeps
// the order of `docs`.
void Bm25Index::DropHopeless(double kth, double rest, std::vector<uint32_t>* docs,
                             std::vector<double>* acc) {
  size_t kept = 0;
  for (uint32_t doc : *docs) {
    if ((*acc)[doc] + rest >= kth) {
      (*docs)[kept++] = doc;
    } else {
      (*acc)[doc] = 0.0;
    }
  }
  docs->resize(kept);
}

double Bm25Index::KthScore(const std::vector<uint32_t>& docs, const std::vector<double>& acc,
                           size_t k) {
  thread_local std::vector<double> scores;
  scores.clear();
  for (uint32_t doc : docs) scores.push_back(acc[doc]);
  std::nth_element(scores.begin(), scores.begin() + static_cast<ptrdiff_t>(k - 1), scores.end(),
                   std::greater<double>());
  return scores[k - 1];
}

std::vector<Bm25Hit> Bm25Index::SearchWeighted(const std::vector<WeightedTerm>& query_terms,
                                               size_t k, const KeyFilter& filter,
                                               Bm25SearchStats* stats) const {
  return SearchTerms(query_terms, k, filter, /*prune=*/true, stats);
}

std::vector<Bm25Hit> Bm25Index::SearchExhaustive(const std::vector<WeightedTerm>& query_terms,
                                                 size_t k, const KeyFilter& filter,
                                                 Bm25SearchStats* stats) const {
  return SearchTerms(query_terms, k, filter, /*prune=*/false, stats);
}

std::vector<Bm25Hit> Bm25Index::SearchTerms(const std::vector<WeightedTerm>& query_terms, size_t k,
                                            const KeyFilter& filter, bool prune,
                                            Bm25SearchStats* stats) const {
  std::vector<Bm25Hit> hits;
  if (live_docs_ == 0 || k == 0) return hits;
  const double avgdl = static_cast<double>(total_length_) / static_cast<double>(live_docs_);
  const std::vector<QueryTerm> terms = QueryTerms(query_terms, avgdl);
  // The k-th best partial score bounds the final k-th score only when every document counts
  // (no filter) and contributions are positive.
  prune = prune && !filter &&
          std::all_of(terms.begin(), terms.end(), [](const QueryTerm& t) { return t.qtf > 0; });
  std::vector<double> rest(terms.size() + 1, 0.0);  // rest[i]: bounds of terms i.. summed
  for (size_t i = terms.size(); i-- > 0;) rest[i] = rest[i + 1] + terms[i].upper_bound;
  // Dense per-thread accumulator: indexes are searched concurrently under a shared lock.
  thread_local std::vector<double> acc;
  thread_local std::vector<uint32_t> touched;
  if (acc.size() < docs_.size()) acc.resize(docs_.size(), 0.0);
  touched.clear();
  size_t i = 0;
  double kth = 0;  // a lower bound of the final k-th score, once pruning starts
  for (; i < terms.size(); ++i) {
    // The k-th partial score is at most the bounds of the terms done (rest[0] − rest[i]): the
    // cheap test first, as KthScore reads every matched document.
    if (prune && i > 0 && touched.size() >= k && rest[i] < rest[0] - rest[i] &&
        rest[i] < (kth = KthScore(touched, acc, k))) {
      break;
    }
    Accumulate(terms[i], avgdl, &acc, &touched);
    if (stats) stats->postings_scored += postings_[terms[i].id].size();
  }
  if (i < terms.size()) {  // pruned: the remaining terms only update the documents matched
    DropHopeless(kth, rest[i], &touched, &acc);
    std::sort(touched.begin(), touched.end());
    for (; i < terms.size(); ++i) {
      AccumulateInto(terms[i], avgdl, touched, &acc);
      if (stats) ++stats->terms_looked_up;
      if (touched.size() > k) {
        kth = std::max(kth, KthScore(touched, acc, k));
        DropHopeless(kth, rest[i + 1], &touched, &acc);
      }
    }
  }
  // The k best in a heap (worst on top): a frequent term touches most documents, and copying
  // them all out to sort would cost more than the scoring.
  auto better = [](const Bm25Hit& a, const Bm25Hit& b) {
    return a.score != b.score ? a.score > b.score : a.key > b.key;
  };
  hits.reserve(std::min(k, touched.size()));
  for (uint32_t doc : touched) {
    const Bm25Hit hit{docs_[doc].key, acc[doc]};
    acc[doc] = 0.0;
    if (hits.size() == k && !better(hit, hits.front())) continue;
    if (filter && !filter(hit.key)) continue;
    if (hits.size() == k) {
      std::pop_heap(hits.begin(), hits.end(), better);
      hits.back() = hit;
    } else {
      hits.push_back(hit);
    }
    std::push_heap(hits.begin(), hits.end(), better);
  }
  std::sort_heap(hits.begin(), hits.end(), better);
  return hits;
}

}  // namespace engram
