// The LLM extractor end to end over the real chat client and a fake OpenAI-compatible server
// replaying recorded replies: happy paths in Chinese and English, malformed and truncated
// replies, a reply in the wrong language, the confidence threshold, provider failures.
#include <gtest/gtest.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/clock.h"
#include "engram/llm.h"
#include "extract/candidate_json.h"
#include "llm/prompts.h"
#include "testing/fake_openai_server.h"

namespace engram {
namespace {

using json = nlohmann::json;
using testing::FakeOpenAIServer;
using testing::OpenAIErrorBody;

// A memory as the prompt asks for it.
json Memory(const std::string& type, const std::string& content, double confidence = 0.9,
            const std::string& slot = "", bool exclusive = false, json valid_from = nullptr,
            int turn = 0) {
  return {{"type", type},
          {"content", content},
          {"importance", 0.7},
          {"confidence", confidence},
          {"entities", json::array()},
          {"slot", slot},
          {"exclusive", exclusive},
          {"correction", false},
          {"valid_from", valid_from},
          {"turn", turn}};
}

std::string Memories(std::initializer_list<json> memories) {
  json array = json::array();
  for (const json& m : memories) array.push_back(m);
  return json{{"memories", array}}.dump();
}

TimestampMs At(const std::string& text) { return *ParseTimestamp(text); }

class LlmExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    auto client = MakeOpenAIChatClient(server_.ClientOptions("qwen-plus"));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    llm_ = std::move(client).value();
  }
  void TearDown() override {
    llm_.reset();  // closes the keep-alive connection, so the server stops at once
    server_.Stop();
  }

  std::unique_ptr<Extractor> Make(LlmExtractorOptions options = {}) {
    options.clock = &clock_;
    return MakeLlmExtractor(llm_, options);
  }

  static ExtractionInput Chinese() {
    ExtractionInput input;
    input.turns = {{"user", "你好", At("2026-03-12T13:04:00Z")},
                   {"assistant", "你好！有什么可以帮你？", At("2026-03-12T13:04:30Z")},
                   {"user", "我昨天搬到杭州了，现在在阿里巴巴上班。", At("2026-03-12T13:05:00Z")}};
    return input;
  }

  ManualClock clock_{At("2026-03-12T13:06:00Z")};
  FakeOpenAIServer server_;
  std::shared_ptr<LlmClient> llm_;
};

TEST_F(LlmExtractorTest, ChineseHappyPath) {
  LlmExtractorOptions options;
  options.utc_offset_minutes = 8 * 60;  // Beijing
  auto extractor = Make(options);
  EXPECT_EQ(extractor->name(), "llm:qwen-plus");
  json moved =
      Memory("fact", "用户于2026-03-11搬到杭州", 0.95, "user/location", true, "2026-03-11", 2);
  moved["entities"] = {"杭州"};
  moved["importance"] = 0.8;
  server_.PushContent(Memories(
      {moved, Memory("fact", "用户在阿里巴巴上班", 0.9, "user/employer", true, nullptr, 2)}));

  auto result = extractor->Extract(Chinese());

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->extractor, "llm:qwen-plus");
  EXPECT_EQ(result->prompt_version, "extract-v4");
  ASSERT_EQ(result->candidates.size(), 2u);
  const Candidate& c = result->candidates[0];
  EXPECT_EQ(c.type, MemoryType::kFact);
  EXPECT_EQ(c.content, "用户于2026-03-11搬到杭州");
  EXPECT_DOUBLE_EQ(c.importance, 0.8);
  EXPECT_DOUBLE_EQ(c.confidence, 0.95);
  EXPECT_EQ(c.entities, std::vector<std::string>{"杭州"});
  EXPECT_EQ(c.slot, "user/location");
  EXPECT_TRUE(c.exclusive);
  EXPECT_FALSE(c.correction);
  ASSERT_TRUE(c.valid_from.has_value());
  EXPECT_EQ(*c.valid_from, At("2026-03-11T00:00:00+08:00"));  // midnight in Beijing
  EXPECT_EQ(c.turn_indexes, std::vector<size_t>{2});
  EXPECT_FALSE(result->candidates[1].valid_from.has_value());

  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const json body = requests[0].Json();
  EXPECT_EQ(body["model"], "qwen-plus");
  EXPECT_EQ(body["response_format"]["type"], "json_object");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], std::string(llm::ExtractPrompt().system));
  const std::string user = body["messages"][1]["content"];
  // Local times with weekdays, so "昨天" can be resolved; the current time too.
  EXPECT_NE(user.find("Current time: 2026-03-12 Thursday 21:06"), std::string::npos) << user;
  EXPECT_NE(user.find("[0] 2026-03-12 Thursday 21:04 user: 你好\n"), std::string::npos) << user;
  EXPECT_NE(user.find("[2] 2026-03-12 Thursday 21:05 user: 我昨天搬到杭州了"), std::string::npos);
  EXPECT_EQ(user.find("{{"), std::string::npos) << user;
  EXPECT_EQ(user.find("Earlier in the conversation"), std::string::npos);
}

