// Chit-chat: greetings, thanks, acknowledgements, laughter, farewells in English and Chinese
// are recognised with their kind; anything that says more is not.
#include "extract/chitchat.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(ChitChatTest, SmallTalkIsRecognisedWithItsKind) {
  for (const char* text : {"hi", "Hello!", "good morning", "thanks so much!", "thank you 🙏",
                           "ok cool", "lol", "hahaha", "bye, see you", "你好", "谢谢！", "好的",
                           "嗯嗯", "哈哈哈好的", "晚安", "ok cool, bye", "   thanks!!!  "}) {
    EXPECT_TRUE(IsChitChat(text)) << text;
    EXPECT_FALSE(ChitChatKind(text).empty()) << text;
  }
  EXPECT_NE(ChitChatKind("thanks!").find("thank"), std::string_view::npos)
      << ChitChatKind("thanks!");
  EXPECT_NE(ChitChatKind("hello").find("greeting"), std::string_view::npos)
      << ChitChatKind("hello");
}

TEST(ChitChatTest, AnythingMoreIsKept) {
  for (const char* text :
       {"thanks, I moved to Oslo", "hi, I'm Ann", "ok I'll call mom at 5", "谢谢，我下周要去北京",
        "好的，我叫小明", "bye for now, flying to Rome tomorrow", "what's my name?", "ok 3", "",
        "Oslo", "I'm allergic to peanuts"}) {
    EXPECT_FALSE(IsChitChat(text)) << text;
  }
}

}  // namespace
}  // namespace engram
