// Helpers shared by unit tests: a temporary directory and an engine opened inside it.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "codec/item_json.h"
#include "engram/engine.h"

namespace engram {
// Readable failure messages for item and history comparisons.
inline void PrintTo(const MemoryItem& m, std::ostream* os) { *os << ItemToJson(m).dump(); }
inline void PrintTo(const HistoryEntry& h, std::ostream* os) { *os << HistoryToJson(h).dump(); }
}  // namespace engram

namespace engram::testing {

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "engram-test-XXXXXX").string();
    char* made = mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::unique_ptr<Engine> OpenEngine(const std::string& path, const Clock* clock = nullptr,
                                          EngineOptions options = {}) {
  options.path = path;
  options.clock = clock;
  options.synchronous = "NORMAL";  // tests do not need power-loss durability
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

inline NewMemory Text(std::string content) {
  NewMemory m;
  m.content = std::move(content);
  return m;
}

}  // namespace engram::testing
