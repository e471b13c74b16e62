// The router and the OpenAPI document must list the same routes, and every route's handler
// answers a request that names nothing with a JSON 4xx rather than crashing.
#include "server/routes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "engram/jobs.h"
#include "engram/sessions.h"
#include "server/metrics.h"
#include "server/rate_limiter.h"
#include "testing/test_support.h"

namespace engram::server {
namespace {

using json = nlohmann::json;

json ReadOpenApi() {
  std::ifstream in(std::string(ENGRAM_SOURCE_DIR) + "/docs/openapi.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

std::set<std::string> DocumentedRoutes(const json& doc) {
  std::set<std::string> out;
  for (const auto& [path, ops] : doc.at("paths").items()) {
    for (const auto& [method, op] : ops.items()) {
      std::string m = method;
      for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out.insert(m + " " + path);
    }
  }
  return out;
}

TEST(RoutesTest, RouterAndOpenApiDocumentListTheSameRoutes) {
  Services services;
  std::set<std::string> routed;
  for (const Route& r : MakeRoutes(services)) {
    EXPECT_TRUE(routed.insert(r.method + " " + r.path).second) << "duplicate " << r.path;
  }
  const std::set<std::string> documented = DocumentedRoutes(ReadOpenApi());
  for (const std::string& r : routed) EXPECT_TRUE(documented.count(r)) << r << " not documented";
  for (const std::string& d : documented) EXPECT_TRUE(routed.count(d)) << d << " not routed";
}

TEST(RoutesTest, OpenApiDocumentDeclaresPublicRoutesWithoutSecurity) {
  const json doc = ReadOpenApi();
  Services services;
  for (const Route& r : MakeRoutes(services)) {
    std::string method = r.method;
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const json& op = doc.at("paths").at(r.path).at(method);
    const bool open = op.contains("security") && op.at("security").empty();
    EXPECT_EQ(open, r.access == Access::kPublic) << r.method << " " << r.path;
  }
}

class RouteHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("e.db"), &clock_);
    auto keys = KeyStore::Open(dir_.File("e.db"), &clock_);
    ASSERT_TRUE(keys.ok());
    keys_ = std::move(keys).value();
    services_.engine = engine_.get();
    services_.keys = keys_.get();
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
    sessions_ =
        std::make_unique<SessionManager>(engine_.get(), writer_.get(), SessionOptions{}, &clock_);
    auto jobs = JobQueue::Open(engine_.get(), JobQueueOptions{});
    ASSERT_TRUE(jobs.ok());
    jobs_ = std::move(jobs).value();
    jobs_->Handle(kRememberJob, RememberJobHandler(writer_.get()));
    services_.writer = writer_.get();
    services_.sessions = sessions_.get();
    services_.jobs = jobs_.get();
    routes_ = MakeRoutes(services_);
  }
  Reply Call(const std::string& method, const std::string& path, const server::Call& call) {
    for (const Route& r : routes_) {
      if (r.method == method && r.path == path) return r.handler(call);
    }
    ADD_FAILURE() << "no route " << method << " " << path;
    return {};
  }