TEST_F(LlmExtractorTest, EnglishHappyPathWithContext) {
  auto extractor = Make();
  ExtractionInput input;
  input.context = {{"user", "I was thinking about races.", At("2026-05-03T18:00:00Z"), "msg-old"}};
  input.turns = {{"user", "This Saturday I'm running my first half marathon!",
                  At("2026-05-04T09:31:00Z"), "msg-0193f2a1"}};
  server_.PushContent(Memories(
      {Memory("event", "The user is running their first half marathon on 2026-05-09", 0.9, "",
              /*exclusive=*/true, "2026-05-09", 0)}));

  auto result = extractor->Extract(input);

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].type, MemoryType::kEvent);
  EXPECT_FALSE(result->candidates[0].exclusive);  // no slot: nothing to be exclusive about
  EXPECT_EQ(*result->candidates[0].valid_from, At("2026-05-09"));
  const std::string text = server_.requests().at(0).Text();
  EXPECT_NE(text.find("Earlier in the conversation, for reference only"), std::string::npos);
  EXPECT_NE(text.find("- 2026-05-03 Sunday 18:00 user: I was thinking about races."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[0] 2026-05-04 Monday 09:31 user: This Saturday"), std::string::npos);
  EXPECT_EQ(text.find("msg-0193f2a1"), std::string::npos);  // message ids are not shown
}

// The contract's newer parts: the opinion, decision and commitment types, and the optional
// value and ends, read back exactly as `engram extract` writes them (CandidateToJson).
TEST_F(LlmExtractorTest, NewerTypesValueAndEndsRoundTrip) {
  auto extractor = Make();
  Candidate quit;
  quit.type = MemoryType::kDecision;
  quit.content = "用户决定戒咖啡";
  quit.importance = 0.7;
  quit.confidence = 0.9;
  quit.slot = "user/habit:咖啡";
  quit.exclusive = true;
  quit.value = "戒咖啡";
  quit.ends = {"咖啡"};
  quit.turn_indexes = {2};
  quit.valid_from = At("2026-03-11T00:00:00Z");
  Candidate view = quit;
  view.type = MemoryType::kOpinion;
  view.content = "用户觉得阿里巴巴的食堂一般";
  view.slot.clear();
  view.exclusive = false;
  view.value.clear();
  view.ends.clear();
  view.valid_from.reset();
  Candidate promise = view;
  promise.type = MemoryType::kCommitment;
  promise.content = "用户答应周末陪父母";
  json reply = {
      {"memories",
       {json::parse(CandidateToJson(quit).dump()), json::parse(CandidateToJson(view).dump()),
        json::parse(CandidateToJson(promise).dump())}}};
  reply["memories"][1].erase("value");  // optional: absent reads as empty
  reply["memories"][1].erase("ends");
  server_.PushContent(reply.dump());
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 3u);
  const Candidate& c = result->candidates[0];
  EXPECT_EQ(c.type, MemoryType::kDecision);
  EXPECT_EQ(c.content, quit.content);
  EXPECT_EQ(c.slot, quit.slot);
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.value, "戒咖啡");
  EXPECT_EQ(c.ends, std::vector<std::string>{"咖啡"});
  EXPECT_EQ(c.valid_from, quit.valid_from);
  EXPECT_EQ(c.turn_indexes, std::vector<size_t>{2});
  EXPECT_EQ(result->candidates[1].type, MemoryType::kOpinion);
  EXPECT_TRUE(result->candidates[1].ends.empty());
  EXPECT_EQ(result->candidates[2].type, MemoryType::kCommitment);
}

