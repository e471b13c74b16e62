// Hooks into the engine's background work, for tests only: they are not part of the public
// API (include/engram/engine.h), so no application can depend on them.
#pragma once

#include <functional>
#include <memory>

#include "engram/engine.h"

namespace engram {

struct EngineHooks {
  // Runs inside each commit of access counts, after SQLite's commit and before the counts are
  // given to the item cache and forgotten (searches do not wait for it).
  std::function<void()> on_access_commit;
};

// Engine::Open with `hooks` installed.
Result<std::unique_ptr<Engine>> OpenEngineWithHooks(const EngineOptions& options,
                                                    const EngineHooks& hooks);

// The one way into Engine's private constructor besides Engine::Open (a friend of Engine).
struct EngineInternals {
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options,
                                              const EngineHooks& hooks);
};

}  // namespace engram
