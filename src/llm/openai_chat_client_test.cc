// The chat client against a real HTTP server on 127.0.0.1 replaying scripted provider replies.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engram/llm.h"
#include "testing/fake_openai_server.h"

namespace engram {
namespace {

using json = nlohmann::json;
using testing::ChatCompletionBody;
using testing::FakeOpenAIServer;
using testing::OpenAIErrorBody;
using Clock = std::chrono::steady_clock;

constexpr char kKeyEnv[] = "ENGRAM_OPENAI_CHAT_TEST_KEY";

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

ChatRequest Ask(const std::string& text) {
  ChatRequest request;
  request.messages = {{"system", "Reply in JSON."}, {"user", text}};
  request.max_tokens = 100;
  return request;
}

class OpenAIChatClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv(kKeyEnv);
    server_.Start();
  }
  void TearDown() override {
    server_.Stop();
    unsetenv(kKeyEnv);
  }

  OpenAIChatOptions Options() const {
    OpenAIChatOptions o = server_.ClientOptions("deepseek-chat", /*retries=*/2);
    o.api_key_env = kKeyEnv;  // these tests check the key is sent
    return o;
  }

  static std::unique_ptr<LlmClient> Make(const OpenAIChatOptions& options) {
    auto made = MakeOpenAIChatClient(options);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }

  FakeOpenAIServer server_;
};

TEST_F(OpenAIChatClientTest, SendsTheOpenAIRequestAndReadsTheFirstChoice) {
  setenv(kKeyEnv, "sk-chat-456", 1);
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->model(), "deepseek-chat");
  server_.PushContent(R"({"memories": []})");

  ChatRequest request = Ask("我住在北京");
  request.temperature = 0.2;
  auto reply = client->Chat(request);

  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->content, R"({"memories": []})");
  EXPECT_EQ(reply->finish_reason, "stop");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].Header("Authorization"), "Bearer sk-chat-456");
  EXPECT_EQ(requests[0].Header("Content-Type"), "application/json");
  const json body = requests[0].Json();
  EXPECT_EQ(body["model"], "deepseek-chat");
  EXPECT_EQ(body["messages"], json::parse(R"([{"role":"system","content":"Reply in JSON."},
                                              {"role":"user","content":"我住在北京"}])"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_EQ(body["stream"], false);
  EXPECT_EQ(body["response_format"], json::parse(R"({"type":"json_object"})"));
}

TEST_F(OpenAIChatClientTest, NoKeyNoAuthorizationAndNoJsonModeWhenNotAsked) {
  OpenAIChatOptions options = Options();
  options.base_url += "/";  // no "//chat/completions"
  auto client = Make(options);
  ASSERT_NE(client, nullptr);
  server_.PushContent("plain text");
  ChatRequest request = Ask("hi");
  request.json_object = false;
  ASSERT_TRUE(client->Chat(request).ok());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers.count("Authorization"), 0u);
  EXPECT_FALSE(requests[0].Json().contains("response_format"));
}

TEST_F(OpenAIChatClientTest, ReportsTruncationThroughFinishReason) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.PushContent(R"({"memories": [{"type": "fa)", "length");
  auto reply = client->Chat(Ask("x"));
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(server_.requests().size(), 1u);  // truncation is the caller's to repair
}

