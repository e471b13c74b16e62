// The terms of the keyword channel: what the BM25 index stores for a text and what a query is
// looked up by. Shared by retrieval (indexing and search) and session summaries (which sentences
// share terms), so both read text the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engram {

// The terms the keyword channel indexes for `text` (valid UTF-8): analyzer words, then CJK
// bigrams and CJK single characters, each marked with a leading control byte so that a bigram or
// a character never equals a word. Thread-safe.
std::vector<std::string> KeywordTerms(std::string_view text);

// True for a term of the CJK single-character channel (weighted by
// SearchQuery::cjk_character_weight at query time).
bool IsCharacterTerm(std::string_view term);

}  // namespace engram
