// Tests of the remote embedder and the default HTTP transport against a real HTTP server on
// 127.0.0.1 that replays scripted provider responses: the bytes on the wire are real, only the
// provider is fake.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engram/embedder.h"
#include "testing/closed_port.h"
#include "testing/fake_openai_server.h"

namespace engram {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

using testing::ClosedPort;
using testing::FakeOpenAIServer;
using testing::OpenAIErrorBody;
using testing::ScriptedReply;

// The provider's answer once a test's script is empty: each input t embedded as [len(t), 1, 0],
// listed in reverse index order (the API does not promise input order).
ScriptedReply EmbedEachInputByLength(const std::string& request_body) {
  json request = json::parse(request_body, nullptr, false);
  if (!request.is_object() || !request.contains("input") || !request["input"].is_array()) {
    return {400, R"({"error":{"message":"no input"}})"};
  }
  json data = json::array();
  const json& input = request["input"];
  for (size_t i = input.size(); i-- > 0;) {
    const double len = static_cast<double>(input[i].get<std::string>().size());
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", {len, 1.0, 0.0}}});
  }
  return {200, json{{"object", "list"}, {"data", data}, {"model", "fake"}}.dump()};
}

// {"data":[{"index":i,"embedding":v}...]} in the order given.
std::string EmbeddingsBody(const std::vector<std::pair<int, std::vector<float>>>& items) {
  json data = json::array();
  for (const auto& [index, vector] : items) {
    data.push_back({{"object", "embedding"}, {"index", index}, {"embedding", vector}});
  }
  return json{{"object", "list"}, {"data", data}, {"model", "m"}}.dump();
}

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

constexpr char kKeyEnv[] = "ENGRAM_OPENAI_EMBEDDER_TEST_KEY";

class OpenAIEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv(kKeyEnv);
    provider_.SetFallback(EmbedEachInputByLength);
    provider_.Start();
  }
  void TearDown() override {
    provider_.Stop();
    unsetenv(kKeyEnv);
  }

  OpenAIEmbedderOptions Options() const {
    OpenAIEmbedderOptions o;
    o.base_url = provider_.base_url();
    o.model = "test-embed";
    o.api_key_env = kKeyEnv;
    o.timeout_ms = 2000;
    o.max_retries = 3;
    o.initial_backoff_ms = 1;
    return o;
  }

  static std::unique_ptr<Embedder> Make(const OpenAIEmbedderOptions& options) {
    auto made = MakeOpenAIEmbedder(options);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }

  FakeOpenAIServer provider_;
};

TEST_F(OpenAIEmbedderTest, EmbedsOneBatchNormalizedInIndexOrder) {
  setenv(kKeyEnv, "sk-test-123", 1);
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->model(), "openai:test-embed");
  EXPECT_EQ(embedder->dimension(), 0);  // not known before the first response
  provider_.Push(200, EmbeddingsBody({{2, {0, 0, 2}}, {0, {3, 4, 0}}, {1, {0, -5, 0}}}));

  auto vectors = embedder->Embed({"alpha", "beta", "gamma"});

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 3u);
  EXPECT_EQ((*vectors)[0], (std::vector<float>{0.6f, 0.8f, 0.0f}));
  EXPECT_EQ((*vectors)[1], (std::vector<float>{0.0f, -1.0f, 0.0f}));
  EXPECT_EQ((*vectors)[2], (std::vector<float>{0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(embedder->dimension(), 3);

  auto requests = provider_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/embeddings");
  json body = json::parse(requests[0].body, nullptr, false);
  EXPECT_EQ(body["model"], "test-embed");
  EXPECT_EQ(body["input"], json::array({"alpha", "beta", "gamma"}));
  EXPECT_EQ(body["encoding_format"], "float");
  EXPECT_EQ(requests[0].headers.count("Content-Type"), 1u);
  EXPECT_EQ(requests[0].headers.find("Content-Type")->second, "application/json");
  ASSERT_EQ(requests[0].headers.count("Authorization"), 1u);
  EXPECT_EQ(requests[0].headers.find("Authorization")->second, "Bearer sk-test-123");
}

TEST_F(OpenAIEmbedderTest, SendsNoAuthorizationWithoutAKey) {
  auto unset = Make(Options());
  setenv(kKeyEnv, "", 1);
  auto empty = Make(Options());
  ASSERT_TRUE(unset && empty);
  ASSERT_TRUE(unset->Embed({"a"}).ok());
  ASSERT_TRUE(empty->Embed({"b"}).ok());
  auto requests = provider_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].headers.count("Authorization"), 0u);
  EXPECT_EQ(requests[1].headers.count("Authorization"), 0u);
}

