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

// The same with knowledge chunks (best first) in a block of their own after the memories:
// "Relevant knowledge (most relevant first):" then "- [doc §A > B] text". With no chunks,
// exactly PackContext(ranked, request). The budget is shared as ContextRequest says.
ContextResult PackContext(const std::vector<SearchHit>& ranked,
                          const std::vector<KnowledgeHit>& knowledge,
                          const ContextRequest& request);

// The knowledge block alone within `token_budget` (its header included); `included` gets the
// chunks it holds.
std::string PackKnowledge(const std::vector<KnowledgeHit>& knowledge, int token_budget,
                          std::vector<KnowledgeHit>* included);

}  // namespace engram