  testing::TempDir dir_;
  ManualClock clock_{1'700'000'000'000};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<KeyStore> keys_;
  std::unique_ptr<MemoryWriter> writer_;
  std::unique_ptr<SessionManager> sessions_;
  std::unique_ptr<JobQueue> jobs_;
  Services services_;
  std::vector<Route> routes_;
};

// A request with no parameters and no body: each route answers 2xx (public ones) or a 4xx
// with the JSON error body, never a 5xx.
TEST_F(RouteHandlersTest, EmptyRequestsGetJsonClientErrors) {
  for (const Route& r : routes_) {
    server::Call call;
    call.tenant = "t";
    call.path_params["id"] = "nope";
    Reply reply = r.handler(call);
    SCOPED_TRACE(r.method + " " + r.path);
    EXPECT_LT(reply.status, 500);
    if (reply.status >= 400) {
      json body = json::parse(reply.body);
      EXPECT_TRUE(body.at("error").at("code").is_string());
      EXPECT_FALSE(body.at("error").at("message").get<std::string>().empty());
    }
  }
}

TEST_F(RouteHandlersTest, TheDeprecatedTextAliasIsWarnedAboutInBodyAndHeader) {
  server::Call add;
  add.tenant = "acme";
  add.body = R"({"user_id":"u1","infer":false,"text":"Old clients still send text"})";
  Reply added = Call("POST", "/v1/memories", add);
  ASSERT_EQ(added.status, 201) << added.body;
  json body = json::parse(added.body);
  EXPECT_EQ(body["results"][0]["memory"]["content"], "Old clients still send text");
  ASSERT_EQ(body["warnings"].size(), 1u);
  EXPECT_EQ(body["warnings"][0]["field"], "text");
  EXPECT_EQ(body["warnings"][0]["replacement"], "content");
  bool warned = false;
  for (const auto& [name, value] : added.headers) {
    warned |= name == "Warning" && value.rfind("299 ", 0) == 0 &&
              value.find("'text' is deprecated") != std::string::npos;
  }
  EXPECT_TRUE(warned);

  add.body = R"({"user_id":"u1","infer":false,"content":"New clients send content"})";
  Reply plain = Call("POST", "/v1/memories", add);
  ASSERT_EQ(plain.status, 201) << plain.body;
  EXPECT_FALSE(json::parse(plain.body).contains("warnings"));
  EXPECT_TRUE(plain.headers.empty());

  add.body = R"({"user_id":"u1","infer":false,"content":"a","text":"b"})";
  Reply conflict = Call("POST", "/v1/memories", add);
  EXPECT_EQ(conflict.status, 400);
  EXPECT_EQ(json::parse(conflict.body)["error"]["code"], "invalid_argument");
}

TEST_F(RouteHandlersTest, AddThenSearchWithinTheCallersTenant) {
  server::Call add;
  add.tenant = "acme";
  add.body =
      R"({"user_id":"u1","infer":false,"content":"The deploy key lives in the vault","tags":["ops"]})";
  Reply added = Call("POST", "/v1/memories", add);
  ASSERT_EQ(added.status, 201) << added.body;
  const std::string id = json::parse(added.body)["results"][0]["id"];

  server::Call search;
  search.tenant = "acme";
  search.body = R"({"user_id":"u1","query":"where is the deploy key","explain":true})";
  Reply found = Call("POST", "/v1/search", search);
  ASSERT_EQ(found.status, 200) << found.body;
  json hits = json::parse(found.body)["results"];
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]["id"], id);
  EXPECT_TRUE(hits[0]["explain"].contains("keyword"));

  search.tenant = "other";  // same user id, another tenant: nothing
  Reply other = Call("POST", "/v1/search", search);
  EXPECT_EQ(json::parse(other.body)["results"].size(), 0u);

  server::Call get;
  get.tenant = "other";
  get.path_params["id"] = id;
  get.params = {{"user_id", "u1"}};
  EXPECT_EQ(Call("GET", "/v1/memories/{id}", get).status, 404);
  get.tenant = "acme";
  EXPECT_EQ(Call("GET", "/v1/memories/{id}", get).status, 200);
}