TEST_F(OpenAIEmbedderTest, SplitsIntoBatchesAndKeepsOrder) {
  OpenAIEmbedderOptions options = Options();
  options.base_url += "/";  // a trailing slash must not produce "//embeddings"
  options.batch_size = 2;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  const std::vector<std::string> texts = {"a", "bb", "ccc", "dddd", "eeeee"};

  auto vectors = embedder->Embed(texts);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 5u);
  for (size_t i = 0; i < texts.size(); ++i) {
    // The fake embeds t as [len(t), 1, 0]; the ratio survives normalization.
    EXPECT_FLOAT_EQ((*vectors)[i][0] / (*vectors)[i][1], float(texts[i].size())) << i;
  }
  auto requests = provider_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/v1/embeddings");
  EXPECT_EQ(json::parse(requests[0].body)["input"], json::array({"a", "bb"}));
  EXPECT_EQ(json::parse(requests[1].body)["input"], json::array({"ccc", "dddd"}));
  EXPECT_EQ(json::parse(requests[2].body)["input"], json::array({"eeeee"}));
}

TEST_F(OpenAIEmbedderTest, EmptyInputSendsNothing) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  auto vectors = embedder->Embed({});
  ASSERT_TRUE(vectors.ok());
  EXPECT_TRUE(vectors->empty());
  EXPECT_TRUE(provider_.requests().empty());
}

TEST_F(OpenAIEmbedderTest, RejectsInvalidUtf8WithoutARequest) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  auto vectors = embedder->Embed({"fine", std::string("bad \xC3\x28", 6)});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("text 1"), std::string::npos);
  EXPECT_TRUE(provider_.requests().empty());
}

