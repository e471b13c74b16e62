#include "retrieval/freshness.h"

#include <algorithm>
#include <functional>
#include <string>

#include "retrieval/searcher.h"
#include "text/topics.h"

namespace engram {
namespace {

// An outdated fact's score, as a share of the newest evidence's: just below it.
constexpr double kBelowNewest = 0.95;
// A kept turn whose every memory was replaced: still found (it may hold what no rule read),
// but after what replaced it.
constexpr double kReplacedTurn = 0.5;

bool StateLike(MemoryType type) {
  return type == MemoryType::kFact || type == MemoryType::kPreference;
}

// Evidence of the user's present on a topic: a state-like fact about the user, or a kept turn
// of the user; neither a question nor about the past.
bool IsEvidence(const DocInfo& d, TopicSet topic) {
  if (!(d.topics & topic) || !d.about_user || d.past || d.question ||
      d.status != ItemStatus::kActive) {
    return false;
  }
  return d.kept_turn || StateLike(d.type);
}

// The turn said the memory itself (extracted it, or restated it): it confirms, not outdates.
bool Confirms(const DocInfo& turn, const DocInfo& memory) {
  const uint64_t id = std::hash<std::string>{}(memory.id);
  return std::find(turn.derived.begin(), turn.derived.end(), id) != turn.derived.end();
}

}  // namespace

void DemoteOutdated(const ScopeIndex& index, const SearchQuery& q,
                    std::vector<RankedCandidate>* ranked) {
  if (!q.newest_evidence || q.filters.as_of || ranked->empty() || AsksAboutPast(q.text)) return;
  std::vector<const DocInfo*> docs;
  docs.reserve(ranked->size());
  for (const RankedCandidate& c : *ranked) docs.push_back(index.Find(c.seq));
  // A kept turn all of whose memories have been replaced ("planning to walk the camino" once
  // "scrapped the camino idea" superseded the plan) says what no longer holds, on any topic.
  if (index.inactive() > 0) {
    for (size_t i = 0; i < ranked->size(); ++i) {
      const DocInfo* d = docs[i];
      if (!d || !d->kept_turn || d->derived.empty() || d->past) continue;
      const std::string* by = nullptr;
      for (uint64_t h : d->derived) {
        by = index.ReplacedBy(h);
        if (!by) break;
      }
      if (!by) continue;
      RankedCandidate& c = (*ranked)[i];
      c.score *= kReplacedTurn;
      c.explain.demoted_by = *by;
      c.explain.demotion = "what it said was replaced";
    }
  }
  const TopicSet asked = TopicsOfText(q.text);
  if (asked == 0 || ranked->size() < 2) return;
  for (int bit = 0; bit < 32; ++bit) {
    const TopicSet topic = TopicSet{1} << bit;
    if (!(asked & topic) || (ManyValuedTopics() & topic)) continue;
    int newest = -1;
    for (size_t i = 0; i < ranked->size(); ++i) {
      if (docs[i] && IsEvidence(*docs[i], topic) &&
          (newest < 0 || docs[i]->created_at > docs[newest]->created_at)) {
        newest = static_cast<int>(i);
      }
    }
    if (newest < 0) continue;
    const DocInfo& n = *docs[newest];
    const double ceiling = (*ranked)[newest].score * kBelowNewest;
    for (size_t i = 0; i < ranked->size(); ++i) {
      const DocInfo* d = docs[i];
      RankedCandidate& c = (*ranked)[i];
      if (!d || d->kept_turn || !IsEvidence(*d, topic) || d->created_at >= n.created_at ||
          c.score <= ceiling || Confirms(n, *d)) {
        continue;
      }
      c.score = ceiling;
      c.explain.demoted_by = n.id;
      c.explain.demotion = "newer on " + TopicNames(topic);
    }
  }
}

}  // namespace engram
