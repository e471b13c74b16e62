// E-mail and IP addresses. ASCII only: internationalized domain names and local parts written
// in Chinese are not recognized (rare in practice; their punycode form is).
#include <string_view>

#include "privacy/pii_scanners.h"
#include "privacy/scan_chars.h"

namespace engram::pii {
namespace {

// ---- e-mail: local@domain.tld ----

bool IsLocalChar(char c) {
  return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

// Start of the local part ending at the '@' at text[at]; `at` if there is none.
size_t LocalStart(std::string_view text, size_t at) {
  size_t start = at;
  while (start > 0 && IsLocalChar(text[start - 1])) --start;
  while (start < at && text[start] == '.') ++start;  // a local part does not start with a dot
  if (start == at || text[at - 1] == '.') return at;
  return start;
}

// End of the domain starting at text[p]: two or more labels of letters, digits and inner
// dashes joined by dots, the last (the TLD) of 2+ letters. 0 if there is none. A trailing dot
// ends a sentence, not the domain.
size_t DomainEnd(std::string_view text, size_t p) {
  size_t labels = 0;
  for (size_t q = p;;) {
    size_t begin = q;
    bool letters_only = true;
    while (q < text.size() && (IsAsciiAlnum(text[q]) || text[q] == '-')) {
      letters_only = letters_only && IsAsciiAlpha(text[q]);
      ++q;
    }
    if (q == begin || text[begin] == '-' || text[q - 1] == '-') return 0;
    ++labels;
    bool more = q + 1 < text.size() && text[q] == '.' && IsAsciiAlnum(text[q + 1]);
    if (!more) return labels >= 2 && letters_only && q - begin >= 2 ? q : 0;
    q += 1;
  }
}

// ---- IPv4 ----

// A decimal octet at text[p] (0-255, no leading zero); its end, or 0.
size_t OctetEnd(std::string_view text, size_t p) {
  size_t q = p;
  while (q < text.size() && IsAsciiDigit(text[q]) && q - p < 4) ++q;
  size_t len = q - p;
  if (len == 0 || len > 3 || (len > 1 && text[p] == '0')) return 0;
  int v = 0;
  for (size_t k = p; k < q; ++k) v = v * 10 + (text[k] - '0');
  return v <= 255 ? q : 0;
}

// A dotted quad at text[i]; its end, or 0. Boundaries are the caller's.
size_t Ipv4End(std::string_view text, size_t i) {
  size_t p = i;
  for (int k = 0; k < 4; ++k) {
    if (k > 0) {
      if (p >= text.size() || text[p] != '.') return 0;
      ++p;
    }
    p = OctetEnd(text, p);
    if (p == 0) return 0;
  }
  return p;
}

// Not inside a longer dotted token: "1.2.3.4.5" (a version) and "a.1.2.3.4" are not addresses.
bool DottedStartsAt(std::string_view text, size_t i) {
  if (WordCharBefore(text, i)) return false;
  return !(i >= 1 && text[i - 1] == '.' && WordCharBefore(text, i - 1));
}

bool DottedEndsAt(std::string_view text, size_t i) {
  if (WordCharAt(text, i)) return false;
  return !(i < text.size() && text[i] == '.' && WordCharAt(text, i + 1));
}

// ---- IPv6 ----

bool IsIpv6Char(char c) { return IsHexDigit(c) || c == ':' || c == '.'; }

struct Ipv6Count {
  int groups = 0;      // 16-bit groups written (an embedded IPv4 counts two)
  int pieces = 0;      // explicit pieces
  int hex_digits = 0;  // hex digits written
};

// Colon-separated pieces of one side of "::" (or of the whole address). Only the last piece of
// the address may be an embedded IPv4.
bool CountPieces(std::string_view side, bool last_side, Ipv6Count* count) {
  while (!side.empty()) {
    size_t colon = side.find(':');
    std::string_view piece = side.substr(0, colon);
    bool last = colon == std::string_view::npos;
    if (piece.find('.') != std::string_view::npos) {
      if (!last || !last_side || Ipv4End(piece, 0) != piece.size()) return false;
      count->groups += 2;
    } else {
      if (piece.empty() || piece.size() > 4) return false;
      for (char c : piece) {
        if (!IsHexDigit(c)) return false;
      }
      count->groups += 1;
      count->hex_digits += static_cast<int>(piece.size());
    }
    ++count->pieces;
    side = last ? std::string_view() : side.substr(colon + 1);
  }
  return true;
}

// Full form: eight groups. Compressed ("::"): at most seven, and — to stay clear of code like
// "a::b" and of the loopback "::1", which identifies no one — two or more pieces with four or
// more hex digits between them. Times ("12:30", "12:30:45") have neither eight groups nor "::".
bool ValidIpv6(std::string_view s) {
  size_t gap = s.find("::");
  if (gap != std::string_view::npos && s.find("::", gap + 1) != std::string_view::npos) {
    return false;
  }
  Ipv6Count count;
  if (gap == std::string_view::npos) {
    return CountPieces(s, true, &count) && count.groups == 8;
  }
  if (!CountPieces(s.substr(0, gap), false, &count) ||
      !CountPieces(s.substr(gap + 2), true, &count)) {
    return false;
  }
  return count.groups <= 7 && count.pieces >= 2 && count.hex_digits >= 4;
}

size_t Ipv6End(std::string_view text, size_t i) {
  size_t end = i;
  while (end < text.size() && IsIpv6Char(text[end])) ++end;
  while (end > i && text[end - 1] == '.') --end;  // a sentence's full stop
  if (WordCharAt(text, end)) return 0;
  std::string_view token = text.substr(i, end - i);
  return token.find(':') != std::string_view::npos && ValidIpv6(token) ? end : 0;
}

}  // namespace

void ScanEmails(std::string_view text, Candidates* out) {
  for (size_t at = text.find('@'); at != std::string_view::npos; at = text.find('@', at + 1)) {
    size_t start = LocalStart(text, at);
    size_t end = start == at ? 0 : DomainEnd(text, at + 1);
    if (end == 0 || WordCharAt(text, end) || (end < text.size() && text[end] == '@')) continue;
    out->push_back({PiiKind::kEmail, Rank::kEmail, start, end - start});
  }
}

void ScanIpAddresses(std::string_view text, Candidates* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((!IsHexDigit(c) && c != ':') || WordCharBefore(text, i)) continue;
    size_t end = IsAsciiDigit(c) ? Ipv4End(text, i) : 0;
    if (end != 0 && DottedStartsAt(text, i) && DottedEndsAt(text, end)) {
      out->push_back({PiiKind::kIpAddress, Rank::kIpAddress, i, end - i});
      continue;
    }
    if (i > 0 && (text[i - 1] == ':' || text[i - 1] == '.')) continue;  // inside a longer token
    end = Ipv6End(text, i);
    if (end != 0) out->push_back({PiiKind::kIpAddress, Rank::kIpAddress, i, end - i});
  }
}

}  // namespace engram::pii
