// Casual English read as the rules expect it (data/lexicon/en/casual.tsv): one-reading
// spellings become their standard forms, discourse markers go, everything else is kept; the
// extractor reads a casually typed fact like its tidy form; and a standard form is not a word
// nobody said.
#include "extract/casual.h"

#include <gtest/gtest.h>

#include "extract/clauses.h"
#include "extract/corrections.h"
#include "extract/extraction_test_util.h"
#include "extract/provenance.h"

namespace engram::extract {
namespace {

using testing_extract::Extract;

TEST(CasualTest, OneReadingSpellingsBecomeTheirStandardForm) {
  EXPECT_EQ(NormalizeCasualEn("ive been vegetarian since i was 20"),
            "I've been vegetarian since I was 20");
  EXPECT_EQ(NormalizeCasualEn("im a nurse, thats why i work nights"),
            "I'm a nurse, that's why I work nights");
  EXPECT_EQ(NormalizeCasualEn("live w/ my sister bc rent is 2k"),
            "live with my sister because rent is 2k");
  EXPECT_EQ(NormalizeCasualEn("been here 6 yrs, pls help u know"),
            "been here 6 years, please help you know");
  EXPECT_EQ(NormalizeCasualEn("IM TIRED"), "I'm TIRED");
  EXPECT_EQ(NormalizeCasualEn("i gotta go, tryna sleep, dunno"),
            "I have to go, trying to sleep, don't know");
}

TEST(CasualTest, AmbiguousSpellingsDigitsAndOtherWordsStayAsTyped) {
  // "its" (it's or its), "ur" (your or you're), "gf" (girlfriend or gluten-free) have two readings
  EXPECT_EQ(NormalizeCasualEn("its color is ur choice, gf bread only"),
            "its color is ur choice, gf bread only");
  EXPECT_EQ(NormalizeCasualEn("I lift 4x a week and/or swim 24/7"),
            "I lift 4x a week and/or swim 24/7");
  EXPECT_EQ(NormalizeCasualEn("Swimming in Wuhan"), "Swimming in Wuhan");  // "w" only alone
  EXPECT_EQ(NormalizeCasualEn("我住在杭州"), "我住在杭州");
  EXPECT_EQ(NormalizeCasualEn(""), "");
}

TEST(CasualTest, APhraseSpellingAfterAnArticleIsANoun) {
  // "rn" is "right now", but "an RN" is a nurse; a one-word spelling still reads after one
  EXPECT_EQ(NormalizeCasualEn("i work nights as an RN rn"), "I work nights as an RN right now");
  EXPECT_EQ(NormalizeCasualEn("my bf is a chef"), "my boyfriend is a chef");
}

TEST(CasualTest, MarkersGoWithTheirSpaceAndComma) {
  EXPECT_EQ(NormalizeCasualEn("ngl pottery is my whole life"), "pottery is my whole life");
  EXPECT_EQ(NormalizeCasualEn("tbh, i hate cilantro lol"), "I hate cilantro");
  EXPECT_EQ(NormalizeCasualEn("i hate cilantro lol, anyway"), "I hate cilantro, anyway");
  EXPECT_EQ(NormalizeCasualEn("so, lol, i moved"), "so, I moved");
  EXPECT_EQ(NormalizeCasualEn("lol"), "");
}

TEST(CasualTest, TheExtractorReadsACasualFactAsItsTidyForm) {
  const auto tidy = Extract("I've been vegetarian since 2019");
  const auto casual = Extract("ive been vegetarian since 2019 lol");
  ASSERT_EQ(tidy.size(), 1u);
  ASSERT_EQ(casual.size(), 1u);
  EXPECT_EQ(casual[0].content, tidy[0].content);
  EXPECT_EQ(casual[0].slot, tidy[0].slot);
  EXPECT_EQ(casual[0].content.find("Ive"), std::string::npos) << casual[0].content;
  // "doesnt" read as "doesn't": the same statement as the tidy one, a negation
  const auto c = Extract("my husband doesnt eat pork");
  const auto t = Extract("my husband doesn't eat pork");
  ASSERT_EQ(c.size(), 1u);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(c[0].content, t[0].content);
  EXPECT_NE(c[0].content.find("not"), std::string::npos) << c[0].content;
}

TEST(CasualTest, AStandardFormIsNotAWordNobodySaid) {
  EXPECT_TRUE(UnsaidWords("User lives with their sister because rent is cheap",
                          "live w/ my sister bc rent is cheap")
                  .empty());
  // … while a word the user did not type, in no standard form of what they typed, is
  EXPECT_EQ(UnsaidWords("User lives with their brother", "live w/ my sister"),
            std::vector<std::string>{"brother"});
}

}  // namespace
}  // namespace engram::extract

