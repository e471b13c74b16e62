// The pieces every remote provider client shares (embedder and chat client); their behaviour
// over a real server is tested in openai_embedder_test.cc and llm/openai_chat_client_test.cc.
#include "embed/provider_http.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace engram::provider {
namespace {

HttpResponse WithRetryAfter(const std::string& value) {
  HttpResponse r;
  r.status = 429;
  r.headers = {{"retry-AFTER", value}};
  return r;
}

TEST(ProviderHttpTest, UrlsAndSchemes) {
  EXPECT_EQ(EndpointUrl("http://h:1/v1//", "/chat/completions"), "http://h:1/v1/chat/completions");
  EXPECT_TRUE(HasHttpScheme("HTTPS://api.deepseek.com"));
  EXPECT_FALSE(HasHttpScheme("localhost:11434/v1"));
}

TEST(ProviderHttpTest, RetryAfterAndBackoff) {
  EXPECT_EQ(RetryAfterMs(WithRetryAfter("2")), 2000);
  EXPECT_EQ(RetryAfterMs(WithRetryAfter("0.25")), 250);
  EXPECT_EQ(RetryAfterMs(WithRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")), 0);
  EXPECT_EQ(RetryAfterMs(WithRetryAfter("99999")), kMaxBackoffMs);
  EXPECT_EQ(RetryAfterMs(HttpResponse{}), 0);
  EXPECT_EQ(BackoffMs(0, 100, 0), 100);
  EXPECT_EQ(BackoffMs(3, 100, 0), 800);
  EXPECT_EQ(BackoffMs(1, 100, 1500), 1500);
  EXPECT_EQ(BackoffMs(40, 100, 0), kMaxBackoffMs);
}

TEST(ProviderHttpTest, ClassifiesErrorResponses) {
  HttpResponse r;
  r.body = R"({"error":{"message":"slow down"}})";
  for (int code : {408, 429, 500, 503}) {
    r.status = code;
    AttemptOutcome o = ClassifyErrorResponse(r, "client", "http://h/x");
    EXPECT_EQ(o.failure, Failure::kTransient) << code;
    EXPECT_EQ(o.status.code(), StatusCode::kUnavailable) << code;
    EXPECT_EQ(o.status.message(),
              "client: HTTP " + std::to_string(code) + " from http://h/x: slow down");
  }
  r.status = 403;
  EXPECT_EQ(ClassifyErrorResponse(r, "c", "u").status.code(), StatusCode::kPermissionDenied);
  r.status = 422;
  EXPECT_EQ(ClassifyErrorResponse(r, "c", "u").failure, Failure::kPermanent);
  EXPECT_EQ(ProviderMessage(R"({"error":"model not found"})"), "model not found");
  EXPECT_EQ(ProviderMessage(""), "(empty body)");
}

TEST(ProviderHttpTest, RetriesTransientUpToTheLimitAndMalformedOnce) {
  auto run = [](std::vector<Failure> script, int max_retries, int* calls) {
    *calls = 0;
    return RunWithRetries({max_retries, 0}, [&]() -> AttemptOutcome {
      Failure f = script[std::min<size_t>(*calls, script.size() - 1)];
      ++*calls;
      if (f == Failure::kNone) return {};
      return {f, Status::Unavailable("try " + std::to_string(*calls))};
    });
  };
  int calls = 0;
  EXPECT_TRUE(run({Failure::kTransient, Failure::kTransient, Failure::kNone}, 3, &calls).ok());
  EXPECT_EQ(calls, 3);
  Status s = run({Failure::kTransient}, 2, &calls);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(s.message(), "try 3 (gave up after 3 attempts)");
  EXPECT_FALSE(run({Failure::kMalformed}, 5, &calls).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(run({Failure::kPermanent}, 5, &calls).message(), "try 1");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace engram::provider
