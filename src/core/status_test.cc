#include "engram/status.h"

#include <gtest/gtest.h>

#include "core/status_macros.h"

namespace engram {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = Status::NotFound("memory x not found");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not_found: memory x not found");
  EXPECT_EQ(s.WithContext("get").message(), "get: memory x not found");
  EXPECT_EQ(s.WithContext("get").code(), StatusCode::kNotFound);
}

TEST(StatusTest, EveryCodeHasADistinctName) {
  std::set<std::string_view> names;
  for (StatusCode c :
       {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kNotFound, StatusCode::kConflict,
        StatusCode::kUnavailable, StatusCode::kCorruption, StatusCode::kIOError,
        StatusCode::kPermissionDenied, StatusCode::kInternal}) {
    names.insert(StatusCodeName(c));
  }
  EXPECT_EQ(names.size(), 9u);
}

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  ENGRAM_ASSIGN_OR_RETURN(int h, Half(x));
  ENGRAM_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(ResultTest, PropagatesErrorsThroughMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "odd");
}

}  // namespace
}  // namespace engram
