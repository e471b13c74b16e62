// EncryptionKey (include/engram/encryption.h), on libsodium.
#include <sodium.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "engram/encryption.h"

namespace engram {
namespace {

void InitSodium() {
  // sodium_init is idempotent and thread-safe; it fails only without a random source.
  static const bool ok = sodium_init() >= 0;
  if (!ok) std::abort();
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string ToHex(const unsigned char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

}  // namespace

EncryptionKey EncryptionKey::Generate() {
  InitSodium();
  EncryptionKey key;
  randombytes_buf(key.bytes_.data(), key.bytes_.size());
  return key;
}

Result<EncryptionKey> EncryptionKey::FromHex(std::string_view text) {
  text = Trim(text);
  if (text.size() != 2 * kBytes) {
    return Status::InvalidArgument("an encryption key is 64 hex digits (32 bytes); got " +
                                   std::to_string(text.size()) + " characters");
  }
  EncryptionKey key;
  for (size_t i = 0; i < kBytes; ++i) {
    const int hi = HexDigit(text[2 * i]), lo = HexDigit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument(
          "an encryption key is 64 hex digits: found a character "
          "that is not one");
    }
    key.bytes_[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return key;
}

Result<EncryptionKey> EncryptionKey::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::ifstream(path).good() ? Status::IOError("cannot read key file " + path)
                                      : Status::NotFound("no key file " + path);
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string data = buf.str();
  if (data.size() == kBytes && Trim(data).size() != 2 * kBytes) {
    EncryptionKey key;
    std::copy(data.begin(), data.end(), key.bytes_.begin());
    return key;
  }
  auto key = FromHex(data);
  if (!key.ok()) return key.status().WithContext("key file " + path);
  return key;
}

EncryptionKey::IdBytes EncryptionKey::IdRaw() const {
  InitSodium();
  static constexpr unsigned char kLabel[] = "engram key id v1";
  IdBytes id;
  crypto_generichash(id.data(), id.size(), kLabel, sizeof(kLabel) - 1, bytes_.data(),
                     bytes_.size());
  return id;
}

std::string EncryptionKey::IdText(const IdBytes& id) { return ToHex(id.data(), id.size()); }

std::string EncryptionKey::Hex() const { return ToHex(bytes_.data(), bytes_.size()); }

}  // namespace engram
