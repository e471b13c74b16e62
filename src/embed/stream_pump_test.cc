// The default transport's streams (HttpTransport::StartStream, read by embed::StreamPump)
// against a real HTTP server on loopback.
#include "embed/stream_pump.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engram/embedder.h"
#include "testing/closed_port.h"

namespace engram {
namespace {

using namespace std::chrono_literals;

// A loopback server with a few answers: a stream of pieces, a stream that breaks off, an error
// reply, a silent one, and an echo of what arrived.
class Upstream {
 public:
  Upstream() {
    // httplib's default pool (8 threads here) would hold the many-streams test's streams back.
    server_.new_task_queue = [] { return new httplib::ThreadPool(64); };
    server_.set_tcp_nodelay(true);  // pieces go out as written, not after the client's ACK
    server_.Post("/stream", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ports_.insert(req.remote_port);
      }
      const int pieces =
          std::stoi(req.get_param_value("n").empty() ? "5" : req.get_param_value("n"));
      res.set_chunked_content_provider(
          "text/event-stream", [this, pieces, i = 0](size_t, httplib::DataSink& sink) mutable {
            if (i == pieces) {
              sink.done();
              return true;
            }
            const std::string piece = "data: piece-" + std::to_string(i++) + "\n\n";
            if (!sink.write(piece.data(), piece.size())) {
              left_ = true;
              return false;
            }
            std::this_thread::sleep_for(5ms);
            return true;
          });
    });
    server_.Post("/broken", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream",
                                       [i = 0](size_t, httplib::DataSink& sink) mutable {
                                         if (i++ == 0) {
                                           sink.write("data: a\n\n", 9);
                                           return true;
                                         }
                                         return false;  // closes with no last chunk
                                       });
    });
    server_.Post("/error", [](const httplib::Request&, httplib::Response& res) {
      res.status = 429;
      res.set_header("Retry-After", "7");
      res.set_content(R"({"error":{"message":"slow down"}})", "application/json");
    });
    server_.Post("/silent", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(3s);
      res.set_content("late", "text/plain");
    });
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      std::string out = req.body.size() > 20 ? "size=" + std::to_string(req.body.size()) : req.body;
      out += "|x-test=" + req.get_header_value("X-Test");
      out += "|expect=" + req.get_header_value("Expect");
      res.set_content(out, "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~Upstream() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::set<int> Ports() {
    std::lock_guard<std::mutex> lock(mu_);
    return ports_;
  }
  bool ClientLeft() const { return left_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::set<int> ports_;
  std::atomic<bool> left_{false};
};

// What one stream delivered, filled on the transport's thread.
struct Got {
  std::mutex mu;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int pieces = 0;
  std::set<std::thread::id> threads;
  std::promise<Status> done;
};

HttpStreamHandler Collect(const std::shared_ptr<Got>& got, int stop_after_pieces = -1) {
  HttpStreamHandler h;
  h.on_response = [got](int status, const auto& headers) {
    std::lock_guard<std::mutex> lock(got->mu);
    got->status = status;
    got->headers = headers;
    got->threads.insert(std::this_thread::get_id());
    return true;
  };
  h.on_body = [got, stop_after_pieces](std::string_view piece) {
    std::lock_guard<std::mutex> lock(got->mu);
    got->body.append(piece);
    got->threads.insert(std::this_thread::get_id());
    return ++got->pieces != stop_after_pieces;
  };
  return h;
}

Status StreamTo(HttpTransport& transport, HttpRequest req, const std::shared_ptr<Got>& got,
                int stop_after_pieces = -1) {
  std::future<Status> done = got->done.get_future();
  transport.StartStream(std::move(req), Collect(got, stop_after_pieces),
                        [got](Status s) { got->done.set_value(s); });
  EXPECT_EQ(done.wait_for(30s), std::future_status::ready);
  return done.get();
}

HttpRequest Post(const std::string& url, int timeout_ms = 10'000) {
  HttpRequest req;
  req.url = url;
  req.body = R"({"stream":true})";
  req.headers = {{"Content-Type", "application/json"}};
  req.timeout_ms = timeout_ms;
  return req;
}