TEST_F(OpenAIChatClientTest, RetriesRateLimitHonouringRetryAfter) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.Push({429, OpenAIErrorBody("Rate limit reached for requests"), {{"Retry-After", "0.3"}}});
  server_.PushContent("{}");
  const auto start = Clock::now();
  auto reply = client->Chat(Ask("x"));
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_GE(MillisSince(start), 300);  // the backoff alone would be 1 ms
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(OpenAIChatClientTest, TimeoutThenSuccessOnRetry) {
  OpenAIChatOptions options = Options();
  options.timeout_ms = 200;
  auto client = Make(options);
  ASSERT_NE(client, nullptr);
  server_.Push({200, ChatCompletionBody("late"), {}, /*delay_ms=*/3000});
  server_.PushContent("on time");
  const auto start = Clock::now();
  auto reply = client->Chat(Ask("x"));
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->content, "on time");
  EXPECT_LT(MillisSince(start), 2500);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(OpenAIChatClientTest, ServerErrorsExhaustRetriesAsUnavailable) {
  auto client = Make(Options());  // max_retries 2: three attempts
  ASSERT_NE(client, nullptr);
  server_.Push(500, OpenAIErrorBody("internal error"));
  server_.Push(502, "<html>Bad Gateway</html>");
  server_.Push(503, OpenAIErrorBody("The engine is currently overloaded"));
  auto reply = client->Chat(Ask("x"));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("HTTP 503"), std::string::npos);
  EXPECT_NE(reply.status().message().find("currently overloaded"), std::string::npos);
  EXPECT_NE(reply.status().message().find("gave up after 3 attempts"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 3u);
}

TEST_F(OpenAIChatClientTest, UnauthorizedNamesTheStatusAndIsNotRetried) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.Push(401, OpenAIErrorBody("Incorrect API key provided: sk-wrong"));
  auto reply = client->Chat(Ask("x"));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(reply.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_NE(reply.status().message().find("Incorrect API key"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(OpenAIChatClientTest, OtherClientErrorsAreInvalidArgument) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.Push(404, R"({"error":"model \"qwen2.5\" not found, try pulling it first"})");  // Ollama
  auto reply = client->Chat(Ask("x"));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("HTTP 404"), std::string::npos);
  EXPECT_NE(reply.status().message().find("try pulling it"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(OpenAIChatClientTest, ResponseFormatRejectedIsRetriedWithoutAndRemembered) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.Push(400, OpenAIErrorBody("response_format of type json_object is not supported"));
  server_.PushContent(R"({"ok": true})");
  server_.PushContent(R"({"ok": 2})");

  auto first = client->Chat(Ask("x"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->content, R"({"ok": true})");
  auto second = client->Chat(Ask("y"));
  ASSERT_TRUE(second.ok()) << second.status().ToString();

  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(requests[0].Json().contains("response_format"));
  EXPECT_FALSE(requests[1].Json().contains("response_format"));
  EXPECT_FALSE(requests[2].Json().contains("response_format"));  // remembered
}

TEST_F(OpenAIChatClientTest, OtherBadRequestsAreNotRetriedWithoutResponseFormat) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  server_.Push(400, OpenAIErrorBody("This model's maximum context length is 8192 tokens"));
  auto reply = client->Chat(Ask("x"));
  EXPECT_EQ(reply.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("maximum context length"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(OpenAIChatClientTest, MalformedEnvelopesAreUnavailableAndRetriedOnce) {
  OpenAIChatOptions options = Options();
  options.max_retries = 3;
  auto client = Make(options);
  ASSERT_NE(client, nullptr);
  const std::string good = ChatCompletionBody("fine");
  const std::string bodies[] = {
      good.substr(0, good.size() / 2),  // cut short by a proxy
      "[]",
      R"({"choices": []})",
      R"({"choices": [{"message": {"content": null}, "finish_reason": "stop"}]})",
      R"({"choices": [{"message": {"content": "x"}}]})",  // no finish_reason
      R"({"choices": [{"message": {"role": "assistant", "content": null,
          "refusal": "I can't help with that."}, "finish_reason": "stop"}]})",
  };
  for (const std::string& body : bodies) {
    server_.Push(200, body);
    server_.Push(200, body);
    const size_t before = server_.requests().size();
    auto reply = client->Chat(Ask("x"));
    ASSERT_FALSE(reply.ok()) << body;
    EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable) << body;
    EXPECT_NE(reply.status().message().find("malformed response"), std::string::npos)
        << reply.status().ToString();
    EXPECT_EQ(server_.requests().size() - before, 2u) << body;
  }
  server_.Push(200, bodies[5]);
  server_.Push(200, bodies[5]);
  EXPECT_NE(client->Chat(Ask("x")).status().message().find("I can't help with that"),
            std::string::npos);
}

