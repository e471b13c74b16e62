// The sealing VFS (sealed_vfs.h).
//
// Where a file's sealed pages are:
//   database  every kSealedPageSize page at a multiple of the page size (page 1: from byte 24)
//   WAL       the page of each frame: after the 32-byte header, frames of a 24-byte frame
//             header (page number, salts, checksums: readable) and a page
//   journal   page images: the page-size writes at offsets that are not sector-aligned (the
//             journal's headers are sector-aligned; its records are a page number, the page
//             and a checksum, so their pages never are)
// A page is sealed as a whole: SQLite reads and writes database and WAL pages whole, and a
// read of part of one (the 100-byte header) opens the whole page and copies the part.
#include "storage/sealed_vfs.h"

#include <sodium.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#include "storage/lock_safe_reads.h"

namespace engram {
namespace {

constexpr int kP = kSealedPageSize;
constexpr int kBody = kP - kSealReserveBytes;  // the sealed bytes of a page
constexpr int kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr int kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;
static_assert(kNonce + kTag == kSealReserveBytes);
constexpr int kClearHead = 24;  // page 1's readable bytes
constexpr int kWalHeader = 32;
constexpr int kWalFrameHeader = 24;
constexpr char kMagic[8] = {'E', 'n', 'g', 'r', 'a', 'm', 'S', '1'};
constexpr char kSqliteMagic[16] = "SQLite format 3";  // with its NUL: 16 bytes

enum class Kind : char { kDatabase = 'D', kWal = 'W', kJournal = 'J', kOther = 'O' };

struct SealedVfs {
  sqlite3_vfs base;
  sqlite3_vfs* inner;
  std::array<unsigned char, EncryptionKey::kBytes> key;
  EncryptionKey::IdBytes key_id;
  std::string name;
};

struct SealedFile {
  sqlite3_file base;
  sqlite3_file* inner;
  SealedVfs* vfs;
  Kind kind;
  unsigned char* sealed;  // scratch: a page as stored
  unsigned char* plain;   // scratch: a page as SQLite sees it
};

// The associated data binding a sealed page to its place: the file kind and the offset (and
// for page 1 its readable head), so pages cannot be swapped or moved unnoticed.
size_t AssociatedData(Kind kind, sqlite3_int64 offset, const unsigned char* head,
                      unsigned char* ad) {
  ad[0] = static_cast<unsigned char>(kind);
  for (int i = 0; i < 8; ++i) ad[1 + i] = static_cast<unsigned char>(uint64_t(offset) >> (8 * i));
  if (!head) return 9;
  std::memcpy(ad + 9, head, kClearHead);
  return 9 + kClearHead;
}

bool IsPageOne(Kind kind, sqlite3_int64 offset) { return kind == Kind::kDatabase && offset == 0; }

void Seal(const SealedVfs& vfs, Kind kind, sqlite3_int64 offset, const unsigned char* plain,
          unsigned char* out) {
  int start = 0;
  const unsigned char* head = nullptr;
  if (IsPageOne(kind, offset)) {
    std::memcpy(out, kMagic, 8);
    std::memcpy(out + 8, vfs.key_id.data(), 8);
    std::memcpy(out + 16, plain + 16, 8);  // page size, versions, reserve, payload fractions
    start = kClearHead;
    head = out;
  }
  unsigned char ad[9 + kClearHead];
  const size_t ad_len = AssociatedData(kind, offset, head, ad);
  unsigned char* nonce = out + kBody;
  unsigned char* tag = nonce + kNonce;
  randombytes_buf(nonce, kNonce);
  crypto_aead_xchacha20poly1305_ietf_encrypt_detached(out + start, tag, nullptr, plain + start,
                                                      kBody - start, ad, ad_len, nullptr, nonce,
                                                      vfs.key.data());
}

bool AllZero(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i]) return false;
  }
  return true;
}

