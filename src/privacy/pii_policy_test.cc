#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "engram/privacy.h"

namespace engram {
namespace {

PiiPolicy Policy(std::string_view spec, std::string hash_key = "deployment-secret") {
  Result<PiiPolicy> policy = PiiPolicy::Parse(spec);
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  PiiPolicy out = policy.ok() ? *policy : PiiPolicy();
  out.hash_key = std::move(hash_key);
  return out;
}

std::string Applied(std::string_view text, const PiiPolicy& policy) {
  Result<PiiOutcome> outcome = ApplyPiiPolicy(text, policy);
  if (!outcome.ok()) return "<" + outcome.status().ToString() + ">";
  return outcome->text;
}

// ---- names and parsing ----

TEST(PiiPolicyTest, NamesOfKindsAndActions) {
  EXPECT_EQ(ToString(PiiKind::kEmail), "email");
  EXPECT_EQ(ToString(PiiKind::kPhone), "phone");
  EXPECT_EQ(ToString(PiiKind::kChineseId), "cn_id");
  EXPECT_EQ(ToString(PiiKind::kBankCard), "bank_card");
  EXPECT_EQ(ToString(PiiKind::kIpAddress), "ip");
  EXPECT_EQ(ToString(PiiKind::kSecret), "secret");
  EXPECT_EQ(ToString(PiiAction::kKeep), "keep");
  EXPECT_EQ(ToString(PiiAction::kRedact), "redact");
  EXPECT_EQ(ToString(PiiAction::kHash), "hash");
  EXPECT_EQ(ToString(PiiAction::kReject), "reject");
}

TEST(PiiPolicyTest, ParsesADefaultActionAndOverrides) {
  PiiPolicy policy = Policy("redact,email=keep,secret=reject");
  EXPECT_EQ(policy.action, PiiAction::kRedact);
  EXPECT_EQ(policy.overrides.size(), 2u);
  EXPECT_EQ(policy.ActionFor(PiiKind::kEmail), PiiAction::kKeep);
  EXPECT_EQ(policy.ActionFor(PiiKind::kSecret), PiiAction::kReject);
  EXPECT_EQ(policy.ActionFor(PiiKind::kPhone), PiiAction::kRedact);
  EXPECT_EQ(policy.ActionFor(PiiKind::kBankCard), PiiAction::kRedact);

  EXPECT_EQ(Policy("hash").action, PiiAction::kHash);
  EXPECT_TRUE(Policy("hash").overrides.empty());
  PiiPolicy spaced = Policy(" hash , phone = reject ");
  EXPECT_EQ(spaced.action, PiiAction::kHash);
  EXPECT_EQ(spaced.ActionFor(PiiKind::kPhone), PiiAction::kReject);
  PiiPolicy only_overrides = Policy("cn_id=reject,bank_card=hash,ip=redact");
  EXPECT_EQ(only_overrides.action, PiiAction::kKeep);
  EXPECT_EQ(only_overrides.ActionFor(PiiKind::kIpAddress), PiiAction::kRedact);
  EXPECT_EQ(only_overrides.ActionFor(PiiKind::kEmail), PiiAction::kKeep);
}

TEST(PiiPolicyTest, RejectsMalformedSpecsNamingTheProblem) {
  struct Case {
    std::string spec;
    std::string in_message;
  };
  const Case cases[] = {
      {"", "empty privacy policy"},
      {"  ", "empty privacy policy"},
      {"redcat", "\"redcat\""},
      {"redact,mail=keep", "\"mail\""},
      {"redact,email=drop", "\"drop\""},
      {"redact,email=keep,email=hash", "twice"},
      {"email=keep,redact", "must come first"},
      {"redact,,phone=keep", "empty entry"},
      {"redact,", "empty entry"},
  };
  for (const Case& c : cases) {
    Result<PiiPolicy> policy = PiiPolicy::Parse(c.spec);
    ASSERT_FALSE(policy.ok()) << c.spec;
    EXPECT_EQ(policy.status().code(), StatusCode::kInvalidArgument) << c.spec;
    EXPECT_NE(policy.status().message().find(c.in_message), std::string::npos)
        << c.spec << " → " << policy.status().message();
  }
}

// ---- actions ----

TEST(PiiPolicyTest, KeepLeavesTheTextAndReportsFindings) {
  std::string text = "我的手机号是13812345678，邮箱a.b@example.com";
  Result<PiiOutcome> outcome = ApplyPiiPolicy(text, Policy("keep"));
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->text, text);
  ASSERT_EQ(outcome->findings.size(), 2u);
  EXPECT_EQ(outcome->findings[0].kind, PiiKind::kPhone);
  EXPECT_EQ(outcome->findings[1].kind, PiiKind::kEmail);
}

TEST(PiiPolicyTest, RedactWritesTypedPlaceholders) {
  EXPECT_EQ(Applied("我的手机号是13812345678，邮箱a.b@example.com。", Policy("redact")),
            "我的手机号是[phone]，邮箱[email]。");
  EXPECT_EQ(Applied("身份证11010519491231002X，卡号4111 1111 1111 1111，IP 10.0.0.1，"
                    "key sk-proj-abc123DEF456ghi789JKL012mno",
                    Policy("redact")),
            "身份证[cn_id]，卡号[bank_card]，IP [ip]，key [secret]");
  EXPECT_EQ(Applied("password: hunter2", Policy("redact")), "password: [secret]");
  EXPECT_EQ(Applied("nothing personal here, 第3章", Policy("redact")),
            "nothing personal here, 第3章");
}

TEST(PiiPolicyTest, OverridesApplyPerKind) {
  EXPECT_EQ(Applied("call 13812345678 or mail li@example.com", Policy("redact,email=keep")),
            "call [phone] or mail li@example.com");
  // Only the kinds present matter: a rejected kind that does not occur rejects nothing.
  EXPECT_EQ(Applied("call 13812345678", Policy("redact,email=reject")), "call [phone]");
}

TEST(PiiPolicyTest, HashWritesAKeyedPlaceholder) {
  std::string out = Applied("手机13812345678", Policy("hash"));
  EXPECT_TRUE(std::regex_match(out, std::regex("手机\\[phone:[0-9a-f]{8}\\]"))) << out;
  EXPECT_EQ(out.find("13812345678"), std::string::npos);
  std::string email = Applied("mail li@example.com", Policy("hash"));
  EXPECT_TRUE(std::regex_match(email, std::regex("mail \\[email:[0-9a-f]{8}\\]"))) << email;
}

TEST(PiiPolicyTest, HashIsDeterministicAcrossWritingsOfOneValue) {
  PiiPolicy policy = Policy("hash");
  std::string plain = Applied("13812345678", policy);
  EXPECT_EQ(Applied("13812345678", policy), plain);
  EXPECT_EQ(Applied("138-1234-5678", policy), plain);
  EXPECT_EQ(Applied("+86 138 1234 5678", policy), plain);
  EXPECT_EQ(Applied("0086 13812345678", policy), plain);
  EXPECT_EQ(Applied("１３８１２３４５６７８", policy), plain);
  EXPECT_EQ(Applied("Li.Si@Example.COM", policy), Applied("li.si@example.com", policy));
  EXPECT_EQ(Applied("11010519491231002x", policy), Applied("11010519491231002X", policy));
  EXPECT_EQ(Applied("4111-1111-1111-1111", policy), Applied("4111111111111111", policy));
  EXPECT_NE(Applied("13812345678", policy), Applied("13987654321", policy));
}

TEST(PiiPolicyTest, HashDependsOnTheKey) {
  std::string a = Applied("13812345678", Policy("hash", "key-a"));
  std::string b = Applied("13812345678", Policy("hash", "key-b"));
  EXPECT_NE(a, b);
  EXPECT_EQ(a, Applied("13812345678", Policy("hash", "key-a")));
}

TEST(PiiPolicyTest, HashWithoutAKeyIsRefused) {
  Result<PiiOutcome> outcome = ApplyPiiPolicy("no personal data", Policy("redact,phone=hash", ""));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status().message().find("hash key"), std::string::npos);
}

