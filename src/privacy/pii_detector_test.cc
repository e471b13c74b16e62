#include <gtest/gtest.h>

#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engram/privacy.h"
#include "privacy/pii_scanners.h"
#include "text/utf8.h"

namespace engram {

void PrintTo(PiiKind kind, std::ostream* os) { *os << ToString(kind); }

namespace {

using Found = std::vector<std::pair<PiiKind, std::string>>;

// The findings as (kind, matched text), checking on the way that they are sorted and disjoint.
Found Find(std::string_view text) {
  Found found;
  size_t previous_end = 0;
  for (const PiiFinding& f : DetectPii(text)) {
    EXPECT_GE(f.offset, previous_end) << "overlapping or unsorted findings in: " << text;
    EXPECT_LE(f.offset + f.length, text.size());
    previous_end = f.offset + f.length;
    found.emplace_back(f.kind, std::string(text.substr(f.offset, f.length)));
  }
  return found;
}

// The single finding's text if `text` holds exactly one finding of `kind`, else a description.
std::string Only(PiiKind kind, std::string_view text) {
  Found found = Find(text);
  if (found.size() != 1) return "<" + std::to_string(found.size()) + " findings>";
  if (found[0].first != kind) return "<kind " + std::string(ToString(found[0].first)) + ">";
  return found[0].second;
}

// ---- e-mail ----

TEST(PiiDetectorTest, FindsEmailsInChineseAndEnglishText) {
  EXPECT_EQ(Only(PiiKind::kEmail, "联系我：zhang.san@example.com，谢谢"), "zhang.san@example.com");
  EXPECT_EQ(Only(PiiKind::kEmail, "Mail John.Doe+news@mail.example.co.uk."),
            "John.Doe+news@mail.example.co.uk");
  EXPECT_EQ(Only(PiiKind::kEmail, "邮箱是a_b-c@sub-domain.example.org"),
            "a_b-c@sub-domain.example.org");
  // A QQ-style address made of a phone number is one e-mail address, not a phone.
  EXPECT_EQ(Only(PiiKind::kEmail, "发到13812345678@163.com吧"), "13812345678@163.com");
}

TEST(PiiDetectorTest, IgnoresThingsThatOnlyResembleEmails) {
  EXPECT_EQ(Find("ping user@localhost"), Found{});  // no TLD
  EXPECT_EQ(Find("thanks @alice and @bob"), Found{});
  EXPECT_EQ(Find("a@b.c is too short a TLD"), Found{});
  EXPECT_EQ(Find("pkg@1.2.3 and numpy@2.0"), Found{});
}

// ---- phone ----

TEST(PiiDetectorTest, FindsChineseMobileNumbersInsideChineseText) {
  std::string text = "我的手机号是13812345678，有事打给我";
  std::vector<PiiFinding> findings = DetectPii(text);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, PiiKind::kPhone);
  EXPECT_EQ(findings[0].offset, std::string("我的手机号是").size());  // 18 bytes, 6 characters
  EXPECT_EQ(findings[0].length, 11u);
}

TEST(PiiDetectorTest, FindsChineseMobileNumbersInTheirUsualForms) {
  for (std::string number :
       {"13812345678", "138-1234-5678", "138 1234 5678", "+86 138 1234 5678", "+8613812345678",
        "+86-13812345678", "0086 13812345678", "(+86) 199 8765 4321", "15912345678"}) {
    EXPECT_EQ(Only(PiiKind::kPhone, "电话：" + number + "。"), number);
  }
}

TEST(PiiDetectorTest, FindsFullWidthDigits) {
  EXPECT_EQ(Only(PiiKind::kPhone, "手机１３８１２３４５６７８"), "１３８１２３４５６７８");
  EXPECT_EQ(Only(PiiKind::kPhone, "手机１３８－１２３４－５６７８"), "１３８－１２３４－５６７８");
}

TEST(PiiDetectorTest, FindsInternationalAndUsNumbers) {
  EXPECT_EQ(Only(PiiKind::kPhone, "London office: +44 20 7946 0958."), "+44 20 7946 0958");
  EXPECT_EQ(Only(PiiKind::kPhone, "call +1 (415) 555-2671 today"), "+1 (415) 555-2671");
  EXPECT_EQ(Only(PiiKind::kPhone, "Berlin +49-30-1234567"), "+49-30-1234567");
  EXPECT_EQ(Only(PiiKind::kPhone, "call (415) 555-2671"), "(415) 555-2671");
  EXPECT_EQ(Only(PiiKind::kPhone, "call 415-555-2671 or"), "415-555-2671");
}

TEST(PiiDetectorTest, FindsEachOfSeveralNumbersSeparatedBySpaces) {
  EXPECT_EQ(Find("13812345678 13987654321"),
            (Found{{PiiKind::kPhone, "13812345678"}, {PiiKind::kPhone, "13987654321"}}));
}

TEST(PiiDetectorTest, DoesNotSplitGluedDigitsOrLettersIntoAPhone) {
  EXPECT_EQ(Find("订单号213812345678已发货"), Found{});  // 12 digits
  EXPECT_EQ(Find("流水号 138123456789"), Found{});       // 12 digits
  EXPECT_EQ(Find("id abc13812345678"), Found{});
  EXPECT_EQ(Find("ref 13812345678abc"), Found{});
  EXPECT_EQ(Find("code 99-13812345678"), Found{});         // continues a dashed number
  EXPECT_EQ(Find("12345678901 starts with 12"), Found{});  // not a mobile prefix
}

TEST(PiiDetectorTest, IgnoresDatesTimesPricesAndShortNumbers) {
  EXPECT_EQ(Find("会议在2023-05-08 12:30举行"), Found{});
  EXPECT_EQ(Find("on 2023/05/08 at 09:15:30"), Found{});
  EXPECT_EQ(Find("价格 ￥1,380.00 元，优惠 138.50"), Found{});
  EXPECT_EQ(Find("dial 10086 or 110"), Found{});
  EXPECT_EQ(Find("+123 is not a phone"), Found{});
  EXPECT_EQ(Find("NANP area codes do not start with 1: 123-456-7890"), Found{});
  EXPECT_EQ(Find("population 1400000000 people"), Found{});
}

// ---- Chinese resident id ----

TEST(PiiDetectorTest, FindsChineseIdsWithAValidChecksum) {
  EXPECT_EQ(Only(PiiKind::kChineseId, "身份证号：11010519491231002X。"), "11010519491231002X");
  EXPECT_EQ(Only(PiiKind::kChineseId, "id 11010519491231002x"), "11010519491231002x");
  EXPECT_EQ(Only(PiiKind::kChineseId, "身份证110101199003074514"), "110101199003074514");
  EXPECT_EQ(Only(PiiKind::kChineseId, "ID: 440304198512121237"), "440304198512121237");
  EXPECT_EQ(Only(PiiKind::kChineseId, "生于闰日310115200002291235"), "310115200002291235");
  EXPECT_EQ(Only(PiiKind::kChineseId, "证件 110101 19900307 4514"), "110101 19900307 4514");
}

TEST(PiiDetectorTest, IgnoresEighteenDigitsThatFailTheIdChecks) {
  EXPECT_EQ(Find("身份证110101199003074515"), Found{});  // wrong check digit
  // Wrong check digit but Luhn-valid: laid out like an id, so not reported as a bank card.
  ASSERT_TRUE(pii::LuhnValid("110101199003074510"));
  EXPECT_EQ(Find("编号110101199003074510"), Found{});
  EXPECT_EQ(Find("110101199013074514"), Found{});   // month 13
  EXPECT_EQ(Find("990101199003074514"), Found{});   // no such region
  EXPECT_EQ(Find("1110101199003074514"), Found{});  // 19 digits glued
}

TEST(PiiDetectorTest, IdCheckFollowsIso7064) {
  EXPECT_TRUE(pii::ChineseIdValid("11010519491231002X"));
  EXPECT_TRUE(pii::ChineseIdValid("110101199003078881"));
  EXPECT_FALSE(pii::ChineseIdValid("110105194912310021"));
  EXPECT_FALSE(pii::ChineseIdValid("310115200102291234"));  // 2001 is not a leap year
  EXPECT_FALSE(pii::ChineseIdValid("11010519491231002"));
}

// ---- bank card ----

TEST(PiiDetectorTest, FindsBankCardsThatPassLuhn) {
  EXPECT_EQ(Only(PiiKind::kBankCard, "卡号：6222020012345678903，开户行"), "6222020012345678903");
  EXPECT_EQ(Only(PiiKind::kBankCard, "卡号 6222 0200 1234 5678 903"), "6222 0200 1234 5678 903");
  EXPECT_EQ(Only(PiiKind::kBankCard, "Visa 4111 1111 1111 1111 exp 12/29"), "4111 1111 1111 1111");
  EXPECT_EQ(Only(PiiKind::kBankCard, "card 4111-1111-1111-1111."), "4111-1111-1111-1111");
  EXPECT_EQ(Only(PiiKind::kBankCard, "MC 5555555555554444"), "5555555555554444");
  EXPECT_EQ(Only(PiiKind::kBankCard, "Amex 3782 822463 10005"), "3782 822463 10005");
  EXPECT_EQ(Only(PiiKind::kBankCard, "建行卡６２２８４８００１２３４５６７８９４"),
            "６２２８４８００１２３４５６７８９４");
}

TEST(PiiDetectorTest, IgnoresNumbersThatAreNotCards) {
  EXPECT_EQ(Find("订单号 4111111111111112"), Found{});  // fails Luhn
  EXPECT_EQ(Find("ts=1700000000000"), Found{});         // a millisecond timestamp
  EXPECT_EQ(Find("0000 0000 0000 0000"), Found{});
  EXPECT_EQ(Find("4111 1111 11111111"), Found{});   // not a card grouping
  EXPECT_EQ(Find("4111-1111 1111-1111"), Found{});  // mixed separators
}

TEST(PiiDetectorTest, LuhnCheck) {
  EXPECT_TRUE(pii::LuhnValid("4111111111111111"));
  EXPECT_TRUE(pii::LuhnValid("378282246310005"));
  EXPECT_FALSE(pii::LuhnValid("4111111111111112"));
  EXPECT_FALSE(pii::LuhnValid(""));
  EXPECT_FALSE(pii::LuhnValid("41111111x1111111"));
}

// ---- IP addresses ----

TEST(PiiDetectorTest, FindsIpv4Addresses) {
  EXPECT_EQ(Only(PiiKind::kIpAddress, "服务器IP是192.168.1.10，端口22"), "192.168.1.10");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "connect to 10.0.0.1:8080 now"), "10.0.0.1");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "IP:8.8.8.8."), "8.8.8.8");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "subnet 172.16.0.0/12"), "172.16.0.0");
}