// Opens a sealed page into `plain`; false when it fails authentication. An all-zero page (a
// hole the file system left, or never written) opens as zeros, as SQLite would read it.
bool Unseal(const unsigned char* key, const unsigned char* key_id, Kind kind, sqlite3_int64 offset,
            const unsigned char* sealed, unsigned char* plain) {
  if (AllZero(sealed, kP)) {
    std::memset(plain, 0, kP);
    return true;
  }
  int start = 0;
  const unsigned char* head = nullptr;
  if (IsPageOne(kind, offset)) {
    if (std::memcmp(sealed, kMagic, 8) != 0 || std::memcmp(sealed + 8, key_id, 8) != 0) {
      return false;
    }
    start = kClearHead;
    head = sealed;
  }
  unsigned char ad[9 + kClearHead];
  const size_t ad_len = AssociatedData(kind, offset, head, ad);
  const unsigned char* nonce = sealed + kBody;
  const unsigned char* tag = nonce + kNonce;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(plain + start, nullptr, sealed + start,
                                                          kBody - start, tag, ad, ad_len, nonce,
                                                          key) != 0) {
    return false;
  }
  if (start) {
    std::memcpy(plain, kSqliteMagic, 16);
    std::memcpy(plain + 16, sealed + 16, 8);
  }
  std::memset(plain + kBody, 0, kSealReserveBytes);
  return true;
}

// The stretch of the file around `offset`: where it starts, how long, and whether it is a
// sealed page.
struct Region {
  sqlite3_int64 start;
  sqlite3_int64 length;
  bool sealed;
};

Region RegionAt(Kind kind, sqlite3_int64 offset) {
  if (kind == Kind::kDatabase) return {offset / kP * kP, kP, true};
  // WAL
  if (offset < kWalHeader) return {0, kWalHeader, false};
  const sqlite3_int64 frame = (offset - kWalHeader) / (kWalFrameHeader + kP);
  const sqlite3_int64 frame_start = kWalHeader + frame * (kWalFrameHeader + kP);
  if (offset < frame_start + kWalFrameHeader) return {frame_start, kWalFrameHeader, false};
  return {frame_start + kWalFrameHeader, kP, true};
}

bool IsJournalPage(sqlite3_int64 offset, int amount) { return amount == kP && offset % 512 != 0; }

SealedFile* Self(sqlite3_file* f) { return reinterpret_cast<SealedFile*>(f); }

int xClose(sqlite3_file* f) {
  SealedFile* s = Self(f);
  int rc = s->inner->pMethods ? s->inner->pMethods->xClose(s->inner) : SQLITE_OK;
  sqlite3_free(s->sealed);
  s->sealed = s->plain = nullptr;
  return rc;
}

// Reads the sealed page at `start` into s->plain. SQLITE_IOERR_SHORT_READ (plain zeroed) past
// the end of the file or for a page cut short; SQLITE_IOERR_DATA when it fails authentication
// (the WAL and journals: zeroes and OK, so the frame's or record's checksum fails and SQLite
// treats it as the torn end of the log, as it would a torn write).
int ReadPage(SealedFile* s, sqlite3_int64 start) {
  int rc = s->inner->pMethods->xRead(s->inner, s->sealed, kP, start);
  if (rc == SQLITE_IOERR_SHORT_READ) {
    std::memset(s->plain, 0, kP);
    return rc;
  }
  if (rc != SQLITE_OK) return rc;
  if (!Unseal(s->vfs->key.data(), s->vfs->key_id.data(), s->kind, start, s->sealed, s->plain)) {
    std::memset(s->plain, 0, kP);
    if (s->kind == Kind::kDatabase) return SQLITE_IOERR_DATA;
  }
  return SQLITE_OK;
}

int xRead(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  SealedFile* s = Self(f);
  sqlite3_file* in = s->inner;
  if (s->kind == Kind::kOther) return in->pMethods->xRead(in, buffer, amount, offset);
  if (s->kind == Kind::kJournal) {
    if (!IsJournalPage(offset, amount)) return in->pMethods->xRead(in, buffer, amount, offset);
    int rc = ReadPage(s, offset);
    std::memcpy(buffer, s->plain, kP);
    return rc;
  }
  auto* out = static_cast<unsigned char*>(buffer);
  int result = SQLITE_OK;
  while (amount > 0) {
    const Region r = RegionAt(s->kind, offset);
    const int n = static_cast<int>(std::min<sqlite3_int64>(amount, r.start + r.length - offset));
    if (!r.sealed) {
      int rc = in->pMethods->xRead(in, out, n, offset);
      if (rc == SQLITE_IOERR_SHORT_READ) {
        result = rc;
      } else if (rc != SQLITE_OK) {
        return rc;
      }
    } else {
      int rc = ReadPage(s, r.start);
      if (rc == SQLITE_IOERR_SHORT_READ) {
        result = rc;
      } else if (rc != SQLITE_OK) {
        return rc;
      }
      std::memcpy(out, s->plain + (offset - r.start), n);
    }
    out += n;
    offset += n;
    amount -= n;
  }
  return result;
}

