// The rule extractor on Chinese self-statements.
#include <gtest/gtest.h>

#include <algorithm>

#include "extract/casual.h"
#include "extract/clauses.h"
#include "extract/extraction_test_util.h"
#include "extract/lexicon.h"
#include "extract/speech_acts.h"

namespace engram {
namespace {

using namespace testing_extract;

TEST(RuleExtractorZhTest, Name) {
  for (const char* text : {"我叫小明。", "我的名字是小明", "我的名字叫小明！"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/name") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "用户叫小明") << text;
    EXPECT_EQ(c.entities, std::vector<std::string>{"小明"}) << text;
  }
  for (const Candidate& c : Extract("我叫了外卖")) EXPECT_NE(c.slot, "user/name");
}

// What is said of a pet after it is named is the pet's: "五岁了" is not the user's age; and each
// of two pets named in turn is a pet of its own, with the statement that introduced them.
// A breed is a pet (data/lexicon/zh/pets.tsv), and an age said after a pet is the pet's.
TEST(RuleExtractorZhTest, ABreedIsAPetAndAPetsAgeIsNotTheUsers) {
  EXPECT_EQ(One("我家布偶叫团子 两岁半了").slot, "user/pet:团子");
  for (const char* text : {"我家布偶叫团子 两岁半了", "我们家狗旺财十二岁了", "我家金毛八岁了"}) {
    for (const Candidate& c : Extract(text)) EXPECT_NE(c.slot, "user/age") << text;
  }
  EXPECT_EQ(One("我今年三十岁了").slot, "user/age");
}

// A time said without a date ("前几天") dates nothing and hides no pattern; a subject the clause
// before says is gone does not carry over; a routine moved to a time no list names is moved.
TEST(RuleExtractorZhTest, VagueTimesGoneSubjectsAndMovedRoutines) {
  const std::vector<Candidate> c = Extract("豆豆七月走了 前几天领养了只橘猫 叫年糕");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].slot, "user/pet:年糕");
  EXPECT_EQ(c[1].content, "用户前几天领养了只橘猫，叫年糕");
  EXPECT_FALSE(c[1].valid_from.has_value());  // not the July of the clause before
  EXPECT_EQ(One("游泳改到下班后了").slot, "user/schedule:游泳");
  // the ways people say a pet died end it, as 走了 does
  for (const char* text : {"团子寿终正寝了", "咪咪去喵星了"}) {
    const Candidate gone = One(text);
    ASSERT_EQ(gone.ends.size(), 1u) << text;
    EXPECT_EQ(gone.ends[0], std::string(text).substr(0, 6)) << text;
  }
}

// "白色那辆", "银色那款": which one, said of what the clause before named, joins it
TEST(RuleExtractorZhTest, WhichOneJoinsTheStatementBefore) {
  EXPECT_EQ(One("我的车是特斯拉 白色那辆").content, "用户的车是特斯拉，白色那辆");
  EXPECT_EQ(One("我电脑用的是MacBook Air，银色那款").content,
            "用户电脑用的是MacBook Air，银色那款");
}

// A weekday said alone is kept as said, its date after it; two side by side stay apart.
TEST(RuleExtractorZhTest, AWeekdayIsKeptWithItsDate) {
  EXPECT_EQ(One("我只有周一周三晚上有空").content,
            "用户只有周一（2026-11-30）周三（2026-12-02）晚上有空");
  EXPECT_EQ(One("下周五我要去看牙医").content, "用户2026-12-11要去看牙医");
}

TEST(RuleExtractorZhTest, WhatFollowsAPetIsThePets) {
  Candidate dog = One("我家狗叫可乐，五岁了");
  EXPECT_EQ(dog.slot, "user/pet:可乐");
  EXPECT_EQ(dog.content, "用户家狗叫可乐，五岁了");
  for (const Candidate& c : Extract("我家狗叫可乐，五岁了")) EXPECT_NE(c.slot, "user/age");
  const std::vector<Candidate> cats = Extract("我养了两只猫，一只叫可乐，一只叫雪碧");
  ASSERT_EQ(cats.size(), 2u);
  EXPECT_EQ(cats[0].slot, "user/pet:可乐");
  EXPECT_EQ(cats[1].slot, "user/pet:雪碧");
  for (const Candidate& c : cats)
    EXPECT_TRUE(c.content.starts_with("用户养了两只猫，叫")) << c.content;
}

TEST(RuleExtractorZhTest, Location) {
  // The content is the user's clause with 我 → 用户; slot and value are what conflicts read.
  for (const char* text : {"我住在上海。", "我搬到了上海", "我现在住在上海",
                           "我已经搬到上海好几年了", "我在上海住了五年"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.type, MemoryType::kFact) << text;
    EXPECT_EQ(c.slot, "user/location") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.value, "上海") << text;
    EXPECT_TRUE(c.content.starts_with("用户")) << text;
  }
  EXPECT_EQ(One("我住在上海。").content, "用户住在上海");
  EXPECT_EQ(One("我在上海住了五年").content, "用户在上海住了五年");
  Candidate c = One("我去年搬到了北京。");
  EXPECT_EQ(c.content, "用户2025年搬到了北京");
  EXPECT_EQ(c.valid_from, Date(2025, 1, 1));
  Candidate h = One("我是四川人");
  EXPECT_EQ(h.slot, "user/hometown");
  EXPECT_EQ(h.value, "四川");
  EXPECT_EQ(h.content, "用户是四川人");
  EXPECT_EQ(One("我老家在湖南").slot, "user/hometown");
  // a childhood home is kept, but is not where the user lives
  Candidate past = One("我小时候住在农村");
  EXPECT_EQ(past.content, "用户小时候住在农村");
  EXPECT_NE(past.slot, "user/location");
}

