// Helpers shared by unit tests at the engine layer and above: an engine opened in a temporary
// directory, and short ways to build its inputs (src/testing/record_support.h has the rest).
#pragma once

#include <memory>
#include <string>

#include "engram/engine.h"
#include "testing/record_support.h"

namespace engram::testing {

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
