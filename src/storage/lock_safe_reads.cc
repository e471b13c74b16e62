#include "storage/lock_safe_reads.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

namespace engram {
namespace {

// A file by its device and inode: the identity POSIX locks follow, whatever the path's spelling.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator<(const FileId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

bool IdOf(const std::string& path, FileId* id) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *id = FileId{st.st_dev, st.st_ino};
  return true;
}

// The database a file belongs to: the path without its -wal, -shm or -journal suffix.
std::string DatabaseOf(const std::string& path) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    if (path.ends_with(suffix)) return path.substr(0, path.size() - std::strlen(suffix));
  }
  return path;
}

struct Registry {
  std::mutex mu;
  std::map<FileId, int> connections;  // open connections by database file
  // Descriptors kept open for reads, by database file: closed when its last connection closes.
  std::map<FileId, std::vector<std::pair<FileId, int>>> held;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: connections may close at exit
  return *registry;
}

}  // namespace

void NoteConnectionOpened(const std::string& db_path) {
  FileId id;
  if (!IdOf(db_path, &id)) return;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  ++r.connections[id];
}

void NoteConnectionClosed(const std::string& db_path) {
  FileId id;
  if (!IdOf(db_path, &id)) return;  // deleted meanwhile: its descriptors stay (rare, harmless)
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.connections.find(id);
  if (it == r.connections.end() || --it->second > 0) return;
  r.connections.erase(it);
  // SQLite has closed its own descriptors of these files: ours may go without taking locks.
  if (auto held = r.held.find(id); held != r.held.end()) {
    for (const auto& [file, fd] : held->second) ::close(fd);
    r.held.erase(held);
  }
}

Result<size_t> ReadFileAt(const std::string& path, int64_t offset, char* out, size_t n) {
  FileId file, db;
  if (!IdOf(path, &file)) return Status::NotFound("no file " + path);
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  int fd = -1;
  bool keep = false;
  if (IdOf(DatabaseOf(path), &db) && r.connections.count(db)) {
    keep = true;  // connections of this process hold locks on it: never close a descriptor
    for (const auto& [held_file, held_fd] : r.held[db]) {
      if (!(held_file < file) && !(file < held_file)) fd = held_fd;
    }
    if (fd < 0) {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) r.held[db].emplace_back(file, fd);
    }
  } else {
    lock.unlock();
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
  const ssize_t got = ::pread(fd, out, n, offset);
  const int err = errno;
  if (!keep) ::close(fd);
  if (got < 0) return Status::IOError("cannot read " + path + ": " + std::strerror(err));
  return static_cast<size_t>(got);
}

}  // namespace engram
