// API keys of the HTTP server: each key maps to one tenant. Stored in the Engram database
// (table api_keys); only a SHA-256 of each secret is kept, so the secret is shown once, when
// the key is created, and cannot be recovered.
//
// Threads: a KeyStore is safe to share; calls are serialized on its own connection.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/encryption.h"
#include "engram/status.h"

namespace engram {

class Database;

enum class KeyRole {
  kTenant,  // reads and writes its tenant's memories
  kAdmin,   // manages keys (and, like a tenant key, works on its own tenant's memories)
};

struct ApiKeyInfo {
  std::string id;  // "key_…", safe to print and log
  std::string tenant;
  std::string name;  // a label chosen by whoever created the key
  KeyRole role = KeyRole::kTenant;
  std::string prefix;  // the secret's first characters, to recognize a key in a list
  TimestampMs created_at = 0;
  std::optional<TimestampMs> revoked_at;
};

struct CreatedApiKey {
  ApiKeyInfo info;
  std::string secret;  // "egk_" + 43 base64url characters (256 random bits)
};

class KeyStore {
 public:
  // Opens (creating and migrating if needed) the Engram database at `path`.
  // `clock` is not owned and must outlive the store; nullptr means the system clock.
  // `key`: the database's encryption key when it is sealed (include/engram/encryption.h).
  static Result<std::unique_ptr<KeyStore>> Open(const std::string& path,
                                                const Clock* clock = nullptr,
                                                std::shared_ptr<const EncryptionKey> key = nullptr);
  ~KeyStore();
  KeyStore(const KeyStore&) = delete;
  KeyStore& operator=(const KeyStore&) = delete;

  // InvalidArgument if tenant is empty or longer than 128 bytes, or name over 200 bytes.
  Result<CreatedApiKey> Create(std::string_view tenant, std::string_view name, KeyRole role);
  // Every key (revoked ones included), oldest first; `tenant` empty lists every tenant's.
  Result<std::vector<ApiKeyInfo>> List(std::string_view tenant = "");
  // Copies every key of this store, revoked ones too, into `to` as stored (the secret's hash,
  // never the secret); a key whose id `to` has already is left as it is there. Returns how
  // many were copied (engram migrate).
  Result<int64_t> CopyTo(KeyStore& to);
  // NotFound if no key has this id; revoking a revoked key is OK and changes nothing.
  Status Revoke(std::string_view id);
  // The key whose secret this is. PermissionDenied for an unknown or revoked secret (the two
  // are not told apart).
  Result<ApiKeyInfo> Authenticate(std::string_view secret);
  // Keys not revoked.
  Result<int64_t> CountActive();

 private:
  KeyStore(std::unique_ptr<Database> db, const Clock* clock);
  std::mutex mu_;
  std::unique_ptr<Database> db_;  // guarded by mu_
  const Clock* clock_;
};

inline std::string_view ToString(KeyRole role) {
  return role == KeyRole::kAdmin ? "admin" : "tenant";
}

}  // namespace engram
