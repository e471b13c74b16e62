// What counts as a word nobody said, and as a name or number a fact should keep.
#include "extract/provenance.h"

#include <gtest/gtest.h>

#include "extract/corrections.h"
#include "extract/extraction_test_util.h"
#include "extract/third_person.h"

namespace engram::extract {
namespace {

using Words = std::vector<std::string>;

TEST(ProvenanceTest, AFactInTheUsersWordsAndTheTemplatesHasNothingUnsaid) {
  EXPECT_EQ(UnsaidWords("User speaks French and a bit of Japanese",
                        "I speak French and a bit of Japanese"),
            Words{});
  EXPECT_EQ(UnsaidWords("User's dad arrives on 2026-12-13", "my dad arrives on Sunday"), Words{});
  EXPECT_EQ(UnsaidWords("User wants to quit", "I wanna quit"), Words{});
  EXPECT_EQ(UnsaidWords("用户住在杭州滨江", "我现在住杭州滨江"), Words{});
  EXPECT_EQ(UnsaidWords("用户2027年3月打算去日本（医生说）", "医生说我明年三月可以打算去日本了"),
            Words{});
}

TEST(ProvenanceTest, WordsAndCharactersNobodySaidAreNamed) {
  // Spliced from two values, and a word made of two.
  EXPECT_EQ(UnsaidWords("User's dad arrives Sundaynota", "my dad arrives Sunday, not a"),
            Words{"sundaynota"});
  EXPECT_EQ(UnsaidWords("User lives in Denver", "I moved to Boston"), Words{"denver"});
  EXPECT_EQ(UnsaidWords("用户住在苏州", "我住在杭州"), Words{"苏"});
}

TEST(ProvenanceTest, KeyTokensAreNamesAndNumbersAFactShouldKeep) {
  EXPECT_EQ(KeyTokens("I'm a Googler, my budget is $500 a month"), (Words{"Googler", "500"}));
  // The first word, I, weekdays and months are not names; a time count resolves to a date.
  EXPECT_EQ(KeyTokens("Dentist on Friday in March, I broke my wrist 3 weeks ago"), Words{});
  // A value taken back is not one to keep.
  EXPECT_EQ(KeyTokens("I live in Austin — sorry, I meant Dallas"), Words{"Dallas"});
  EXPECT_EQ(KeyTokens("we're doing Porto instead of Lisbon"), Words{"Porto"});
  EXPECT_EQ(KeyTokens("我电脑是M2那款，花了8000"), (Words{"2", "8000"}));
  EXPECT_EQ(KeyTokens("3个月前搬的家"), Words{});
  // Capitals in shouting mark no name; an acronym among ordinary words still counts.
  EXPECT_EQ(KeyTokens("I AM FILLING OUT THE FORM FOR MY KNEE SURGERY"), Words{});
  EXPECT_EQ(KeyTokens("got floated to the ICU tonight"), Words{"ICU"});
}

TEST(ProvenanceTest, SentencesSplitAtTheirEndsNotInsideNumbers) {
  EXPECT_EQ(Sentences("I moved to Denver. It's 3.5 hours away! 我很开心。真的"),
            (Words{"I moved to Denver", " It's 3.5 hours away", " 我很开心", "真的"}));
}

// Found by extractor_fuzzer: a date taken out from between two Latin words joined them into one
// word nobody said.
TEST(ProvenanceTest, ADateTakenOutFromBetweenTwoWordsLeavesThemApart) {
  std::string storage;
  ClauseInput zh = WithoutTime("和Anna昨天Lee去看牙医", true, testing_extract::kAt, &storage);
  EXPECT_TRUE(zh.has_time);
  EXPECT_EQ(zh.text, "和Anna Lee去看牙医");
  EXPECT_TRUE(UnsaidWords(zh.text, "和Anna昨天Lee去看牙医").empty());
  // Chinese on either side joins as it was said.
  EXPECT_EQ(WithoutTime("我昨天去看牙医", true, testing_extract::kAt, &storage).text, "我去看牙医");
  EXPECT_EQ(WithoutTime("I saw the dentist yesterday", false, testing_extract::kAt, &storage).text,
            "I saw the dentist ");
}

// Found by extractor_fuzzer: a subject carried over onto a clause, both ending and starting with
// a Latin letter, joined into a word nobody said ("老公 d" + "d").
TEST(ProvenanceTest, ASubjectCarriedOntoAClauseStaysApartFromItsFirstWord) {
  const std::string said = "我老公 d ,d";
  for (const Candidate& c : testing_extract::Extract(said)) {
    EXPECT_TRUE(UnsaidWords(c.content, said).empty()) << c.content;
  }
}

// Found by extractor_fuzzer: a weekday said first with almost nothing after it ("周三00，…")
// read past the end of the clause when looking for a subject after the date (std::out_of_range).
TEST(ProvenanceTest, AWeekdaySaidFirstWithAShortTail) {
  const std::string said = "周三00，压yesterday力好";
  std::vector<Candidate> got;
  EXPECT_NO_THROW(got = testing_extract::Extract(said));
  for (const Candidate& c : got) EXPECT_TRUE(UnsaidWords(c.content, said).empty()) << c.content;
}

// Found by extractor_fuzzer: a token of digits and letters read as a verb got an ending
// ("00y" → "00ies").
TEST(ProvenanceTest, OnlyAWordOfLettersIsConjugated) {
  // (and one with its letters apart: "frnoom''''y" → "frnoom''''ies", found the same way)
  for (const std::string said :
       {"we 00 we 00y", "we 5 we 5y", "we 00 we  '''frnoom''''''frnoom''''''''y"}) {
    for (const Candidate& c : testing_extract::Extract(said)) {
      EXPECT_TRUE(UnsaidWords(c.content, said).empty()) << c.content;
    }
  }
}

// Found by extractor_fuzzer: a value read with punctuation at its edge (", a") took the space
// before it when replaced ("moved tol").
TEST(ProvenanceTest, AValueIsReplacedWithoutThePunctuationAtItsEdges) {
  const std::string said = "I moved to (a(55edihay, mk!y day, not Sfeverve o(l";
  for (const Candidate& c : testing_extract::Extract(said)) {
    EXPECT_TRUE(UnsaidWords(c.content, said).empty()) << c.content;
  }
}

// Found by extractor_fuzzer: a value replaced right before a Latin word joined it ("老公" → "d"
// before "d410" made "dd410").
TEST(ProvenanceTest, AReplacedValueStaysApartFromTheWordAfterIt) {
  EXPECT_EQ(ReplaceValue("用户的老公d410", "老公", "d"), "用户的d d410");
  EXPECT_EQ(ReplaceValue("User lives in Boston", "Boston", "Denver"), "User lives in Denver");
}

}  // namespace
}  // namespace engram::extract