TEST(RuleExtractorZhTest, EmployerAndJob) {
  for (const char* text : {"我在腾讯工作", "我在腾讯上班。", "我现在在腾讯上班"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/employer") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.value, "腾讯") << text;
  }
  EXPECT_EQ(One("我在腾讯上班。").content, "用户在腾讯上班");
  EXPECT_EQ(One("我在上海工作").slot, "user/work_location");  // a city, not an employer
  Candidate joined = One("我上个月入职了字节跳动");
  EXPECT_EQ(joined.slot, "user/employer");
  EXPECT_EQ(joined.valid_from, Date(2026, 10, 1));
  Candidate job = One("我是一名程序员。");
  EXPECT_EQ(job.slot, "user/job");
  EXPECT_EQ(job.value, "程序员");
  EXPECT_EQ(job.content, "用户是一名程序员");
  Candidate sales = One("我是做销售的");
  EXPECT_EQ(sales.slot, "user/job");
  EXPECT_EQ(sales.value, "销售");
  EXPECT_EQ(One("我是学生").slot, "user/job");
  EXPECT_EQ(One("我是写前端的").slot, "user/job");
  EXPECT_EQ(One("在阿里干了四年了").slot, "user/employer");
  EXPECT_EQ(One("在华科读大二").slot, "user/school");
  // the 在 of 现在 leads no employer: "现在是产品经理了" after a job change is the job
  for (const Candidate& c : Extract("转岗成功！现在是产品经理了")) {
    EXPECT_NE(c.slot, "user/employer") << c.content;
  }
  // a trait, or working from home, is kept without the job and employer slots
  for (const char* text : {"我是一个很内向的人", "我在家工作"}) {
    for (const Candidate& c : Extract(text)) {
      EXPECT_NE(c.slot, "user/job") << text;
      EXPECT_NE(c.slot, "user/employer") << text;
    }
  }
}

TEST(RuleExtractorZhTest, LikesAndDislikesShareASlot) {
  Candidate like = One("我喜欢喝咖啡。");
  EXPECT_EQ(like.type, MemoryType::kPreference);
  EXPECT_EQ(like.slot, "user/likes:咖啡");
  EXPECT_FALSE(like.exclusive);
  EXPECT_EQ(like.content, "用户喜欢喝咖啡");
  Candidate dislike = One("我不喜欢咖啡");
  EXPECT_EQ(dislike.slot, "user/likes:咖啡");
  EXPECT_EQ(dislike.content, "用户不喜欢咖啡");
  EXPECT_EQ(One("我不喜欢香菜").content, "用户不喜欢香菜");
  EXPECT_EQ(One("我不吃香菜").slot, "user/likes:香菜");
  EXPECT_EQ(One("我讨厌下雨天").slot, "user/likes:下雨天");
  EXPECT_EQ(One("我最爱吃火锅").slot, "user/likes:火锅");
  EXPECT_EQ(One("比起茶我更喜欢咖啡").slot, "user/likes:咖啡");
  auto list = Extract("我喜欢苹果、香蕉和橙子。");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1].content, "用户喜欢香蕉");
  EXPECT_EQ(list[2].slot, "user/likes:橙子");
}

TEST(RuleExtractorZhTest, AllergiesAndHealth) {
  Candidate a = One("我对花生过敏。");
  EXPECT_EQ(a.slot, "user/allergy:花生");
  EXPECT_FALSE(a.exclusive);
  EXPECT_EQ(a.content, "用户对花生过敏");
  Candidate pollen = One("我花粉过敏");
  EXPECT_EQ(pollen.content, "用户花粉过敏");
  EXPECT_EQ(pollen.slot, "user/allergy:花粉");
  Candidate h = One("我有高血压");
  EXPECT_EQ(h.slot, "user/health:高血压");
  EXPECT_EQ(h.content, "用户有高血压");
  EXPECT_EQ(One("我是糖尿病患者").slot, "user/health:糖尿病");
  EXPECT_TRUE(Extract("我不过敏").empty());
  // a condition said first with no subject is the speaker's; a measure or a reaction is not one
  Candidate gastritis = Extract("慢性胃炎好几年了，辣的基本碰不了").at(0);
  EXPECT_EQ(gastritis.slot, "user/health:胃炎");
  EXPECT_EQ(gastritis.content, "用户慢性胃炎好几年了");
  EXPECT_EQ(Extract("哮喘，不能跑步").at(0).content, "用户有哮喘");
  EXPECT_TRUE(Extract("过敏季到了").empty());
}