// The lifecycle's keys: "expires" (the last day, read back as the end of that day) and
// "critical"; both optional, and malformed values are refused like any other.
TEST_F(LlmExtractorTest, ExpiresAndCriticalRoundTrip) {
  auto extractor = Make();
  Candidate wish;
  wish.type = MemoryType::kGoal;
  wish.content = "用户今天想吃川菜";
  wish.turn_indexes = {2};
  wish.expires_at = At("2026-03-13T00:00:00Z");  // the end of 2026-03-12
  Candidate allergy;
  allergy.content = "用户对花生过敏";
  allergy.importance = 0.9;
  allergy.turn_indexes = {2};
  allergy.critical = true;
  json first = json::parse(CandidateToJson(wish).dump());
  EXPECT_EQ(first["expires"], "2026-03-12");
  json second = json::parse(CandidateToJson(allergy).dump());
  EXPECT_TRUE(second["expires"].is_null());
  EXPECT_EQ(second["critical"], true);
  json plain = second;
  plain.erase("expires");
  plain.erase("critical");
  server_.PushContent(json{{"memories", {first, second, plain}}}.dump());
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 3u);
  EXPECT_EQ(result->candidates[0].expires_at, wish.expires_at);
  EXPECT_FALSE(result->candidates[0].critical);
  EXPECT_FALSE(result->candidates[1].expires_at.has_value());
  EXPECT_TRUE(result->candidates[1].critical);
  EXPECT_FALSE(result->candidates[2].critical);  // absent: false

  json bad = first;
  bad["expires"] = "tomorrow";
  server_.PushContent(json{{"memories", {bad}}}.dump());
  server_.PushContent(json{{"memories", {bad}}}.dump());  // the repair request too
  auto refused = extractor->Extract(Chinese());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("expires"), std::string::npos)
      << refused.status().ToString();
}

// The entity graph (issue 39): a memory's relations and aliases from the model's reply.
TEST_F(LlmExtractorTest, RelationsAndAliasesRoundTrip) {
  auto extractor = Make();
  json m = Memory("fact", "用户的老公老王在阿里巴巴工作", 0.9, "", false, nullptr, 2);
  m["relations"] = {{{"subject", "user"},
                     {"subject_kind", "user"},
                     {"predicate", "partner"},
                     {"object", "老王"},
                     {"object_kind", "person"}},
                    {{"subject", "老王"},
                     {"subject_kind", "person"},
                     {"predicate", "works_at"},
                     {"object", "阿里巴巴"},
                     {"object_kind", "organization"},
                     {"ended", false}}};
  m["aliases"] = {{{"name", "老王"}, {"alias", "老公"}}};
  server_.PushContent(Memories({m}));
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  const GraphFacts& g = result->candidates[0].graph;
  ASSERT_EQ(g.relations.size(), 2u);
  EXPECT_EQ(g.relations[0].subject, kSelfEntity);
  EXPECT_EQ(g.relations[0].predicate, "partner");
  EXPECT_EQ(g.relations[1].subject, "老王");
  EXPECT_EQ(g.relations[1].object, "阿里巴巴");
  ASSERT_EQ(g.entities.size(), 2u);
  EXPECT_EQ(g.entities[0].name, "老王");
  EXPECT_EQ(g.entities[0].aliases, std::vector<std::string>{"老公"});
  EXPECT_EQ(g.entities[1].kind, EntityKind::kOrganization);

  // A relation of a bad shape fails the reply like any field (repaired once, then refused).
  json bad = Memory("fact", "用户住在杭州", 0.9, "", false, nullptr, 2);
  bad["relations"] = {{{"subject", "user"},
                       {"subject_kind", "user"},
                       {"predicate", "Lives In"},
                       {"object", "杭州"},
                       {"object_kind", "place"}}};
  server_.PushContent(Memories({bad}));
  server_.PushContent(Memories({bad}));
  auto refused = extractor->Extract(Chinese());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("snake_case"), std::string::npos)
      << refused.status().ToString();
}