int xWrite(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) {
  SealedFile* s = Self(f);
  sqlite3_file* in = s->inner;
  if (s->kind == Kind::kOther) return in->pMethods->xWrite(in, buffer, amount, offset);
  if (s->kind == Kind::kJournal) {
    if (!IsJournalPage(offset, amount)) return in->pMethods->xWrite(in, buffer, amount, offset);
    Seal(*s->vfs, s->kind, offset, static_cast<const unsigned char*>(buffer), s->sealed);
    return in->pMethods->xWrite(in, s->sealed, kP, offset);
  }
  auto* data = static_cast<const unsigned char*>(buffer);
  while (amount > 0) {
    const Region r = RegionAt(s->kind, offset);
    const int n = static_cast<int>(std::min<sqlite3_int64>(amount, r.start + r.length - offset));
    if (!r.sealed) {
      int rc = in->pMethods->xWrite(in, data, n, offset);
      if (rc != SQLITE_OK) return rc;
    } else {
      // SQLite writes database and WAL pages whole; anything else would need the page's
      // other bytes, and would be a change in SQLite this layer must not guess about.
      if (offset != r.start || n != kP) return SQLITE_IOERR_WRITE;
      Seal(*s->vfs, s->kind, offset, data, s->sealed);
      int rc = in->pMethods->xWrite(in, s->sealed, kP, offset);
      if (rc != SQLITE_OK) return rc;
    }
    data += n;
    offset += n;
    amount -= n;
  }
  return SQLITE_OK;
}

int xTruncate(sqlite3_file* f, sqlite3_int64 size) {
  return Self(f)->inner->pMethods->xTruncate(Self(f)->inner, size);
}
int xSync(sqlite3_file* f, int flags) {
  return Self(f)->inner->pMethods->xSync(Self(f)->inner, flags);
}
int xFileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Self(f)->inner->pMethods->xFileSize(Self(f)->inner, size);
}
int xLock(sqlite3_file* f, int level) {
  return Self(f)->inner->pMethods->xLock(Self(f)->inner, level);
}
int xUnlock(sqlite3_file* f, int level) {
  return Self(f)->inner->pMethods->xUnlock(Self(f)->inner, level);
}
int xCheckReservedLock(sqlite3_file* f, int* out) {
  return Self(f)->inner->pMethods->xCheckReservedLock(Self(f)->inner, out);
}
int xFileControl(sqlite3_file* f, int op, void* arg) {
  // Memory-mapped reads would bypass xRead and hand SQLite sealed bytes: refused (the methods'
  // version 2 already has no xFetch; this keeps SQLite from even trying).
  if (op == SQLITE_FCNTL_MMAP_SIZE) {
    if (arg) *static_cast<sqlite3_int64*>(arg) = 0;
    return SQLITE_OK;
  }
  return Self(f)->inner->pMethods->xFileControl(Self(f)->inner, op, arg);
}
int xSectorSize(sqlite3_file* f) { return Self(f)->inner->pMethods->xSectorSize(Self(f)->inner); }
int xDeviceCharacteristics(sqlite3_file* f) {
  return Self(f)->inner->pMethods->xDeviceCharacteristics(Self(f)->inner);
}
int xShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return Self(f)->inner->pMethods->xShmMap(Self(f)->inner, region, size, extend, out);
}
int xShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Self(f)->inner->pMethods->xShmLock(Self(f)->inner, offset, n, flags);
}
void xShmBarrier(sqlite3_file* f) { Self(f)->inner->pMethods->xShmBarrier(Self(f)->inner); }
int xShmUnmap(sqlite3_file* f, int delete_flag) {
  return Self(f)->inner->pMethods->xShmUnmap(Self(f)->inner, delete_flag);
}

const sqlite3_io_methods kMethods = {
    2,  // no xFetch/xUnfetch: every read goes through xRead
    xClose,
    xRead,
    xWrite,
    xTruncate,
    xSync,
    xFileSize,
    xLock,
    xUnlock,
    xCheckReservedLock,
    xFileControl,
    xSectorSize,
    xDeviceCharacteristics,
    xShmMap,
    xShmLock,
    xShmBarrier,
    xShmUnmap,
    nullptr,
    nullptr,
};