namespace engram::extract {
namespace {

using testing_extract::Extract;

TEST(CasualTest, SpacesBetweenChineseWordsAreCommas) {
  EXPECT_EQ(SpacesAsCommasZh("在这边住了五年 还是不习惯  有推荐吗"),
            "在这边住了五年，还是不习惯，有推荐吗");
  EXPECT_EQ(SpacesAsCommasZh("我在 Google 上班，每周 3 次"), "我在 Google 上班，每周 3 次");
  EXPECT_EQ(SpacesAsCommasZh("offer拿到了\u3000下周入职"), "offer拿到了，下周入职");
  // a Latin word written onto a Chinese one ends a clause like one
  EXPECT_EQ(SpacesAsCommasZh("在shopee做PM 压力好大"), "在shopee做PM，压力好大");
  EXPECT_EQ(SpacesAsCommasZh("是iPhone 12 不是13 记错了"), "是iPhone 12，不是13，记错了");
  EXPECT_EQ(SpacesAsCommasZh("不对 7点半 7点是我老公出门"), "不对，7点半，7点是我老公出门");
  EXPECT_EQ(SpacesAsCommasZh("我车是特斯拉 model 3，冬天"), "我车是特斯拉 model 3，冬天");
  // The clauses are read one by one: the request is not a fact, the statements are
  const auto c = Extract("帮我看看这份合同 我在深圳做律师 下个月要考执照");
  ASSERT_FALSE(c.empty());
  EXPECT_NE(c[0].content.find("律师"), std::string::npos) << c[0].content;
  for (const Candidate& x : c) EXPECT_EQ(x.content.find("合同"), std::string::npos) << x.content;
}

TEST(CasualTest, AQuestionMarkIsTheLastClausesOnly) {
  // the statement before the question is read; the question is not
  const auto c = Extract("I'm lactose intolerant, can you suggest a dessert?");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].content.find("lactose intolerant"), std::string::npos) << c[0].content;
  const auto zh = Extract("我对芒果过敏，有什么水果推荐吗？");
  ASSERT_EQ(zh.size(), 1u);
  EXPECT_NE(zh[0].content.find("芒果"), std::string::npos) << zh[0].content;
  // a clause that asks by itself is still a question, wherever it is
  EXPECT_TRUE(Extract("do you think I should move to Denver, or stay?").empty());
  EXPECT_TRUE(Extract("should I quit my job?").empty());
}

}  // namespace
}  // namespace engram::extract

namespace engram::extract {
namespace {

TEST(CasualTest, AStarredWordIsACorrectionAndEmphasisIsNot) {
  auto a = StarCorrection("corolla* not mazda lol");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->value, "corolla");
  EXPECT_EQ(a->old_value, "mazda");
  auto b = StarCorrection("*Dennis.");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->value, "Dennis");
  EXPECT_EQ(b->old_value, "");
  EXPECT_FALSE(StarCorrection("that was *so* good").has_value());
  EXPECT_FALSE(StarCorrection("I **love** it").has_value());
  EXPECT_FALSE(StarCorrection("a* and b*").has_value());
  EXPECT_FALSE(StarCorrection("2 * 3 is 6").has_value());
  // a star inside a word is what was typed, not a mark to remove: no word nobody said
  for (const Candidate& c : Extract("actually m*nst m! dad arrives")) {
    EXPECT_TRUE(UnsaidWords(c.content, "actually m*nst m! dad arrives").empty()) << c.content;
  }
  EXPECT_FALSE(StarCorrection("m*st* not this").has_value());
  EXPECT_TRUE(IsCorrection("three*. forgot one", false));
  EXPECT_TRUE(IsCorrection("30 actually, birthday was last week", false));
  EXPECT_FALSE(IsCorrection("I actually like it, it was fine", false));
}

