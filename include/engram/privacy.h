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

// Every finding in `text`, in order of offset, never overlapping (where matches overlap the
// more specific kind wins: a known key format over an e-mail address over an id over a card over
// a phone over an IP address over a random-looking token). Offsets fall on UTF-8 character
// boundaries; text that is not valid UTF-8 is scanned all the same. What each kind covers and
// deliberately leaves out: docs/architecture.md, "Privacy (PII)".
std::vector<PiiFinding> DetectPii(std::string_view text);

struct PiiPolicy {
  PiiAction action = PiiAction::kKeep;     // for kinds without an override
  std::map<PiiKind, PiiAction> overrides;  // per kind
  std::string hash_key;                    // secret for kHash; a deployment sets its own

  // "redact", or "redact,email=keep,secret=reject": a default action then kind=action pairs
  // (without a default action, the default is keep). Kinds and actions are the ToString names;
  // spaces around entries are ignored. InvalidArgument naming the unknown word, a kind set
  // twice, a default after the pairs or an empty entry. hash_key is left empty.
  static Result<PiiPolicy> Parse(std::string_view spec);
  PiiAction ActionFor(PiiKind kind) const;
};

struct PiiOutcome {
  std::string text;                  // after redaction / hashing
  std::vector<PiiFinding> findings;  // all of them, kept ones too; offsets into the original
};

// Rewrites every finding by its kind's action. A hash placeholder is the first 8 hex digits of
// HMAC-SHA256(hash_key, value normalized: digits only for numbers, +86/0086 dropped from Chinese
// mobiles, e-mail and IP in lower case), so one value gives one placeholder.
// InvalidArgument when a finding's action is kReject ("content contains a phone number; the
// privacy policy rejects it": kinds only, never the value), and when the policy hashes any kind
// but hash_key is empty (whatever the text holds, so a misconfiguration shows at once).
Result<PiiOutcome> ApplyPiiPolicy(std::string_view text, const PiiPolicy& policy);

}  // namespace engram