SealedVfs* VfsOf(sqlite3_vfs* v) { return static_cast<SealedVfs*>(v->pAppData); }

int xOpen(sqlite3_vfs* v, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  SealedVfs* vfs = VfsOf(v);
  SealedFile* s = Self(f);
  s->base.pMethods = nullptr;
  s->inner = reinterpret_cast<sqlite3_file*>(s + 1);
  s->vfs = vfs;
  s->sealed = s->plain = nullptr;
  if (flags & (SQLITE_OPEN_MAIN_DB)) {
    s->kind = Kind::kDatabase;
  } else if (flags & SQLITE_OPEN_WAL) {
    s->kind = Kind::kWal;
  } else if (flags & SQLITE_OPEN_MAIN_JOURNAL) {
    s->kind = Kind::kJournal;
  } else if (flags & SQLITE_OPEN_SUPER_JOURNAL) {
    s->kind = Kind::kOther;  // names of databases only
  } else {
    // Temporary databases, statement journals, sorter spills: Engram keeps them in memory.
    return SQLITE_CANTOPEN;
  }
  int rc = vfs->inner->xOpen(vfs->inner, name, s->inner, flags, out_flags);
  if (rc != SQLITE_OK) return rc;
  s->sealed = static_cast<unsigned char*>(sqlite3_malloc(2 * kP));
  if (!s->sealed) {
    s->inner->pMethods->xClose(s->inner);
    return SQLITE_NOMEM;
  }
  s->plain = s->sealed + kP;
  s->base.pMethods = &kMethods;
  return SQLITE_OK;
}

int xDelete(sqlite3_vfs* v, const char* name, int sync) {
  return VfsOf(v)->inner->xDelete(VfsOf(v)->inner, name, sync);
}
int xAccess(sqlite3_vfs* v, const char* name, int flags, int* out) {
  return VfsOf(v)->inner->xAccess(VfsOf(v)->inner, name, flags, out);
}
int xFullPathname(sqlite3_vfs* v, const char* name, int n, char* out) {
  return VfsOf(v)->inner->xFullPathname(VfsOf(v)->inner, name, n, out);
}
void* xDlOpen(sqlite3_vfs* v, const char* name) {
  return VfsOf(v)->inner->xDlOpen(VfsOf(v)->inner, name);
}
void xDlError(sqlite3_vfs* v, int n, char* out) {
  VfsOf(v)->inner->xDlError(VfsOf(v)->inner, n, out);
}
void (*xDlSym(sqlite3_vfs* v, void* h, const char* sym))(void) {
  return VfsOf(v)->inner->xDlSym(VfsOf(v)->inner, h, sym);
}
void xDlClose(sqlite3_vfs* v, void* h) { VfsOf(v)->inner->xDlClose(VfsOf(v)->inner, h); }
int xRandomness(sqlite3_vfs* v, int n, char* out) {
  return VfsOf(v)->inner->xRandomness(VfsOf(v)->inner, n, out);
}
int xSleep(sqlite3_vfs* v, int us) { return VfsOf(v)->inner->xSleep(VfsOf(v)->inner, us); }
int xCurrentTime(sqlite3_vfs* v, double* out) {
  return VfsOf(v)->inner->xCurrentTime(VfsOf(v)->inner, out);
}
int xGetLastError(sqlite3_vfs* v, int n, char* out) {
  return VfsOf(v)->inner->xGetLastError(VfsOf(v)->inner, n, out);
}
int xCurrentTimeInt64(sqlite3_vfs* v, sqlite3_int64* out) {
  return VfsOf(v)->inner->xCurrentTimeInt64(VfsOf(v)->inner, out);
}

}  // namespace

