// Suggestions for a field or parameter name that is not known: every decoder that refuses
// unknown names (FieldReader::CheckKnown, the query-string decoders, the import reader) says
// which name to use instead, so a client that guessed "txt", "userId" or "memory" is told
// "content" / "user_id" at once rather than left to read the schema.
//
// Pure functions over their arguments; thread-safe.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace engram {

// The known name `unknown` most likely meant, or "" when none is close enough:
//  1. a well-known alias of a known name ("memory", "body" → "content"; "q" → "query";
//     "top_k" → "k"; "user" → "user_id"), or a deprecated name ("text" → "content"), when
//     that name is in `known`;
//  2. else the known name nearest by edit distance (insertions, deletions, substitutions and
//     swaps of neighbours), compared ignoring case, '_' and '-' ("userId" → "user_id"),
//     within a distance that grows with the length (at most 1 for names of up to 4
//     characters, about a third of the length beyond).
// A suggestion that is itself a deprecated alias ("text") is replaced by the name it stands
// for ("content") when that name is known too. Never suggests `unknown` itself.
std::string SuggestFieldName(std::string_view unknown, const std::set<std::string>& known);

// "; did you mean 'content'?" for SuggestFieldName's answer, "" when it has none: the tail of
// an "is not a known field" message.
std::string DidYouMean(std::string_view unknown, const std::set<std::string>& known);

// The edit distance of `a` and `b` (optimal string alignment: a swap of two neighbouring
// characters counts once), on bytes.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace engram