TEST(RuleExtractorZhTest, Pets) {
  Candidate c = One("我养了一只猫，叫咪咪。");
  EXPECT_EQ(c.slot, "user/pet:咪咪");
  EXPECT_EQ(c.entities, std::vector<std::string>{"咪咪"});
  EXPECT_EQ(One("我养了一只猫").slot, "user/pet:猫");
  EXPECT_EQ(One("我家的狗叫旺财").slot, "user/pet:旺财");
  EXPECT_EQ(One("我家有两只狗").slot, "user/pet:狗");
  Candidate adopted = One("三天前我领养了一只小狗");
  EXPECT_EQ(adopted.slot, "user/pet:小狗");
  EXPECT_EQ(adopted.valid_from, Date(2026, 11, 27));
  // no dog is no pet: kept in the user's words, without a pet of its own
  Candidate no_dog = One("我没有养狗");
  EXPECT_EQ(no_dog.content, "用户没有养狗");
  EXPECT_EQ(no_dog.slot, "");
  // "no pets" is said of the whole family of pet slots, so the writer compares it with them
  Candidate none = One("我没养宠物");
  EXPECT_EQ(none.slot, "user/pet");
  EXPECT_FALSE(none.exclusive);
}

TEST(RuleExtractorZhTest, Family) {
  // What someone the user knows does is keyed by that person; an occupation is no name.
  Candidate c = One("我老婆是护士。");
  EXPECT_EQ(c.slot, "老婆/job");
  EXPECT_EQ(c.value, "护士");
  EXPECT_EQ(c.content, "用户的老婆是护士");
  Candidate name = One("我老公是张伟");
  EXPECT_EQ(name.slot, "user/partner");
  EXPECT_EQ(name.value, "张伟");
  EXPECT_EQ(One("我的女儿今年上小学").slot, "user/family:女儿");
  EXPECT_EQ(One("我有两个孩子").slot, "user/children");
  Candidate married = One("我结婚了");
  EXPECT_EQ(married.slot, "user/partner");
  EXPECT_EQ(married.type, MemoryType::kEvent);
  // two things about one person in one message are one memory, not a replacement
  auto lawyer = Extract("我老婆是律师，在一家律所当合伙人。");
  ASSERT_FALSE(lawyer.empty());
  EXPECT_EQ(lawyer[0].slot, "老婆/job");
  EXPECT_EQ(lawyer[0].content, "用户的老婆是律师，在一家律所当合伙人");
  EXPECT_EQ(One("我朋友住在北京").slot, "朋友/location");
}

TEST(RuleExtractorZhTest, Goals) {
  Candidate c = One("我想学西班牙语。");
  EXPECT_EQ(c.slot, "user/language:西班牙语");  // the language's state: learning, fluent, quit
  EXPECT_EQ(c.content, "用户想学西班牙语");
  Candidate plan = One("我打算明年去日本旅游");
  EXPECT_EQ(plan.type, MemoryType::kGoal);
  EXPECT_EQ(plan.content, "用户打算2027年去日本旅游");
  EXPECT_EQ(plan.valid_from, Date(2027, 1, 1));
  EXPECT_EQ(One("我的目标是减肥十公斤").type, MemoryType::kGoal);
  EXPECT_EQ(One("我计划考研").type, MemoryType::kGoal);
  Candidate promise = One("我答应女儿周末带她去动物园");
  EXPECT_EQ(promise.type, MemoryType::kCommitment);
  EXPECT_EQ(promise.valid_from, Date(2026, 12, 5));
  EXPECT_EQ(One("我会在月底前交报告").type, MemoryType::kGoal);
  EXPECT_TRUE(Extract("我会的").empty());
  EXPECT_TRUE(Extract("我想你了").empty());
  EXPECT_TRUE(Extract("我想知道明天的天气").empty());  // a question
  EXPECT_TRUE(Extract("我们去吃饭吧").empty());        // a suggestion
}