TEST_F(RouteHandlersTest, HardDeleteErasesAndSoftDeleteKeepsHistory) {
  server::Call add;
  add.tenant = "t";
  add.body =
      R"({"user_id":"u","infer":false,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]})";
  Reply added = Call("POST", "/v1/memories", add);
  ASSERT_EQ(added.status, 201) << added.body;
  json results = json::parse(added.body)["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["memory"]["type"], "message");
  EXPECT_EQ(results[1]["memory"]["metadata"]["role"], "assistant");

  server::Call del;
  del.tenant = "t";
  del.path_params["id"] = results[0]["id"];
  del.params = {{"user_id", "u"}};
  EXPECT_EQ(Call("DELETE", "/v1/memories/{id}", del).status, 200);
  EXPECT_EQ(Call("GET", "/v1/memories/{id}/history", del).status, 200);

  del.path_params["id"] = results[1]["id"];
  del.params = {{"user_id", "u"}, {"hard", "true"}};
  EXPECT_EQ(Call("DELETE", "/v1/memories/{id}", del).status, 200);
  del.params = {{"user_id", "u"}};
  EXPECT_EQ(Call("GET", "/v1/memories/{id}/history", del).status, 404);
}

TEST_F(RouteHandlersTest, InferAddsExtractAndDecide) {
  server::Call add;
  add.tenant = "t";
  add.body = R"({"user_id":"u","content":"I live in Hangzhou."})";
  Reply first = Call("POST", "/v1/memories", add);
  ASSERT_EQ(first.status, 201) << first.body;
  json r1 = json::parse(first.body);
  // the turn as said, then what was extracted from it, linked both ways
  ASSERT_EQ(r1["results"].size(), 2u) << first.body;
  EXPECT_EQ(r1["results"][0]["kind"], "turn");
  EXPECT_EQ(r1["results"][0]["memory"]["content"], "I live in Hangzhou.");
  EXPECT_EQ(r1["results"][1]["kind"], "memory");
  EXPECT_EQ(r1["results"][1]["event"], "ADD");
  EXPECT_EQ(r1["results"][1]["memory"]["slot"], "user/location");
  EXPECT_EQ(r1["results"][0]["memory"]["derived_ids"][0], r1["results"][1]["id"]);
  EXPECT_EQ(r1["results"][1]["memory"]["source"]["turn_ids"][0], r1["results"][0]["id"]);
  EXPECT_EQ(r1["extractor"], "rules-v2");
  EXPECT_TRUE(r1["skipped"].empty());
  add.body = R"({"user_id":"u","content":"I moved to Suzhou."})";
  json r2 = json::parse(Call("POST", "/v1/memories", add).body);
  ASSERT_EQ(r2["results"].size(), 2u);
  EXPECT_EQ(r2["results"][1]["event"], "SUPERSEDE");
  EXPECT_EQ(r2["results"][1]["replaced"]["id"], r1["results"][1]["id"]);
  // Nothing worth keeping: 200 (nothing created) with the reason.
  add.body =
      R"({"user_id":"u","messages":[{"role":"user","content":"thanks!"},{"role":"assistant","content":"You're welcome"}]})";
  Reply chat = Call("POST", "/v1/memories", add);
  EXPECT_EQ(chat.status, 200) << chat.body;
  json r3 = json::parse(chat.body);
  EXPECT_TRUE(r3["results"].empty());
  ASSERT_EQ(r3["skipped"].size(), 2u);
  EXPECT_EQ(r3["skipped"][0]["message"], 0);
  EXPECT_NE(r3["skipped"][0].value("reason", "").find("chit-chat"), std::string::npos);
  EXPECT_NE(r3["skipped"][1].value("reason", "").find("assistant"), std::string::npos);
  // Async: 202 and a job readable only in its scope.
  add.body = R"({"user_id":"u","content":"I work at Initech.","async":true})";
  Reply accepted = Call("POST", "/v1/memories", add);
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  server::Call job;
  job.tenant = "t";
  job.path_params["id"] = json::parse(accepted.body)["job_id"];
  job.params = {{"user_id", "u"}};
  EXPECT_EQ(Call("GET", "/v1/jobs/{id}", job).status, 200);
  job.params = {{"user_id", "v"}};
  EXPECT_EQ(Call("GET", "/v1/jobs/{id}", job).status, 404);
}

TEST(RateLimiterTest, BucketRefillsAtTheRateAndKeysAreIndependent) {
  RateLimiter limiter(/*rate=*/2, /*burst=*/3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Acquire("a", 10.0), 0);
  const double wait = limiter.Acquire("a", 10.0);
  EXPECT_NEAR(wait, 0.5, 1e-9);              // one token comes back every 1/rate seconds
  EXPECT_EQ(limiter.Acquire("b", 10.0), 0);  // another key has its own bucket
  EXPECT_EQ(limiter.Acquire("a", 10.5), 0);
  EXPECT_GT(limiter.Acquire("a", 10.5), 0);
  EXPECT_EQ(limiter.Acquire("a", 100.0), 0);  // refills up to the burst, not beyond
  EXPECT_EQ(limiter.Acquire("a", 100.0), 0);
  EXPECT_EQ(limiter.Acquire("a", 100.0), 0);
  EXPECT_GT(limiter.Acquire("a", 100.0), 0);
}

TEST(RateLimiterTest, ZeroRateIsOff) {
  RateLimiter limiter(0, 0);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(limiter.Acquire("a", 1.0), 0);
}

TEST(MetricsTest, RendersCountersAndCumulativeHistogram) {
  Metrics m;
  m.Observe("POST /v1/search", 200, 0.0007);
  m.Observe("POST /v1/search", 200, 0.003);
  m.Observe("POST /v1/search", 400, 0.0001);
  Engine::Stats stats;
  stats.items_active = 7;
  const std::string text = m.Render(&stats);
  EXPECT_NE(text.find("engram_http_requests_total{route=\"POST /v1/search\",status=\"200\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("engram_http_requests_total{route=\"POST /v1/search\",status=\"400\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("le=\"0.0005\"} 1"), std::string::npos);
  EXPECT_NE(text.find("le=\"0.001\"} 2"), std::string::npos);
  EXPECT_NE(text.find("le=\"+Inf\"} 3"), std::string::npos);
  EXPECT_NE(text.find("engram_memories{status=\"active\"} 7"), std::string::npos);
}

}  // namespace
}  // namespace engram::server
