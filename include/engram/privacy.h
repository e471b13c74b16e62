// Personal data in memory content: detection and the per-deployment policy applied at write
// time, before anything is embedded or stored (product.md, "Write path").
//
// Detection is conservative where a false alarm would damage ordinary text: Chinese resident
// ids must pass their checksum, bank cards the Luhn check. Everything here is pure and
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

enum class PiiKind { kEmail, kPhone, kChineseId, kBankCard, kIpAddress, kSecret };
std::string_view ToString(PiiKind kind);  // "email", "phone", "cn_id", "bank_card", "ip", "secret"

enum class PiiAction {
  kKeep,    // store as written
  kRedact,  // replace with a typed placeholder: "[email]", "[phone]", ...
  kHash,    // replace with a keyed hash: "[email:3f9a1c2b]" (same value, same placeholder)
  kReject,  // refuse the write (InvalidArgument naming the kind, never echoing the value)
};
std::string_view ToString(PiiAction action);  // "keep", "redact", "hash", "reject"

struct PiiFinding {
  PiiKind kind = PiiKind::kEmail;
  size_t offset = 0;  // bytes into the UTF-8 text
  size_t length = 0;
};

// Every finding in `text`, in order of offset, never overlapping.
std::vector<PiiFinding> DetectPii(std::string_view text);

struct PiiPolicy {
  PiiAction action = PiiAction::kKeep;     // for kinds without an override
  std::map<PiiKind, PiiAction> overrides;  // per kind
  std::string hash_key;                    // secret for kHash; a deployment sets its own

  // "redact", or "redact,email=keep,secret=reject": a default action then kind=action pairs.
  // InvalidArgument naming the unknown word.
  static Result<PiiPolicy> Parse(std::string_view spec);
  PiiAction ActionFor(PiiKind kind) const;
};

struct PiiOutcome {
  std::string text;                    // after redaction / hashing
  std::vector<PiiFinding> findings;    // offsets into the original text
};

// InvalidArgument when a finding's action is kReject.
Result<PiiOutcome> ApplyPiiPolicy(std::string_view text, const PiiPolicy& policy);

}  // namespace engram
