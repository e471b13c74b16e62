// The LLM resolver over the real chat client and a fake OpenAI-compatible server: numbered
// neighbours mapped back, ids never shown, targets checked, one repair.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/llm.h"
#include "llm/prompts.h"
#include "testing/fake_openai_server.h"

namespace engram {
namespace {

using json = nlohmann::json;
using testing::FakeOpenAIServer;

Neighbour Stored(const std::string& id, const std::string& content, bool same_slot,
                 double similarity) {
  Neighbour n;
  n.item.id = id;
  n.item.content = content;
  n.item.type = MemoryType::kFact;
  n.item.created_at = *ParseTimestamp("2025-09-01T08:00:00Z");
  n.item.valid_from = *ParseTimestamp("2025-09-01");
  n.item.source.message_ids = {"msg-" + id};
  n.same_slot = same_slot;
  n.similarity = similarity;
  return n;
}

std::string Decision(const std::string& decision, json target, json merged = nullptr) {
  return json{
      {"decision", decision}, {"target", target}, {"merged_content", merged}, {"reason", "because"}}
      .dump();
}

class LlmResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    auto client = MakeOpenAIChatClient(server_.ClientOptions("moonshot-v1-8k"));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    llm_ = std::move(client).value();
    resolver_ = MakeLlmResolver(llm_);
    candidate_.content = "用户搬到了杭州";
    candidate_.slot = "user/location";
    candidate_.exclusive = true;
    candidate_.valid_from = *ParseTimestamp("2026-03-11");
    neighbours_ = {Stored("0193f2a1-7c3e-7d40-9a1b-00000000aaaa", "用户喜欢西湖", false, 0.41),
                   Stored("0193f2a1-7c3e-7d40-9a1b-00000000bbbb", "用户住在北京", true, 0.734),
                   Stored("0193f2a1-7c3e-7d40-9a1b-00000000cccc", "用户在北京工作", false, 0.5)};
  }
  void TearDown() override {
    resolver_.reset();  // closes the keep-alive connection, so the server stops at once
    llm_.reset();
    server_.Stop();
  }

  FakeOpenAIServer server_;
  std::shared_ptr<LlmClient> llm_;
  std::unique_ptr<ConflictResolver> resolver_;
  Candidate candidate_;
  std::vector<Neighbour> neighbours_;
};

