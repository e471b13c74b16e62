// The rule extractor on Chinese self-statements.
#include <gtest/gtest.h>

#include "extract/extraction_test_util.h"

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
  EXPECT_TRUE(Extract("我叫了外卖").empty());
}

TEST(RuleExtractorZhTest, Location) {
  for (const char* text : {"我住在上海。", "我搬到了上海", "我现在住在上海",
                           "我已经搬到上海好几年了", "我在上海住了五年"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.type, MemoryType::kFact) << text;
    EXPECT_EQ(c.slot, "user/location") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "用户住在上海") << text;
  }
  Candidate c = One("我去年搬到了北京。");
  EXPECT_EQ(c.content, "用户住在北京");
  EXPECT_EQ(c.valid_from, Date(2025, 1, 1));
  Candidate h = One("我是四川人");
  EXPECT_EQ(h.slot, "user/hometown");
  EXPECT_EQ(h.content, "用户来自四川");
  EXPECT_EQ(One("我老家在湖南").slot, "user/hometown");
}

TEST(RuleExtractorZhTest, EmployerAndJob) {
  for (const char* text : {"我在腾讯工作", "我在腾讯上班。", "我现在在腾讯上班"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/employer") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "用户在腾讯工作") << text;
  }
  EXPECT_EQ(One("我在上海工作").slot, "user/work_location");  // a city, not an employer
  Candidate joined = One("我上个月入职了字节跳动");
  EXPECT_EQ(joined.slot, "user/employer");
  EXPECT_EQ(joined.valid_from, Date(2026, 10, 1));
  Candidate job = One("我是一名程序员。");
  EXPECT_EQ(job.slot, "user/job");
  EXPECT_EQ(job.content, "用户是程序员");
  EXPECT_EQ(One("我是做销售的").content, "用户是销售");
  EXPECT_EQ(One("我是学生").slot, "user/job");
  EXPECT_TRUE(Extract("我是一个很内向的人").empty());
  EXPECT_TRUE(Extract("我在家工作").empty());
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
  EXPECT_EQ(One("我花粉过敏").content, "用户对花粉过敏");
  Candidate h = One("我有高血压");
  EXPECT_EQ(h.slot, "user/health:高血压");
  EXPECT_EQ(h.content, "用户有高血压");
  EXPECT_EQ(One("我是糖尿病患者").slot, "user/health:糖尿病");
  EXPECT_TRUE(Extract("我不过敏").empty());
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
  EXPECT_TRUE(Extract("我没有养狗").empty());
  EXPECT_TRUE(Extract("我没养宠物").empty());
}

TEST(RuleExtractorZhTest, Family) {
  Candidate c = One("我老婆是护士。");
  EXPECT_EQ(c.slot, "user/family:老婆");
  EXPECT_EQ(c.content, "用户老婆是护士");
  EXPECT_EQ(One("我的女儿今年上小学").slot, "user/family:女儿");
  EXPECT_EQ(One("我有两个孩子").slot, "user/family:孩子");
  EXPECT_EQ(One("我结婚了").slot, "user/marital_status");
}

TEST(RuleExtractorZhTest, Goals) {
  Candidate c = One("我想学西班牙语。");
  EXPECT_EQ(c.type, MemoryType::kGoal);
  EXPECT_EQ(c.slot, "user/goal:学西班牙语");
  EXPECT_EQ(c.content, "用户想学西班牙语");
  Candidate plan = One("我打算明年去日本旅游");
  EXPECT_EQ(plan.content, "用户打算去日本旅游");
  EXPECT_EQ(plan.valid_from, Date(2027, 1, 1));
  EXPECT_EQ(One("我的目标是减肥十公斤").type, MemoryType::kGoal);
  EXPECT_EQ(One("我计划考研").type, MemoryType::kGoal);
  EXPECT_EQ(One("我答应女儿周末带她去动物园").type, MemoryType::kGoal);
  EXPECT_EQ(One("我会在月底前交报告").type, MemoryType::kGoal);
  EXPECT_TRUE(Extract("我会的").empty());
  EXPECT_TRUE(Extract("我想你了").empty());
  EXPECT_TRUE(Extract("我想知道明天的天气").empty());
}

TEST(RuleExtractorZhTest, SchedulesAndAppointments) {
  Candidate r = One("我每周三去游泳。");
  EXPECT_EQ(r.slot, "user/routine:每周三");
  EXPECT_EQ(r.content, "用户每周三去游泳");
  EXPECT_FALSE(r.valid_from.has_value());
  EXPECT_EQ(One("每天早上我都跑步").content, "用户每天早上都跑步");
  Candidate a = One("下周五我要去看牙医。");
  EXPECT_EQ(a.type, MemoryType::kEvent);
  EXPECT_EQ(a.content, "用户要去看牙医（2026-12-11）");
  EXPECT_EQ(a.valid_from, Date(2026, 12, 11));
  EXPECT_EQ(One("我明天有个面试").valid_from, Date(2026, 12, 1));
  Candidate e = One("我昨天去了医院");
  EXPECT_EQ(e.type, MemoryType::kEvent);
  EXPECT_EQ(e.valid_from, Date(2026, 11, 29));
  EXPECT_EQ(One("我前天去了医院").valid_from, Date(2026, 11, 28));
  EXPECT_EQ(One("我上周五去了医院").valid_from, Date(2026, 11, 27));
}

TEST(RuleExtractorZhTest, Skills) {
  Candidate c = One("我会说日语");
  EXPECT_EQ(c.type, MemoryType::kSkill);
  EXPECT_EQ(c.slot, "user/skill:日语");
  EXPECT_EQ(One("我在学吉他").slot, "user/skill:吉他");
  EXPECT_EQ(One("我擅长游泳").type, MemoryType::kSkill);
}

TEST(RuleExtractorZhTest, Corrections) {
  Candidate c = One("其实我住在杭州。");
  EXPECT_TRUE(c.correction);
  EXPECT_EQ(c.slot, "user/location");
  EXPECT_EQ(c.content, "用户住在杭州");
  Candidate not_but = One("我不是在北京工作，而是在上海工作。");
  EXPECT_TRUE(not_but.correction);
  EXPECT_EQ(not_but.content, "用户在上海工作");
  Candidate job = One("我不是老师，而是医生");
  EXPECT_TRUE(job.correction);
  EXPECT_EQ(job.content, "用户是医生");
  Candidate no_longer = One("我不再喜欢咖啡了");
  EXPECT_TRUE(no_longer.correction);
  EXPECT_EQ(no_longer.slot, "user/likes:咖啡");
  Candidate left = One("我已经不在腾讯工作了");
  EXPECT_TRUE(left.correction);
  EXPECT_EQ(left.slot, "user/employer");
  auto meant = Extract("我住在杭州。不对，我是说苏州。");
  ASSERT_EQ(meant.size(), 2u);
  EXPECT_EQ(meant[1].slot, "user/location");
  EXPECT_EQ(meant[1].content, "用户住在苏州");
  EXPECT_TRUE(meant[1].correction);
}

TEST(RuleExtractorZhTest, ClausesShareTheSubject) {
  auto c = Extract("我住在上海，在阿里巴巴上班，平时喜欢打羽毛球。");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_EQ(c[1].slot, "user/employer");
  EXPECT_EQ(c[1].content, "用户在阿里巴巴工作");
  EXPECT_EQ(c[2].slot, "user/likes:羽毛球");
  auto but = Extract("我喜欢猫但是讨厌狗");
  ASSERT_EQ(but.size(), 2u);
  EXPECT_EQ(but[1].content, "用户讨厌狗");
}

TEST(RuleExtractorZhTest, ChitChatQuestionsAndOthersGiveNothing) {
  for (const char* text : {"你好", "哈哈", "谢谢！", "好的", "嗯嗯", "晚安", "我住在哪里？",
                           "你叫什么名字？", "我喜欢什么", "如果我住在巴黎就好了", "帮我查一下天气",
                           "我朋友住在北京", "他喜欢喝咖啡", "我们去吃饭吧", "我小时候住在农村"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorZhTest, FeelingsAndOtherPeopleGiveNothing) {
  for (const char* text :
       {"我今天好开心", "明天我好期待", "我昨天觉得自己被忽略了", "我朋友上周买了新车",
        "我同事喜欢喝茶", "我怕我做不完", "我今天在学校摔倒了"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorZhTest, Favourites) {
  Candidate c = One("我最喜欢的颜色是蓝色");
  EXPECT_EQ(c.type, MemoryType::kPreference);
  EXPECT_EQ(c.slot, "user/favorite:颜色");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "用户最喜欢的颜色是蓝色");
}

TEST(RuleExtractorZhTest, AssistantTurnsAreIgnored) {
  EXPECT_TRUE(Extract("我住在北京。", "assistant").empty());
}

}  // namespace
}  // namespace engram
