// Context packing: turns ranked memories into a block for an LLM prompt that never exceeds a
// token budget (approximate count, see text/token_counter.h), highest-scoring first.
#pragma once

#include <vector>

#include "engram/search.h"

namespace engram {

// Lines look like "- [2026-05-08] (preference) Likes green tea [0193a1f2-…]". Memories that
// do not fit are skipped (smaller ones after them may still fit); if not even the first fits,
// its content is cut to fit and ends with "…". The result lists the memories it includes.
ContextResult PackContext(const std::vector<SearchHit>& ranked, int token_budget);

// The same, preceded by the request's profile (as given) and session block (summary, then the
// newest turns that fit in session_share of the budget, in order); the memories get what the block
// leaves.
ContextResult PackContext(const std::vector<SearchHit>& ranked, const ContextRequest& request);

}  // namespace engram