TEST_F(LlmExtractorTest, ChitChatGivesNothing) {
  auto extractor = Make();
  server_.PushContent(R"({"memories": []})");
  ExtractionInput input;
  input.turns = {{"user", "哈哈好的，谢谢你！", At("2026-06-01T04:00:00Z")}};
  auto result = extractor->Extract(input);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->candidates.empty());
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(LlmExtractorTest, NoTurnsAsksNothing) {
  auto result = Make()->Extract(ExtractionInput{});
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->candidates.empty());
  EXPECT_EQ(result->prompt_version, "extract-v4");
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(LlmExtractorTest, MalformedJsonIsRepairedOnce) {
  auto extractor = Make();
  const std::string bad = "好的，以下是提取的记忆：{\"memories\": [";
  server_.PushContent(bad);
  server_.PushContent(Memories({Memory("fact", "用户住在杭州", 0.9, "user/location", true)}));

  auto result = extractor->Extract(Chinese());

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].content, "用户住在杭州");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const json messages = requests[1].Json()["messages"];
  ASSERT_EQ(messages.size(), 4u);  // the prompt, the bad reply, the repair request
  EXPECT_EQ(messages[2]["role"], "assistant");
  EXPECT_EQ(messages[2]["content"], bad);
  EXPECT_EQ(messages[3]["role"], "user");
  EXPECT_NE(messages[3]["content"].get<std::string>().find("not valid JSON"), std::string::npos);
  EXPECT_EQ(requests[1].Json()["response_format"]["type"], "json_object");
}

TEST_F(LlmExtractorTest, MalformedTwiceIsUnavailable) {
  auto extractor = Make();
  server_.PushContent("I'm sorry, I can't produce JSON today.");
  server_.PushContent(R"({"memories": "none"})");
  auto result = extractor->Extract(Chinese());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("after one repair"), std::string::npos);
  EXPECT_NE(result.status().message().find("\"memories\" array"), std::string::npos)
      << result.status().ToString();
  EXPECT_EQ(server_.requests().size(), 2u);  // one repair, no more
}

TEST_F(LlmExtractorTest, TruncatedReplyIsRepaired) {
  auto extractor = Make();
  server_.PushContent(R"({"memories": [{"type": "fact", "content": "用户住在)", "length");
  server_.PushContent(Memories({Memory("fact", "用户住在杭州", 0.9, "user/location", true)}));
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->candidates.size(), 1u);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].Json()["messages"][3]["content"].get<std::string>().find("cut off"),
            std::string::npos);
}

TEST_F(LlmExtractorTest, TruncatedTwiceIsUnavailable) {
  auto extractor = Make();
  server_.PushContent(R"({"memories": [)", "length");
  server_.PushContent(R"({"memories": [{"type": ")", "length");
  auto result = extractor->Extract(Chinese());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("cut off"), std::string::npos);
}

