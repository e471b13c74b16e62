// The replicas' shared state against a real Redis (scripts/redis_test.sh starts one on
// loopback and runs this with ENGRAM_TEST_REDIS_URL, _DIR and _SCRIPT set): commands and
// scripts, an outage that fails fast and is logged once, rate-limit buckets and session
// summary counts shared by two "replicas", and both falling back to per-process state while
// Redis is down.
#include "shared/redis.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "engram/sessions.h"
#include "server/rate_limiter.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using shared::Redis;
using shared::RedisOptions;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = Env("ENGRAM_TEST_REDIS_URL");
    ASSERT_FALSE(url_.empty()) << "run through scripts/redis_test.sh (ENGRAM_TEST_REDIS_URL)";
    Control("start");
    auto r = Open();
    ASSERT_TRUE(r->Command({"FLUSHALL"}).ok());
  }
  void TearDown() override { Control("start"); }  // the next test finds it running

  // Stops or starts the test's Redis (same port) through its script.
  void Control(const std::string& what) {
    const std::string cmd = Env("ENGRAM_TEST_REDIS_SCRIPT") + " " + what + " " +
                            Env("ENGRAM_TEST_REDIS_DIR") + " > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::unique_ptr<Redis> Open(int retry_ms = 50) {
    RedisOptions o;
    o.retry_ms = retry_ms;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.push_back(line);
    };
    auto r = Redis::Open(url_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  }
  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }

  std::string url_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(RedisTest, CommandsAndScriptsRoundTripAndAScriptSurvivesAFlush) {
  auto r = Open();
  ASSERT_TRUE(r->Command({"SET", "engram:test", std::string("a\0b", 3)}).ok());
  auto got = r->Command({"GET", "engram:test"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->str, std::string("a\0b", 3));  // binary-safe
  const std::string script = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
  auto n = r->Eval(script, {"engram:n"}, {"5"});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->integer, 5);
  // A restarted Redis has forgotten its scripts: NOSCRIPT, loaded again, run once.
  ASSERT_TRUE(r->Command({"SCRIPT", "FLUSH"}).ok());
  n = r->Eval(script, {"engram:n"}, {"2"});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->integer, 7);
  // An error reply is an error, not an outage.
  auto wrong = r->Command({"INCR", "engram:test"});
  EXPECT_EQ(wrong.status().code(), StatusCode::kInternal);
  EXPECT_TRUE(r->health().up);
}

TEST_F(RedisTest, AnOutageFailsFastIsLoggedOnceAndEndsByItself) {
  auto r = Open(/*retry_ms=*/100);
  ASSERT_TRUE(r->Command({"PING"}).ok());
  Control("stop");
  for (int i = 0; i < 20; ++i) {
    auto failed = r->Command({"PING"});
    ASSERT_EQ(failed.status().code(), StatusCode::kUnavailable) << i;
  }
  EXPECT_FALSE(r->health().up);
  EXPECT_FALSE(r->health().cause.empty());
  EXPECT_GE(r->health().errors, 1);
  auto log = Log();
  ASSERT_EQ(log.size(), 1u);  // once, not per call
  EXPECT_NE(log[0].find("unreachable"), std::string::npos) << log[0];
  EXPECT_NE(log[0].find("redis://127.0.0.1:"), std::string::npos) << log[0];

  Control("start");
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = r->Command({"PING"}).ok();
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(back);
  EXPECT_TRUE(r->health().up);
  log = Log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NE(log[1].find("back"), std::string::npos) << log[1];
}

TEST_F(RedisTest, APasswordAndADatabaseNumberAreUsed) {
  auto admin = Open();
  ASSERT_TRUE(admin->Command({"CONFIG", "SET", "requirepass", "pw-1"}).ok());
  const std::string hostport = url_.substr(std::string("redis://").size());
  RedisOptions quiet;
  quiet.log = [](const std::string&) {};
  auto with = Redis::Open("redis://:pw-1@" + hostport + "/3", quiet);
  ASSERT_TRUE(with.ok());
  ASSERT_TRUE((*with)->Command({"SET", "engram:db3", "x"}).ok());
  auto without = Redis::Open(url_, quiet);
  auto refused = (*without)->Command({"PING"});
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("NOAUTH"), std::string::npos)
      << refused.status().ToString();
  ASSERT_TRUE((*with)->Command({"CONFIG", "SET", "requirepass", ""}).ok());
  // The key went to database 3, not 0.
  auto db0 = admin->Command({"EXISTS", "engram:db3"});
  ASSERT_TRUE(db0.ok()) << db0.status().ToString();
  EXPECT_EQ(db0->integer, 0);
}