TEST(PiiDetectorTest, FindsIpv6AddressesFullAndCompressed) {
  EXPECT_EQ(Only(PiiKind::kIpAddress, "addr 2001:0db8:85a3:0000:0000:8a2e:0370:7334 up"),
            "2001:0db8:85a3:0000:0000:8a2e:0370:7334");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "地址2001:db8::1。"), "2001:db8::1");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "link fe80::1ff:fe23:4567:890a%eth0"),
            "fe80::1ff:fe23:4567:890a");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "mapped ::ffff:192.0.2.128 here"), "::ffff:192.0.2.128");
  EXPECT_EQ(Only(PiiKind::kIpAddress, "[2001:DB8:0:0:8:800:200C:417A]:443"),
            "2001:DB8:0:0:8:800:200C:417A");
}

TEST(PiiDetectorTest, IgnoresVersionsTimesAndOtherDottedOrColonedText) {
  EXPECT_EQ(Find("升级到1.2.3.4.5版本"), Found{});
  EXPECT_EQ(Find("256.1.1.1 and 192.168.1 and 01.02.03.04"), Found{});
  EXPECT_EQ(Find("meet at 12:30, leave 12:30:45"), Found{});
  EXPECT_EQ(Find("std::vector and a::b"), Found{});
  EXPECT_EQ(Find("MAC 00:1a:2b:3c:4d:5e"), Found{});
  EXPECT_EQ(Find("loopback ::1"), Found{});
  EXPECT_EQ(Find("dated 2023.05.08"), Found{});
}