TEST_F(OpenAIEmbedderTest, RetriesRateLimitThenSucceeds) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push({429, OpenAIErrorBody("Rate limit reached"), {{"Retry-After", "0"}}});
  auto vectors = embedder->Embed({"x"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, HonoursALongerRetryAfter) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push({429, OpenAIErrorBody("slow down"), {{"Retry-After", "0.3"}}});
  const auto start = Clock::now();
  ASSERT_TRUE(embedder->Embed({"x"}).ok());
  EXPECT_GE(MillisSince(start), 300);
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, RetriesServerErrorsThenSucceeds) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push(500, OpenAIErrorBody("internal"));
  provider_.Push(502, "<html>Bad Gateway</html>");
  provider_.Push(503, OpenAIErrorBody("overloaded"));
  auto vectors = embedder->Embed({"x", "y"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(vectors->size(), 2u);
  EXPECT_EQ(provider_.requests().size(), 4u);
}

TEST_F(OpenAIEmbedderTest, GivesUpAfterMaxRetries) {
  OpenAIEmbedderOptions options = Options();
  options.max_retries = 2;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  for (int i = 0; i < 4; ++i) provider_.Push(503, OpenAIErrorBody("The server is overloaded"));
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(vectors.status().message().find("HTTP 503"), std::string::npos);
  EXPECT_NE(vectors.status().message().find("The server is overloaded"), std::string::npos);
  EXPECT_EQ(provider_.requests().size(), 3u);
}

TEST_F(OpenAIEmbedderTest, UnauthorizedIsPermissionDeniedAndNotRetried) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push(401, OpenAIErrorBody("Incorrect API key provided"));
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(vectors.status().message().find("Incorrect API key provided"), std::string::npos);
  EXPECT_EQ(provider_.requests().size(), 1u);

  provider_.Push(403, OpenAIErrorBody("Country not supported"));
  EXPECT_EQ(embedder->Embed({"x"}).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, ClientErrorsAreInvalidArgumentWithTheProviderMessage) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push(400, OpenAIErrorBody("This model's maximum context length is 8192 tokens"));
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("maximum context length"), std::string::npos);
  EXPECT_NE(vectors.status().message().find("HTTP 400"), std::string::npos);

  provider_.Push(404, R"({"error":"model \"nomic\" not found, try pulling it first"})");  // Ollama
  auto missing = embedder->Embed({"x"});
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("not found, try pulling"), std::string::npos);
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, MalformedJsonIsUnavailableAndRetriedOnlyOnce) {
  auto embedder = Make(Options());  // max_retries 3
  ASSERT_NE(embedder, nullptr);
  for (int i = 0; i < 4; ++i) provider_.Push(200, "this is not json");
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(vectors.status().message().find("provider returned malformed response"),
            std::string::npos);
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, OneMalformedResponseIsRecoveredByTheRetry) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  const std::string good = EmbeddingsBody({{0, {1, 0}}});
  provider_.Push(200, good.substr(0, good.size() / 2));  // truncated
  auto vectors = embedder->Embed({"x"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, WrongShapesAreMalformed) {
  OpenAIEmbedderOptions options = Options();
  options.max_retries = 0;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  const std::string good = EmbeddingsBody({{0, {1, 0}}, {1, {0, 1}}});
  const std::vector<std::string> bodies = {
      good.substr(0, good.size() - 3),  // truncated
      "[1, 2]",                         // not an object
      R"({"data": {"index": 0}})",      // data not an array
      R"({"object": "list"})",          // no data
      EmbeddingsBody({{0, {1, 0}}}),    // one item short
      R"({"data":[{"index":0,"embedding":["a","b"]},{"index":1,"embedding":[0,1]}]})",
      R"({"data":[{"index":0,"embedding":"AAAAAA=="},{"index":1,"embedding":[0,1]}]})",
      R"({"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[0,1]}]})",
      R"({"data":[{"embedding":[1,0]},{"index":1,"embedding":[0,1]}]})",  // no index
      EmbeddingsBody({{0, {1, 0}}, {0, {0, 1}}}),                         // duplicate index
      EmbeddingsBody({{0, {1, 0}}, {2, {0, 1}}}),                         // index out of range
      EmbeddingsBody({{-1, {1, 0}}, {1, {0, 1}}}),                        // negative index
      R"({"data":[{"index":0.5,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]})",
      R"({"data":[{"index":0,"embedding":[1e300,0]},{"index":1,"embedding":[0,1]}]})",
  };
  for (size_t i = 0; i < bodies.size(); ++i) {
    provider_.Push(200, bodies[i]);
    auto vectors = embedder->Embed({"x", "y"});
    ASSERT_FALSE(vectors.ok()) << "body " << i;
    EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable) << "body " << i;
    EXPECT_NE(vectors.status().message().find("malformed response"), std::string::npos)
        << "body " << i << ": " << vectors.status().ToString();
  }
  EXPECT_EQ(provider_.requests().size(), bodies.size());  // max_retries 0: no retry at all
}

TEST_F(OpenAIEmbedderTest, DimensionMustMatchTheOptions) {
  OpenAIEmbedderOptions options = Options();
  options.dimension = 4;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->dimension(), 4);
  provider_.Push(200, EmbeddingsBody({{0, {1, 2, 3}}}));
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("dimension mismatch: expected 4, got 3"),
            std::string::npos)
      << vectors.status().ToString();
  EXPECT_EQ(provider_.requests().size(), 1u);  // not retried
}

