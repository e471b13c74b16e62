// The edge's request-head checks: what waits for more bytes, what is accepted, and each refusal
// with its status; the framing of a connection's request stream (what is passed on, cut at any
// byte); and the JSON error response the edge writes.
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
  EXPECT_EQ(StatusOf(post + "Transfer-Encoding: gzip\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf(post + "Transfer-Encoding: gzip, chunked\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf(post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
            400);
  EXPECT_EQ(StatusOf(post + "Transfer-Encoding: Chunked\r\n\r\n"), 0);
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

TEST(RequestHeadTest, ACompleteHeadSaysHowItsBodyIsFramed) {
  const std::string head = "POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n";
  auto v = CheckRequestHead(head + "{\"query\":1}", {});
  EXPECT_EQ(v.head_bytes, head.size());
  EXPECT_EQ(v.content_length, 12);
  EXPECT_FALSE(v.chunked);
  auto chunked = CheckRequestHead("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n2\n{}", {});
  EXPECT_TRUE(chunked.chunked);
  EXPECT_EQ(chunked.content_length, -1);
  EXPECT_EQ(chunked.head_bytes,
            std::string("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n").size());
  EXPECT_EQ(CheckRequestHead("GET / HTTP/1.1\r\n\r\n", {}).content_length, -1);
}

// Feeds `stream` to a framer in pieces of `step` bytes; returns what it passed on.
std::string FrameInSteps(RequestFramer& f, std::string_view stream, size_t step) {
  std::string out;
  for (size_t i = 0; i < stream.size(); i += step) {
    if (!f.Feed(stream.substr(i, step), &out)) break;
  }
  return out;
}

TEST(RequestFramerTest, PassesRequestsOnWholeHoweverTheBytesAreCut) {
  const std::string a = "POST /v1/search HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
  const std::string b =
      "POST /v1/memories HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n";
  const std::string c = "GET /healthz HTTP/1.0\n\n";
  // An empty line between requests is dropped, as RFC 9112 allows.
  const std::string stream = a + b + "\r\n" + c;
  for (size_t step : {size_t{1}, size_t{2}, size_t{7}, stream.size()}) {
    RequestFramer f;
    EXPECT_EQ(FrameInSteps(f, stream, step), a + b + c) << step;
    EXPECT_EQ(f.requests(), 3) << step;
    EXPECT_FALSE(f.in_request()) << step;
    EXPECT_EQ(f.error().status, 0) << step;
  }
}

TEST(RequestFramerTest, HoldsAHeadBackUntilItIsWholeAndABodyUntilItEnds) {
  RequestFramer f;
  std::string out;
  ASSERT_TRUE(f.Feed("POST /v1/search HTTP/1.1\r\nContent-Length: 4\r\n", &out));
  EXPECT_EQ(out, "");
  EXPECT_TRUE(f.in_request());
  EXPECT_FALSE(f.in_body());
  ASSERT_TRUE(f.Feed("\r\nab", &out));
  EXPECT_EQ(out, "POST /v1/search HTTP/1.1\r\nContent-Length: 4\r\n\r\nab");
  EXPECT_EQ(f.requests(), 1);
  EXPECT_TRUE(f.in_body());
  ASSERT_TRUE(f.Feed("cdGET", &out));
  EXPECT_TRUE(out.ends_with("abcd")) << "the next request's first bytes wait for its head";
  EXPECT_FALSE(f.in_body());
  EXPECT_TRUE(f.in_request());
  EXPECT_EQ(f.pending_head(), "GET");
}

TEST(RequestFramerTest, StopsAtTheFirstBadRequestAndPassesNothingOfIt) {
  const std::string good = "GET /healthz HTTP/1.1\r\n\r\n";
  struct Case {
    std::string bad;
    int status;
    bool in_body;  // the refused request's head was passed on already
  };
  const Case cases[] = {
      {"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400, false},
      {"GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n", 414, false},
      {"GET / HTTP/1.1\r\nX: " + std::string(20000, 'b') + "\r\n\r\n", 431, false},
      {"GET / HTTP/3.0\r\n\r\n", 505, false},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, true},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX", 400, true},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(5000, '1'), 400, true},
  };
  for (const Case& c : cases) {
    for (size_t step : {size_t{1}, size_t{3}, size_t{100000}}) {
      RequestFramer f;
      const std::string out = FrameInSteps(f, good + c.bad + good, step);
      EXPECT_EQ(f.error().status, c.status) << c.bad.substr(0, 60) << " step " << step;
      EXPECT_EQ(f.requests(), c.in_body ? 2 : 1);
      EXPECT_EQ(f.in_body(), c.in_body);
      EXPECT_TRUE(out.starts_with(good));
      EXPECT_EQ(out.find("XX"), std::string::npos);
      EXPECT_EQ(out.find("zz"), std::string::npos);
      EXPECT_EQ(out.rfind(good), 0u) << "nothing after the bad request is passed on";
      std::string more;
      EXPECT_FALSE(f.Feed(good, &more));
      EXPECT_EQ(more, "");
    }
  }
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
