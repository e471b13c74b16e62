// English words for the rule patterns (rule_patterns_en.cc): a clause as tokens, the word
// lists the patterns consult, and the rewrite of "I love hiking" as "User loves hiking".
// Internal to src/extract/; stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace engram::extract::en {

struct Tok {
  std::string low;   // lower-case, contractions expanded
  std::string text;  // as written (the expansion for expanded contractions, "I" kept)
};

// Lower-case word tokens of a clause; "I'm" → "i" "am", "don't" → "do" "not", "name's" →
// "name" "is", other "'s" a separate "'s"; commas, semicolons and colons are "," tokens.
std::vector<Tok> Tokenize(std::string_view s);
std::string Lower(std::string_view s);

using WordSet = std::unordered_set<std::string_view>;
const WordSet& Adverbs();            // set aside between the subject and the verb
bool IsNegator(std::string_view w);  // not, never, no
const WordSet& Boundaries();         // words that end an object ("because", "with", "for" …)
const WordSet& Occupations();
const WordSet& Pets();
const WordSet& Relations();  // family members
const WordSet& HealthConditions();
const WordSet& Nationalities();

// The head word of t[b, e) is an occupation ("software engineer", "pharmacist").
bool LooksLikeOccupation(const std::vector<Tok>& t, size_t b, size_t e);
std::string Singular(std::string_view w);
bool IsCapitalized(const Tok& t);
// A word after "named", "called" or "name is": a name however it is typed ("a dog named
// pretzel"), not a function word ("named after my grandma", "called it a day").
bool IsNameAfterNaming(const Tok& t);
std::string ThirdPerson(const Tok& t);  // am → is, have → has, go → goes, love → loves
std::string SwapPronoun(const Tok& t);  // my → their, me → them, I → the user
// t[b, e) with its first verb in the third person and pronouns swapped: "really love my dog"
// → "really loves their dog".
std::string Rewrite(const std::vector<Tok>& t, size_t b, size_t e);
std::string Join(const std::vector<Tok>& t, size_t b, size_t e);  // pronouns swapped
std::string WithArticle(std::string_view value);                  // "engineer" → "an engineer"

}  // namespace engram::extract::en
