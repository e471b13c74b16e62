// Newest evidence wins at read time (SearchQuery::newest_evidence). The write path reconciles
// what it recognises; a change said in words no rule lists ("got hired at Costco as a baker",
// "officially a Denver resident now") leaves the old fact active. For a question about such a
// topic, asked about the present, the older fact is then ranked just below the newest memory
// of the user on that topic: a newer fact, or a newer kept turn nothing was extracted from.
// Only facts and preferences about the user are demoted; past-tense questions and `as_of`
// searches rank as before. And a kept turn every memory of which has since been superseded
// ("planning to walk the camino" once the plan was scrapped) ranks at half its score, whatever
// the topic: it says what no longer holds. Pure computation over the ranked candidates.
#pragma once

#include <vector>

#include "engram/search.h"
#include "retrieval/scope_index.h"

namespace engram {

struct RankedCandidate;

// Lowers the scores of outdated candidates in place (before they are sorted), recording why in
// their explain. The caller holds index.mu (shared).
void DemoteOutdated(const ScopeIndex& index, const SearchQuery& query,
                    std::vector<RankedCandidate>* ranked);

}  // namespace engram
