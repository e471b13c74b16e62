// SessionIndex: BM25 over sessions as documents — each session's memories concatenated — so
// that ranking can add a session-level prior to a memory's own relevance (hierarchical
// retrieval: a turn is more likely relevant when its conversation as a whole is about the
// query, even if the turn itself says little).
//
// Updated incrementally per memory: a memory's terms are added to or subtracted from its
// session's counts, so no update costs more than the memory's own terms. It keeps each
// member's term ids (4 bytes per term) to subtract them on removal.
//
// Threads: not synchronized; the owner (ScopeIndex) locks.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/bm25_index.h"

namespace engram {

class SessionIndex {
 public:
  explicit SessionIndex(Bm25Params params = {}) : params_(params) {}

  // Adds memory `seq` with `terms` to session `session_id` (non-empty), first removing what
  // `seq` held before.
  void Add(int64_t seq, const std::string& session_id, const std::vector<std::string>& terms);
  // Removes memory `seq`; a no-op when it is not indexed.
  void Remove(int64_t seq);
  size_t sessions() const { return stats_.size(); }

  // BM25 of the `limit` best sessions for the weighted query terms, each divided by the best
  // score (so 1 for the best session), keyed by session id. Sessions matching no term are
  // absent.
  std::unordered_map<std::string, double> Search(const std::vector<WeightedTerm>& terms,
                                                 size_t limit) const;

 private:
  struct SessionStats {
    uint64_t length = 0;  // terms over all members
    uint32_t members = 0;
  };
  struct Member {
    uint32_t session = 0;
    std::vector<uint32_t> terms;  // with repeats
  };

  uint32_t TermId(const std::string& term);
  uint32_t SessionId(const std::string& session_id);

  Bm25Params params_;
  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<std::unordered_map<uint32_t, uint32_t>> tf_;  // by term id: session → count
  std::unordered_map<std::string, uint32_t> session_ids_;
  std::vector<std::string> session_names_;            // by session number
  std::unordered_map<uint32_t, SessionStats> stats_;  // live sessions only
  std::unordered_map<int64_t, Member> members_;
  uint64_t total_length_ = 0;
};

}  // namespace engram
