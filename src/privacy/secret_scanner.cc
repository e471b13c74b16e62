// Secrets: credentials in well-known formats, password values after a label or inside a URL,
// and long random tokens. The known formats are reported whole; for a label ("password: x",
// "Bearer x", "user:x@host") only the value is, so a redacted text still says what was there.
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "privacy/pii_scanners.h"
#include "privacy/scan_chars.h"

namespace engram::pii {
namespace {

constexpr size_t kNone = std::string_view::npos;

enum class Body { kAlnum, kUpperDigit, kWord, kAlnumDash, kBase64Url };

bool InBody(Body body, char c) {
  switch (body) {
    case Body::kAlnum:
      return IsAsciiAlnum(c);
    case Body::kUpperDigit:
      return IsAsciiDigit(c) || (c >= 'A' && c <= 'Z');
    case Body::kWord:
      return IsAsciiAlnum(c) || c == '_';
    case Body::kAlnumDash:
      return IsAsciiAlnum(c) || c == '-';
    case Body::kBase64Url:
      return IsAsciiAlnum(c) || c == '_' || c == '-';
  }
  return false;
}

struct KeyFormat {
  std::string_view prefix;
  Body body;
  size_t min_body;
  size_t max_body;
};

// Published token formats: OpenAI ("sk-", "sk-proj-", also Anthropic's "sk-ant-"), GitHub,
// AWS access key ids, Slack, Google API keys, and Engram's own API keys (keys.h).
constexpr std::array<KeyFormat, 15> kKeyFormats = {{
    {"sk-", Body::kBase64Url, 20, 256},
    {"ghp_", Body::kAlnum, 30, 255},
    {"gho_", Body::kAlnum, 30, 255},
    {"ghu_", Body::kAlnum, 30, 255},
    {"ghs_", Body::kAlnum, 30, 255},
    {"ghr_", Body::kAlnum, 30, 255},
    {"github_pat_", Body::kWord, 22, 255},
    {"AKIA", Body::kUpperDigit, 16, 16},
    {"ASIA", Body::kUpperDigit, 16, 16},
    {"xoxb-", Body::kAlnumDash, 10, 255},
    {"xoxa-", Body::kAlnumDash, 10, 255},
    {"xoxp-", Body::kAlnumDash, 10, 255},
    {"xoxr-", Body::kAlnumDash, 10, 255},
    {"AIza", Body::kBase64Url, 35, 35},
    {"egk_", Body::kBase64Url, 20, 255},
}};

bool HasDigitAndLetter(std::string_view s) {
  bool digit = false, letter = false;
  for (char c : s) {
    digit = digit || IsAsciiDigit(c);
    letter = letter || IsAsciiAlpha(c);
  }
  return digit && letter;
}

void AddSecret(size_t begin, size_t end, Rank rank, Candidates* out) {
  out->push_back({PiiKind::kSecret, rank, begin, end - begin});
}

// A key must not continue a word or a dashed name: "task-…" and "my-sk-…" are no keys.
bool KeyStartsAt(std::string_view text, size_t i) {
  return !WordCharBefore(text, i) && !(i > 0 && text[i - 1] == '-');
}

void ScanKeyFormat(std::string_view text, const KeyFormat& f, Candidates* out) {
  for (size_t i = text.find(f.prefix); i != kNone; i = text.find(f.prefix, i + 1)) {
    if (!KeyStartsAt(text, i)) continue;
    size_t end = i + f.prefix.size();
    while (end < text.size() && InBody(f.body, text[end])) ++end;
    std::string_view body = text.substr(i + f.prefix.size(), end - i - f.prefix.size());
    if (body.size() < f.min_body || body.size() > f.max_body || WordCharAt(text, end)) continue;
    if (!HasDigitAndLetter(body)) continue;  // real keys mix both; "sk-this-is-a-slug" is prose
    AddSecret(i, end, Rank::kKeyedSecret, out);
  }
}

// "-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED ]PRIVATE KEY-----" through its END line (or the end
// of the text when the block was cut off).
void ScanPrivateKeyBlocks(std::string_view text, Candidates* out) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  for (size_t i = text.find(kBegin); i != kNone; i = text.find(kBegin, i + 1)) {
    // A bounded search: many BEGINs without an end must not make the scan quadratic.
    std::string_view label = text.substr(i + kBegin.size(), 64);
    size_t label_end = label.find("-----");
    if (label_end == kNone) continue;
    label = label.substr(0, label_end);
    label_end += i + kBegin.size();
    if (label.find("PRIVATE KEY") == kNone) continue;
    size_t end = text.find("-----END ", label_end + 5);
    end = end == kNone ? kNone : text.find("-----", end + 9);
    end = end == kNone ? text.size() : end + 5;
    AddSecret(i, end, Rank::kKeyedSecret, out);
    i = end - 1;
  }
}

size_t Base64UrlEnd(std::string_view text, size_t i) {
  while (i < text.size() && InBody(Body::kBase64Url, text[i])) ++i;
  return i;
}

// A JSON Web Token: header and payload are base64url JSON objects, so both start with "eyJ".
void ScanJwts(std::string_view text, Candidates* out) {
  for (size_t i = text.find("eyJ"); i != kNone; i = text.find("eyJ", i + 1)) {
    if (!KeyStartsAt(text, i) || (i > 0 && text[i - 1] == '.')) continue;
    size_t header_end = Base64UrlEnd(text, i);
    if (header_end - i < 10 || text.substr(header_end, 4) != ".eyJ") continue;
    size_t payload_end = Base64UrlEnd(text, header_end + 1);
    if (payload_end - header_end < 11 || payload_end >= text.size() || text[payload_end] != '.') {
      continue;
    }
    AddSecret(i, Base64UrlEnd(text, payload_end + 1), Rank::kKeyedSecret, out);
  }
}

bool IsTokenChar(char c) {
  return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}

// "Bearer <token>" (HTTP Authorization): the token, when it holds letters and digits and is
// 16+ characters long ("Bearer authentication" is prose).
void ScanBearerTokens(std::string_view text, Candidates* out) {
  for (size_t i = 0; i + 7 < text.size(); ++i) {
    if (AsciiLower(text[i]) != 'b' || !StartsWithNoCase(text, i, "bearer ") ||
        WordCharBefore(text, i)) {
      continue;
    }
    size_t begin = i + 7;
    while (begin < text.size() && text[begin] == ' ') ++begin;
    size_t end = begin;
    while (end < text.size() && IsTokenChar(text[end])) ++end;
    std::string_view token = text.substr(begin, end - begin);
    if (token.size() >= 16 && HasDigitAndLetter(token)) {
      AddSecret(begin, end, Rank::kKeyedSecret, out);
    }
  }
}

// "scheme://user:password@host": the password. Bounded like QuotedValue.
void ScanUrlCredentials(std::string_view text, Candidates* out) {
  constexpr std::string_view kUserinfoChars = "-._~%!$&'()*+,;=:";
  for (size_t i = text.find("://"); i != kNone; i = text.find("://", i + 1)) {
    size_t begin = i + 3, at = begin;
    while (at < text.size() && at - begin < 256 &&
           (IsAsciiAlnum(text[at]) || kUserinfoChars.find(text[at]) != kNone)) {
      ++at;
    }
    if (at >= text.size() || text[at] != '@') continue;
    size_t colon = text.substr(begin, at - begin).find(':');
    if (colon != kNone && begin + colon + 1 < at) {
      AddSecret(begin + colon + 1, at, Rank::kKeyedSecret, out);
    }
  }
}

// ---- "password: value" ----

size_t SkipSpaces(std::string_view text, size_t p) {
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  return p;
}

// The separator after a password label: ':' '=' '：' '＝' '是' '为' or the word "is" (then
// *strict: the value must hold a non-letter, so "the password is wrong" is not a finding).
// Returns the position after it, or kNone.
size_t SeparatorEnd(std::string_view text, size_t p, bool* strict) {
  *strict = false;
  if (p < text.size() && (text[p] == ':' || text[p] == '=')) return p + 1;
  for (std::string_view s : {"\xEF\xBC\x9A", "\xEF\xBC\x9D", "\xE6\x98\xAF", "\xE4\xB8\xBA"}) {
    if (text.substr(p, s.size()) == s) return p + s.size();
  }
  if (StartsWithNoCase(text, p, "is") && !WordCharAt(text, p + 2)) {
    *strict = true;
    return p + 2;
  }
  return kNone;
}

constexpr size_t kMaxQuotedValue = 256;

// A quoted value ('…', "…", “…”, 「…」) on one line: its [begin, end) inside the quotes, or false.
bool QuotedValue(std::string_view text, size_t p, size_t* begin, size_t* end) {
  static constexpr std::array<std::array<std::string_view, 2>, 4> kQuotes = {
      {{"\"", "\""},
       {"'", "'"},
       {"\xE2\x80\x9C", "\xE2\x80\x9D"},
       {"\xE3\x80\x8C", "\xE3\x80\x8D"}}};
  for (const auto& [open, close] : kQuotes) {
    if (text.substr(p, open.size()) != open) continue;
    // Bounded, so that many unclosed quotes cannot make the scan quadratic.
    std::string_view rest = text.substr(p + open.size(), kMaxQuotedValue);
    size_t close_at = rest.find(close);
    if (close_at == kNone || close_at == 0 || rest.find('\n') < close_at) return false;
    *begin = p + open.size();
    *end = *begin + close_at;
    return true;
  }
  return false;
}

// An unquoted value: printable ASCII up to a space or non-ASCII character, without trailing
// sentence punctuation.
void BareValue(std::string_view text, size_t p, size_t* end) {
  size_t e = p;
  while (e < text.size() && text[e] > ' ' && text[e] < 0x7F) ++e;
  while (e > p && std::string_view(".,;:!?)]}\"'").find(text[e - 1]) != kNone) --e;
  *end = e;
}

void ScanPasswordValue(std::string_view text, size_t p, Candidates* out) {
  p = SkipSpaces(text, p);
  if (p < text.size() && (text[p] == '"' || text[p] == '\'')) p = SkipSpaces(text, p + 1);
  bool strict = false;
  p = SeparatorEnd(text, p, &strict);
  if (p == kNone) return;
  if (strict && p < text.size() && text[p] == ':') ++p;  // "password is: x"
  p = SkipSpaces(text, p);
  size_t begin = p, end = p;
  bool quoted = QuotedValue(text, p, &begin, &end);
  if (!quoted) BareValue(text, p, &end);
  std::string_view value = text.substr(begin, end - begin);
  if (value.empty() || (!quoted && value.size() < 3)) return;
  bool non_letter = false;
  for (char c : value) non_letter = non_letter || !IsAsciiAlpha(c);
  if (strict && !non_letter) return;
  AddSecret(begin, end, Rank::kKeyedSecret, out);
}

void ScanPasswords(std::string_view text, Candidates* out) {
  for (std::string_view label :
       {"\xE5\xAF\x86\xE7\xA0\x81", "\xE5\x8F\xA3\xE4\xBB\xA4"}) {  // 密码 口令
    for (size_t i = text.find(label); i != kNone; i = text.find(label, i + 1)) {
      ScanPasswordValue(text, i + label.size(), out);
    }
  }
  static constexpr std::array<std::string_view, 3> kLabels = {"password", "passwd", "pwd"};
  for (size_t i = 0; i < text.size(); ++i) {
    if (AsciiLower(text[i]) != 'p') continue;
    if (i > 0 && IsAsciiAlpha(text[i - 1])) continue;  // "db_password" yes, "mypassword" no
    for (std::string_view label : kLabels) {
      size_t end = i + label.size();
      if (StartsWithNoCase(text, i, label) && !WordCharAt(text, end)) {
        ScanPasswordValue(text, end, out);
      }
    }
  }
}

// ---- long random tokens ----

double BitsPerChar(std::string_view s) {
  std::array<int, 128> counts{};
  for (char c : s) ++counts[static_cast<unsigned char>(c) & 0x7F];
  double bits = 0;
  for (int n : counts) {
    if (n > 0) bits -= n * std::log2(static_cast<double>(n) / s.size());
  }
  return bits / s.size();
}

// Random-looking: upper and lower case and digits, 3.8+ bits per character, and not made of
// words. Words show as vowels (a random letter is a vowel 19% of the time, English text
// near 40%) and as long lower-case runs ("Settings"). Tuned on random base62/base64 tokens
// (about 88% of 32+ character ones pass) against long identifiers and file names (none do).
bool LooksRandom(std::string_view s) {
  bool lower = false, upper = false, digit = false;
  size_t letters = 0, vowels = 0, run = 0, longest_run = 0;
  for (char c : s) {
    lower = lower || (c >= 'a' && c <= 'z');
    upper = upper || (c >= 'A' && c <= 'Z');
    digit = digit || IsAsciiDigit(c);
    letters += IsAsciiAlpha(c);
    vowels += std::string_view("aeiouAEIOU").find(c) != kNone;
    run = (c >= 'a' && c <= 'z') ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  return lower && upper && digit && longest_run <= 6 && vowels * 10 < letters * 3 &&
         BitsPerChar(s) >= 3.8;
}

bool IsRandomTokenChar(char c) {
  return IsAsciiAlnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
}

// 32+ characters (padding aside) of letters, digits and + / = _ -. Hex digests (git commits,
// SHA-256) and UUIDs have no upper case: neither is reported. Nor is anything inside a URL
// ("://" earlier in the same space-separated word): links are left alone.
void ScanRandomTokens(std::string_view text, Candidates* out) {
  bool in_url = false;
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) <= ' ') in_url = false;
    if (text[i] == ':' && text.substr(i, 3) == std::string_view("://")) in_url = true;
    if (!IsRandomTokenChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsRandomTokenChar(text[end])) ++end;
    size_t unpadded = end;
    while (unpadded > i && text[unpadded - 1] == '=') --unpadded;
    std::string_view token = text.substr(i, unpadded - i);
    if (!in_url && token.size() >= 32 && !WordCharBefore(text, i) && LooksRandom(token)) {
      AddSecret(i, end, Rank::kGenericSecret, out);
    }
    i = end;
  }
}

}  // namespace

void ScanSecrets(std::string_view text, Candidates* out) {
  for (const KeyFormat& format : kKeyFormats) ScanKeyFormat(text, format, out);
  ScanPrivateKeyBlocks(text, out);
  ScanJwts(text, out);
  ScanBearerTokens(text, out);
  ScanUrlCredentials(text, out);
  ScanPasswords(text, out);
  ScanRandomTokens(text, out);
}

}  // namespace engram::pii
