#include "retrieval/knowledge_index.h"

#include <algorithm>
#include <unordered_map>

#include "text/keyword_terms.h"

namespace engram {

KnowledgeIndex::KnowledgeIndex(int dimension)
    : bm25_(params_), vectors_(MakeExactIndex(dimension)) {}

std::string KnowledgeIndex::IndexText(const KnowledgeHit& hit) {
  std::string out;
  for (const std::string& h : hit.title_path) {
    out += h;
    out += " > ";
  }
  if (!out.empty()) out.replace(out.size() - 3, 3, "\n");
  return out + hit.text;
}

std::vector<WeightedTerm> KnowledgeIndex::QueryTerms(const std::string& text) {
  std::vector<WeightedTerm> out;
  for (std::string& t : KeywordTerms(text)) {
    const double weight = IsCharacterTerm(t) ? 0.5 : 1.0;
    out.push_back({std::move(t), weight});
  }
  return out;
}

Status KnowledgeIndex::Add(IndexedChunk chunk) {
  if (static_cast<int>(chunk.vector.size()) != dimension()) {
    return Status::InvalidArgument("chunk vector of " + std::to_string(chunk.vector.size()) +
                                   " values, expected " + std::to_string(dimension()));
  }
  bm25_.Add(chunk.seq, KeywordTerms(IndexText(chunk.hit)));
  if (Status st = vectors_->Upsert(chunk.seq, chunk.vector.data()); !st.ok()) return st;
  position_[chunk.seq] = hits_.size();
  hits_.push_back(std::move(chunk.hit));
  return Status::Ok();
}

std::vector<KnowledgeHit> KnowledgeIndex::Search(const std::vector<WeightedTerm>& terms,
                                                 const std::vector<float>& vector, int k,
                                                 double keyword_weight, double min_score) const {
  std::vector<KnowledgeHit> out;
  if (hits_.empty() || k <= 0) return out;
  const size_t pool = static_cast<size_t>(k) * 4;
  // The most the query's terms could score: each at its idf with an unbounded term frequency.
  std::unordered_map<std::string, double> weights;
  for (const WeightedTerm& t : terms) weights[t.term] += t.weight;
  double most = 0;
  for (const auto& [term, w] : weights) most += w * bm25_.Idf(term) * (params_.k1 + 1);
  std::unordered_map<int64_t, std::pair<double, double>> candidates;  // seq → (keyword, cosine)
  if (most > 0) {
    for (const Bm25Hit& h : bm25_.SearchWeighted(terms, pool, nullptr)) {
      candidates[h.key].first = std::min(1.0, h.score / most);
    }
  }
  if (static_cast<int>(vector.size()) == dimension()) {
    for (const VectorHit& h : vectors_->Search(vector.data(), pool, nullptr)) {
      candidates[h.key].second = std::max(0.0, static_cast<double>(h.score));
    }
    // Keyword candidates need their cosine too.
    std::vector<float> v;
    for (auto& [seq, s] : candidates) {
      if (s.second > 0) continue;
      if (const float* p = vectors_->Peek(seq)) {
        double dot = 0;
        for (int i = 0; i < dimension(); ++i) dot += static_cast<double>(p[i]) * vector[i];
        s.second = std::max(0.0, dot);
      } else if (vectors_->Get(seq, &v)) {
        double dot = 0;
        for (int i = 0; i < dimension(); ++i) dot += static_cast<double>(v[i]) * vector[i];
        s.second = std::max(0.0, dot);
      }
    }
  }
  for (const auto& [seq, s] : candidates) {
    const double score = keyword_weight * s.first + (1 - keyword_weight) * s.second;
    if (score < min_score) continue;
    KnowledgeHit hit = hits_[position_.at(seq)];
    hit.score = score;
    out.push_back(std::move(hit));
  }
  std::sort(out.begin(), out.end(), [](const KnowledgeHit& a, const KnowledgeHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.doc_id != b.doc_id) return a.doc_id < b.doc_id;
    return a.ordinal < b.ordinal;
  });
  if (out.size() > static_cast<size_t>(k)) out.resize(static_cast<size_t>(k));
  return out;
}

}  // namespace engram