TEST(RuleExtractorZhTest, SchedulesAndAppointments) {
  // A routine is keyed by the activity: "改成每周四" replaces the day.
  Candidate r = One("我每周三去游泳。");
  EXPECT_EQ(r.slot, "user/schedule:游泳");
  EXPECT_EQ(r.content, "用户每周三去游泳");
  EXPECT_FALSE(r.valid_from.has_value());
  EXPECT_EQ(One("每天早上我都跑步").slot, "user/schedule:跑步");
  Candidate a = One("下周五我要去看牙医。");
  EXPECT_EQ(a.type, MemoryType::kGoal);
  EXPECT_EQ(a.content, "用户2026-12-11要去看牙医");
  EXPECT_EQ(a.valid_from, Date(2026, 12, 11));
  Candidate interview = One("我明天有个面试");
  EXPECT_EQ(interview.slot, "user/plan:面试");
  EXPECT_EQ(interview.valid_from, Date(2026, 12, 1));
  Candidate e = One("我昨天去了医院");
  EXPECT_EQ(e.type, MemoryType::kEvent);
  EXPECT_EQ(e.valid_from, Date(2026, 11, 29));
  EXPECT_EQ(One("我前天去了医院").valid_from, Date(2026, 11, 28));
  EXPECT_EQ(One("我上周五去了医院").valid_from, Date(2026, 11, 27));
  // what happened today is an event, not a plan
  Candidate fell = One("我今天在学校摔倒了");
  EXPECT_EQ(fell.type, MemoryType::kEvent);
  EXPECT_EQ(fell.valid_from, Date(2026, 11, 30));
}

TEST(RuleExtractorZhTest, Skills) {
  Candidate c = One("我会说日语");
  EXPECT_EQ(c.type, MemoryType::kSkill);
  EXPECT_EQ(c.slot, "user/language:日语");
  EXPECT_EQ(One("我在学吉他").slot, "user/skill:吉他");
  EXPECT_EQ(One("我擅长游泳").type, MemoryType::kSkill);
}

TEST(RuleExtractorZhTest, Corrections) {
  Candidate c = One("其实我住在杭州。");
  EXPECT_TRUE(c.correction);
  EXPECT_EQ(c.slot, "user/location");
  EXPECT_EQ(c.content, "用户住在杭州");
  // "不是X，而是Y" states Y
  Candidate not_but = One("我不是在北京工作，而是在上海工作。");
  EXPECT_EQ(not_but.content, "用户在上海工作");
  EXPECT_EQ(not_but.value, "上海");
  Candidate job = One("我不是老师，而是医生");
  EXPECT_EQ(job.content, "用户是医生");
  EXPECT_EQ(job.slot, "user/job");
  Candidate no_longer = One("我不再喜欢咖啡了");
  EXPECT_TRUE(no_longer.correction);
  EXPECT_EQ(no_longer.slot, "user/likes:咖啡");
  Candidate left = One("我已经不在腾讯工作了");
  EXPECT_TRUE(left.correction);
  EXPECT_EQ(left.slot, "user/employer");
  Candidate meat = One("我不再吃肉了");
  EXPECT_EQ(meat.ends, std::vector<std::string>{"吃肉"});
  // corrected in the message: only the corrected statement
  auto meant = Extract("我住在杭州。不对，我是说苏州。");
  ASSERT_EQ(meant.size(), 1u);
  EXPECT_EQ(meant[0].slot, "user/location");
  EXPECT_EQ(meant[0].content, "用户住在苏州");
  // corrected in a later message: the bare value, for the write path
  Candidate bare = One("我是说苏州");
  EXPECT_TRUE(bare.bare);
  EXPECT_EQ(bare.value, "苏州");
}

TEST(RuleExtractorZhTest, ClausesShareTheSubject) {
  auto c = Extract("我住在上海，在阿里巴巴上班，平时喜欢打羽毛球。");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_EQ(c[1].slot, "user/employer");
  EXPECT_EQ(c[1].content, "用户在阿里巴巴上班");
  EXPECT_EQ(c[2].slot, "user/likes:羽毛球");
  auto but = Extract("我喜欢猫但是讨厌狗");
  ASSERT_EQ(but.size(), 2u);
  EXPECT_EQ(but[1].content, "用户讨厌狗");
}