// ---- secrets ----

TEST(PiiDetectorTest, FindsKeysInKnownFormats) {
  const std::string keys[] = {
      "sk-proj-abc123DEF456ghi789JKL012mno",
      "sk-ant-api03-Xy7Zq2Wv9Rt4Lm8Kp3Nc6Bd1",
      "ghp_1234567890abcdefghijABCDEFGHIJ123456",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
      "AKIAIOSFODNN7EXAMPLE",
      "xoxb-123456789012-abcdefABCDEF",
      "AIzaSyA1234567890abcdefghijklmnopqrstuv",
      "egk_Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkwYWJjZGVmZ2g",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
      "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  };
  for (const std::string& key : keys) {
    EXPECT_EQ(Only(PiiKind::kSecret, "我的key是 " + key + " 别外传"), key);
  }
}

TEST(PiiDetectorTest, FindsAPrivateKeyBlockWhole) {
  std::string block =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
      "4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n"
      "-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(Only(PiiKind::kSecret, "key:\n" + block + "\nthanks"), block);
  EXPECT_EQ(Find("-----BEGIN PUBLIC KEY----- is fine to share"), Found{});
}

TEST(PiiDetectorTest, ReportsOnlyTheValueAfterALabel) {
  EXPECT_EQ(Only(PiiKind::kSecret, "Authorization: Bearer abc123def456ghi789jkl"),
            "abc123def456ghi789jkl");
  EXPECT_EQ(Only(PiiKind::kSecret, "我的密码是abc123，别告诉别人"), "abc123");
  EXPECT_EQ(Only(PiiKind::kSecret, "wifi密码：Passw0rd。"), "Passw0rd");
  EXPECT_EQ(Only(PiiKind::kSecret, "口令 = 778899"), "778899");
  EXPECT_EQ(Only(PiiKind::kSecret, "my password is hunter2."), "hunter2");
  EXPECT_EQ(Only(PiiKind::kSecret, "DB_PASSWORD=S3cr3t!x"), "S3cr3t!x");
  EXPECT_EQ(Only(PiiKind::kSecret, "pwd: qwerty"), "qwerty");
  EXPECT_EQ(Only(PiiKind::kSecret, R"({"user": "li", "password": "p@ss word"})"), "p@ss word");
  EXPECT_EQ(Only(PiiKind::kSecret, "密码是“abc 123”"), "abc 123");
  // The password in a URL's user info, not an e-mail address "S3cretPass@db.example.com".
  EXPECT_EQ(Only(PiiKind::kSecret, "数据库 postgres://admin:S3cretPass@db.example.com:5432/app"),
            "S3cretPass");
  EXPECT_EQ(Only(PiiKind::kSecret, "redis://:p4ss@localhost:6379/0"), "p4ss");
}

TEST(PiiDetectorTest, IgnoresPasswordTalkWithoutAValue) {
  EXPECT_EQ(Find("the password is wrong"), Found{});
  EXPECT_EQ(Find("我忘记密码了，密码是错的"), Found{});
  EXPECT_EQ(Find("passwords are hard; password_reset_url: /reset"), Found{});
  EXPECT_EQ(Find("我在学密码学"), Found{});
  EXPECT_EQ(Find("run cd $(pwd) first"), Found{});
  EXPECT_EQ(Find("Bearer authentication is an HTTP scheme"), Found{});
}

TEST(PiiDetectorTest, IgnoresKeyPrefixesInsideWordsAndShortBodies) {
  EXPECT_EQ(Find("task-1234567890abcdefghijklmn"), Found{});
  EXPECT_EQ(Find("pip install scikit-learn; sk-learn"), Found{});
  EXPECT_EQ(Find("sk-this-is-a-long-slug-without-any-digits"), Found{});
  EXPECT_EQ(Find("AKIA123"), Found{});
}

TEST(PiiDetectorTest, FindsLongRandomTokens) {
  EXPECT_EQ(Only(PiiKind::kSecret, "token Zq4Xv9Lm2Rt7Wp3Kc8Hs5Nd1Gf6Jb0Ty please"),
            "Zq4Xv9Lm2Rt7Wp3Kc8Hs5Nd1Gf6Jb0Ty");
  EXPECT_EQ(Only(PiiKind::kSecret, "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
}

TEST(PiiDetectorTest, LeavesHashesUuidsUrlsAndIdentifiersAlone) {
  EXPECT_EQ(Find("commit 3f9a1c2b4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90 fixed it"), Found{});
  EXPECT_EQ(Find("sha256 E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"),
            Found{});
  EXPECT_EQ(Find("id 0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b"), Found{});
  EXPECT_EQ(Find("see https://example.com/AbC123xYz987QwE456rTy321UiO654pAsDfG"), Found{});
  EXPECT_EQ(Find("ThisIsAVeryLongCamelCaseIdentifier2024 and "
                 "XMLHttpRequestEventTarget2ProgressEvent"),
            Found{});
  EXPECT_EQ(Find("IMG_20230508_123456_HDR_Portrait_Mode1.jpg"), Found{});
}

// ---- several findings, overlaps ----

TEST(PiiDetectorTest, FindsSeveralKindsInOrderWithByteOffsets) {
  std::string text =
      "张三，手机13812345678，邮箱zhangsan@example.com，身份证11010519491231002X，"
      "卡号6222020012345678903，IP 10.1.2.3";
  EXPECT_EQ(Find(text), (Found{{PiiKind::kPhone, "13812345678"},
                               {PiiKind::kEmail, "zhangsan@example.com"},
                               {PiiKind::kChineseId, "11010519491231002X"},
                               {PiiKind::kBankCard, "6222020012345678903"},
                               {PiiKind::kIpAddress, "10.1.2.3"}}));
  std::vector<PiiFinding> findings = DetectPii(text);
  ASSERT_EQ(findings.size(), 5u);
  EXPECT_EQ(findings[0].offset, text.find("13812345678"));
  EXPECT_EQ(findings[4].offset, text.find("10.1.2.3"));
}

TEST(PiiDetectorTest, PrefersTheMoreSpecificKindWhenMatchesOverlap) {
  EXPECT_EQ(Find("密码：13812345678"), (Found{{PiiKind::kSecret, "13812345678"}}));
  EXPECT_EQ(Find("password: zhang@example.com"), (Found{{PiiKind::kSecret, "zhang@example.com"}}));
}

// Random texts built from the pieces the scanners look for, ill-formed UTF-8 included: findings
// stay sorted, disjoint, inside the text, and on character boundaries when the text is valid.
TEST(PiiDetectorTest, FindingsStayWellFormedOnRandomText) {
  const std::vector<std::string> pieces = {"1",
                                           "3",
                                           "8",
                                           "0",
                                           "-",
                                           " ",
                                           ".",
                                           ":",
                                           "::",
                                           "+",
                                           "(",
                                           ")",
                                           "@",
                                           "a",
                                           "X",
                                           "Z",
                                           "_",
                                           "/",
                                           "=",
                                           "sk-",
                                           "eyJ",
                                           "AKIA",
                                           "密码",
                                           "是",
                                           "：",
                                           "password",
                                           "is",
                                           "，",
                                           "１",
                                           "８",
                                           "－",
                                           "＋86",
                                           "13812345678",
                                           "10.0.0.1",
                                           "fe80",
                                           "@example.com",
                                           "\xEF\xBC",
                                           "\xE6",
                                           "Bearer ",
                                           "-----BEGIN PRIVATE KEY-----",
                                           "-----END ",
                                           "\"",
                                           "“",
                                           "\n",
                                           "4111111111111111"};
  std::mt19937 rng(20261130);
  size_t total = 0;
  for (int round = 0; round < 10000; ++round) {
    std::string text;
    for (int n = static_cast<int>(rng() % 24); n > 0; --n) text += pieces[rng() % pieces.size()];
    size_t previous_end = 0;
    bool valid = IsValidUtf8(text);
    for (const PiiFinding& f : DetectPii(text)) {
      ASSERT_GT(f.length, 0u) << text;
      ASSERT_GE(f.offset, previous_end) << text;
      ASSERT_LE(f.offset + f.length, text.size()) << text;
      if (valid) {
        ASSERT_NE(static_cast<unsigned char>(text[f.offset]) & 0xC0, 0x80) << text;
        size_t end = f.offset + f.length;
        ASSERT_TRUE(end == text.size() || (static_cast<unsigned char>(text[end]) & 0xC0) != 0x80)
            << text;
      }
      previous_end = f.offset + f.length;
      ++total;
    }
  }
  EXPECT_GT(total, 500u);  // the pieces do produce findings
}

TEST(PiiDetectorTest, NothingInOrdinaryText) {
  EXPECT_EQ(Find(""), Found{});
  EXPECT_EQ(Find("我住在北京，喜欢喝茶。I live in Beijing and like tea."), Found{});
  EXPECT_EQ(Find("第3章第12节，共128页，2024年买的"), Found{});
}

}  // namespace
}  // namespace engram