TEST(CasualTest, NumbersAndWeekdaysReplaceTheirKindOnly) {
  EXPECT_EQ(ReplaceValue("User has two dogs", "", "three"), "User has three dogs");
  // the nearest number, read whole with its unit: no "4岁岁"
  EXPECT_EQ(ReplaceValue("用户家狗狗3岁了", "", "4岁"), "用户家狗狗4岁了");
  EXPECT_EQ(ReplaceValue("用户体重68，身高180", "", "66"), "用户体重66，身高180");
  EXPECT_EQ(ReplaceValue("User's lesson is on mondays at 5", "", "wednesdays"),
            "User's lesson is on wednesdays at 5");
  EXPECT_EQ(ReplaceValue("User's locker is on the 3rd floor", "", "6th floor"),
            "User's locker is on the 6th floor");
  EXPECT_FALSE(ReplaceValue("User's dad arrives on 2026-06-20", "", "Sunday").has_value());
  // an ordinal corrects a day or a rank, never a count: "Correction: 15th." is not "15th nights"
  EXPECT_FALSE(ReplaceValue("Camp Lejeune; 3 nights", "", "15th").has_value());
  EXPECT_FALSE(ReplaceValue("Camp Lejeune; 3 nights", "3", "15th").has_value());
  EXPECT_EQ(ReplaceValue("Reunion on 14 Sep; 3 nights", "", "15th"),
            "Reunion on 15th Sep; 3 nights");
  EXPECT_EQ(ReplaceValue("User's anniversary is June 3rd", "", "June 8th"),
            "User's anniversary is June 8th");
  EXPECT_TRUE(HasSearchableShape("thursdays"));
  EXPECT_TRUE(HasSearchableShape("5th floor"));
  EXPECT_FALSE(HasSearchableShape("Dennis"));
}

}  // namespace
}  // namespace engram::extract

namespace engram::extract {
namespace {

using testing_extract::Extract;

// A clause said to the assistant ("你推荐的时候注意下", "你觉得值不值", "you'd never guess")
// is not a fact about the user; the statements beside it are.
TEST(CasualTest, AClauseSaidToTheAssistantIsNoFact) {
  const auto zh = Extract("我对虾过敏，你推荐菜的时候注意下嘛");
  ASSERT_EQ(zh.size(), 1u);
  EXPECT_NE(zh[0].content.find("虾"), std::string::npos) << zh[0].content;
  const auto worth = Extract("在杭州租了个一居室，一个月3500，你觉得值不值");
  for (const Candidate& c : worth) EXPECT_EQ(c.content.find("你"), std::string::npos) << c.content;
  EXPECT_FALSE(worth.empty());
  for (const Candidate& c : Extract("I run marathons, you'd never guess it")) {
    EXPECT_EQ(c.content.find("you"), std::string::npos) << c.content;
  }
}

}  // namespace
}  // namespace engram::extract

namespace engram::extract {
namespace {

using testing_extract::Extract;

TEST(CasualTest, ARoleTheUserSpeaksFromIsAStatement) {
  EXPECT_EQ(RolesAsStatements("as a nurse i basically live on coffee", false),
            "I am a nurse. i basically live on coffee");
  EXPECT_EQ(RolesAsStatements("作为一个高中数学老师，我每天都在改卷子", true),
            "我是高中数学老师，我每天都在改卷子");
  EXPECT_EQ(RolesAsStatements("as a kid i loved trains", false), "as a kid i loved trains");
  EXPECT_EQ(RolesAsStatements("I work as a barista", false), "I work as a barista");
  auto nurse = Extract("as a nurse i basically live on coffee");
  ASSERT_FALSE(nurse.empty());
  EXPECT_EQ(nurse[0].slot, "user/job");
  EXPECT_NE(nurse[0].content.find("nurse"), std::string::npos) << nurse[0].content;
  auto barista = Extract("long day, being a barista at a busy cafe is exhausting");
  ASSERT_FALSE(barista.empty());
  EXPECT_NE(barista[0].content.find("barista"), std::string::npos) << barista[0].content;
  auto teacher = Extract("作为程序员我天天加班");
  ASSERT_FALSE(teacher.empty());
  EXPECT_EQ(teacher[0].slot, "user/job");
}

}  // namespace
}  // namespace engram::extract

