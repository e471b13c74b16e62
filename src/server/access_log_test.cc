// The access log buffers lines and writes them from its own thread: every line written by any
// thread must reach the file whole, in each thread's order, by Flush, by the flusher on its
// own, and at destruction.
#include "server/access_log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "testing/test_support.h"

namespace engram::server {
namespace {

using json = nlohmann::json;

std::vector<json> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));  // throws on a torn line
  return out;
}

AccessRecord Record(int thread, int i) {
  AccessRecord r;
  r.request_id = std::to_string(thread) + "-" + std::to_string(i);
  r.method = "POST";
  r.route = "POST /v1/search";
  r.path = "/v1/search";
  r.status = 200;
  r.duration_ms = 1.5;
  r.key_id = "key_" + std::to_string(thread);
  r.tenant = "acme";
  r.remote = "127.0.0.1";
  return r;
}

TEST(AccessLogTest, EveryLineFromEveryThreadIsWrittenWholeAndInOrderPerThread) {
  testing::TempDir dir;
  const std::string path = dir.File("access.log");
  constexpr int kThreads = 4, kLines = 5000;  // ~1.2 MB: crosses the early-wake size
  {
    auto log = AccessLog::Open(path);
    ASSERT_TRUE(log.ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kLines; ++i) (*log)->Write(Record(t, i));
      });
    }
    for (auto& th : threads) th.join();
  }  // destruction writes what is left
  const auto lines = ReadLines(path);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kLines));
  std::map<std::string, int> next;  // key_id → the next index expected from that thread
  for (const json& l : lines) {
    const std::string id = l.at("request_id");
    const int i = std::stoi(id.substr(id.find('-') + 1));
    EXPECT_EQ(i, next[l.at("key_id")]++) << id;
    EXPECT_EQ(l.at("status"), 200);
    EXPECT_EQ(l.at("route"), "POST /v1/search");
  }
}

TEST(AccessLogTest, FlushWritesAtOnceAndTheFlusherWritesWithoutBeingAsked) {
  testing::TempDir dir;
  const std::string path = dir.File("access.log");
  auto log = AccessLog::Open(path);
  ASSERT_TRUE(log.ok());
  (*log)->Write(Record(0, 0));
  (*log)->Flush();
  EXPECT_EQ(ReadLines(path).size(), 1u);
  (*log)->Write(Record(0, 1));
  // No Flush: the background thread writes it within kFlushMs (waited for up to 5 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ReadLines(path).size() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto lines = ReadLines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].at("request_id"), "0-1");
}

TEST(AccessLogTest, AnEmptyTargetLogsNothingAndAnUnwritablePathIsAnError) {
  auto off = AccessLog::Open("");
  ASSERT_TRUE(off.ok());
  (*off)->Write(Record(0, 0));
  (*off)->Flush();
  auto bad = AccessLog::Open("/nonexistent-dir/engram/access.log");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cannot open access log"), std::string::npos);
}

}  // namespace
}  // namespace engram::server
