// Chit-chat: greetings, thanks, acknowledgements, laughter, farewells in English and Chinese
// are recognised with their kind; anything that says more is not.
#include "extract/chitchat.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

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

// Reactions, laughter, compliments to the assistant, emoji alone and follow-up requests about
// its last answer say nothing about the user; letters held for emphasis read as the word.
TEST(ChitChatTest, ReactionsComplimentsEmojiAndFollowUpsAreNotKept) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"no wayyy", "acknowledgement"},
      {"lmaooo", "laughter"},
      {"that's wild", "reaction"},
      {"太离谱了", "reaction"},
      {"you're a genius", "compliment"},
      {"太强了", "compliment"},
      {"👍👍", "emoji"},
      {"!!", "emoji"},
      {"make it shorter", "followup"},
      {"can you make it funnier?", "followup"},
      {"translate that", "followup"},
      {"再来一个", "followup"},
      {"再短一点", "followup"},
      {"帮我翻译一下", "followup"}};
  for (const auto& [text, kind] : cases) EXPECT_EQ(ChitChatKind(text), kind) << text;
}

// A request with its own content, or a statement using those words, is kept (as a turn).
TEST(ChitChatTest, RequestsAndStatementsWithThoseWordsAreKept) {
  for (const char* text :
       {"write me a haiku about cats", "帮我写一首诗", "make it work at the office",
        "I have one dog", "more coffee please", "I love that song",
        "one more thing: I'm allergic to nuts", "再来一碗牛肉面"}) {
    EXPECT_FALSE(IsChitChat(text)) << text;
  }
}

// A question or a request to the assistant with nothing about the user is not kept; one that
// says something of the user, a person they know, a name, their health or a reminder is.
TEST(ChitChatTest, AQuestionToTheAssistantWithNothingAboutTheUser) {
  for (const char* text :
       {"whats the difference between affect and effect again",
        "ok next q: how many tablespoons in a cup", "can u translate 'see you soon' to french",
        "帮我把上面那段翻成英文", "1公斤等于多少磅来着"}) {
    EXPECT_FALSE(AskOnlyKind(text).empty()) << text;
  }
  for (const char* text :
       {"remind me to call mom tomorrow", "what should i get my wife for her birthday?",
        "is Lisbon nice in may?", "can my son take ibuprofen?", "我老婆生日送什么好",
        "提醒我明天交电费", "I'm vegan, what can I cook tonight?"}) {
    EXPECT_TRUE(AskOnlyKind(text).empty()) << text;
  }
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// Reactions typed casually ("thats", "u", "wait", "actually"), giving up on a request
// ("never mind", "算了"), ending ("就这样吧") and asking for another are chit-chat; the same
// words around something about the user are not.
TEST(ChitChatTest, CasualReactionsAndWithdrawnRequestsAreNotKept) {
  for (const char* text :
       {"thats so cool lol", "ok wait thats actually hilarious", "nvm", "never mind, thx",
        "can u do one more", "perfect thats it, thx!", "lol you're hilarious", "算了 不用了",
        "行 就这样吧", "这个太好笑了吧"}) {
    EXPECT_TRUE(IsChitChat(text)) << text;
  }
  for (const char* text :
       {"you're wrong, I live in Boston", "that is my dog", "我太累了", "这是我家猫",
        "never mind the cat, my dog is sick", "算了 我不去上海了"}) {
    EXPECT_FALSE(IsChitChat(text)) << text;
  }
}

// A short reply about the last answer with words no phrase lists is read by its shape: a
// chit-chat phrase, a few other words, nothing that makes it about someone.
TEST(ChitChatTest, AShortReplyAboutTheLastAnswerIsReadByItsShape) {
  EXPECT_EQ(ReplyChitChatKind("ty that fixed it!!"), "thanks");
  EXPECT_EQ(ReplyChitChatKind("hahaha ok that one was good"), "laughter");
  EXPECT_EQ(ReplyChitChatKind("pls make it sound less stiff"), "followup");
  EXPECT_EQ(ReplyChitChatKind("再短一点呗 有点啰嗦"), "followup");
  EXPECT_EQ(ReplyChitChatKind("can u redo that but more casual"), "followup");
  EXPECT_TRUE(IsChitChat("wait what"));
  for (const char* text : {
           "thanks",                            // all phrases: ChitChatKind's case
           "lol my dog does that too",          // first person
           "haha we tried that last year",      // first person
           "ok thanks, Anna loved it",          // a name
           "thanks, it fixed 2 bugs",           // a number
           "lol the kids are driving me nuts",  // a relation
           "哈哈 老公也这么说",                 // a relation
           "哈哈 我也是",                       // first person
           "ok, allergic to cats too",          // health
           "haha that was the exact same thing that happened at the office party",  // long
           "the meeting moved to friday",  // no chit-chat phrase
           "what time is it in tokyo",     // a question of its own
       }) {
    EXPECT_EQ(ReplyChitChatKind(text), "") << text;
  }
}

// A word about the conversation itself (a wrong window, a pause, a presence check) says nothing
// about the user; the same words with something of the user's are kept.
TEST(ChitChatTest, AsidesAboutTheConversationAreNotKept) {
  for (const char* text :
       {"you there?", "Sorry, wrong window.", "hold on", "nvm",
        "Good morning. I hope you are keeping well.", "emmm 让我想想", "稍等", "不好意思发错了"}) {
    EXPECT_TRUE(IsChitChat(text)) << text;
  }
  for (const char* text : {"hold on, my flight is at 6", "让我想想我生日是几号"}) {
    EXPECT_FALSE(IsChitChat(text)) << text;
  }
}

// A greeting with a face typed after it is a greeting; giving up on a question is an aside.
TEST(ChitChatTest, AFaceAddsNothingAndGivingUpOnAQuestionIsAnAside) {
  EXPECT_EQ(ChitChatKind("早上好呀☀️ (๑•̀ㅂ•́)و✧"), "greeting");
  EXPECT_EQ(ChitChatKind("算了不问了"), "aside");
  // thanks shouted, or with a blessing: still thanks (a capital is no name there)
  EXPECT_EQ(ChitChatKind("THANK YOU DEAR. THAT WAS VERY HELPFUL."), "thanks");
  EXPECT_EQ(ChitChatKind("Salamat po!! God bless"), "thanks");
  // thanks typed a word at a time, and in Cantonese
  EXPECT_EQ(ChitChatKind("好的 谢谢 你 。。。"), "acknowledgement");
  EXPECT_EQ(ChitChatKind("唔该晒，你真系好叻"), "thanks");
  EXPECT_EQ(ReplyChitChatKind("thanks, Anna said the same"), "");
  EXPECT_EQ(ChitChatKind("早上好 我搬到杭州了 (≧∇≦)/"), "");
}

}  // namespace
}  // namespace engram