namespace engram::extract {
namespace {

using testing_extract::Extract;

// A correction's marker alone ("不对"), its talk after the value ("名字打错了") and the clause
// saying where the wrong value belongs ("7点是我老公出门") store nothing of their own: the
// corrected statement is the message's one fact.
TEST(CasualTest, ACorrectionsOwnTalkIsNoFact) {
  auto son = Extract("我儿子叫豆豆，不对，是多多");
  ASSERT_EQ(son.size(), 1u);
  EXPECT_EQ(son[0].content, "用户的儿子叫多多");
  auto daughter = Extract("我女儿叫李欣怡，啊不对，是李欣然，名字打错了。");
  ASSERT_EQ(daughter.size(), 1u);
  EXPECT_EQ(daughter[0].content, "用户的女儿叫李欣然");
  for (const Candidate& c : Extract("哦不对 7点半 7点是我老公出门")) {
    EXPECT_TRUE(c.slot.find("老公") == std::string::npos) << c.content << " " << c.slot;
  }
}

// A typo correction fixes the word spelled almost like it; a correction may say its value first.
TEST(CasualTest, ATypoCorrectionFindsTheWordSpelledAlmostAlike) {
  EXPECT_EQ(NearSpelling("User's boss is karen Whitfield", "whitford"), "Whitfield");
  EXPECT_EQ(NearSpelling("用户的领导叫王建国", "王建华"), "王建国");
  EXPECT_EQ(NearSpelling("User's boss is karen whitford", "whitford"), "");  // the same
  // a two-character name: said after 叫, the surname kept, the given name's character changed
  EXPECT_EQ(NearSpelling("用户的老公叫张伟", "张炜"), "张伟");
  EXPECT_EQ(NearSpelling("用户的老公叫王伟", "张炜"), "");          // another surname
  EXPECT_EQ(NearSpelling("用户的舅舅最近查出糖尿病", "舅舅"), "");  // not after 叫
  EXPECT_EQ(NearSpelling("User's boss is karen Smith", "whitford"), "");
  EXPECT_EQ(NearSpelling("User lives in Boston", "Bosnia"), "");  // half the letters changed
  EXPECT_EQ(NearSpelling("用户养了一只猫", "美短"), "");          // two characters: too short
  EXPECT_TRUE(IsValueFirstCorrection("是美短，不是英短", true));
  EXPECT_TRUE(IsValueFirstCorrection("王建华，打错字了", true));
  EXPECT_TRUE(IsValueFirstCorrection("Lincoln High, not Roosevelt", false));
  EXPECT_FALSE(IsValueFirstCorrection("我喜欢猫，不是狗", true));  // a subject: a statement
  EXPECT_FALSE(IsValueFirstCorrection("I like cats, not dogs", false));
  EXPECT_FALSE(IsValueFirstCorrection("we went to the lake house last summer, not the beach",
                                      false));  // long
  // the value and the one taken back without a comma; never a statement
  ASSERT_TRUE(ValueNotOld("fabia not octavia lol"));
  EXPECT_EQ(ValueNotOld("fabia not octavia lol")->value, "fabia");
  EXPECT_EQ(ValueNotOld("fabia not octavia lol")->old_value, "octavia");
  EXPECT_EQ(ValueNotOld("8am not 7")->value, "8am");
  for (const char* s : {"i'm vegan not vegetarian", "we went to the lake not the beach",
                        "that is not true", "not bad", "it's not a big deal at all"}) {
    EXPECT_FALSE(ValueNotOld(s)) << s;
  }
  // a marker after an interjection, a value with the marker after it
  for (const char* s : {"lol autocorrect", "well technically legal assistant", "O+ sorry",
                        "priya nair sorry, raman is someone else", "year 4 sorry!!"}) {
    EXPECT_TRUE(IsCorrection(s, false)) << s;
  }
  for (const char* s : {"lol that's funny", "i'm sorry to hear that", "ok sounds good"}) {
    EXPECT_FALSE(IsCorrection(s, false)) << s;
  }
  EXPECT_TRUE(IsCorrection("emmm其实是通州", true));
  EXPECT_TRUE(IsCorrection("是建设银行，我老说混", true));
  EXPECT_EQ(WithoutInterjections("ugh lol west village", false), "west village");
}

// "the 21st." ends a sentence: an ordinal's ending is no abbreviation ("St.", "Dr." are)
TEST(CasualTest, AnOrdinalBeforeAFullStopEndsTheSentence) {
  const std::vector<Sentence> s = SplitSentences("ugh 21st. dont tell anyone. we met at St. Marks");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].text, "ugh 21st");
  EXPECT_EQ(s[2].text, "we met at St. Marks");
  EXPECT_TRUE(NamesSlipWord("lindquist. autocorrect again", false));
  EXPECT_FALSE(NamesSlipWord("i love autocorrelation plots", false));  // a whole word only
  EXPECT_TRUE(NamesSlipWord("输入法又抽风", true));
}

