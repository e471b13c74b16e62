// Redis URLs: what --redis accepts, and what it says about what it does not.
#include <gtest/gtest.h>

#include "shared/redis.h"

namespace engram::shared {
namespace {

TEST(RedisUrlTest, HostPortPasswordAndDatabase) {
  auto a = ParseRedisUrl("redis://:s3cret@10.0.0.5:6380/2");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "10.0.0.5");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->user, "");
  EXPECT_EQ(a->password, "s3cret");
  EXPECT_EQ(a->db, 2);
  EXPECT_EQ(a->Redacted(), "redis://10.0.0.5:6380/2");  // never the password

  auto b = ParseRedisUrl("redis://cache.internal");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "cache.internal");
  EXPECT_EQ(b->port, 6379);
  EXPECT_EQ(b->db, 0);

  auto c = ParseRedisUrl("redis://engram:pw@h:7000");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->user, "engram");
  EXPECT_EQ(c->password, "pw");
}

TEST(RedisUrlTest, BadUrlsSayWhatIsWrong) {
  auto scheme = ParseRedisUrl("http://h:6379");
  ASSERT_EQ(scheme.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(scheme.status().message().find("redis://"), std::string::npos);
  auto port = ParseRedisUrl("redis://h:70000");
  ASSERT_EQ(port.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(port.status().message().find("port"), std::string::npos);
  auto db = ParseRedisUrl("redis://h/zero");
  ASSERT_EQ(db.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(db.status().message().find("database"), std::string::npos);
  EXPECT_EQ(ParseRedisUrl("redis://").status().code(), StatusCode::kInvalidArgument);
  // A password never appears in an error.
  auto secret = ParseRedisUrl("redis://:hunter2@h:notaport");
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(secret.status().message().find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace engram::shared
