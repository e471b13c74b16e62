#include "text/keyword_terms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace engram {
namespace {

using Terms = std::vector<std::string>;

TEST(KeywordTermsTest, LatinTextGivesTheAnalyzerWordsOnly) {
  EXPECT_EQ(KeywordTerms("The user loves running"), (Terms{"user", "love", "run"}));
}

TEST(KeywordTermsTest, CjkTextAddsMarkedBigramsAndCharacters) {
  const Terms terms = KeywordTerms("绿茶");
  // The word, the bigram and the two characters: four distinct terms although three of them
  // spell the same text.
  ASSERT_EQ(terms.size(), 4u);
  EXPECT_EQ(terms[0], "绿茶");
  EXPECT_EQ(terms[1], "\x02绿茶");
  EXPECT_EQ(terms[2], "\x03绿");
  EXPECT_EQ(terms[3], "\x03茶");
  EXPECT_FALSE(IsCharacterTerm(terms[0]));
  EXPECT_FALSE(IsCharacterTerm(terms[1]));
  EXPECT_TRUE(IsCharacterTerm(terms[2]));
  EXPECT_TRUE(IsCharacterTerm(terms[3]));
  EXPECT_FALSE(IsCharacterTerm(""));
}

}  // namespace
}  // namespace engram