TEST_F(LlmExtractorTest, InvalidFieldsAreNamedInTheRepairRequest) {
  auto extractor = Make();
  json no_entities = Memory("fact", "用户住在杭州");
  no_entities.erase("entities");
  json string_exclusive = Memory("fact", "用户住在杭州");
  string_exclusive["exclusive"] = "yes";
  json bad_ends = Memory("fact", "用户住在杭州");
  bad_ends["ends"] = "北京";
  json bad_value = Memory("fact", "用户住在杭州");
  bad_value["value"] = 3;
  // Each bad memory comes second: the problem names its place in the reply.
  const std::pair<json, std::string> cases[] = {
      {Memory("fact", "用户住在杭州", 0.9, "", false, nullptr, /*turn=*/3),
       "memories[1]: \"turn\" must be the number of a turn, 0 to 2, not 3"},
      {Memory("belief", "用户住在杭州"), "memories[1]: \"type\" must be one of"},
      {Memory("fact", ""), "memories[1]: \"content\" must be a non-empty string"},
      {Memory("fact", "用户住在杭州", 1.5),
       "memories[1]: \"confidence\" must be a number from 0 to 1"},
      {Memory("fact", "用户住在杭州", 0.9, "", false, "昨天"),
       "memories[1]: \"valid_from\" must be a date \"YYYY-MM-DD\" or null, not \"昨天\""},
      {Memory("fact", "用户住在杭州", 0.9, "", false, "2026-02-30"),
       "memories[1]: \"valid_from\" must be a date"},
      {no_entities, "memories[1]: \"entities\" is missing"},
      {string_exclusive, "memories[1]: \"exclusive\" must be true or false"},
      {bad_ends, "memories[1]: \"ends\" must be an array of strings"},
      {bad_value, "memories[1]: \"value\" must be a string"},
  };
  for (const auto& [memory, named] : cases) {
    const size_t before = server_.requests().size();
    server_.PushContent(json{{"memories", {Memory("fact", "用户在阿里巴巴上班"), memory}}}.dump());
    server_.PushContent(Memories({Memory("fact", "用户住在杭州")}));
    auto result = extractor->Extract(Chinese());
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->candidates.size(), 1u);  // the repaired reply, not half of the bad one
    EXPECT_EQ(result->candidates[0].content, "用户住在杭州");
    auto requests = server_.requests();
    ASSERT_EQ(requests.size(), before + 2);
    const std::string repair = requests.back().Json()["messages"][3]["content"];
    EXPECT_NE(repair.find(named), std::string::npos) << repair;
  }
}

TEST_F(LlmExtractorTest, CodeFencedReplyIsAccepted) {
  auto extractor = Make();
  server_.PushContent("```json\n" + Memories({Memory("fact", "用户住在杭州")}) + "\n```");
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(server_.requests().size(), 1u);
}

// Chinese content that is mostly names, products or addresses is still Chinese: no repair.
TEST_F(LlmExtractorTest, ChineseFullOfLatinNamesIsNotWrong) {
  auto extractor = Make();
  server_.PushContent(Memories({Memory("fact", "用户的Kindle Paperwhite坏了"),
                                Memory("fact", "用户邮箱是 wangfang88@163.com"),
                                Memory("fact", "iPhone 12")}));  // a name alone: no language
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->candidates.size(), 3u);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(LlmExtractorTest, WrongLanguageIsRepairedToChinese) {
  auto extractor = Make();
  server_.PushContent(Memories({Memory("fact", "The user moved to Hangzhou yesterday"),
                                Memory("fact", "用户在阿里巴巴上班")}));
  server_.PushContent(
      Memories({Memory("fact", "用户昨天搬到了杭州"), Memory("fact", "用户在阿里巴巴上班")}));

  auto result = extractor->Extract(Chinese());

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 2u);
  EXPECT_EQ(result->candidates[0].content, "用户昨天搬到了杭州");
  EXPECT_EQ(result->candidates[1].content, "用户在阿里巴巴上班");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string repair = requests[1].Json()["messages"][3]["content"];
  EXPECT_NE(repair.find("Chinese (中文)"), std::string::npos) << repair;
  EXPECT_NE(repair.find("The user moved to Hangzhou yesterday"), std::string::npos) << repair;
  EXPECT_EQ(repair.find("用户在阿里巴巴上班"), std::string::npos) << repair;  // only the wrong ones
}

