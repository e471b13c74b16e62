// The individual PII scanners behind DetectPii. Each appends every match it sees, overlaps
// included; DetectPii keeps the best of overlapping candidates by rank.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "engram/privacy.h"

namespace engram::pii {

// Lower wins when candidates overlap: the more specific the evidence, the lower the rank.
enum class Rank {
  kKeyedSecret,  // a known key format, a PEM block, a JWT, a Bearer token, a password value
  kEmail,
  kChineseId,  // passed the checksum
  kBankCard,   // passed Luhn
  kPhone,
  kIpAddress,
  kGenericSecret,  // a long random-looking token: weakest evidence
};

struct Candidate {
  PiiKind kind = PiiKind::kEmail;
  Rank rank = Rank::kEmail;
  size_t offset = 0;
  size_t length = 0;
};
using Candidates = std::vector<Candidate>;

// Chinese resident ids, bank cards and phone numbers (number_scanner.cc).
void ScanNumbers(std::string_view text, Candidates* out);
// E-mail addresses, IPv4 and IPv6 addresses (network_scanner.cc).
void ScanEmails(std::string_view text, Candidates* out);
void ScanIpAddresses(std::string_view text, Candidates* out);
// Keyed secrets, passwords after a label, and long random tokens (secret_scanner.cc).
void ScanSecrets(std::string_view text, Candidates* out);

// Exposed for tests of the checks themselves.
bool LuhnValid(std::string_view digits);
bool ChineseIdValid(std::string_view id);  // 17 digits + digit or 'X', checksum and birth date

}  // namespace engram::pii
