// Encryption at rest: the key that seals a database, its WAL and the index snapshots
// (docs/storage-format.md, "Encryption at rest"). A key is 32 random bytes; its id (the first
// 8 bytes of a keyed BLAKE2b of the key, 16 hex digits) is stored in the clear in a sealed
// file so a wrong key is told apart from damage.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "engram/status.h"

namespace engram {

class EncryptionKey {
 public:
  static constexpr size_t kBytes = 32;

  // 32 bytes from the system's random source.
  static EncryptionKey Generate();
  // 64 hex digits (surrounding whitespace ignored). InvalidArgument otherwise; the message
  // never repeats the text (it may be a key).
  static Result<EncryptionKey> FromHex(std::string_view text);
  // A key file: 64 hex digits (what `engram keygen` writes) or exactly 32 raw bytes.
  // NotFound / IOError / InvalidArgument with the path.
  static Result<EncryptionKey> FromFile(const std::string& path);

  using IdBytes = std::array<unsigned char, 8>;

  const std::array<unsigned char, kBytes>& bytes() const { return bytes_; }
  // The key id: 8 bytes, stored in a sealed file; as text (Id), 16 hex digits, safe to print.
  IdBytes IdRaw() const;
  std::string Id() const { return IdText(IdRaw()); }
  static std::string IdText(const IdBytes& id);
  std::string Hex() const;
  bool operator==(const EncryptionKey& other) const { return bytes_ == other.bytes_; }

 private:
  std::array<unsigned char, kBytes> bytes_{};
};

// What a rekey did (Engine::Rekey, `engram rekey`).
struct RekeyReport {
  std::string from_key_id;  // "" when the database was plain
  std::string to_key_id;    // "" when it is plain now
  int64_t bytes_before = 0;
  int64_t bytes_after = 0;
  int snapshots_removed = 0;  // index snapshots of the old key (rebuilt when next needed)
};

}  // namespace engram
