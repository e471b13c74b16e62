// Text normalization for matching, and kaomoji as decoration.
#include "text/normalizer.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(NormalizerTest, MatchingFoldsCaseAndWidth) {
  EXPECT_EQ(NormalizeForMatching("ＡＢＣ１ Hello"), "abc1 hello");
}

// A face in brackets, with the arms and sparkles against it, goes; brackets holding words,
// numbers or Chinese stay.
TEST(NormalizerTest, KaomojiAreDecoration) {
  EXPECT_EQ(WithoutKaomoji("早上好呀☀️ (๑•̀ㅂ•́)و✧"), "早上好呀☀️ ");
  EXPECT_EQ(WithoutKaomoji("我最近迷上钩针了 (≧∇≦)/ 每天下班都在勾小玩偶"),
            "我最近迷上钩针了  每天下班都在勾小玩偶");
  EXPECT_EQ(WithoutKaomoji("钩针已经吃灰了 (´･ω･`) 现在沉迷飞盘"), "钩针已经吃灰了  现在沉迷飞盘");
  EXPECT_EQ(WithoutKaomoji("好紧张(＞＜)"), "好紧张");
  // (found by the extractor's fuzzer) a face between two words leaves them apart
  EXPECT_EQ(WithoutKaomoji("pI(*_*)e"), "pI e");
  for (const char* kept :
       {"my budget is 500 (not 600)", "I have 2 kids (ages 3 and 5)", "see (a) and (b)",
        "我住在浦东（张江那边）", "(2024)", "call me (lol)"}) {
    EXPECT_EQ(WithoutKaomoji(kept), kept);
  }
}

}  // namespace
}  // namespace engram