// Replies as servers send them, extra fields and all.
TEST_F(OpenAIChatClientTest, ReadsRepliesOfCommonServers) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  const std::string replies[] = {
      // DeepSeek
      R"({"id":"4f1c","object":"chat.completion","created":1764460800,"model":"deepseek-chat",)"
      R"("choices":[{"index":0,"message":{"role":"assistant","content":"{\"memories\": []}"},)"
      R"("logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":812,)"
      R"("completion_tokens":7,"total_tokens":819,"prompt_cache_hit_tokens":768,)"
      R"("prompt_cache_miss_tokens":44},"system_fingerprint":"fp_8802369eaa_prod0425fp8"})",
      // vLLM
      R"({"id":"chatcmpl-9a","object":"chat.completion","created":1764460800,"model":"Qwen2.5-7B",)"
      R"("choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,)"
      R"("content":"{\"memories\": []}","tool_calls":[]},"logprobs":null,)"
      R"("finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":30,)"
      R"("total_tokens":37,"completion_tokens":7},"prompt_logprobs":null})",
      // Ollama
      R"({"id":"chatcmpl-310","object":"chat.completion","created":1764460800,)"
      R"("model":"qwen2.5:7b","system_fingerprint":"fp_ollama","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":"{\"memories\": []}"},)"
      R"("finish_reason":"stop"}],"usage":{"prompt_tokens":30,"completion_tokens":7,)"
      R"("total_tokens":37}})",
  };
  for (const std::string& body : replies) {
    server_.Push(200, body);
    auto reply = client->Chat(Ask("x"));
    ASSERT_TRUE(reply.ok()) << body << "\n" << reply.status().ToString();
    EXPECT_EQ(reply->content, R"({"memories": []})");
    EXPECT_EQ(reply->finish_reason, "stop");
  }
}

TEST_F(OpenAIChatClientTest, ConcurrentCallersShareOneClient) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  for (int i = 0; i < 8; ++i) server_.PushContent("{}");
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2; ++i) ok += client->Chat(Ask("x")).ok();
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(server_.requests().size(), 8u);
}

TEST_F(OpenAIChatClientTest, RejectsUnusableRequestsWithoutSendingThem) {
  auto client = Make(Options());
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->Chat(ChatRequest{}).status().code(), StatusCode::kInvalidArgument);
  ChatRequest bad_utf8 = Ask(std::string("\xC3\x28", 2));
  EXPECT_EQ(client->Chat(bad_utf8).status().code(), StatusCode::kInvalidArgument);
  ChatRequest no_tokens = Ask("x");
  no_tokens.max_tokens = 0;
  EXPECT_EQ(client->Chat(no_tokens).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server_.requests().empty());
}

TEST(OpenAIChatOptionsTest, RejectsBadOptionsNamingTheField) {
  struct Case {
    const char* field;
    void (*mutate)(OpenAIChatOptions*);
  };
  const Case cases[] = {
      {"base_url", [](OpenAIChatOptions* o) { o->base_url = ""; }},
      {"base_url", [](OpenAIChatOptions* o) { o->base_url = "localhost:11434/v1"; }},
      {"model", [](OpenAIChatOptions* o) { o->model = ""; }},
      {"timeout_ms", [](OpenAIChatOptions* o) { o->timeout_ms = 0; }},
      {"max_retries", [](OpenAIChatOptions* o) { o->max_retries = -1; }},
      {"initial_backoff_ms", [](OpenAIChatOptions* o) { o->initial_backoff_ms = -1; }},
  };
  for (const Case& c : cases) {
    OpenAIChatOptions options;
    c.mutate(&options);
    auto made = MakeOpenAIChatClient(options);
    ASSERT_FALSE(made.ok()) << c.field;
    EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_NE(made.status().message().find(c.field), std::string::npos) << made.status().ToString();
  }
  EXPECT_TRUE(MakeOpenAIChatClient(OpenAIChatOptions{}).ok());  // making one sends nothing
}

}  // namespace
}  // namespace engram
