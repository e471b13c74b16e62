// The gate's request-head checks: what waits for more bytes, what is accepted, and each refusal
// with its status; and the JSON error response the gate writes.
#include "server/request_head.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace engram::server {
namespace {

int StatusOf(std::string_view head) { return CheckRequestHead(head, HeadLimits{}).status; }

TEST(RequestHeadTest, WaitsForTheBlankLineThenAccepts) {
  auto partial = CheckRequestHead("POST /v1/search HTTP/1.1\r\nHost: x\r\n", {});
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.status, 0);
  auto whole =
      CheckRequestHead("POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", {});
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.status, 0);
  EXPECT_TRUE(CheckRequestHead("GET /healthz HTTP/1.0\n\n", {}).complete);
  EXPECT_EQ(StatusOf("GET /v1/memories?user_id=a%00b HTTP/1.1\r\n\r\n"), 0)
      << "the query may hold encoded bytes; only the path may not";
}

TEST(RequestHeadTest, RefusesWhatCannotBeServedOrIsAmbiguous) {
  const std::string post = "POST /v1/search HTTP/1.1\r\nHost: x\r\n";
  for (const char* cl :
       {"-1", "abc", "+10", "1 0", "", "99999999999999999999", "9223372036854775808"}) {
    EXPECT_EQ(StatusOf(post + "Content-Length: " + cl + "\r\n\r\n"), 400) << cl;
  }
  EXPECT_EQ(StatusOf(post + "Content-Length: 9223372036854775807\r\n\r\n"), 0);
  EXPECT_EQ(StatusOf(post + "Content-Length: 2\r\ncontent-length: 2\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf(post + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /v1/memories/abc%00x HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /v1/memories/abc%7F HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /v1/memories/abc\x01 HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET healthz HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/1.1 extra\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("G@T /healthz HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(StatusOf("GET /healthz SPDY\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/1.1\r\nBad line\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/1.1\r\nName : v\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /healthz HTTP/1.1\r\nA: b\x01\r\n\r\n"), 400);
  // Too long: known before the head ends.
  const HeadLimits tight{.max_uri_bytes = 10, .max_head_bytes = 40};
  EXPECT_EQ(CheckRequestHead("GET /0123456789abc HTTP/1.1\r\n", tight).status, 414);
  EXPECT_EQ(CheckRequestHead("GET /" + std::string(100, 'a'), tight).status, 414);
  EXPECT_EQ(CheckRequestHead("GET /a HTTP/1.1\r\nX: 0123456789012345678901234567", tight).status,
            431);
}

TEST(RequestHeadTest, TheGatesAnswerIsAJsonErrorThatClosesTheConnection) {
  const std::string r = JsonErrorResponse(503, "unavailable", "too many \"connections\"");
  const size_t end = r.find("\r\n\r\n");
  ASSERT_NE(end, std::string::npos);
  const std::string head = r.substr(0, end), body = r.substr(end + 4);
  EXPECT_EQ(head.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u);
  EXPECT_NE(head.find("Content-Type: application/json"), std::string::npos);
  EXPECT_NE(head.find("Connection: close"), std::string::npos);
  EXPECT_NE(head.find("Retry-After: 1"), std::string::npos);
  EXPECT_NE(head.find("Content-Length: " + std::to_string(body.size())), std::string::npos);
  const auto j = nlohmann::json::parse(body);
  EXPECT_EQ(j["error"]["code"], "unavailable");
  EXPECT_EQ(j["error"]["message"], "too many \"connections\"");
}

}  // namespace
}  // namespace engram::server