TEST_F(OpenAIEmbedderTest, FirstResponseFixesTheDimension) {
  OpenAIEmbedderOptions options = Options();
  options.batch_size = 1;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  provider_.Push(200, EmbeddingsBody({{0, {1, 2, 3}}}));
  provider_.Push(200, EmbeddingsBody({{0, {1, 2, 3, 4}}}));
  auto vectors = embedder->Embed({"x", "y"});  // two batches that disagree
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("dimension mismatch: expected 3, got 4"),
            std::string::npos);
  EXPECT_EQ(embedder->dimension(), 3);

  options.batch_size = 8;
  auto fresh = Make(options);
  provider_.Push(200, EmbeddingsBody({{0, {1, 2}}, {1, {1, 2, 3}}}));  // disagree in one batch
  EXPECT_EQ(fresh->Embed({"x", "y"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fresh->dimension(), 0);  // nothing was accepted
}

TEST_F(OpenAIEmbedderTest, ZeroVectorIsAnError) {
  auto embedder = Make(Options());
  ASSERT_NE(embedder, nullptr);
  provider_.Push(200, EmbeddingsBody({{0, {1, 0}}, {1, {0, 0}}}));
  auto vectors = embedder->Embed({"x", "y"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("zero vector for text 1"), std::string::npos);
}

TEST_F(OpenAIEmbedderTest, SlowProviderTimesOut) {
  OpenAIEmbedderOptions options = Options();
  options.timeout_ms = 200;
  options.max_retries = 0;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  provider_.Push({200, EmbeddingsBody({{0, {1, 0}}}), {}, /*delay_ms=*/5000});
  const auto start = Clock::now();
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_LT(MillisSince(start), 2000);
}

TEST_F(OpenAIEmbedderTest, SlowResponseIsRetried) {
  OpenAIEmbedderOptions options = Options();
  options.timeout_ms = 200;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  provider_.Push({200, EmbeddingsBody({{0, {1, 0}}}), {}, /*delay_ms=*/5000});
  ASSERT_TRUE(embedder->Embed({"x"}).ok());  // the second attempt gets the automatic reply
  EXPECT_EQ(provider_.requests().size(), 2u);
}

TEST_F(OpenAIEmbedderTest, ConnectionRefusedIsUnavailableAfterRetries) {
  OpenAIEmbedderOptions options = Options();
  options.base_url = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/v1";
  options.max_retries = 1;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  auto vectors = embedder->Embed({"x"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(vectors.status().message().find("gave up after 2 attempts"), std::string::npos)
      << vectors.status().ToString();
}

TEST_F(OpenAIEmbedderTest, ConcurrentCallersShareOneEmbedder) {
  OpenAIEmbedderOptions options = Options();
  options.batch_size = 3;
  auto embedder = Make(options);
  ASSERT_NE(embedder, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto vectors = embedder->Embed({"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"});
      if (vectors.ok() && vectors->size() == 7) ok.fetch_add(1);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 4);
  EXPECT_EQ(embedder->dimension(), 3);
  EXPECT_EQ(provider_.requests().size(), 12u);
}

TEST(OpenAIEmbedderOptionsTest, RejectsBadOptionsNamingTheField) {
  struct Case {
    const char* field;
    void (*mutate)(OpenAIEmbedderOptions*);
  };
  const Case cases[] = {
      {"base_url", [](OpenAIEmbedderOptions* o) { o->base_url = ""; }},
      {"base_url", [](OpenAIEmbedderOptions* o) { o->base_url = "ftp://example.com/v1"; }},
      {"model", [](OpenAIEmbedderOptions* o) { o->model = ""; }},
      {"dimension", [](OpenAIEmbedderOptions* o) { o->dimension = -1; }},
      {"batch_size", [](OpenAIEmbedderOptions* o) { o->batch_size = 0; }},
      {"batch_size", [](OpenAIEmbedderOptions* o) { o->batch_size = 2049; }},
      {"timeout_ms", [](OpenAIEmbedderOptions* o) { o->timeout_ms = 0; }},
      {"max_retries", [](OpenAIEmbedderOptions* o) { o->max_retries = -1; }},
      {"initial_backoff_ms", [](OpenAIEmbedderOptions* o) { o->initial_backoff_ms = -5; }},
  };
  for (const Case& c : cases) {
    OpenAIEmbedderOptions options;
    c.mutate(&options);
    auto made = MakeOpenAIEmbedder(options);
    ASSERT_FALSE(made.ok()) << c.field;
    EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_NE(made.status().message().find(c.field), std::string::npos) << made.status().ToString();
  }
  OpenAIEmbedderOptions edge;
  edge.batch_size = 2048;
  edge.max_retries = 0;
  EXPECT_TRUE(MakeOpenAIEmbedder(edge).ok());  // building makes no request
}

// ---- the default transport ----

class HttpTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    provider_.SetFallback(EmbedEachInputByLength);
    provider_.Start();
  }
  void TearDown() override { provider_.Stop(); }

  HttpRequest Request(const std::string& path) const {
    HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(provider_.port()) + path;
    request.timeout_ms = 2000;
    return request;
  }

  FakeOpenAIServer provider_;
};

TEST_F(HttpTransportTest, PostsBodyAndHeadersAndReturnsTheResponse) {
  auto transport = MakeHttpTransport();
  provider_.Push({201, "reply body", {{"X-Reply", "yes"}}});
  HttpRequest request = Request("/echo?q=1");
  request.headers = {{"Content-Type", "text/csv"}, {"X-Test", "42"}};
  request.body = "a,b\n1,2\n";

  auto response = transport->Post(request);

  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "reply body");
  bool saw_reply_header = false;
  for (const auto& [name, value] : response->headers) {
    if (name == "X-Reply" && value == "yes") saw_reply_header = true;
  }
  EXPECT_TRUE(saw_reply_header);
  auto requests = provider_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/echo");
  EXPECT_EQ(requests[0].body, "a,b\n1,2\n");
  EXPECT_EQ(requests[0].headers.count("Content-Type"), 1u);
  EXPECT_EQ(requests[0].headers.find("Content-Type")->second, "text/csv");
  EXPECT_EQ(requests[0].headers.find("X-Test")->second, "42");
}

TEST_F(HttpTransportTest, AnyHttpStatusIsAResponse) {
  auto transport = MakeHttpTransport();
  provider_.Push(503, "busy");
  auto response = transport->Post(Request("/"));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "busy");
}