// "张炜*": the star marks the fixed word and goes; between two letters or digits it stays (found
// by the extractor's fuzzer: "baby*chi10" was read as "babychi10", a word nobody typed)
TEST(CasualTest, AStarBetweenLettersJoinsNothing) {
  EXPECT_EQ(BareCorrectionValue("张炜*", true), "张炜");
  const auto joined = BareCorrectionValue("baby*chi10", true);
  EXPECT_TRUE(!joined || joined->find("babychi") == std::string::npos) << *joined;
}

// (found by the extractor's fuzzer) a role is words: "as a :e 00 we …" holds none
TEST(CasualTest, ARoleIsWords) {
  EXPECT_EQ(RolesAsStatements("as a :e 00 we 00y", false), "as a :e 00 we 00y");
  EXPECT_EQ(RolesAsStatements("as a paralegal i live in westlaw", false),
            "I am a paralegal. i live in westlaw");
}

TEST(CasualTest, AChineseCorrectionTypedWithNoStops) {
  EXPECT_EQ(CorrectionWithoutStopsZh("不是浙大是浙工大刚才语音识别错了"),
            "不是浙大，是浙工大，刚才语音识别错了");
  EXPECT_EQ(CorrectionWithoutStopsZh("我不是不想去是没时间"), "我不是不想去是没时间");
  EXPECT_EQ(CorrectionWithoutStopsZh("不是我说是他说的"), "不是我说是他说的");
  EXPECT_EQ(CorrectionWithoutStopsZh("不是浙大，是浙工大"), "不是浙大，是浙工大");
  // found by the extractor's fuzzer: 不是 one or two bytes in
  EXPECT_EQ(CorrectionWithoutStopsZh("\x10不是o"), "\x10不是o");
  EXPECT_EQ(CorrectionWithoutStopsZh("e不是浙大是浙工大"), "e不是浙大是浙工大");
}

// Terms of address after a courtesy go; "my ma" is the speaker's mother and stays.
TEST(CasualTest, TermsOfAddressAfterACourtesyGo) {
  EXPECT_EQ(WithoutAddressTermsEn("Sorry ma, Funke, not Folake."), "Sorry, Funke, not Folake.");
  EXPECT_EQ(WithoutAddressTermsEn("thank you sir"), "thank you");
  EXPECT_EQ(WithoutAddressTermsEn("Yes madam I live in Abuja"), "Yes I live in Abuja");
  EXPECT_EQ(WithoutAddressTermsEn("my ma lives in Lagos"), "my ma lives in Lagos");
  EXPECT_EQ(WithoutAddressTermsEn("sorry mark"), "sorry mark");
}

// Filipino English particles: "po" is politeness, "na" after a statement is "now".
TEST(CasualTest, FilipinoEnglishParticles) {
  EXPECT_EQ(NormalizeCasualEn("Doc changed my meds po, I'm on insulin na"),
            "Doc changed my meds, I'm on insulin now");
}

// A run of three or more words in capitals is shouting, lower-cased; an acronym or two capital
// words among ordinary ones keep their case.
TEST(CasualTest, ShoutingIsReadAsSpeech) {
  EXPECT_EQ(UnshoutEn("I HAVE A JITTERBUG FLIP PHONE. how do I"),
            "i have a jitterbug flip phone. how do I");
  EXPECT_EQ(UnshoutEn("I DON'T DRIVE ANYMORE"), "i don't drive anymore");
  EXPECT_EQ(UnshoutEn("moved to the ICU as of this week"), "moved to the ICU as of this week");
  EXPECT_EQ(UnshoutEn("B POSITIVE. I read it wrong"), "B POSITIVE. I read it wrong");
  EXPECT_EQ(UnshoutEn("I AM OK"), "i am ok");
  EXPECT_EQ(UnshoutEn("I A I"), "I A I");  // one-letter words alone make no shouting
}

}  // namespace
}  // namespace engram::extract