std::string SealedVfsName(const EncryptionKey& key) {
  static std::mutex mu;
  static std::map<std::string, SealedVfs*> registered;  // by key id; never freed
  const std::string id = key.Id();
  std::lock_guard<std::mutex> lock(mu);
  auto it = registered.find(id);
  if (it != registered.end()) return it->second->name;
  if (sodium_init() < 0) std::abort();
  auto* vfs = new SealedVfs();
  vfs->inner = sqlite3_vfs_find(nullptr);
  vfs->key = key.bytes();
  vfs->key_id = key.IdRaw();
  vfs->name = "engram-sealed-" + id;
  sqlite3_vfs& b = vfs->base;
  b.iVersion = 2;
  b.szOsFile = static_cast<int>(sizeof(SealedFile)) + vfs->inner->szOsFile;
  b.mxPathname = vfs->inner->mxPathname;
  b.zName = vfs->name.c_str();
  b.pAppData = vfs;
  b.xOpen = xOpen;
  b.xDelete = xDelete;
  b.xAccess = xAccess;
  b.xFullPathname = xFullPathname;
  b.xDlOpen = xDlOpen;
  b.xDlError = xDlError;
  b.xDlSym = xDlSym;
  b.xDlClose = xDlClose;
  b.xRandomness = xRandomness;
  b.xSleep = xSleep;
  b.xCurrentTime = xCurrentTime;
  b.xGetLastError = xGetLastError;
  b.xCurrentTimeInt64 = xCurrentTimeInt64;
  sqlite3_vfs_register(&b, 0);
  registered[id] = vfs;
  return vfs->name;
}

namespace {

// What the first bytes of a file (`head`, all that was read) say it is.
FileSealState StateOfHead(std::string_view head) {
  FileSealState state;
  if (head.empty()) {
    state.sealing = FileSealing::kEmpty;
  } else if (head.size() >= 16 && std::memcmp(head.data(), kSqliteMagic, 16) == 0) {
    state.sealing = FileSealing::kPlain;
  } else if (head.size() >= kClearHead && std::memcmp(head.data(), kMagic, 8) == 0) {
    state.sealing = FileSealing::kSealed;
    EncryptionKey::IdBytes id;
    std::memcpy(id.data(), head.data() + 8, id.size());
    state.key_id = EncryptionKey::IdText(id);
  } else {
    state.sealing = FileSealing::kUnknown;
  }
  return state;
}

// Up to `n` bytes from the start of `path`; nullopt when there is no such file.
// Through lock_safe_reads.h: a connection of this process may be open on the file already.
std::optional<std::string> ReadHead(const std::string& path, size_t n) {
  std::string head(n, '\0');
  size_t have = 0;
  while (have < n) {
    auto got = ReadFileAt(path, static_cast<int64_t>(have), head.data() + have, n - have);
    if (!got.ok()) {
      if (have == 0) return std::nullopt;
      break;
    }
    if (*got == 0) break;
    have += *got;
  }
  head.resize(have);
  return head;
}

}  // namespace

Result<FileSealState> InspectDatabaseFile(const std::string& path) {
  const auto head = ReadHead(path, kClearHead);
  return head ? StateOfHead(*head) : FileSealState{};
}

Status CheckDatabaseKey(const std::string& path, const EncryptionKey* key) {
  const auto page = ReadHead(path, kP);
  if (!page) return Status::Ok();
  const FileSealState state = StateOfHead(*page);
  switch (state.sealing) {
    case FileSealing::kMissing:
    case FileSealing::kEmpty:
    case FileSealing::kUnknown:  // SQLite says what it is not
      return Status::Ok();
    case FileSealing::kPlain:
      if (!key) return Status::Ok();
      return Status::InvalidArgument(
          "the database " + path +
          " is not encrypted, but a key was given: `engram rekey --new-key-file FILE` "
          "(without a key) encrypts it");
    case FileSealing::kSealed:
      break;
  }
  if (!key) {
    return Status::InvalidArgument("the database " + path + " is encrypted (key id " +
                                   state.key_id +
                                   "): give its key with --key-file FILE or ENGRAM_KEY_FILE");
  }
  const std::string id = key->Id();
  if (id != state.key_id) {
    return Status::PermissionDenied("wrong key for " + path + ": it was encrypted with key id " +
                                    state.key_id + ", the key given has id " + id);
  }
  if (page->size() != static_cast<size_t>(kP)) {
    return Status::Corruption("the encrypted database " + path + " is cut short in page 1");
  }
  std::string plain(kP, '\0');
  if (!Unseal(key->bytes().data(), key->IdRaw().data(), Kind::kDatabase, 0,
              reinterpret_cast<const unsigned char*>(page->data()),
              reinterpret_cast<unsigned char*>(plain.data()))) {
    return Status::Corruption("page 1 of the encrypted database " + path +
                              " fails authentication: the file is damaged or was altered");
  }
  return Status::Ok();
}

}  // namespace engram
