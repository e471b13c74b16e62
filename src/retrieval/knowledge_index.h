// The chunks of one knowledge scope (a tenant's shared documents, or one agent's) in memory:
// a BM25 index and exact vectors, and what a hit returns. Built whole from the store and
// replaced whole when the scope's documents change (engine/knowledge_indexes.h); never
// updated in place, so searches need no lock.
//
// Threads: Add only before the index is shared; Search is const and safe from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engram/knowledge.h"
#include "engram/status.h"
#include "index/bm25_index.h"
#include "index/vector_index.h"

namespace engram {

struct IndexedChunk {
  int64_t seq = 0;
  KnowledgeHit hit;  // score unused
  std::vector<float> vector;
};

class KnowledgeIndex {
 public:
  explicit KnowledgeIndex(int dimension);
  // `vector` must hold dimension() floats.
  Status Add(IndexedChunk chunk);
  size_t size() const { return hits_.size(); }
  int dimension() const { return vectors_->dimension(); }

  // The k best chunks for the query: score = keyword_weight · (BM25 as a share of the most the
  // query's terms could score) + (1 − keyword_weight) · cosine (clipped at 0); a candidate
  // comes from either channel. Below min_score is left out.
  std::vector<KnowledgeHit> Search(const std::vector<WeightedTerm>& terms,
                                   const std::vector<float>& vector, int k, double keyword_weight,
                                   double min_score) const;

  // The text each chunk is indexed and embedded by: its title path, then its text.
  static std::string IndexText(const KnowledgeHit& hit);
  // A query's keyword terms (text/keyword_terms.h), single CJK characters weighted 0.5.
  static std::vector<WeightedTerm> QueryTerms(const std::string& text);

 private:
  Bm25Params params_;
  Bm25Index bm25_;
  std::unique_ptr<VectorIndex> vectors_;
  std::vector<KnowledgeHit> hits_;
  std::unordered_map<int64_t, size_t> position_;  // seq → hits_ index
};

}  // namespace engram