TEST(RuleExtractorZhTest, ChitChatQuestionsAndOthersGiveNothing) {
  for (const char* text : {"你好", "哈哈", "谢谢！", "好的", "嗯嗯", "晚安", "我住在哪里？",
                           "你叫什么名字？", "我喜欢什么", "如果我住在巴黎就好了", "帮我查一下天气",
                           "他喜欢喝咖啡", "我们去吃饭吧", "你说得对"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorZhTest, MoodsAreLightAndPeopleTheUserKnowsAreKept) {
  // A passing mood is kept with little weight, as a fact, never as a plan.
  for (const char* text : {"我今天好开心", "明天我好期待"}) {
    Candidate c = One(text);
    EXPECT_LE(c.importance, 0.2) << text;
    EXPECT_EQ(c.type, MemoryType::kFact) << text;
  }
  EXPECT_EQ(One("我今天好开心").content, "用户2026-11-30好开心");
  // What people the user knows do is about them, not the user.
  Candidate car = One("我朋友上周买了新车");
  EXPECT_EQ(car.type, MemoryType::kEvent);
  EXPECT_EQ(car.content, "用户的朋友2026-11-23那周买了新车");
  Candidate tea = One("我同事喜欢喝茶");
  EXPECT_EQ(tea.content, "用户的同事喜欢喝茶");
  EXPECT_FALSE(tea.slot.starts_with("user/likes"));
}

TEST(RuleExtractorZhTest, Favourites) {
  Candidate c = One("我最喜欢的颜色是蓝色");
  EXPECT_EQ(c.type, MemoryType::kPreference);
  EXPECT_EQ(c.slot, "user/favorite:颜色");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "用户最喜欢的颜色是蓝色");
}

// A weight said with its unit is the user's weight, whatever the words around it; one lost or
// wanted is not. A clause with no subject that starts with an adverb and a verb ("直接换了个…")
// is the user's. "跟X分了" ends what was said about X.
TEST(RuleExtractorZhTest, WeightsSubjectlessChangesAndBreakUps) {
  EXPECT_EQ(One("我现在80公斤").slot, "user/amount:weight");
  EXPECT_EQ(One("瘦到72公斤了").slot, "user/amount:weight");
  EXPECT_EQ(One("瘦到72公斤了").content, "用户瘦到72公斤了");
  EXPECT_NE(One("瘦了5斤").slot, "user/amount:weight");
  EXPECT_NE(One("想减到70公斤").slot, "user/amount:weight");
  EXPECT_EQ(One("直接换了个iPhone 15").content, "用户直接换了个iPhone 15");
  EXPECT_EQ(One("跟小周分了").ends, std::vector<std::string>{"小周"});
  EXPECT_EQ(One("我和阿杰分手了").ends, std::vector<std::string>{"阿杰"});
  EXPECT_EQ(One("我身高175").slot, "user/amount:height");
}

// A name right after a pet word ("布偶猫年糕", "柯基豆包") keys the pet by its name, as "叫年糕"
// does; words after the pet word that say what it does are no name.
TEST(RuleExtractorZhTest, ANameRightAfterAPetWord) {
  EXPECT_EQ(One("我的布偶猫年糕最近不爱吃饭").slot, "user/pet:年糕");
  EXPECT_EQ(One("我家柯基豆包老掉毛").slot, "user/pet:豆包");
  EXPECT_EQ(One("我家猫吃了我的鱼").slot, "user/pet:猫");
  EXPECT_EQ(One("我的狗狗生病了").slot, "user/pet:狗狗");
}

// Spoken question words (啥, 咋, 哪) make a clause a question; "没啥", "啥都吃", "哪都行" and
// "哪怕" say something.
TEST(RuleExtractorZhTest, SpokenQuestionWords) {
  for (const char* q : {"异地找房有啥技巧", "从哪开始练", "这咋办", "如何备考"}) {
    EXPECT_TRUE(extract::IsQuestionZh(q)) << q;
  }
  for (const char* s : {"我没啥忌口", "我啥都吃", "我哪都不想去", "哪怕下雨我也跑步"}) {
    EXPECT_FALSE(extract::IsQuestionZh(s)) << s;
  }
  EXPECT_TRUE(Extract("从哪开始练").empty());
}

// A time said first, then the subject: the subject is said once, before the time; "我老婆"
// after it says whose and stays.
TEST(RuleExtractorZhTest, ASubjectAfterATimeSaidFirst) {
  EXPECT_EQ(One("周六我们要去爬山了").content.find("用户要去"), std::string::npos);
  EXPECT_TRUE(One("周六我们要去爬山了").content.starts_with("用户周六（"));
  EXPECT_NE(One("周五我老婆生日").content.find("老婆"), std::string::npos);
}

// An age in digits ("我25岁"), or after 今年 with no 岁 ("我今年31"); a known city alone after
// 在 ("我在厦门") is where the user lives, a city with more ("在北京出差") is not.
TEST(RuleExtractorZhTest, AgesInDigitsAndACityAlone) {
  EXPECT_EQ(One("我25岁").slot, "user/age");
  EXPECT_EQ(One("我今年31").slot, "user/age");
  EXPECT_EQ(One("我今年31").content, "用户今年31");
  EXPECT_EQ(One("我在厦门").slot, "user/location");
  EXPECT_NE(One("我在北京出差").slot, "user/location");
  EXPECT_TRUE(Extract("我在上班").empty());
  EXPECT_EQ(One("人在广州").slot, "user/location");
  EXPECT_EQ(One("回长沙了").slot, "user/location");
  EXPECT_TRUE(Extract("回家了").empty());
}

// A value typed in digits or Latin letters that opens the message, then a space and Chinese, is
// a clause of its own: "310013 刚才输错了" corrects the postcode said before.
TEST(RuleExtractorZhTest, AValueOpeningTheMessageBeforeASpace) {
  EXPECT_EQ(extract::SpacesAsCommasZh("310013 刚才输错了"), "310013，刚才输错了");
  // (a name of two words that opens it is left whole)
  EXPECT_EQ(extract::SpacesAsCommasZh("iPhone 15 很好用"), "iPhone 15 很好用");
}

// What the speaker announces before a colon ("理一下账：") is no topic of what follows; each
// amount names its own ("到手" pay, "欠" a debt), not the one before it.
TEST(RuleExtractorZhTest, AnnouncementsAndAmountsOfTheirOwn) {
  const std::vector<Candidate> got =
      Extract("理一下账：我税后到手11500 房贷每月5400 信用卡还欠8000");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].content, "用户税后到手11500");
  EXPECT_EQ(got[0].slot, "user/amount:salary");
  EXPECT_EQ(got[1].slot, "user/amount:mortgage");
  EXPECT_EQ(got[2].slot, "user/amount:debt");
}

