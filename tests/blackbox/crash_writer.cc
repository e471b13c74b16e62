// crash_writer: adds numbered batches of memories and prints "ACK <b>" after each one commits.
//
// Usage: crash_writer --db PATH --batches N --batch-size M [--user U] [--start-batch S]
//                     [--key-file K]  (encryption at rest: the database is sealed with K)
// Batch b (S <= b < S + N) holds M memories "batch <b> item <i>" tagged "batch-<b>". The
// crash-durability test kills this process at a random moment and checks that every
// acknowledged batch is in the database whole, and that no batch is there in part.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engram/engine.h"

namespace {

int Usage(const char* why) {
  std::fprintf(stderr,
               "crash_writer: %s\nusage: crash_writer --db PATH --batches N --batch-size M "
               "[--user U] [--start-batch S]\n",
               why);
  return 1;
}

// Parses a non-negative integer; false if `text` is not one.
bool ParseCount(const char* text, long long* out) {
  char* end = nullptr;
  *out = std::strtoll(text, &end, 10);
  return end != text && *end == '\0' && *out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db, user = "crash-user", key_file;
  long long batches = -1, batch_size = -1, start = 0;
  for (int i = 1; i < argc; i += 2) {
    const char* flag = argv[i];
    if (i + 1 >= argc) return Usage((std::string("missing value for ") + flag).c_str());
    const char* value = argv[i + 1];
    bool ok = true;
    if (std::strcmp(flag, "--db") == 0)
      db = value;
    else if (std::strcmp(flag, "--user") == 0)
      user = value;
    else if (std::strcmp(flag, "--key-file") == 0)
      key_file = value;
    else if (std::strcmp(flag, "--batches") == 0)
      ok = ParseCount(value, &batches);
    else if (std::strcmp(flag, "--batch-size") == 0)
      ok = ParseCount(value, &batch_size);
    else if (std::strcmp(flag, "--start-batch") == 0)
      ok = ParseCount(value, &start);
    else
      return Usage((std::string("unknown flag ") + flag).c_str());
    if (!ok) return Usage((std::string("bad number for ") + flag).c_str());
  }
  if (db.empty() || batches < 0 || batch_size < 1) {
    return Usage("--db, --batches and --batch-size are required");
  }

  engram::EngineOptions options;
  options.path = db;
  if (!key_file.empty()) {
    auto key = engram::EncryptionKey::FromFile(key_file);
    if (!key.ok()) {
      std::fprintf(stderr, "crash_writer: %s\n", key.status().ToString().c_str());
      return 1;
    }
    options.encryption_key = std::make_shared<const engram::EncryptionKey>(*key);
  }
  auto engine = engram::Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "crash_writer: %s\n", engine.status().ToString().c_str());
    return 1;
  }
  engram::Scope scope{.tenant = "default", .user_id = user};
  for (long long b = start; b < start + batches; ++b) {
    std::vector<engram::NewMemory> memories(static_cast<size_t>(batch_size));
    for (long long i = 0; i < batch_size; ++i) {
      memories[i].content = "batch " + std::to_string(b) + " item " + std::to_string(i);
      memories[i].tags = {"batch-" + std::to_string(b)};
    }
    auto added = (*engine)->AddBatch(scope, memories);
    if (!added.ok()) {
      std::fprintf(stderr, "crash_writer: batch %lld: %s\n", b, added.status().ToString().c_str());
      return 1;
    }
    std::printf("ACK %lld\n", b);
    std::fflush(stdout);
  }
  return 0;
}