TEST(PiiPolicyTest, RejectNamesTheKindAndNeverTheValue) {
  Result<PiiOutcome> outcome = ApplyPiiPolicy("我的手机号是13812345678", Policy("reject"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(outcome.status().message(),
            "content contains a phone number; the privacy policy rejects it");
  EXPECT_EQ(outcome.status().ToString().find("13812345678"), std::string::npos);
}

TEST(PiiPolicyTest, RejectListsEveryRejectedKindOnce) {
  std::string text = "13812345678, li@example.com, 13987654321, password: hunter2, 10.0.0.1";
  Result<PiiOutcome> outcome = ApplyPiiPolicy(text, Policy("reject,ip=keep"));
  ASSERT_FALSE(outcome.ok());
  std::string message = outcome.status().message();
  EXPECT_EQ(message,
            "content contains a phone number, an e-mail address and a secret (key, token or "
            "password); the privacy policy rejects them");
  for (std::string_view value : {"13812345678", "li@example.com", "hunter2", "10.0.0.1"}) {
    EXPECT_EQ(message.find(value), std::string::npos) << value;
  }
}

TEST(PiiPolicyTest, RejectWinsOverOtherActionsInOneText) {
  Result<PiiOutcome> outcome = ApplyPiiPolicy("mail li@example.com, key AKIAIOSFODNN7EXAMPLE",
                                              Policy("redact,secret=reject"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().message(),
            "content contains a secret (key, token or password); the privacy policy rejects it");
}

TEST(PiiPolicyTest, FindingsKeepOffsetsIntoTheOriginalText) {
  std::string text = "邮箱a@example.com 手机13812345678";
  Result<PiiOutcome> outcome = ApplyPiiPolicy(text, Policy("redact"));
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->text, "邮箱[email] 手机[phone]");
  ASSERT_EQ(outcome->findings.size(), 2u);
  EXPECT_EQ(text.substr(outcome->findings[0].offset, outcome->findings[0].length), "a@example.com");
  EXPECT_EQ(text.substr(outcome->findings[1].offset, outcome->findings[1].length), "13812345678");
}

}  // namespace
}  // namespace engram