TEST_F(LlmExtractorTest, WrongLanguageThatStaysWrongIsDropped) {
  auto extractor = Make();
  const std::string english = Memories(
      {Memory("fact", "The user moved to Hangzhou"), Memory("fact", "用户在阿里巴巴上班")});
  server_.PushContent(english);
  server_.PushContent(english);  // the model ignores the request
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].content, "用户在阿里巴巴上班");
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmExtractorTest, FailedLanguageRepairKeepsTheRightLanguagePart) {
  auto extractor = Make();
  server_.PushContent(Memories(
      {Memory("fact", "The user moved to Hangzhou"), Memory("fact", "用户在阿里巴巴上班")}));
  server_.PushContent("{not json");
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].content, "用户在阿里巴巴上班");
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmExtractorTest, ChineseFromEnglishInputIsWrongToo) {
  auto extractor = Make();
  ExtractionInput input;
  input.turns = {{"user", "I moved to Berlin last week.", At("2026-05-04T09:31:00Z")}};
  server_.PushContent(Memories({Memory("fact", "用户上周搬到了柏林")}));
  server_.PushContent(Memories({Memory("fact", "The user moved to Berlin in late April 2026")}));
  auto result = extractor->Extract(input);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].content, "The user moved to Berlin in late April 2026");
  const std::string repair = server_.requests().at(1).Json()["messages"][3]["content"];
  EXPECT_NE(repair.find("written in English"), std::string::npos) << repair;
}

TEST_F(LlmExtractorTest, NoLanguageRepairAfterAFormatRepair) {
  auto extractor = Make();
  server_.PushContent("not json");
  server_.PushContent(Memories(
      {Memory("fact", "The user moved to Hangzhou"), Memory("fact", "用户在阿里巴巴上班")}));
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);  // one repair per call: the mismatch is dropped
  EXPECT_EQ(result->candidates[0].content, "用户在阿里巴巴上班");
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmExtractorTest, BelowThresholdIsDropped) {
  LlmExtractorOptions options;
  options.min_confidence = 0.6;
  auto extractor = Make(options);
  server_.PushContent(
      Memories({Memory("fact", "用户可能喜欢猫", 0.3), Memory("fact", "用户在阿里巴巴上班", 0.6),
                Memory("fact", "The user might live in Hangzhou", 0.2)}));
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(result->candidates[0].content, "用户在阿里巴巴上班");
  EXPECT_EQ(server_.requests().size(), 1u);  // no repair for a memory dropped anyway
}

TEST_F(LlmExtractorTest, RateLimitedThenServed) {
  auto extractor = Make();
  server_.Push({429, OpenAIErrorBody("Too many requests"), {{"Retry-After", "0.05"}}});
  server_.PushContent(Memories({Memory("fact", "用户住在杭州")}));
  auto result = extractor->Extract(Chinese());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->candidates.size(), 1u);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmExtractorTest, ProviderDownIsUnavailable) {
  auto extractor = Make();  // the client retries once
  server_.Push(503, OpenAIErrorBody("overloaded"));
  server_.Push(503, OpenAIErrorBody("overloaded"));
  auto result = extractor->Extract(Chinese());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("llm extractor"), std::string::npos);
  EXPECT_NE(result.status().message().find("HTTP 503"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmExtractorTest, RefusedKeyIsNotRetriedOrRepaired) {
  auto extractor = Make();
  server_.Push(401, OpenAIErrorBody("Invalid API key"));
  auto result = extractor->Extract(Chinese());
  // Unavailable like every provider failure, so the write path keeps the turns; the message
  // keeps what happened.
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("the LLM request failed (permission_denied)"),
            std::string::npos)
      << result.status().ToString();
  EXPECT_NE(result.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

}  // namespace
}  // namespace engram
