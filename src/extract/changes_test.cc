// A change of a one-valued attribute said in words no frame reads (data/lexicon/*/changes.tsv):
// a cue and exactly one attribute, whole English words, both languages; and the extractor
// giving such a statement its slot only when it is the user's present.
#include "extract/changes.h"

#include <gtest/gtest.h>

#include "engram/extraction.h"
#include "testing/test_support.h"

namespace engram::extract {
namespace {

TEST(ChangesTest, ACueAndOneAttributeNameTheChange) {
  EXPECT_EQ(ChangedAttribute("officially a Portland resident now", false), "location");
  EXPECT_EQ(ChangedAttribute("soooo i got hired at Costco as a baker!!", false), "employer");
  EXPECT_EQ(ChangedAttribute("doing UX design full time at a small agency now", false), "job");
  EXPECT_EQ(ChangedAttribute("went vegan in january", false), "diet");
  EXPECT_EQ(ChangedAttribute("跳槽去拼多多了", true), "employer");
  EXPECT_EQ(ChangedAttribute("转学成功了", true), "school");
  EXPECT_EQ(ChangedAttribute("现在人在苏州了", true), "location");
  EXPECT_EQ(ChangedAttribute("和阿杰分手了，现在单身", true), "partner");
}

TEST(ChangesTest, ACityWithACueIsWhereTheUserLivesUnlessItIsATrip) {
  EXPECT_EQ(ChangedAttribute("现在在无锡，离爸妈近", true), "location");
  EXPECT_EQ(ChangedAttribute("officially in Denver now", false), "location");
  EXPECT_EQ(ChangedAttribute("现在在上海出差", true), "");
  EXPECT_EQ(ChangedAttribute("in Chicago now for a conference", false), "");
  EXPECT_EQ(ChangedAttribute("我现在在深圳的腾讯上班", true), "employer");  // work words win
  EXPECT_EQ(ChangedAttribute("I love Denver", false), "");                  // no cue
  EXPECT_EQ(ChangedAttribute("the weather at laurel park is nice now", false), "");  // whole words
}

TEST(ChangesTest, NoCueTwoAttributesOrAWordInsideAnotherNameNone) {
  EXPECT_EQ(ChangedAttribute("I live in Boston", false), "");              // no cue: a frame's
  EXPECT_EQ(ChangedAttribute("我现在住的地方离公司很近", true), "");       // home and work
  EXPECT_EQ(ChangedAttribute("I know the company is hiring", false), "");  // "know" is not "now"
  EXPECT_EQ(ChangedAttribute("the weather is nice now", false), "");
  EXPECT_EQ(ChangedAttribute("", false), "");
  EXPECT_EQ(ChangedAttribute("", true), "");
}

TEST(ChangesTest, AClauseLedByAChangeIsTheSpeakers) {
  EXPECT_TRUE(LeadsWithChange("officially a Portland resident now", false));
  EXPECT_TRUE(LeadsWithChange("Finally moved out", false));
  EXPECT_FALSE(LeadsWithChange("the company moved", false));
  EXPECT_FALSE(LeadsWithChange("knowing it now", false));
  EXPECT_TRUE(LeadsWithChange("终于搬家了", true));
  EXPECT_FALSE(LeadsWithChange("公司搬了", true));
}

std::vector<Candidate> Read(const std::string& text) {
  ExtractionInput in;
  in.turns.push_back(Turn{"user", text, 1'781'000'000'000, ""});  // 2026-06-09
  auto out = MakeRuleExtractor()->Extract(in);
  EXPECT_TRUE(out.ok());
  return out.ok() ? out->candidates : std::vector<Candidate>{};
}

TEST(ChangesTest, TheExtractorSlotsOnlyTheUsersPresent) {
  auto hired = Read("soooo i got hired at Costco as a baker!!");
  ASSERT_FALSE(hired.empty());
  EXPECT_EQ(hired[0].slot, "user/employer");
  EXPECT_TRUE(hired[0].exclusive);
  // The school is said in the clause after the change: it joins it, said once as 用户's; the
  // major, after a space that is a comma, is a statement of its own.
  auto zh = Read("转学成功了！！现在在上海同济 专业没变还是土木");
  ASSERT_EQ(zh.size(), 2u);
  EXPECT_EQ(zh[0].slot, "user/school");
  EXPECT_EQ(zh[0].content, "用户转学成功了，现在在上海同济");
  EXPECT_EQ(zh[1].content.find("同济"), std::string::npos) << zh[1].content;
  for (const char* not_the_users :
       {"my sister got hired at Costco now", "I used to live in a new apartment downtown",
        "will I get hired at Costco now?", "I have a new boss and she is great"}) {
    for (const Candidate& c : Read(not_the_users)) {
      EXPECT_FALSE(c.slot == "user/employer" || c.slot == "user/location" || c.slot == "user/job")
          << not_the_users << " → " << c.content << " " << c.slot;
    }
  }
}

// A change that said no value takes the next clause with no subject of its own as where it is
// said, across "!!"; the sentence after that is on its own again.
TEST(ChangesTest, AValuelessChangeTakesTheClauseThatSaysItsValue) {
  auto c =
      Read("finally signed the lease and got the keys!! a tiny studio in tacoma. my sister helped");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_NE(c[0].content.find("tacoma"), std::string::npos) << c[0].content;
  EXPECT_EQ(c[0].content.find("sister"), std::string::npos) << c[0].content;
  // a change said without a subject or a verb reads as a sentence about the user
  auto moved = Read("officially in Denver now, boxes everywhere");
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(moved[0].slot, "user/location");
  EXPECT_TRUE(moved[0].content.starts_with("User is officially in Denver now")) << moved[0].content;
  // with no name in it either: the change is what makes it the speaker's
  auto job = Read("passed the boards!! officially a pharmacist now");
  ASSERT_EQ(job.size(), 2u);
  EXPECT_EQ(job[1].slot, "user/job");
  EXPECT_EQ(job[1].content, "User is officially a pharmacist now");
  EXPECT_TRUE(Read("a pharmacist now").empty());  // no change said first: whose?
}

// The first city a text names, as the text writes it; whole English words only.
TEST(ChangesTest, CityInGivesTheCityAsWritten) {
  EXPECT_EQ(CityIn("User grew up in Toledo, Ohio", false), "Toledo");
  EXPECT_EQ(CityIn("moved from salt lake city to boise", false), "salt lake city");
  EXPECT_EQ(CityIn("no wait, Dayton", false), "Dayton");
  EXPECT_EQ(CityIn("the weather at laurel park is nice", false), "");
  EXPECT_EQ(CityIn("用户老家在鞍山", true), "鞍山");
  EXPECT_EQ(CityIn("用户喜欢吃饺子", true), "");
}

}  // namespace
}  // namespace engram::extract
