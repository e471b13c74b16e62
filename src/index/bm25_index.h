// An in-memory BM25 inverted index over one scope's items (keys are items.seq), updated
// incrementally. Built from the database when a scope is first searched, so it is always
// consistent with the database after a restart.
//
// Threads: not synchronized; the owner (ScopeIndex) locks.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/vector_index.h"

namespace engram {

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
};

struct WeightedTerm {
  std::string term;
  double weight = 1;
};

// What one search did, for tests and profiling.
struct Bm25SearchStats {
  size_t postings_scored = 0;  // postings read in full scans of a term's list
  size_t terms_looked_up = 0;  // terms that only updated already matched documents (pruned)
};

struct Bm25Hit {
  int64_t key = 0;
  double score = 0;
};

class Bm25Index {
 public:
  explicit Bm25Index(Bm25Params params = {}) : params_(params) {}

  // Indexes `terms` (with repeats: term frequency counts) under `key`, replacing what it had.
  void Add(int64_t key, const std::vector<std::string>& terms);
  void Remove(int64_t key);
  size_t size() const { return live_docs_; }
  // Heap memory held, estimated from counts in O(1) (for memory budgets, not accounting).
  size_t MemoryBytes() const;

  // The k best documents passing `filter` for the query terms (repeats weight a term up),
  // best first. Documents matching no term are not returned.
  std::vector<Bm25Hit> Search(const std::vector<std::string>& query_terms, size_t k,
                              const KeyFilter& filter) const;
  // The same with a weight per query term (repeats add up).
  //
  // Without a filter, and with positive weights, the search prunes (MaxScore-style, term at a
  // time): terms are scored from the largest possible contribution down, and once the terms
  // left could not lift a document that none of the earlier terms matched above the k-th best
  // score so far, those terms only update the documents already matched (looked up in their
  // postings) instead of scoring every posting. A common word's posting list of most of the
  // index is then searched, not scanned. The result is identical to SearchExhaustive: the same
  // documents, order and score bits (the pruned documents could only have scored strictly below
  // the k-th).
  std::vector<Bm25Hit> SearchWeighted(const std::vector<WeightedTerm>& query_terms, size_t k,
                                      const KeyFilter& filter,
                                      Bm25SearchStats* stats = nullptr) const;
  // SearchWeighted scoring every posting of every query term (the reference for pruning).
  std::vector<Bm25Hit> SearchExhaustive(const std::vector<WeightedTerm>& query_terms, size_t k,
                                        const KeyFilter& filter,
                                        Bm25SearchStats* stats = nullptr) const;

  // BM25 inverse document frequency of one term, as Search uses it (for tests and explain).
  double Idf(const std::string& term) const;

 private:
  struct Posting {
    uint32_t doc;
    uint32_t tf;
  };
  struct Doc {
    int64_t key = 0;
    uint32_t length = 0;
    bool alive = false;
    std::vector<uint32_t> terms;  // distinct term ids, to update document frequencies on removal
  };

  struct QueryTerm {
    uint32_t id;
    double qtf;          // summed query weight
    double upper_bound;  // no posting of the term contributes more
  };

  uint32_t TermId(const std::string& term);
  void Compact();
  std::vector<QueryTerm> QueryTerms(const std::vector<WeightedTerm>& query_terms,
                                    double avgdl) const;
  std::vector<Bm25Hit> SearchTerms(const std::vector<WeightedTerm>& query_terms, size_t k,
                                   const KeyFilter& filter, bool prune,
                                   Bm25SearchStats* stats) const;
  // Adds one query term's contribution to every document containing it (see the .cc).
  void Accumulate(const QueryTerm& term, double avgdl, std::vector<double>* acc,
                  std::vector<uint32_t>* touched) const;
  // Adds it only to `docs` (sorted ascending), found in the postings by galloping search.
  void AccumulateInto(const QueryTerm& term, double avgdl, const std::vector<uint32_t>& docs,
                      std::vector<double>* acc) const;
  static void DropHopeless(double kth, double rest, std::vector<uint32_t>* docs,
                           std::vector<double>* acc);
  // The k-th largest acc[doc] over `docs` (docs.size() >= k).
  static double KthScore(const std::vector<uint32_t>& docs, const std::vector<double>& acc,
                         size_t k);

  Bm25Params params_;
  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<std::vector<Posting>> postings_;  // by term id; may hold dead docs until Compact
  std::vector<uint32_t> doc_freq_;              // live documents per term id
  // Per term id, over the postings ever added since the last Compact (a removal keeps them:
  // they stay bounds): the largest tf and the shortest document, which bound its contribution.
  std::vector<uint32_t> max_tf_;
  std::vector<uint32_t> min_length_;
  std::vector<Doc> docs_;
  // docs_[i].length, or kDeadDoc once removed: the scoring loop reads one small dense array
  // instead of a 40-byte Doc per posting.
  std::vector<uint32_t> doc_length_;
  std::unordered_map<int64_t, uint32_t> doc_of_key_;
  size_t live_docs_ = 0;
  uint64_t total_length_ = 0;  // of live documents
  size_t dead_docs_ = 0;
};

}  // namespace engram
