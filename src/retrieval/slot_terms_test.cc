// Slot search terms: the words questions use for an attribute, indexed with the memory filling it.
#include "retrieval/slot_terms.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(SlotTermsTest, AnAttributeGivesTheWordsItIsAskedWith) {
  const std::string job = SlotSearchText("user/job");
  EXPECT_NE(job.find("job"), std::string::npos) << job;
  EXPECT_NE(job.find("职业"), std::string::npos) << job;
  const std::string home = SlotSearchText("user/location");
  EXPECT_NE(home.find("live"), std::string::npos) << home;
  EXPECT_NE(home.find("住"), std::string::npos) << home;
  // someone else's attribute is asked with the same words, and by their name
  EXPECT_EQ(SlotSearchText("kevin/location"), "kevin " + home);
}

TEST(SlotTermsTest, KeyedSlotsAddTheirKeysWords) {
  const std::string rent = SlotSearchText("user/amount:rent");
  EXPECT_NE(rent.find("how much"), std::string::npos) << rent;
  EXPECT_NE(rent.find("房租"), std::string::npos) << rent;
  const std::string tea = SlotSearchText("user/likes:tea");
  EXPECT_NE(tea.find("like"), std::string::npos) << tea;
}

TEST(SlotTermsTest, UnknownAttributesGiveOnlyTheirSubjectAndKey) {
  EXPECT_EQ(SlotSearchText(""), "");
  EXPECT_EQ(SlotSearchText("user/no_such_attribute"), "");
  EXPECT_EQ(SlotSearchText("kevin/no_such_attribute"), "kevin ");
  EXPECT_EQ(SlotSearchText("user/no_such_attribute:green_tea"), "green tea");
}

}  // namespace
}  // namespace engram