TEST_F(LlmResolverTest, MapsTheNumberBackToTheNeighbour) {
  EXPECT_EQ(resolver_->name(), "llm-decide:moonshot-v1-8k");
  server_.PushContent(Decision("SUPERSEDE", 1));

  auto decision = resolver_->Decide(candidate_, neighbours_);

  ASSERT_TRUE(decision.ok()) << decision.status().ToString();
  EXPECT_EQ(decision->decision, WriteDecision::kSupersede);
  EXPECT_EQ(decision->target, 1);
  EXPECT_EQ(neighbours_[decision->target].item.content, "用户住在北京");
  EXPECT_EQ(decision->reason, "because");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const json body = requests[0].Json();
  EXPECT_EQ(body["model"], "moonshot-v1-8k");
  EXPECT_EQ(body["response_format"]["type"], "json_object");
  EXPECT_EQ(body["messages"][0]["content"], std::string(llm::DecidePrompt().system));
  const std::string user = body["messages"][1]["content"];
  EXPECT_NE(
      user.find(R"(Candidate: {"content":"用户搬到了杭州","type":"fact","slot":"user/location",)"
                R"("exclusive":true,"correction":false,"valid_from":"2026-03-11"})"),
      std::string::npos)
      << user;
  EXPECT_NE(user.find(R"([1] {"content":"用户住在北京","type":"fact","slot":"user/location",)"
                      R"("same_slot":true,"valid_from":"2025-09-01","recorded":"2025-09-01",)"
                      R"("similarity":0.73})"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("[0] {\"content\":\"用户喜欢西湖\""), std::string::npos);
  EXPECT_NE(user.find("[2] {\"content\":\"用户在北京工作\""), std::string::npos);
}

TEST_F(LlmResolverTest, DatesAreLocal) {
  LlmResolverOptions options;
  options.utc_offset_minutes = 8 * 60;
  auto resolver = MakeLlmResolver(llm_, options);
  candidate_.valid_from = *ParseTimestamp("2026-03-11T00:00:00+08:00");  // as the extractor sets
  neighbours_[1].item.created_at = *ParseTimestamp("2025-09-01T20:00:00Z");  // 09-02 in Beijing
  server_.PushContent(Decision("SUPERSEDE", 1));
  ASSERT_TRUE(resolver->Decide(candidate_, neighbours_).ok());
  const std::string text = server_.requests().at(0).Text();
  EXPECT_NE(text.find(R"("valid_from":"2026-03-11"})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("recorded":"2025-09-02")"), std::string::npos) << text;
}

TEST_F(LlmResolverTest, NeverShowsMemoryIds) {
  server_.PushContent(Decision("NOOP", 0));
  ASSERT_TRUE(resolver_->Decide(candidate_, neighbours_).ok());
  const std::string body = server_.requests().at(0).body;
  for (const Neighbour& n : neighbours_) {
    EXPECT_EQ(body.find(n.item.id), std::string::npos) << n.item.id;
    EXPECT_EQ(body.find("0193f2a1"), std::string::npos);
    EXPECT_EQ(body.find(n.item.source.message_ids[0]), std::string::npos);
  }
}

TEST_F(LlmResolverTest, UpdateCarriesMergedContent) {
  server_.PushContent(Decision("update", 1, "用户住在北京朝阳区"));  // any case is understood
  auto decision = resolver_->Decide(candidate_, neighbours_);
  ASSERT_TRUE(decision.ok()) << decision.status().ToString();
  EXPECT_EQ(decision->decision, WriteDecision::kUpdate);
  EXPECT_EQ(decision->target, 1);
  EXPECT_EQ(decision->merged_content, "用户住在北京朝阳区");
}

TEST_F(LlmResolverTest, AddHasNoTarget) {
  server_.PushContent(Decision("ADD", 2));  // a stray target means nothing for ADD
  auto decision = resolver_->Decide(candidate_, neighbours_);
  ASSERT_TRUE(decision.ok()) << decision.status().ToString();
  EXPECT_EQ(decision->decision, WriteDecision::kAdd);
  EXPECT_EQ(decision->target, -1);
}

TEST_F(LlmResolverTest, OutOfRangeTargetIsRepaired) {
  server_.PushContent(Decision("SUPERSEDE", 3));
  server_.PushContent(Decision("SUPERSEDE", 1));
  auto decision = resolver_->Decide(candidate_, neighbours_);
  ASSERT_TRUE(decision.ok()) << decision.status().ToString();
  EXPECT_EQ(decision->target, 1);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string repair = requests[1].Json()["messages"][3]["content"];
  EXPECT_NE(repair.find("\"target\" is 3, but the stored memories are numbered 0 to 2"),
            std::string::npos)
      << repair;
}

TEST_F(LlmResolverTest, OutOfRangeTwiceIsUnavailable) {
  server_.PushContent(Decision("NOOP", -1));
  server_.PushContent(Decision("NOOP", nullptr));
  auto decision = resolver_->Decide(candidate_, neighbours_);
  ASSERT_FALSE(decision.ok());
  EXPECT_EQ(decision.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(decision.status().message().find("llm resolver"), std::string::npos);
  EXPECT_NE(decision.status().message().find("\"target\""), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(LlmResolverTest, BadRepliesAreRepaired) {
  const std::string bad[] = {
      "SUPERSEDE 1",                                                 // not JSON
      R"({"decision": "REPLACE", "target": 1, "reason": "x"})",      // unknown decision
      R"({"decision": "SUPERSEDE", "target": "1", "reason": "x"})",  // target as a string
      R"({"decision": "SUPERSEDE", "target": 1})",                   // no reason
      Decision("UPDATE", 1),                                         // UPDATE without text
      Decision("UPDATE", 1, "The user lives in Chaoyang, Beijing"),  // wrong language
  };
  for (const std::string& reply : bad) {
    server_.PushContent(reply);
    server_.PushContent(Decision("SUPERSEDE", 1));
    auto decision = resolver_->Decide(candidate_, neighbours_);
    ASSERT_TRUE(decision.ok()) << reply << ": " << decision.status().ToString();
    EXPECT_EQ(decision->decision, WriteDecision::kSupersede) << reply;
  }
  EXPECT_EQ(server_.requests().size(), 2 * std::size(bad));
}

TEST_F(LlmResolverTest, NoNeighboursIsAddWithoutAsking) {
  auto decision = resolver_->Decide(candidate_, {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->decision, WriteDecision::kAdd);
  EXPECT_EQ(decision->target, -1);
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(LlmResolverTest, ProviderDownIsUnavailable) {
  server_.Push(500, "oops");
  server_.Push(500, "oops");
  auto decision = resolver_->Decide(candidate_, neighbours_);
  EXPECT_EQ(decision.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(server_.requests().size(), 2u);
}

}  // namespace
}  // namespace engram
