// The rule resolver: one test per rule, plus the reasons it records.
#include <gtest/gtest.h>

#include "engram/extraction.h"

namespace engram {
namespace {

Candidate Cand(std::string content, std::string slot = "", bool exclusive = false,
               bool correction = false) {
  Candidate c;
  c.content = std::move(content);
  c.slot = std::move(slot);
  c.exclusive = exclusive;
  c.correction = correction;
  return c;
}

Neighbour Near(std::string content, double similarity, bool same_slot) {
  Neighbour n;
  n.item.id = "m1";
  n.item.content = std::move(content);
  n.similarity = similarity;
  n.same_slot = same_slot;
  return n;
}

DecisionResult Decide(const Candidate& c, const std::vector<Neighbour>& n) {
  auto r = MakeRuleResolver()->Decide(c, n);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : DecisionResult{};
}

TEST(RuleResolverTest, DecisionNames) {
  EXPECT_EQ(ToString(WriteDecision::kAdd), "ADD");
  EXPECT_EQ(ToString(WriteDecision::kUpdate), "UPDATE");
  EXPECT_EQ(ToString(WriteDecision::kSupersede), "SUPERSEDE");
  EXPECT_EQ(ToString(WriteDecision::kNoop), "NOOP");
  EXPECT_EQ(MakeRuleResolver()->name(), "rules-v2");
}

TEST(RuleResolverTest, NoNeighboursAdds) {
  DecisionResult d = Decide(Cand("User lives in Oslo", "user/location", true), {});
  EXPECT_EQ(d.decision, WriteDecision::kAdd);
  EXPECT_EQ(d.target, -1);
  EXPECT_EQ(d.reason, "new: no memory in slot user/location");
}

TEST(RuleResolverTest, ExclusiveSlotWithAnotherValueSupersedes) {
  DecisionResult d = Decide(Cand("User lives in Berlin", "user/location", true),
                            {Near("User lives in Shanghai", 0.7, true)});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
  EXPECT_EQ(d.target, 0);
  EXPECT_NE(d.reason.find("user/location"), std::string::npos);
  DecisionResult zh =
      Decide(Cand("用户住在北京", "user/location", true), {Near("用户住在上海", 0.8, true)});
  EXPECT_EQ(zh.decision, WriteDecision::kSupersede);
}

// In a family that holds several values at once (languages, medications), a value taken up in
// place of another ("改学韩语了", "switched to Lexapro") ends the others; a value added beside
// them ("也在学韩语", "also learning Italian") does not.
TEST(RuleResolverTest, AValueTakenUpInPlaceOfAnotherEndsTheFamilysOthers) {
  auto family = [](std::string content, std::string slot) {
    Neighbour n = Near(std::move(content), 0.3, false);
    n.item.slot = std::move(slot);
    n.same_family = true;
    return n;
  };
  DecisionResult zh = Decide(Cand("用户改学韩语了", "user/language:韩语"),
                             {family("用户在学日语", "user/language:日语")});
  EXPECT_EQ(zh.decision, WriteDecision::kSupersede);
  EXPECT_EQ(zh.target, 0);
  EXPECT_NE(zh.reason.find("taken up in its place"), std::string::npos) << zh.reason;
  DecisionResult en = Decide(Cand("User switched to Lexapro", "user/medication:lexapro"),
                             {family("User takes sertraline", "user/medication:sertraline")});
  EXPECT_EQ(en.decision, WriteDecision::kSupersede);
  EXPECT_EQ(Decide(Cand("用户也在学韩语", "user/language:韩语"),
                   {family("用户在学日语", "user/language:日语")})
                .decision,
            WriteDecision::kAdd);
  EXPECT_EQ(Decide(Cand("User is also learning Italian", "user/language:italian"),
                   {family("User is learning German", "user/language:german")})
                .decision,
            WriteDecision::kAdd);
  // a family whose values are not replaced one by another: likes
  EXPECT_EQ(Decide(Cand("User switched to liking tea", "user/likes:tea"),
                   {family("User likes coffee", "user/likes:coffee")})
                .decision,
            WriteDecision::kAdd);
}

TEST(RuleResolverTest, AChangeWithoutAParsedValueThatNamesTheStoredOneRestatesIt) {
  // "我目前人在南京" (a change by data/lexicon/zh/changes.tsv, no value parsed) after the frame's
  // "用户现在住在南京" (entity 南京): the same place, said again.
  Neighbour stored = Near("用户现在住在南京", 0.6, true);
  stored.item.entities = {"南京"};
  DecisionResult same = Decide(Cand("用户目前人在南京", "user/location", true), {stored});
  EXPECT_EQ(same.decision, WriteDecision::kNoop);
  EXPECT_NE(same.reason.find("南京"), std::string::npos) << same.reason;
  DecisionResult other = Decide(Cand("用户现在人在苏州了", "user/location", true), {stored});
  EXPECT_EQ(other.decision, WriteDecision::kSupersede);
}

TEST(RuleResolverTest, APlaceNamedByPointingAtItIsTheOneKnown) {
  Neighbour stored = Near("User lives in Denver", 0.5, true);
  stored.item.entities = {"Denver"};
  for (const char* here : {"here", "这边"}) {
    Candidate c = Cand(std::string("User has lived ") + here + " for years", "user/location", true);
    c.value = here;
    DecisionResult d = Decide(c, {stored});
    EXPECT_EQ(d.decision, WriteDecision::kNoop) << here << ": " << d.reason;
  }
  Candidate moved = Cand("User lives in Boulder", "user/location", true);
  moved.value = "Boulder";
  EXPECT_EQ(Decide(moved, {stored}).decision, WriteDecision::kSupersede);
}

TEST(RuleResolverTest, SameSlotSameValueIsNoop) {
  DecisionResult d = Decide(Cand("User lives in Shanghai", "user/location", true),
                            {Near("user lives in Shanghai.", 0.99, true)});
  EXPECT_EQ(d.decision, WriteDecision::kNoop);
  EXPECT_EQ(d.reason, "same slot user/location, same value");
}

TEST(RuleResolverTest, NearIdenticalTextIsNoop) {
  EXPECT_EQ(
      Decide(Cand("User likes green tea"), {Near("User likes green tea!", 0.99, false)}).decision,
      WriteDecision::kNoop);
  DecisionResult sim =
      Decide(Cand("User enjoys green tea a lot"), {Near("User enjoys green tea", 0.96, false)});
  EXPECT_EQ(sim.decision, WriteDecision::kUpdate);  // contains it and adds detail
  DecisionResult close = Decide(Cand("User enjoys drinking green tea"),
                                {Near("User enjoys drinking green teas", 0.97, false)});
  EXPECT_EQ(close.decision, WriteDecision::kNoop);
  EXPECT_NE(close.reason.find("restates"), std::string::npos) << close.reason;
  // alike only by the embedding: the similarity decides, and is recorded
  DecisionResult embedded =
      Decide(Cand("User is into jazz records"), {Near("User collects vinyl", 0.97, false)});
  EXPECT_EQ(embedded.decision, WriteDecision::kNoop);
  EXPECT_NE(embedded.reason.find("similarity 0.97"), std::string::npos) << embedded.reason;
}

TEST(RuleResolverTest, NumbersKeepSimilarTextApart) {
  DecisionResult d = Decide(Cand("User has a dentist appointment on 2026-12-18"),
                            {Near("User has a dentist appointment on 2026-12-11", 0.97, false)});
  EXPECT_EQ(d.decision, WriteDecision::kAdd);
}

TEST(RuleResolverTest, MoreDetailUpdates) {
  DecisionResult d = Decide(Cand("User lives in Shanghai, Pudong district", "user/location", true),
                            {Near("User lives in Shanghai", 0.9, true)});
  EXPECT_EQ(d.decision, WriteDecision::kUpdate);
  EXPECT_EQ(d.merged_content, "User lives in Shanghai, Pudong district");
  EXPECT_EQ(d.reason, "same slot user/location, more detail");
  DecisionResult by_similarity = Decide(Cand("User has a golden retriever named Max who is three"),
                                        {Near("User has a dog named Max", 0.87, false)});
  EXPECT_EQ(by_similarity.decision, WriteDecision::kUpdate);
  EXPECT_EQ(by_similarity.target, 0);
  EXPECT_EQ(by_similarity.merged_content, "User has a golden retriever named Max who is three");
  // less detail than what is stored says nothing new
  DecisionResult shorter =
      Decide(Cand("User has a dog"), {Near("User has a dog named Max", 0.88, false)});
  EXPECT_EQ(shorter.decision, WriteDecision::kNoop);
  EXPECT_NE(shorter.reason.find("restates"), std::string::npos) << shorter.reason;
  // but a different thing of the same kind is new
  DecisionResult cat =
      Decide(Cand("User has a cat named Luna"), {Near("User has a dog named Max", 0.88, false)});
  EXPECT_EQ(cat.decision, WriteDecision::kAdd);
}

TEST(RuleResolverTest, LessDetailInTheSameSlotIsNoop) {
  DecisionResult d = Decide(Cand("User lives in Shanghai", "user/location", true),
                            {Near("User lives in Shanghai, Pudong district", 0.9, true)});
  EXPECT_EQ(d.decision, WriteDecision::kNoop);
}

TEST(RuleResolverTest, OppositePolarityInAMultiValuedSlotSupersedes) {
  DecisionResult d = Decide(Cand("User does not like coffee", "user/likes:coffee"),
                            {Near("User loves coffee", 0.8, true)});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
  EXPECT_EQ(d.reason, "same slot user/likes:coffee, opposite polarity");
  DecisionResult back =
      Decide(Cand("用户喜欢香菜", "user/likes:香菜"), {Near("用户不喜欢香菜", 0.8, true)});
  EXPECT_EQ(back.decision, WriteDecision::kSupersede);
}

TEST(RuleResolverTest, SamePolarityInAKeyedSlotIsNoop) {
  DecisionResult d = Decide(Cand("User loves coffee", "user/likes:coffee"),
                            {Near("User likes coffee", 0.8, true)});
  EXPECT_EQ(d.decision, WriteDecision::kNoop);
  // "loves" adds nothing the stored "likes coffee" lacks: a restatement.
  EXPECT_EQ(d.reason,
            "same slot user/likes:coffee, says nothing new: restates \"User likes coffee\"");
}

TEST(RuleResolverTest, TopicSlotsHoldManyStatements) {
  DecisionResult d = Decide(Cand("User's wife is called Lily", "user/family:wife"),
                            {Near("User's wife is a nurse", 0.6, true)});
  EXPECT_EQ(d.decision, WriteDecision::kAdd);
}

TEST(RuleResolverTest, CorrectionWithASameSlotNeighbourSupersedes) {
  DecisionResult d = Decide(Cand("User no longer works at Google", "user/employer", true, true),
                            {Near("User works at Google", 0.9, true)});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
  EXPECT_EQ(d.reason, "correction of slot user/employer");
  DecisionResult keyed = Decide(Cand("User has a cat", "user/pet:cat", false, true),
                                {Near("User has two cats", 0.9, true)});
  EXPECT_EQ(keyed.decision, WriteDecision::kSupersede);
  // A correction with no same-slot neighbour is new information.
  DecisionResult alone = Decide(Cand("User lives in Hangzhou", "user/location", true, true),
                                {Near("User likes Hangzhou food", 0.5, false)});
  EXPECT_EQ(alone.decision, WriteDecision::kAdd);
}

TEST(RuleResolverTest, SimilarTextWithOppositePolaritySupersedes) {
  DecisionResult d =
      Decide(Cand("User does not like jazz"), {Near("User likes jazz", 0.92, false)});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
}

TEST(RuleResolverTest, SameSlotBeatsHigherSimilarity) {
  DecisionResult d =
      Decide(Cand("User lives in Berlin", "user/location", true),
             {Near("User lives in Bern", 0.93, false), Near("User lives in Paris", 0.8, true)});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
  EXPECT_EQ(d.target, 1);
}

TEST(RuleResolverTest, UnrelatedNeighboursAdd) {
  DecisionResult d =
      Decide(Cand("User is allergic to peanuts", "user/allergy:peanut"),
             {Near("User lives in Oslo", 0.2, false), Near("User likes jazz", 0.1, false)});
  EXPECT_EQ(d.decision, WriteDecision::kAdd);
  EXPECT_EQ(d.target, -1);
}

// A statement no frame typed that names the value a typed memory is keyed by says it again,
// whatever its words and polarity; not when it says what changed, adds a number, speaks of
// someone else too, or the key is a category rather than a value.
TEST(RuleResolverTest, AnUntypedStatementNamingATypedMemorysValueSaysItAgain) {
  Neighbour allergy = Near("用户对芒果过敏", 0.3, false);
  allergy.item.slot = "user/allergy:芒果";
  allergy.item.entities = {"芒果"};
  DecisionResult d = Decide(Cand("芒果用户一口都不敢吃"), {allergy});
  EXPECT_EQ(d.decision, WriteDecision::kNoop);
  EXPECT_EQ(d.target, 0);
  EXPECT_NE(d.reason.find("user/allergy:芒果"), std::string::npos) << d.reason;
  EXPECT_NE(Decide(Cand("芒果用户现在能吃一点了"), {allergy}).decision, WriteDecision::kNoop);
  EXPECT_NE(Decide(Cand("用户的女儿也对芒果过敏"), {allergy}).decision, WriteDecision::kNoop);

  Neighbour pet = Near("User's cat is called Miso", 0.4, false);
  pet.item.slot = "user/pet:miso";
  pet.item.entities = {"Miso"};
  EXPECT_EQ(Decide(Cand("Miso is their cat; she is a grey tabby"), {pet}).decision,
            WriteDecision::kNoop);
  EXPECT_NE(Decide(Cand("Miso turned 4 today"), {pet}).decision, WriteDecision::kNoop);
  Candidate visit = Cand("Miso has a vet appointment");
  visit.type = MemoryType::kEvent;  // news about the value, not the value again
  EXPECT_NE(Decide(visit, {pet}).decision, WriteDecision::kNoop);
  EXPECT_NE(Decide(Cand("User's sister has a cat like Misony"), {pet}).decision,
            WriteDecision::kNoop);  // whole words only

  Neighbour favorite = Near("用户最喜欢的歌手是周杰伦", 0.3, false);
  favorite.item.slot = "user/favorite:歌手";
  favorite.item.entities = {"周杰伦"};
  EXPECT_NE(Decide(Cand("用户觉得这个歌手唱得一般"), {favorite}).decision, WriteDecision::kNoop);
}

// A change of where the user lives or works, with a change cue, outdates what said it before
// in words no frame typed, or in the twin slot of the same attribute (job and employer); not
// what the same message says alongside it, a past, or someone else's home.
TEST(RuleResolverTest, AChangeOfHomeOrWorkOutdatesWhatSaidItInOtherWords) {
  Neighbour rented = Near("用户在深圳南山租房", 0.3, false);
  rented.item.created_at = 1000;
  DecisionResult moved =
      Decide(Cand("新家在东莞松山湖，房租直接便宜一半", "user/location", true), {rented});
  EXPECT_EQ(moved.decision, WriteDecision::kSupersede);
  EXPECT_NE(moved.reason.find("a change of location"), std::string::npos) << moved.reason;

  Neighbour job = Near("用户在字节做产品经理", 0.3, false);
  job.item.slot = "user/job";
  DecisionResult hopped = Decide(Cand("用户跳槽去腾讯了", "user/employer", true), {job});
  EXPECT_EQ(hopped.decision, WriteDecision::kSupersede);
  EXPECT_EQ(hopped.target, 0);

  // said by the same message: "just finished my first week at Stripe! new job is great so far"
  Neighbour same = Near("User just finished their first week at Stripe", 0.5, false);
  same.item.slot = "user/employer";
  same.this_message = true;
  EXPECT_EQ(Decide(Cand("New job is great so far", "user/job", true), {same}).decision,
            WriteDecision::kAdd);
  // no change cue: a second statement, not a change
  EXPECT_EQ(Decide(Cand("用户在腾讯做产品", "user/employer", true), {job}).decision,
            WriteDecision::kAdd);
  // the past, someone else's home, and another topic stay
  for (const char* other : {"User used to live in Boston", "User's mom lives in Tucson",
                            "User loves hiking on weekends"}) {
    EXPECT_EQ(
        Decide(Cand("User now lives in Denver", "user/location", true), {Near(other, 0.3, false)})
            .decision,
        WriteDecision::kAdd)
        << other;
  }
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// 1c. A new amount of what the user gave an amount for: a change word, another value in the
// same unit, and what it is of shared, or nothing named but the amount against the user's
// budget; never an amount of something else, in another unit, or the same value again.
TEST(RuleResolverTest, ANewAmountReplacesTheOldAmountOfTheSameThing) {
  auto amount = [](std::string content, std::string slot = "") {
    Neighbour n = Near(std::move(content), 0.2, false);
    n.item.slot = std::move(slot);
    n.amount = !n.item.slot.empty();
    return n;
  };
  for (const auto& [now, before] : std::vector<std::pair<std::string, std::string>>{
           {"User bumped the roth to 350/mo after their raise",
            "User put 200 a month into their roth ira"},
           {"User can stretch to 1400 for the laptop now", "Budget for a new laptop is about 900"},
           {"User cut groceries to 450/month from now on",
            "User's grocery budget is 600 a month for the 3 of the user"},
           {"Gp upped their dose to 100mg", "User takes 50mg sertraline every morning"},
           {"用户提前还了一部分，房贷降到4800了", "用户每个月房贷还6200"},
           {"用户装修预算现在二十万", "用户装修预算卡在十五万"}}) {
    DecisionResult d = Decide(Cand(now), {amount(before)});
    EXPECT_EQ(d.decision, WriteDecision::kSupersede) << now << " / " << before;
    EXPECT_NE(d.reason.find("a new amount"), std::string::npos) << d.reason;
  }
  // nothing named but the amount: the user's budget
  DecisionResult bare =
      Decide(Cand("User can go up to 18k now"), {amount("12k max budget", "user/budget:12k max")});
  EXPECT_EQ(bare.decision, WriteDecision::kSupersede);
  for (const auto& [now, before] : std::vector<std::pair<std::string, std::string>>{
           // something else counted, another unit, the same value, no change word, a date
           {"User sleeps 7 hours now", "User runs 3 times a week"},
           {"User runs 5 miles now", "User runs 3 times a week"},
           {"User pays 1850 now", "User's rent is 1850"},
           {"User's rent is 2050", "User's rent is 1850"},
           {"User is moving on 2026-05-01 now", "User's rent is 1850"},
           {"用户现在每天跑五公里", "用户每个月房贷还6200"}}) {
    DecisionResult d = Decide(Cand(now), {amount(before)});
    EXPECT_NE(d.decision, WriteDecision::kSupersede) << now << " / " << before << ": " << d.reason;
  }
}

// A restatement that names the value of a memory of its slot family ("User's pup's name is
// pretzel" after "User has a dog named Pretzel") or a favourite's value
// ("陈粒的歌我单曲循环好几年了" after "我最喜欢的歌手是陈粒") says it again; one naming another
// value too does not.
TEST(RuleResolverTest, ARestatementNamingTheValueOfItsFamilyOrAFavouriteSaysItAgain) {
  Neighbour pretzel = Near("User has a dog named Pretzel", 0.3, false);
  pretzel.item.slot = "user/pet:pretzel";
  pretzel.item.entities = {"Pretzel"};
  pretzel.same_family = true;
  Candidate pup = Cand("User's pup is pretzel, a total goofball", "user/pet:pup");
  EXPECT_EQ(Decide(pup, {pretzel}).decision, WriteDecision::kNoop);
  Candidate two = pup;
  two.entities = {"Luna"};
  EXPECT_NE(Decide(two, {pretzel}).decision, WriteDecision::kNoop);
  Neighbour fav = Near("用户最喜欢的歌手是陈粒", 0.3, false);
  fav.item.slot = "user/favorite:歌手";
  fav.item.entities = {"陈粒"};
  EXPECT_EQ(Decide(Cand("陈粒的歌用户单曲循环好几年了"), {fav}).decision, WriteDecision::kNoop);
  EXPECT_NE(Decide(Cand("用户最近也在听陈粒的新歌"), {fav}).decision, WriteDecision::kNoop);
}

// After the message said a slot's new value as a change, what it says next of the slot
// ("换了台小米15 华为那台电池实在撑不住了") replaces nothing it said, unless it is a correction or
// says a change itself; two plain statements of the slot: the later one holds.
TEST(RuleResolverTest, TheSameMessageDoesNotReplaceWhatItJustSaid) {
  Neighbour xiaomi = Near("用户换了台小米15", 0.5, true);
  xiaomi.item.slot = "user/device:phone";
  xiaomi.this_message = true;
  Candidate huawei = Cand("用户华为那台电池实在撑不住了", "user/device:phone", true);
  EXPECT_NE(Decide(huawei, {xiaomi}).decision, WriteDecision::kSupersede);
  Candidate fixed = Cand("用户用的是小米14", "user/device:phone", true, /*correction=*/true);
  EXPECT_EQ(Decide(fixed, {xiaomi}).decision, WriteDecision::kSupersede);
  Neighbour stored = xiaomi;
  stored.this_message = false;
  EXPECT_EQ(Decide(huawei, {stored}).decision, WriteDecision::kSupersede);
  Neighbour plain = Near("用户用小米15", 0.5, true);
  plain.item.slot = "user/device:phone";
  plain.this_message = true;
  EXPECT_EQ(Decide(huawei, {plain}).decision, WriteDecision::kSupersede);
}

// A move outdates a stay said as an event ("User has been in Austin since 2019") and a
// statement that speaks of the user inside it; not a stay of someone else's.
TEST(RuleResolverTest, AMoveOutdatesAStaySaidAsAnEvent) {
  Candidate moved = Cand("User is officially a Portland resident now", "user/location", true);
  Neighbour stay = Near("User has been in Austin since 2019", 0.2, false);
  stay.item.type = MemoryType::kEvent;
  EXPECT_EQ(Decide(moved, {stay}).decision, WriteDecision::kSupersede);
  Neighbour inside = Near("Chicago winters are brutal, the user has been here 6 years", 0.2, false);
  EXPECT_EQ(Decide(moved, {inside}).decision, WriteDecision::kSupersede);
  Neighbour trip = Near("User went to Austin for a conference", 0.2, false);
  trip.item.type = MemoryType::kEvent;
  EXPECT_NE(Decide(moved, {trip}).decision, WriteDecision::kSupersede);
  Neighbour mom = Near("User's mom has been in Austin since 2019", 0.2, false);
  mom.item.type = MemoryType::kEvent;
  EXPECT_NE(Decide(moved, {mom}).decision, WriteDecision::kSupersede);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// 1d. A change on a topic of one value at a time (work, home, school, partner), said in words
// no frame typed, outdates the user's older statement on that topic; not without a change cue,
// not a topic of many values, not someone else's, not the past.
TEST(RuleResolverTest, AChangeInUnreadWordsOutdatesTheOlderStatementOnItsTopic) {
  Neighbour boba = Near("User works at a boba shop after school", 0.3, false);
  boba.item.slot = "user/employer";
  boba.item.created_at = 1000;
  Candidate lifeguard = Cand("User quit the boba place, lifeguarding at the rec center pool now");
  lifeguard.type = MemoryType::kEvent;
  DecisionResult d = Decide(lifeguard, {boba});
  EXPECT_EQ(d.decision, WriteDecision::kSupersede);
  EXPECT_EQ(d.target, 0);
  EXPECT_NE(d.reason.find("a change on the same topic"), std::string::npos) << d.reason;
  // the latest of two statements on the topic
  Neighbour older = Near("User has a job at a car wash", 0.3, false);
  older.item.created_at = 500;
  EXPECT_EQ(Decide(lifeguard, {older, boba}).target, 1);
  // no change cue: another statement, not a change
  Candidate also = Cand("User likes the people at the rec center pool job");
  EXPECT_NE(Decide(also, {boba}).decision, WriteDecision::kSupersede);
  // a topic of many values: a new sport does not end the old one
  Neighbour tennis = Near("User plays tennis on weekends", 0.3, false);
  EXPECT_NE(Decide(Cand("User started bouldering now"), {tennis}).decision,
            WriteDecision::kSupersede);
  // someone else's job, or the user's past one, stays
  for (const char* other : {"User's sister works at a boba shop", "User used to work at a bank"}) {
    EXPECT_NE(Decide(lifeguard, {Near(other, 0.3, false)}).decision, WriteDecision::kSupersede)
        << other;
  }
  // zh: a school change said without a frame
  Neighbour school = Near("用户在南京大学读书", 0.3, false);
  EXPECT_EQ(Decide(Cand("用户现在转到苏州的学校了"), {school}).decision, WriteDecision::kSupersede);
}

// "新买了一台MacBook Pro，戴尔那台送人了": an ending said in the same message after the new value
// ends the old value, not the new one.
TEST(RuleResolverTest, AnEndingInTheSameMessageDoesNotEndTheNewValue) {
  Neighbour mac = Near("用户新买了一台MacBook Pro", 0.5, true);
  mac.item.slot = "user/device:laptop";
  mac.this_message = true;
  Candidate gone = Cand("用户戴尔那台送人了", "user/device:laptop", true);
  gone.ends = {"戴尔"};
  EXPECT_NE(Decide(gone, {mac}).decision, WriteDecision::kSupersede);
  Neighbour dell = Near("用户电脑是一台老的戴尔笔记本", 0.5, true);
  dell.item.slot = "user/device:laptop";
  dell.ended = true;
  EXPECT_EQ(Decide(gone, {mac, dell}).decision, WriteDecision::kSupersede);
  EXPECT_EQ(Decide(gone, {mac, dell}).target, 1);
  // "跳到腾讯了 已经入职两周": the same message's next word on the slot, with no value of its
  // own, leaves the value it just gave
  Neighbour tencent = Near("用户跳到腾讯了", 0.5, true);
  tencent.item.slot = "user/employer";
  tencent.item.entities = {"腾讯"};
  tencent.this_message = true;
  Candidate weeks = Cand("用户已经入职两周", "user/employer", true);
  EXPECT_NE(Decide(weeks, {tencent}).decision, WriteDecision::kSupersede);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// 3a. The user's statement that says again what an older one is about (a shared name or topic
// word) and adds no other name, number or topic word is the same fact in other words; one that
// adds one, changes, or flips polarity is not.
TEST(RuleResolverTest, AStatementSayingAgainWhatAnOlderOneIsAboutIsNoop) {
  Neighbour nicu = Near("User is a nurse in the NICU", 0.3, false);
  nicu.item.slot = "user/job";
  DecisionResult d =
      Decide(Cand("User is taking care of tiny preemies all night in the NICU"), {nicu});
  EXPECT_EQ(d.decision, WriteDecision::kNoop);
  EXPECT_NE(d.reason.find("says again what"), std::string::npos) << d.reason;
  Neighbour guitar = Near("用户在学吉他", 0.3, false);
  guitar.item.slot = "user/skill:吉他";
  Candidate practising = Cand("用户最近一直在练吉他");
  EXPECT_EQ(Decide(practising, {guitar}).decision, WriteDecision::kNoop);
  // a known city is what a statement is about too
  Neighbour hometown = Near("用户老家是湖南邵阳的", 0.3, false);
  hometown.item.slot = "user/hometown";
  EXPECT_EQ(Decide(Cand("用户是邵阳人湖南那边的"), {hometown}).decision, WriteDecision::kNoop);
  // news: another name, a number, a change, the opposite, or someone else
  for (const char* news :
       {"User works with Dr Patel in the NICU", "User works 3 nights a week in the NICU",
        "User is not in the NICU anymore", "User's sister is in the NICU"}) {
    EXPECT_NE(Decide(Cand(news), {nicu}).decision, WriteDecision::kNoop) << news;
  }
}

}  // namespace
}  // namespace engram