// What ended said first ("韩语放弃了", "生酮停了"), or after 取消 ("公司取消大小周了"), ends it,
// and is a statement of its own when nothing else in the message is; an ending in the middle of
// a clause ("下班结束后") or of a day's work ends nothing.
TEST(RuleExtractorZhTest, EndingsSaidAfterWhatEnded) {
  for (const auto& [text, ended] :
       std::vector<std::pair<std::string, std::string>>{{"韩语放弃了", "韩语"},
                                                        {"日语先放一放了", "日语"},
                                                        {"生酮停了", "生酮"},
                                                        {"飞盘玩腻了", "飞盘"},
                                                        {"考研不考了", "考研"},
                                                        {"公司取消大小周了", "大小周"},
                                                        {"跟阿杰彻底结束了", "阿杰"}}) {
    std::vector<std::string> ends;
    extract::TakeEndsZh(text, &ends);
    EXPECT_NE(std::find(ends.begin(), ends.end(), ended), ends.end()) << text;
  }
  for (const char* text : {"今天工作结束了", "下班结束后去健身", "他放弃了", "雨停了"}) {
    std::vector<std::string> ends;
    extract::TakeEndsZh(text, &ends);
    EXPECT_TRUE(ends.empty()) << text << ": " << (ends.empty() ? "" : ends[0]);
  }
  // how strongly, of the statement before, is no statement of its own
  EXPECT_EQ(One("我不吃香菜 真的一点都不行").content, "用户不吃香菜，真的一点都不行");
  EXPECT_EQ(One("我特别怕狗").content, "用户特别怕狗");
  const Candidate keto = One("生酮停了 身体扛不住");
  EXPECT_EQ(keto.ends, std::vector<std::string>{"生酮"});
  EXPECT_NE(keto.content.find("生酮"), std::string::npos);
}

// A clause with no subject right after a plan says more of the plan; a trip booked is a plan.
TEST(RuleExtractorZhTest, WhatFollowsAPlanIsThePlansAndABookingIsAPlan) {
  const Candidate exam = One("打算明年考研 目标复旦 新闻传播");
  EXPECT_EQ(exam.slot, "user/plan:考研");
  EXPECT_NE(exam.content.find("复旦"), std::string::npos) << exam.content;
  EXPECT_EQ(Extract("明年想挑战一次铁人三项 我游泳还不太行").size(), 2u);  // a subject of its own
  const Candidate tokyo = One("订好了4月去东京的机票 4号到12号");
  EXPECT_EQ(tokyo.type, MemoryType::kGoal);
  EXPECT_EQ(tokyo.slot, "user/plan:东京");
  EXPECT_NE(tokyo.content.find("12号"), std::string::npos) << tokyo.content;
  EXPECT_EQ(One("八月去喀纳斯的行程订好了").slot, "user/plan:喀纳斯");
  EXPECT_NE(One("我妈订好了去三亚的机票").slot, "user/plan:三亚");  // someone else's
}

// A relative time said first, then a verb with no subject, is the speaker's and dates it; "冷不冷"
// and "先A还是先B" ask.
TEST(RuleExtractorZhTest, ATimeFirstThenAVerbIsTheSpeakersAndAskingFormsAsk) {
  const Candidate stray = One("三天前捡了只流浪猫 取名叫煤球");
  EXPECT_NE(stray.content.find("煤球"), std::string::npos) << stray.content;
  ASSERT_TRUE(stray.valid_from.has_value());
  const Candidate keys = One("两周前拿到了新房钥匙 先刷墙还是先铺地板");
  EXPECT_NE(keys.content.find("钥匙"), std::string::npos);
  EXPECT_EQ(keys.content.find("刷墙"), std::string::npos) << keys.content;
  EXPECT_EQ(One("三天后飞乌鲁木齐出差 那边现在冷不冷").content.find("冷不冷"), std::string::npos);
  EXPECT_TRUE(Extract("三天前猫从窗户跑出去了").empty() ||
              One("三天前猫从窗户跑出去了").content.find("用户猫") == std::string::npos);
  EXPECT_TRUE(extract::IsQuestionZh("那边现在冷不冷"));
  EXPECT_TRUE(extract::IsQuestionZh("先刷墙还是先铺地板"));
  EXPECT_FALSE(extract::IsQuestionZh("我还是喜欢猫"));
  EXPECT_FALSE(extract::IsQuestionZh("不不不"));
}

