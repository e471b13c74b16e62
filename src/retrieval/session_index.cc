#include "retrieval/session_index.h"

#include <algorithm>
#include <cmath>

namespace engram {

uint32_t SessionIndex::TermId(const std::string& term) {
  auto [it, inserted] = term_ids_.try_emplace(term, static_cast<uint32_t>(tf_.size()));
  if (inserted) tf_.emplace_back();
  return it->second;
}

// Session numbers are never reused, so an emptied session keeps its (small) name entry.
uint32_t SessionIndex::SessionId(const std::string& session_id) {
  auto [it, inserted] =
      session_ids_.try_emplace(session_id, static_cast<uint32_t>(session_names_.size()));
  if (inserted) session_names_.push_back(session_id);
  return it->second;
}

void SessionIndex::Add(int64_t seq, const std::string& session_id,
                       const std::vector<std::string>& terms) {
  Remove(seq);
  Member m{SessionId(session_id), {}};
  m.terms.reserve(terms.size());
  for (const std::string& t : terms) {
    uint32_t id = TermId(t);
    m.terms.push_back(id);
    ++tf_[id][m.session];
  }
  SessionStats& stats = stats_[m.session];
  stats.length += terms.size();
  ++stats.members;
  total_length_ += terms.size();
  members_[seq] = std::move(m);
}

void SessionIndex::Remove(int64_t seq) {
  auto it = members_.find(seq);
  if (it == members_.end()) return;
  const Member& m = it->second;
  for (uint32_t id : m.terms) {
    auto slot = tf_[id].find(m.session);
    if (--slot->second == 0) tf_[id].erase(slot);
  }
  auto stats = stats_.find(m.session);
  stats->second.length -= m.terms.size();
  total_length_ -= m.terms.size();
  // A session without members leaves the statistics (N, average length) as if never added.
  if (--stats->second.members == 0) stats_.erase(stats);
  members_.erase(it);
}

std::unordered_map<std::string, double> SessionIndex::Search(const std::vector<WeightedTerm>& terms,
                                                             size_t limit) const {
  std::unordered_map<std::string, double> out;
  if (stats_.empty() || limit == 0) return out;
  std::unordered_map<uint32_t, double> query_tf;  // summed weights
  for (const WeightedTerm& t : terms) {
    auto it = term_ids_.find(t.term);
    if (it != term_ids_.end()) query_tf[it->second] += t.weight;
  }
  const double n = static_cast<double>(stats_.size());
  const double avg = static_cast<double>(total_length_) / n;
  std::unordered_map<uint32_t, double> score;
  for (const auto& [term, qtf] : query_tf) {
    const auto& postings = tf_[term];
    if (postings.empty()) continue;
    const double df = static_cast<double>(postings.size());
    const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    for (const auto& [session, count] : postings) {
      const double tf = count;
      const double len = static_cast<double>(stats_.at(session).length);
      const double norm = params_.k1 * (1.0 - params_.b + params_.b * len / avg);
      score[session] += qtf * idf * tf * (params_.k1 + 1.0) / (tf + norm);
    }
  }
  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(score.size());
  for (const auto& [session, s] : score) ranked.push_back({s, session});
  const size_t keep = std::min(limit, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<ptrdiff_t>(keep), ranked.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                    });
  const double best = keep > 0 ? ranked.front().first : 1.0;
  for (size_t i = 0; i < keep; ++i) {
    out[session_names_[ranked[i].second]] = best > 0 ? ranked[i].first / best : 0;
  }
  return out;
}

}  // namespace engram
