// ResealDatabase (reseal.h).
#include "storage/reseal.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/status_macros.h"
#include "storage/sealed_vfs.h"
#include "storage/sqlite.h"

namespace engram {
namespace {

// `path` as the path of a file: URI (RFC 3986: unreserved characters and '/' as they are).
std::string FileUri(const std::string& path, const std::string& vfs) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + "?vfs=" + vfs;
}

Status SyncPath(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path + " to sync it");
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok ? Status::Ok() : Status::IOError("fsync " + path);
}

int64_t FileSize(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

}  // namespace

Result<RekeyReport> ResealDatabase(const std::string& path,
                                   std::shared_ptr<const EncryptionKey> old_key,
                                   std::shared_ptr<const EncryptionKey> new_key) {
  if (!old_key && !new_key) return Status::InvalidArgument("the database is plain already");
  if (old_key && new_key && *old_key == *new_key) {
    return Status::InvalidArgument("the new key is the key the database has");
  }
  ENGRAM_ASSIGN_OR_RETURN(FileSealState state, InspectDatabaseFile(path));
  if (state.sealing == FileSealing::kMissing || state.sealing == FileSealing::kEmpty) {
    return Status::NotFound("no database at " + path);
  }
  RekeyReport report;
  report.from_key_id = old_key ? old_key->Id() : "";
  report.to_key_id = new_key ? new_key->Id() : "";
  report.bytes_before = FileSize(path);
  const std::string copy = path + ".reseal";
  std::filesystem::remove(copy);  // left by a run that crashed
  {
    DatabaseOptions options{.key = old_key, .uri_filenames = true};
    ENGRAM_ASSIGN_OR_RETURN(auto source, Database::Open(path, options));
    ENGRAM_RETURN_IF_ERROR(source->Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
    if (new_key) {
      ENGRAM_ASSIGN_OR_RETURN(auto size, source->PrepareUncached("PRAGMA page_size"));
      ENGRAM_ASSIGN_OR_RETURN(bool row, size->Step());
      if (!row || size->Int(0) != kSealedPageSize) {
        return Status::InvalidArgument(
            path + " has pages of " + std::to_string(row ? size->Int(0) : 0) +
            " bytes; encryption needs " + std::to_string(kSealedPageSize) + " (VACUUM it first)");
      }
      // VACUUM INTO gives the copy the larger of this and the file's own reserve.
      int reserve = kSealReserveBytes;
      int rc = sqlite3_file_control(source->raw(), "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
      if (rc != SQLITE_OK) return SqliteStatus(rc, source->raw(), "reserving seal bytes");
    }
    const std::string vfs = new_key ? SealedVfsName(*new_key) : sqlite3_vfs_find(nullptr)->zName;
    std::string sql = "VACUUM INTO '" + FileUri(copy, vfs) + "'";
    Status st = source->Exec(sql);
    if (!st.ok()) {
      std::filesystem::remove(copy);
      return st.WithContext("writing " + copy);
    }
  }
  auto check = [&]() -> Status {
    DatabaseOptions options{.key = new_key};
    ENGRAM_ASSIGN_OR_RETURN(auto db, Database::Open(copy, options));
    ENGRAM_ASSIGN_OR_RETURN(auto quick, db->PrepareUncached("PRAGMA quick_check"));
    ENGRAM_ASSIGN_OR_RETURN(bool row, quick->Step());
    if (!row || quick->Text(0) != "ok") return Status::Corruption(copy + ": fails quick_check");
    return Status::Ok();
  };
  if (Status st = check(); !st.ok()) {
    std::filesystem::remove(copy);
    return st;
  }
  ENGRAM_RETURN_IF_ERROR(SyncPath(copy, false));
  // The old WAL was checkpointed and truncated; it and the shared-memory index describe the
  // old file's pages, so they go before the copy takes its place.
  std::error_code ec;
  std::filesystem::remove(path + "-wal", ec);
  std::filesystem::remove(path + "-shm", ec);
  if (std::rename(copy.c_str(), path.c_str()) != 0) {
    return Status::IOError("rename " + copy + " to " + path);
  }
  std::string dir = std::filesystem::absolute(path).parent_path().string();
  ENGRAM_RETURN_IF_ERROR(SyncPath(dir, true));
  report.bytes_after = FileSize(path);
  return report;
}

}  // namespace engram
