// KeyStore: the api_keys table (docs/storage-format.md, version 3).
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "core/status_macros.h"
#include "engram/keys.h"
#include "storage/migrations.h"
#include "storage/sqlite.h"

namespace engram {
namespace {

constexpr std::string_view kSecretPrefix = "egk_";
constexpr size_t kPrefixShown = 10;  // "egk_" and 6 characters of the random part

std::string Base64Url(const unsigned char* data, size_t n) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    acc = (acc << 8) | data[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::string Sha256(std::string_view text) {
  unsigned char digest[32];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

Result<std::string> RandomToken(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    return Status::Internal("the system random generator failed");
  }
  return Base64Url(reinterpret_cast<const unsigned char*>(raw.data()), bytes);
}

ApiKeyInfo InfoFromRow(const Statement& st) {
  ApiKeyInfo k;
  k.id = st.String(0);
  k.tenant = st.String(1);
  k.name = st.String(2);
  k.role = st.Text(3) == "admin" ? KeyRole::kAdmin : KeyRole::kTenant;
  k.prefix = st.String(4);
  k.created_at = st.Int(5);
  k.revoked_at = st.OptionalInt(6);
  return k;
}

constexpr char kColumns[] = "id, tenant, name, role, prefix, created_at, revoked_at";

}  // namespace

KeyStore::KeyStore(std::unique_ptr<Database> db, const Clock* clock)
    : db_(std::move(db)), clock_(clock) {}
KeyStore::~KeyStore() = default;

Result<std::unique_ptr<KeyStore>> KeyStore::Open(const std::string& path, const Clock* clock,
                                                 std::shared_ptr<const EncryptionKey> key) {
  if (!clock) clock = SystemClock::Default();
  ENGRAM_ASSIGN_OR_RETURN(auto db,
                          OpenEngramDatabase(path, DatabaseOptions{.key = key}, clock->NowMs()));
  return std::unique_ptr<KeyStore>(new KeyStore(std::move(db), clock));
}

Result<CreatedApiKey> KeyStore::Create(std::string_view tenant, std::string_view name,
                                       KeyRole role) {
  if (tenant.empty() || tenant.size() > 128) {
    return Status::InvalidArgument("tenant must be 1..128 bytes");
  }
  if (name.size() > 200) return Status::InvalidArgument("key name must be at most 200 bytes");
  CreatedApiKey key;
  ENGRAM_ASSIGN_OR_RETURN(std::string random, RandomToken(32));
  ENGRAM_ASSIGN_OR_RETURN(std::string id_part, RandomToken(9));
  key.secret = std::string(kSecretPrefix) + random;
  key.info = ApiKeyInfo{.id = "key_" + id_part,
                        .tenant = std::string(tenant),
                        .name = std::string(name),
                        .role = role,
                        .prefix = key.secret.substr(0, kPrefixShown),
                        .created_at = clock_->NowMs(),
                        .revoked_at = std::nullopt};
  const std::string hash = Sha256(key.secret);
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "KeyStore::Create");
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("INSERT INTO api_keys(id, tenant, name, role, secret_sha256, prefix, "
                   "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  st->Bind(1, key.info.id).Bind(2, tenant).Bind(3, name).Bind(4, ToString(role));
  st->BindBlob(5, hash.data(), hash.size()).Bind(6, key.info.prefix);
  st->Bind(7, key.info.created_at);
  ENGRAM_RETURN_IF_ERROR(st->Run());
  return key;
}

Result<int64_t> KeyStore::CopyTo(KeyStore& to) {
  if (&to == this) return int64_t{0};
  std::scoped_lock lock(mu_, to.mu_);
  ConnectionCall call(db_.get(), "KeyStore::CopyTo");
  ConnectionCall call_to(to.db_.get(), "KeyStore::CopyTo");
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement rows,
                          db_->Prepare("SELECT id, tenant, name, role, secret_sha256, prefix, "
                                       "created_at, revoked_at FROM api_keys ORDER BY id"));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement put,
      to.db_->Prepare("INSERT INTO api_keys(id, tenant, name, role, secret_sha256, prefix, "
                      "created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT DO NOTHING"));
  Transaction txn(to.db_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  int64_t copied = 0;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, rows->Step());
    if (!row) break;
    put->Reset();
    put->Bind(1, rows->Text(0)).Bind(2, rows->Text(1)).Bind(3, rows->Text(2));
    put->Bind(4, rows->Text(3));
    put->BindBlob(5, rows->Blob(4), static_cast<size_t>(rows->BlobSize(4)));
    put->Bind(6, rows->Text(5)).Bind(7, rows->Int(6)).Bind(8, rows->OptionalInt(7));
    ENGRAM_RETURN_IF_ERROR(put->Run());
    copied += to.db_->Changes();
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return copied;
}

Result<std::vector<ApiKeyInfo>> KeyStore::List(std::string_view tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "KeyStore::List");
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db_->Prepare(std::string("SELECT ") + kColumns +
                                       " FROM api_keys WHERE ?1 = '' OR tenant = ?1 "
                                       "ORDER BY created_at, id"));
  st->Bind(1, tenant);
  std::vector<ApiKeyInfo> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(InfoFromRow(*st));
  }
  return out;
}

Status KeyStore::Revoke(std::string_view id) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "KeyStore::Revoke");
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement find,
                          db_->Prepare("SELECT 1 FROM api_keys WHERE id = ?"));
  find->Bind(1, id);
  ENGRAM_ASSIGN_OR_RETURN(bool exists, find->Step());
  find->Reset();
  if (!exists) return Status::NotFound("no API key with id '" + std::string(id) + "'");
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"));
  return st->Bind(1, clock_->NowMs()).Bind(2, id).Run();
}

Result<ApiKeyInfo> KeyStore::Authenticate(std::string_view secret) {
  const Status denied = Status::PermissionDenied("the API key is not valid");
  if (secret.size() < kSecretPrefix.size() + 8 || secret.size() > 256) return denied;
  const std::string hash = Sha256(secret);
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "KeyStore::Authenticate");
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare(std::string("SELECT ") + kColumns + " FROM api_keys WHERE secret_sha256 = ?"));
  st->BindBlob(1, hash.data(), hash.size());
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return denied;
  ApiKeyInfo info = InfoFromRow(*st);
  st->Reset();
  if (info.revoked_at) return denied;
  return info;
}

Result<int64_t> KeyStore::CountActive() {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "KeyStore::CountActive");
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db_->Prepare("SELECT count(*) FROM api_keys WHERE revoked_at IS NULL"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  int64_t n = row ? st->Int(0) : 0;
  st->Reset();
  return n;
}

}  // namespace engram
