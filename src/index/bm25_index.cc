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
  for (auto& list : postings_) {
    size_t out = 0;
    for (const Posting& p : list) {
      if (new_id[p.doc] != UINT32_MAX) list[out++] = {new_id[p.doc], p.tf};
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

// Adds qtf·idf·BM25(tf, length) of `term` to acc[doc] for every live document holding it, and
// lists each document the first time it scores. A term's contribution depends on the document
// only through (tf, length), and a frequent term (the expensive case) meets the same few pairs
// thousands of times, so each pair's value is computed once per search and reused. The memo
// holds exactly what the formula gives, so scores are the same bits as computing every posting.
void Bm25Index::Accumulate(uint32_t term, double qtf, double avgdl, std::vector<double>* acc,
                           std::vector<uint32_t>* touched) const {
  const double df = doc_freq_[term];
  const double idf = std::log(1.0 + (static_cast<double>(live_docs_) - df + 0.5) / (df + 0.5));
  auto contribution = [&](uint32_t tf_count, uint32_t length) {
    const double tf = tf_count;
    const double norm = params_.k1 * (1.0 - params_.b + params_.b * length / avgdl);
    return qtf * idf * tf * (params_.k1 + 1.0) / (tf + norm);
  };
  double memo[kMemoTf][kMemoLength] = {};  // 0: not computed yet (real values are > 0)
  double* sums = acc->data();
  for (const Posting& p : postings_[term]) {
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

std::vector<Bm25Hit> Bm25Index::SearchWeighted(const std::vector<WeightedTerm>& query_terms,
                                               size_t k, const KeyFilter& filter) const {
  std::vector<Bm25Hit> hits;
  if (live_docs_ == 0 || k == 0) return hits;
  std::unordered_map<uint32_t, double> query_tf;  // summed weights
  for (const WeightedTerm& t : query_terms) {
    auto it = term_ids_.find(t.term);
    if (it != term_ids_.end()) query_tf[it->second] += t.weight;
  }
  const double avgdl = static_cast<double>(total_length_) / static_cast<double>(live_docs_);
  // Dense per-thread accumulator: indexes are searched concurrently under a shared lock.
  thread_local std::vector<double> acc;
  thread_local std::vector<uint32_t> touched;
  if (acc.size() < docs_.size()) acc.resize(docs_.size(), 0.0);
  touched.clear();
  for (const auto& [term, qtf] : query_tf) {
    if (doc_freq_[term] > 0) Accumulate(term, qtf, avgdl, &acc, &touched);
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