TEST_F(HttpTransportTest, ReusesTheConnection) {
  auto transport = MakeHttpTransport();
  provider_.Push(200, "one");
  provider_.Push(200, "two");
  ASSERT_TRUE(transport->Post(Request("/a")).ok());
  ASSERT_TRUE(transport->Post(Request("/b")).ok());
  auto requests = provider_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].remote_port, requests[1].remote_port);  // one keep-alive socket
}

TEST_F(HttpTransportTest, TimeoutIsUnavailable) {
  auto transport = MakeHttpTransport();
  provider_.Push({200, "late", {}, /*delay_ms=*/5000});
  HttpRequest request = Request("/slow");
  request.timeout_ms = 150;
  const auto start = Clock::now();
  auto response = transport->Post(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_LT(MillisSince(start), 2000);
  // The transport recovers: the broken connection is not reused.
  provider_.Push(200, "on time");
  auto next = transport->Post(Request("/fast"));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->body, "on time");
}

TEST(HttpTransportNoServerTest, RefusedConnectionIsUnavailable) {
  auto transport = MakeHttpTransport();
  const std::string port = std::to_string(ClosedPort());
  for (const std::string scheme : {"http", "https"}) {
    HttpRequest request;
    request.url = scheme + "://127.0.0.1:" + port + "/v1/embeddings";
    request.timeout_ms = 1000;
    auto response = transport->Post(request);
    ASSERT_FALSE(response.ok()) << scheme;
    EXPECT_EQ(response.status().code(), StatusCode::kUnavailable) << scheme;
    EXPECT_NE(response.status().message().find("Connection"), std::string::npos)
        << response.status().ToString();
  }
}

TEST_F(HttpTransportTest, HttpsToAPlainServerFailsTheHandshake) {
  auto transport = MakeHttpTransport();
  HttpRequest request = Request("/v1");
  request.url = "https" + request.url.substr(4);
  auto response = transport->Post(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(response.status().message().find("SSL"), std::string::npos)
      << response.status().ToString();
}

TEST(HttpTransportNoServerTest, RejectsUnusableRequests) {
  auto transport = MakeHttpTransport();
  for (const char* url : {"", "127.0.0.1:80/v1", "ftp://host/x", "http://", "http:///path",
                          "http://host:0/", "http://host:99999/", "http://host:abc/",
                          "http://host:/", "http://user:pw@host/", "http://[::1/"}) {
    HttpRequest request;
    request.url = url;
    auto response = transport->Post(request);
    ASSERT_FALSE(response.ok()) << url;
    EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument) << url;
  }
  HttpRequest injected;
  injected.url = "http://127.0.0.1:1/";
  injected.headers = {{"Authorization", "Bearer x\r\nX-Evil: 1"}};
  EXPECT_EQ(transport->Post(injected).status().code(), StatusCode::kInvalidArgument);
  HttpRequest no_timeout;
  no_timeout.url = "http://127.0.0.1:1/";
  no_timeout.timeout_ms = 0;
  EXPECT_EQ(transport->Post(no_timeout).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