// Where the user works, said by how long ("在腾讯已经上了两周班了"), and a trade as the job
// ("现在在做保险"); not a place or a school ("在家待了一天").
TEST(RuleExtractorZhTest, AnEmployerByHowLongAndATradeAsTheJob) {
  EXPECT_EQ(One("在腾讯已经上了两周班了").slot, "user/employer");
  EXPECT_EQ(One("在腾讯已经上了两周班了").value, "腾讯");
  EXPECT_EQ(One("在阿里干了三年了").slot, "user/employer");
  EXPECT_EQ(One("在家待了一天").slot, "");
  const auto trade = Extract("转行了 现在在做保险");
  ASSERT_EQ(trade.size(), 1u);
  EXPECT_EQ(trade[0].slot, "user/job");
  const auto both = Extract("我现在在一家外企做财务");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[1].slot, "user/employer");
}

TEST(RuleExtractorZhTest, AssistantTurnsAreIgnored) {
  EXPECT_TRUE(Extract("我住在北京。", "assistant").empty());
}

// Buying as typed online ("提了辆…", "入手了一台…", "喜提…"): the device is the user's.
TEST(RuleExtractorZhTest, OnlinePurchaseVerbsGiveTheDevice) {
  bool car = false;
  for (const Candidate& c : Extract("蒙迪欧卖了 提了辆理想L6 空间够大")) {
    car = car || (c.slot == "user/device:car" && c.content.find("理想L6") != std::string::npos);
  }
  EXPECT_TRUE(car);
  const std::vector<Candidate> c = Extract("喜提小鹏G6");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slot, "user/device:car");
}

// The northern 俺 is 我; a verb then 不 at the end asks ("这个能吃不").
TEST(RuleExtractorZhTest, DialectFirstPersonAndATrailingBuAsks) {
  const std::vector<Candidate> c = Extract("俺对芒果过敏 这个蛋糕能吃不");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slot, "user/allergy:芒果");
  EXPECT_EQ(c[0].content, "用户对芒果过敏");
  // the Shanghainese 阿拉 too, but not in a place's name
  const std::vector<Candidate> home = Extract("阿拉住在上海徐汇 夏天热得要命");
  ASSERT_FALSE(home.empty());
  EXPECT_EQ(home[0].slot, "user/location");
  EXPECT_EQ(home[0].content, "用户住在上海徐汇");
  bool alaska = false;
  for (const Candidate& x : Extract("我们去阿拉斯加玩了一周")) {
    alaska = alaska || x.content.find("阿拉斯加") != std::string::npos;
  }
  EXPECT_TRUE(alaska);
}

// "脂肪肝没了": a condition said gone has ended.
TEST(RuleExtractorZhTest, AConditionSaidGoneHasEnded) {
  bool ended = false;
  for (const Candidate& c : Extract("今天复查 脂肪肝没了！！！")) {
    ended = ended || c.ends == std::vector<std::string>{"脂肪肝"};
  }
  EXPECT_TRUE(ended);
}

// A job hop said short ("跳去腾讯了") is a change of employer.
TEST(RuleExtractorZhTest, AShortJobHopIsANewEmployer) {
  bool employer = false;
  for (const Candidate& c : Extract("跳到快手了 还是做运营")) {
    employer =
        employer || (c.slot == "user/employer" && c.content.find("快手") != std::string::npos);
  }
  EXPECT_TRUE(employer);
}

