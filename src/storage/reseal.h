// Rewrites a database under another encryption key, or from plain to sealed and back: what
// `engram rekey` does (Engine::Rekey adds the index snapshots).
#pragma once

#include <memory>
#include <string>

#include "engram/encryption.h"
#include "engram/status.h"

namespace engram {

// Reads the database at `path` with `old_key` (null: it is plain) and replaces it with a copy
// sealed with `new_key` (null: plain). The copy is written beside it (`path`.reseal, VACUUM
// INTO through the new key's VFS), checked (quick_check), synced and renamed over the original,
// so a crash leaves either the old file or the new one. Nothing else may have the database open.
// Errors: the key checks of Database::Open; InvalidArgument when old and new are the same.
Result<RekeyReport> ResealDatabase(const std::string& path,
                                   std::shared_ptr<const EncryptionKey> old_key,
                                   std::shared_ptr<const EncryptionKey> new_key);

}  // namespace engram