TEST_F(RedisTest, TwoReplicasShareOneBucketPerKey) {
  auto r = Open();
  server::RateLimiter a(/*rate=*/1, /*burst=*/3), b(1, 3);
  a.Share(r.get());
  b.Share(r.get());
  // Three tokens in all, whichever replica takes them; each replica alone would allow three.
  EXPECT_EQ(a.Acquire("key_1", 0), 0);
  EXPECT_EQ(b.Acquire("key_1", 0), 0);
  EXPECT_EQ(a.Acquire("key_1", 0), 0);
  const double wait = b.Acquire("key_1", 0);
  EXPECT_GT(wait, 0);
  EXPECT_LE(wait, 1.0);
  EXPECT_EQ(a.Acquire("key_2", 0), 0);  // another key has its own bucket
}

TEST_F(RedisTest, WithoutRedisEachReplicaLimitsAloneAndNothingFails) {
  auto r = Open(/*retry_ms=*/60'000);
  server::RateLimiter a(1, 2);
  a.Share(r.get());
  Control("stop");
  // The replica's own bucket: two at once, then a wait; never an error.
  EXPECT_EQ(a.Acquire("key_1", 100), 0);
  EXPECT_EQ(a.Acquire("key_1", 100), 0);
  EXPECT_GT(a.Acquire("key_1", 100), 0);
  EXPECT_FALSE(r->health().up);
}

class NoExtraction : public Extractor {
 public:
  const std::string& name() const override { return name_; }
  Result<ExtractionResult> Extract(const ExtractionInput&) override {
    return ExtractionResult{{}, "none", ""};
  }

 private:
  std::string name_ = "none";
};

class SharedSessionTest : public RedisTest {
 protected:
  void SetUp() override {
    RedisTest::SetUp();
    engine_ = testing::OpenEngine(dir_.File("s.db"), &clock_);
    writer_ = std::make_unique<MemoryWriter>(
        engine_.get(), WriterOptions{.extractor = std::make_shared<NoExtraction>()});
    redis_ = Open(/*retry_ms=*/60'000);
    options_.summarize_every = 4;
  }
  std::vector<Turn> Two(const std::string& a, const std::string& b) {
    return {Turn{"user", a, 0, ""}, Turn{"assistant", b, 0, ""}};
  }

  testing::TempDir dir_;
  ManualClock clock_{1'764'900'000'000};  // 2025-12-05
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryWriter> writer_;
  std::unique_ptr<Redis> redis_;
  SessionOptions options_;
  Scope s1_{"default", "alice", "", "s1"};
};

TEST_F(SharedSessionTest, TheSummaryComesEveryNTurnsWhicheverReplicaTookThem) {
  options_.redis = redis_.get();
  SessionManager a(engine_.get(), writer_.get(), options_, &clock_);
  SessionManager b(engine_.get(), writer_.get(), options_, &clock_);
  auto first = a.Append(s1_, Two("I moved to Lisbon in May.", "Nice city!"), false);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->summary.has_value());
  auto second = b.Append(s1_, Two("I work at a bakery there.", "Sounds fun."), false);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE(second->summary.has_value());  // the 4th turn of the session, taken by b
  EXPECT_NE(second->summary->content.find("Lisbon"), std::string::npos);
  auto third = a.Append(s1_, Two("My sister visits in June.", "Great."), false);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->summary.has_value());  // the count started again, for both
  // The count lives with the session's TTL.
  auto ttl = redis_->Command({"PTTL", "engram:session:7:default5:alices1"});
  ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
  EXPECT_GT(ttl->integer, 0);
  EXPECT_LE(ttl->integer, options_.ttl_ms);
  // Closing drops it.
  ASSERT_TRUE(a.Close(s1_).ok());
  auto gone = redis_->Command({"EXISTS", "engram:session:7:default5:alices1"});
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->integer, 0);
}

TEST_F(SharedSessionTest, WithoutRedisEachReplicaCountsItsOwnTurnsAndAppendsSucceed) {
  options_.redis = redis_.get();
  SessionManager a(engine_.get(), writer_.get(), options_, &clock_);
  SessionManager b(engine_.get(), writer_.get(), options_, &clock_);
  Control("stop");
  auto first = a.Append(s1_, Two("I moved to Lisbon in May.", "Nice city!"), false);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = b.Append(s1_, Two("I work at a bakery there.", "Sounds fun."), false);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->summary.has_value());  // b has seen two turns of its own
  auto third = b.Append(s1_, Two("My sister visits in June.", "Great."), false);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->summary.has_value());  // b's 4th
  // The buffer is still the whole session's, from the store.
  auto working = a.Working(s1_);
  ASSERT_TRUE(working.ok());
  EXPECT_EQ(working->turns.size(), 6u);
}

}  // namespace
}  // namespace engram