TEST(StreamPumpTest, ManyStreamsArriveWholeAndInOrderOnOneThread) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  constexpr int kStreams = 24;
  std::vector<std::shared_ptr<Got>> got;
  std::vector<std::future<Status>> done;
  for (int i = 0; i < kStreams; ++i) {
    got.push_back(std::make_shared<Got>());
    done.push_back(got.back()->done.get_future());
    transport->StartStream(Post(upstream.Url("/stream?n=20")), Collect(got.back()),
                           [g = got.back()](Status s) { g->done.set_value(s); });
    // httplib's server listens with a backlog of 5: connections opened all at once would wait
    // for a SYN retry. Started 2 ms apart, the 24 streams (100 ms each) still run together.
    std::this_thread::sleep_for(2ms);
  }
  std::string expected;
  for (int i = 0; i < 20; ++i) expected += "data: piece-" + std::to_string(i) + "\n\n";
  std::set<std::thread::id> threads;
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_EQ(done[i].wait_for(30s), std::future_status::ready);

    EXPECT_TRUE(done[i].get().ok());
    EXPECT_EQ(got[i]->status, 200);
    EXPECT_EQ(got[i]->body, expected);
    threads.insert(got[i]->threads.begin(), got[i]->threads.end());
  }
  // Every stream was read by the same thread, and not the caller's.
  EXPECT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(StreamPumpTest, StreamsOneAfterAnotherReuseTheConnection) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  for (int i = 0; i < 3; ++i) {
    auto got = std::make_shared<Got>();
    ASSERT_TRUE(StreamTo(*transport, Post(upstream.Url("/stream?n=2")), got).ok());
    EXPECT_EQ(got->pieces > 0, true);
  }
  EXPECT_EQ(upstream.Ports().size(), 1u);
}

TEST(StreamPumpTest, AnErrorReplyComesWithItsStatusHeadersAndBody) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  ASSERT_TRUE(StreamTo(*transport, Post(upstream.Url("/error")), got).ok());
  EXPECT_EQ(got->status, 429);
  EXPECT_EQ(got->body, R"({"error":{"message":"slow down"}})");
  bool retry_after = false;
  for (const auto& [name, value] : got->headers)
    retry_after |= name == "Retry-After" && value == "7";
  EXPECT_TRUE(retry_after);
}

TEST(StreamPumpTest, ABodyThatBreaksOffIsUnavailableAfterTheResponse) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  Status s = StreamTo(*transport, Post(upstream.Url("/broken")), got);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("broke off"), std::string::npos) << s.message();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "data: a\n\n");
}

TEST(StreamPumpTest, ARefusedConnectionIsUnavailableWithNoResponse) {
  const int port = testing::ClosedPort();
  ASSERT_NE(port, 0);
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  Status s = StreamTo(*transport, Post("http://127.0.0.1:" + std::to_string(port) + "/x"), got);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("no response"), std::string::npos) << s.message();
  EXPECT_EQ(got->status, 0);
}

TEST(StreamPumpTest, AHandlerThatStopsEndsTheStreamWithoutAnError) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  Status s =
      StreamTo(*transport, Post(upstream.Url("/stream?n=400")), got, /*stop_after_pieces=*/2);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got->pieces, 2);
  // The upstream sees the connection go: its writes fail well before its 400 pieces.
  for (int i = 0; i < 400 && !upstream.ClientLeft(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(upstream.ClientLeft());
}

TEST(StreamPumpTest, AnUpstreamSilentLongerThanTheTimeoutIsUnavailable) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  Status s = StreamTo(*transport, Post(upstream.Url("/silent"), /*timeout_ms=*/1000), got);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(got->status, 0);
  EXPECT_TRUE(got->body.empty());
}

TEST(StreamPumpTest, TheRequestsHeadersAndBodyArriveAndNoExpectRoundTrip) {
  Upstream upstream;
  auto transport = MakeHttpTransport();
  auto got = std::make_shared<Got>();
  HttpRequest req = Post(upstream.Url("/echo"));
  req.body.assign(200'000, 'x');  // large enough that libcurl would ask "Expect: 100-continue"
  req.headers.emplace_back("X-Test", "yes");
  ASSERT_TRUE(StreamTo(*transport, req, got).ok());
  EXPECT_EQ(got->body, "size=200000|x-test=yes|expect=");
}

TEST(StreamPumpTest, ABadRequestIsRefusedBeforeStartStreamReturns) {
  auto transport = MakeHttpTransport();
  for (HttpRequest req : {Post("ftp://127.0.0.1/x"), Post("http://127.0.0.1:1/x", 0)}) {
    bool told = false;
    Status got;
    transport->StartStream(std::move(req), HttpStreamHandler{}, [&](Status s) {
      told = true;
      got = s;
    });
    EXPECT_TRUE(told);
    EXPECT_EQ(got.code(), StatusCode::kInvalidArgument);
  }
  HttpRequest split = Post("http://127.0.0.1:1/x");
  split.headers.emplace_back("X-Bad", "a\r\nInjected: 1");
  Status got;
  transport->StartStream(split, HttpStreamHandler{}, [&](Status s) { got = s; });
  EXPECT_EQ(got.code(), StatusCode::kInvalidArgument);
}

TEST(StreamPumpTest, StreamsStillOpenEndWhenThePumpGoes) {
  Upstream upstream;
  auto got = std::make_shared<Got>();
  std::future<Status> done = got->done.get_future();
  {
    embed::StreamPump pump;
    pump.Start(Post(upstream.Url("/silent")), Collect(got),
               [got](Status s) { got->done.set_value(s); });
  }
  ASSERT_EQ(done.wait_for(0s), std::future_status::ready);
  Status s = done.get();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("shut down"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace engram