// An address in a Chinese message stays whole and ends its clause; "本人" opening a message is
// the speaker; a condition said with no verb ("我近视") is one the speaker has.
TEST(RuleExtractorZhTest, AddressesTheFormalSelfAndBareConditions) {
  const std::vector<Candidate> email = Extract("我邮箱是 wang_lei88@qq.com 以后有啥通知发这个");
  ASSERT_EQ(email.size(), 1u);
  EXPECT_EQ(email[0].slot, "user/email");
  EXPECT_NE(email[0].content.find("wang_lei88@qq.com"), std::string::npos);
  bool left = false;
  for (const Candidate& c : Extract("本人左撇子，用什么鼠标好")) {
    left = left || c.content == "用户左撇子";
  }
  EXPECT_TRUE(left);
  const std::vector<Candidate> eyes = Extract("我散光 晚上开车看不清");
  ASSERT_FALSE(eyes.empty());
  EXPECT_EQ(eyes[0].slot, "user/health:散光");
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

using namespace testing_extract;

// Dictated with no stop: the speaker's statement, then a question or request (zh/asks.tsv
// `inline`), is a clause of its own; a statement that leads into the question ("我不知道怎么办",
// "我平时不怎么运动") or a request with no statement of the speaker ("中午附近有啥好吃的") is not
// split.
TEST(RuleExtractorZhTest, AStatementRunOnIntoAQuestionIsAClauseOfItsOwn) {
  const std::vector<Candidate> phone =
      Extract("我现在用的是华为手机拍照挺好的就是电池不经用了有什么办法能省点电");
  ASSERT_EQ(phone.size(), 1u);
  EXPECT_EQ(phone[0].slot, "user/device:phone");
  EXPECT_EQ(phone[0].content.find("有什么"), std::string::npos) << phone[0].content;
  EXPECT_TRUE(Extract("我平时不怎么运动").empty());
  bool home = false;
  for (const Candidate& c :
       Extract("我打算年底回河南信阳老家盖房子不出来了你帮我算算盖个两层要多少钱")) {
    home = home || (c.content.find("信阳") != std::string::npos &&
                    c.content.find("你帮") == std::string::npos);
  }
  EXPECT_TRUE(home);
  EXPECT_TRUE(Extract("我不知道怎么办").empty());
  for (const Candidate& c : Extract("我在杭州西湖区上班，中午附近有啥好吃的")) {
    EXPECT_EQ(c.content.find("中午附近"), std::string::npos) << c.content;
  }
}

// "已经入职两周": how long the user has been there, not an employer called 两周.
TEST(RuleExtractorZhTest, ATimeSpanAfterJoiningIsNoEmployer) {
  for (const char* text : {"已经入职两周", "入职三个月了", "我入职半年了"}) {
    for (const Candidate& c : Extract(text)) {
      EXPECT_TRUE(c.value.empty() || c.slot != "user/employer") << text << ": " << c.value;
      for (const std::string& e : c.entities) EXPECT_FALSE(extract::IsTimeSpanZh(e)) << text;
    }
  }
  bool employer = false;
  for (const Candidate& c : Extract("我入职了字节")) {
    employer = employer || (c.slot == "user/employer" && c.value == "字节");
  }
  EXPECT_TRUE(employer);
}

// What the speaker is, said in two characters ("我是回族", "我是色弱"), is a fact; "我是说",
// "我是真的" lead into more and are not.
TEST(RuleExtractorZhTest, WhatTheSpeakerIsInTwoCharacters) {
  bool hui = false;
  for (const Candidate& c : Extract("我是回族 不吃猪肉")) hui = hui || c.content == "用户是回族";
  EXPECT_TRUE(hui);
  EXPECT_TRUE(Extract("我是说").empty());
  EXPECT_TRUE(Extract("我是真的").empty());
}

// A space after nearly every word (as some older users type) separates words, not clauses: the
// statement is read whole, not as "用户的华为，的手机"; a list of clauses set apart by spaces is
// still a list.
TEST(RuleExtractorZhTest, WordByWordSpacingIsReadAsOneClause) {
  const std::vector<Candidate> phone =
      Extract("我 用 的 是 华为 手机 ，字 太 小 了 看 不 清 ，怎么 把 字 調 大 ？");
  ASSERT_FALSE(phone.empty());
  EXPECT_EQ(phone[0].slot, "user/device:phone");
  EXPECT_EQ(phone[0].content, "用户用的是华为手机");
  bool email = false;
  for (const Candidate& c :
       Extract("帮我把邮件签名改一下 张伟 高级前端 手机13812345678 邮箱zhangwei_dev@163.com")) {
    email = email || c.content.find("zhangwei_dev@163.com") != std::string::npos;
  }
  EXPECT_TRUE(email);
}

// "不是浙大是浙工大刚才语音识别错了", typed with no stop: the value taken back, the value, then the
// slip's talk, as "不是浙大，是浙工大，刚才语音识别错了" reads; only at the start of a message or
// a clause ("我不是不想去是没时间" is no correction).
TEST(RuleExtractorZhTest, ACorrectionTypedWithNoStop) {
  const std::vector<Candidate> c = Extract("不是浙大是浙工大刚才语音识别错了");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].correction);
  EXPECT_EQ(c[0].value, "浙工大");
  for (const Candidate& x : Extract("我不是不想去是没时间")) EXPECT_FALSE(x.correction);
}

// Moving said as typed online ("润到成都了"), after a vocative that opens the message (姐妹们,
// 家人们): the user's new home.
TEST(RuleExtractorZhTest, AMoveSaidOnlineAfterAVocative) {
  const std::vector<Candidate> c = Extract("姐妹们我润到成都了！！");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_EQ(c[0].value, "成都");
  EXPECT_EQ(c[0].content.find("姐妹们"), std::string::npos) << c[0].content;
}

}  // namespace
}  // namespace engram
