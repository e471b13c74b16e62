#include "index/bm25_index.h"

#include <algorithm>
#include <cmath>

namespace engram {

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
  doc_of_key_[key] = doc;
  ++live_docs_;
  total_length_ += terms.size();
}

void Bm25Index::Remove(int64_t key) {
  auto it = doc_of_key_.find(key);
  if (it == doc_of_key_.end()) return;
  Doc& d = docs_[it->second];
  d.alive = false;
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
  for (uint32_t i = 0; i < docs_.size(); ++i) {
    if (!docs_[i].alive) continue;
    new_id[i] = static_cast<uint32_t>(live.size());
    doc_of_key_[docs_[i].key] = new_id[i];
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
    double df = doc_freq_[term];
    if (df == 0) continue;
    double idf = std::log(1.0 + (static_cast<double>(live_docs_) - df + 0.5) / (df + 0.5));
    for (const Posting& p : postings_[term]) {
      const Doc& d = docs_[p.doc];
      if (!d.alive) continue;
      double tf = p.tf;
      double norm = params_.k1 * (1.0 - params_.b + params_.b * d.length / avgdl);
      if (acc[p.doc] == 0.0) touched.push_back(p.doc);
      acc[p.doc] += qtf * idf * tf * (params_.k1 + 1.0) / (tf + norm);
    }
  }
  hits.reserve(touched.size());
  for (uint32_t doc : touched) {
    const double score = acc[doc];
    acc[doc] = 0.0;
    int64_t key = docs_[doc].key;
    if (filter && !filter(key)) continue;
    hits.push_back({key, score});
  }
  auto better = [](const Bm25Hit& a, const Bm25Hit& b) {
    return a.score != b.score ? a.score > b.score : a.key > b.key;
  };
  if (hits.size() > k) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<ptrdiff_t>(k), hits.end(), better);
    hits.resize(k);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  return hits;
}

}  // namespace engram
