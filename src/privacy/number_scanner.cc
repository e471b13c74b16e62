// Numbers that identify a person: Chinese resident ids, bank cards, phone numbers.
//
// Fixed layouts (Chinese mobiles, US numbers, ids) are matched against shapes such as
// "1MD-DDDD-DDDD"; variable ones (cards, international numbers) read digit groups and try the
// longest grouping that fits. Every match must start and end at a number boundary
// (scan_chars.h), so digits glued to other digits or letters are never split into a match.
#include <array>
#include <string>
#include <vector>

#include "privacy/pii_scanners.h"
#include "privacy/scan_chars.h"

namespace engram::pii {
namespace {

constexpr std::string_view kFullWidthPlus = "\xEF\xBC\x8B";  // '＋'
constexpr size_t kMaxGroupDigits = 24;                       // longer than any format here

// An id check character X at text[i] (ASCII or full-width, either case); its length or 0.
size_t CheckXAt(std::string_view text, size_t i) {
  if (i < text.size() && (text[i] == 'X' || text[i] == 'x')) return 1;
  std::string_view three = text.substr(i, 3);
  return three == "\xEF\xBC\xB8" || three == "\xEF\xBD\x98" ? 3 : 0;
}

// How many bytes of text[i...] shape character `s` matches, 0 if it does not: 'D' any digit,
// 'N' a digit 2-9, 'M' a digit 3-9, 'C' a digit or an id check character X, a digit that digit
// (digits of any width); other bytes match themselves.
size_t MatchShapeChar(std::string_view text, size_t i, char s) {
  char d = 0;
  size_t n = DigitAt(text, i, &d);
  switch (s) {
    case 'D':
      return n;
    case 'N':
      return d >= '2' ? n : 0;
    case 'M':
      return d >= '3' ? n : 0;
    case 'C':
      return n > 0 ? n : CheckXAt(text, i);
    default:
      if (IsAsciiDigit(s)) return d == s ? n : 0;
      return i < text.size() && text[i] == s ? 1 : 0;
  }
}

// Matches `shape` at text[i]; the end offset, or 0 if it does not match.
size_t MatchShape(std::string_view text, size_t i, std::string_view shape) {
  for (char s : shape) {
    size_t n = MatchShapeChar(text, i, s);
    if (n == 0) return 0;
    i += n;
  }
  return i;
}

// The first shape that matches at text[i] and ends at a number boundary; its end, or 0.
template <size_t N>
size_t MatchAnyShape(std::string_view text, size_t i,
                     const std::array<std::string_view, N>& shapes) {
  for (std::string_view shape : shapes) {
    size_t end = MatchShape(text, i, shape);
    if (end != 0 && NumberEndsAt(text, end)) return end;
  }
  return 0;
}

// ---- Chinese resident id (GB 11643-1999) ----

bool PlausibleRegion(int code) {
  return (code >= 11 && code <= 15) || (code >= 21 && code <= 23) || (code >= 31 && code <= 37) ||
         (code >= 41 && code <= 46) || (code >= 50 && code <= 54) || (code >= 61 && code <= 65) ||
         code == 71 || (code >= 81 && code <= 83);
}

int Number(std::string_view digits, size_t pos, size_t len) {
  int v = 0;
  for (size_t k = pos; k < pos + len; ++k) v = v * 10 + (digits[k] - '0');
  return v;
}

bool PlausibleBirthDate(int year, int month, int day) {
  if (year < 1900 || year > 2099 || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && day == 29) return leap;
  return day <= kDays[month - 1];
}

// Region and birth date plausible: the layout of an id, whatever its check character.
bool ShapedLikeChineseId(std::string_view id) {
  if (id.size() != 18) return false;
  for (size_t k = 0; k < 17; ++k) {
    if (!IsAsciiDigit(id[k])) return false;
  }
  return PlausibleRegion(Number(id, 0, 2)) &&
         PlausibleBirthDate(Number(id, 6, 4), Number(id, 10, 2), Number(id, 12, 2));
}

// ASCII digits and 'X' of text[begin, end); separators dropped.
std::string IdCharsOf(std::string_view text, size_t begin, size_t end) {
  std::string id = DigitsOf(text, begin, end);
  if (id.size() == 17) id.push_back('X');  // the shape allows only a digit or an X last
  return id;
}

void ScanChineseId(std::string_view text, size_t i, Candidates* out) {
  static constexpr std::array<std::string_view, 2> kShapes = {"DDDDDDDDDDDDDDDDDC",
                                                              "DDDDDD DDDDDDDD DDDC"};
  size_t end = MatchAnyShape(text, i, kShapes);
  if (end != 0 && ChineseIdValid(IdCharsOf(text, i, end))) {
    out->push_back({PiiKind::kChineseId, Rank::kChineseId, i, end - i});
  }
}

// ---- digit groups: bank cards and international phone numbers ----

struct Group {
  size_t end = 0;         // one past the group (after any ')')
  size_t digits = 0;      // how many digits
  std::string separator;  // what joined it to the previous group ("" for the first)
  bool parenthesized = false;
};

size_t SeparatorAt(std::string_view text, size_t i) {
  if (i < text.size() && (text[i] == ' ' || text[i] == '-')) return 1;
  return text.substr(i, 3) == "\xEF\xBC\x8D" ? 3 : 0;  // '－'
}

// Reads one group at text[p]: digits, or "(digits)" when `parens`. False if there is none.
bool ReadGroup(std::string_view text, size_t p, bool parens, Group* g) {
  g->parenthesized = parens && p < text.size() && text[p] == '(';
  if (g->parenthesized) ++p;
  char d;
  for (size_t n; (n = DigitAt(text, p, &d)) > 0; p += n) ++g->digits;
  if (g->digits == 0) return false;
  if (g->parenthesized) {
    if (p >= text.size() || text[p] != ')') return false;
    ++p;
  }
  g->end = p;
  return true;
}

// Groups of digits from text[i] joined by one separator each (' ', '-', '－'; after a
// parenthesized group none is needed), up to kMaxGroupDigits digits.
std::vector<Group> ReadGroups(std::string_view text, size_t i, bool parens) {
  std::vector<Group> groups;
  size_t total = 0;
  std::string separator;
  for (size_t p = i;;) {
    Group g;
    g.separator = separator;
    if (!ReadGroup(text, p, parens, &g)) break;
    groups.push_back(g);
    total += g.digits;
    if (total > kMaxGroupDigits) break;
    size_t s = SeparatorAt(text, g.end);
    if (s == 0 && !g.parenthesized) break;
    separator = std::string(text.substr(g.end, s));
    p = g.end + s;
  }
  return groups;
}

size_t DigitCount(const std::vector<Group>& groups, size_t k) {
  size_t n = 0;
  for (size_t j = 0; j < k; ++j) n += groups[j].digits;
  return n;
}

// 4-4-4-4(-1..4) with one separator throughout, Amex/Diners 4-6-5 and 4-6-4, or no grouping.
bool CardGrouping(const std::vector<Group>& groups, size_t k) {
  if (k == 1) return !groups[0].parenthesized;
  for (size_t j = 0; j < k; ++j) {
    if (groups[j].parenthesized || (j > 1 && groups[j].separator != groups[1].separator)) {
      return false;
    }
  }
  if (k == 3 && groups[0].digits == 4 && groups[1].digits == 6 &&
      (groups[2].digits == 5 || groups[2].digits == 4)) {
    return true;
  }
  for (size_t j = 0; j + 1 < k; ++j) {
    if (groups[j].digits != 4) return false;
  }
  return groups[k - 1].digits >= 1 && groups[k - 1].digits <= 4;
}

// Issuers use leading digits 2-6 (Mastercard 2-series, Amex/Diners/JCB 3, Visa 4, Mastercard
// 5, Discover/UnionPay 6); requiring them keeps millisecond timestamps and serials starting
// with 1, 7-9 or 0 out. A repeated digit ("4444 4444 4444 4448") is a placeholder, not a card.
bool PlausibleCard(const std::string& digits) {
  if (digits.size() < 13 || digits.size() > 19) return false;
  if (digits[0] < '2' || digits[0] > '6') return false;
  if (digits.find_first_not_of(digits[0]) == digits.size() - 1) return false;
  if (digits.find_first_not_of(digits[0]) == std::string::npos) return false;
  // An 18-digit number laid out like a resident id is an id (checked separately) or a typo in
  // one; never report it as a card.
  if (ShapedLikeChineseId(digits)) return false;
  return LuhnValid(digits);
}

void ScanBankCard(std::string_view text, size_t i, Candidates* out) {
  std::vector<Group> groups = ReadGroups(text, i, /*parens=*/false);
  for (size_t k = groups.size(); k >= 1; --k) {
    size_t end = groups[k - 1].end;
    if (!CardGrouping(groups, k) || !NumberEndsAt(text, end)) continue;
    if (PlausibleCard(DigitsOf(text, i, end))) {
      out->push_back({PiiKind::kBankCard, Rank::kBankCard, i, end - i});
      return;
    }
  }
}

// ---- phone numbers ----

// Chinese mobile numbers, 1[3-9] and nine digits, with an optional +86 / 0086 prefix.
size_t MatchChineseMobile(std::string_view text, size_t i) {
  static constexpr std::array<std::string_view, 5> kBodies = {"1MDDDDDDDDD", "1MD DDDD DDDD",
                                                              "1MD-DDDD-DDDD",
                                                              "1MD\xEF\xBC\x8D"
                                                              "DDDD\xEF\xBC\x8D"
                                                              "DDDD",
                                                              "1MD DDDDDDDD"};
  static constexpr std::array<std::string_view, 11> kPrefixes = {"",
                                                                 "+86",
                                                                 "+86 ",
                                                                 "+86-",
                                                                 "\xEF\xBC\x8B"
                                                                 "86",
                                                                 "\xEF\xBC\x8B"
                                                                 "86 ",
                                                                 "0086",
                                                                 "0086 ",
                                                                 "0086-",
                                                                 "(+86)",
                                                                 "(+86) "};
  for (std::string_view prefix : kPrefixes) {
    if (text.substr(i, prefix.size()) != prefix) continue;
    size_t end = MatchAnyShape(text, i + prefix.size(), kBodies);
    if (end != 0) return end;
  }
  return 0;
}

// North American numbers, written the usual ways; area code and exchange start with 2-9.
size_t MatchUsPhone(std::string_view text, size_t i) {
  static constexpr std::array<std::string_view, 4> kShapes = {"(NDD) NDD-DDDD", "(NDD)NDD-DDDD",
                                                              "NDD-NDD-DDDD", "NDD.NDD.DDDD"};
  return MatchAnyShape(text, i, kShapes);
}

// "+" and 8-15 digits (E.164 allows 15), grouped by spaces, dashes or parentheses; the country
// code does not start with 0.
size_t MatchInternationalPhone(std::string_view text, size_t i) {
  size_t plus = text[i] == '+' ? 1 : kFullWidthPlus.size();
  char d = 0;
  if (DigitAt(text, i + plus, &d) == 0 || d == '0') return 0;
  std::vector<Group> groups = ReadGroups(text, i + plus, /*parens=*/true);
  for (size_t k = groups.size(); k >= 1; --k) {
    size_t digits = DigitCount(groups, k);
    if (digits >= 8 && digits <= 15 && NumberEndsAt(text, groups[k - 1].end)) {
      return groups[k - 1].end;
    }
  }
  return 0;
}

void AddPhone(size_t begin, size_t end, Candidates* out) {
  if (end != 0) out->push_back({PiiKind::kPhone, Rank::kPhone, begin, end - begin});
}

void ScanNumberAt(std::string_view text, size_t i, Candidates* out) {
  bool plus = text[i] == '+' || text.substr(i, 3) == kFullWidthPlus;
  if (plus) AddPhone(i, MatchInternationalPhone(text, i), out);
  if (plus || text[i] == '(') {
    AddPhone(i, MatchChineseMobile(text, i), out);
    AddPhone(i, MatchUsPhone(text, i), out);
    return;
  }
  ScanChineseId(text, i, out);
  ScanBankCard(text, i, out);
  AddPhone(i, MatchChineseMobile(text, i), out);
  AddPhone(i, MatchUsPhone(text, i), out);
}

}  // namespace

bool LuhnValid(std::string_view digits) {
  int sum = 0;
  bool twice = false;
  for (size_t k = digits.size(); k-- > 0; twice = !twice) {
    if (!IsAsciiDigit(digits[k])) return false;
    int v = digits[k] - '0';
    if (twice) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
  }
  return !digits.empty() && sum % 10 == 0;
}

// ISO 7064 MOD 11-2 as GB 11643 specifies it: weights 2^(17-k) mod 11, check "10X98765432".
bool ChineseIdValid(std::string_view id) {
  if (!ShapedLikeChineseId(id)) return false;
  static constexpr int kWeights[17] = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};
  int sum = 0;
  for (size_t k = 0; k < 17; ++k) sum += (id[k] - '0') * kWeights[k];
  return id[17] == "10X98765432"[sum % 11];
}

void ScanNumbers(std::string_view text, Candidates* out) {
  for (size_t i = 0; i < text.size();) {
    char d;
    size_t n = DigitAt(text, i, &d);
    bool opener = text[i] == '+' || text[i] == '(' ||
                  (text[i] == kFullWidthPlus[0] && text.substr(i, 3) == kFullWidthPlus);
    if ((n > 0 || opener) && NumberStartsAt(text, i)) ScanNumberAt(text, i, out);
    i += n > 0 ? n : 1;
  }
}

}  // namespace engram::pii
