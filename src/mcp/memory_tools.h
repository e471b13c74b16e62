// What runs each MCP tool: decode the arguments with the v1 API's decoders (src/api), call the
// Engine, encode the result with the v1 API's encoders. A tool's result is therefore the same
// JSON body the HTTP route of that operation returns.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/requests.h"
#include "engram/engine.h"
#include "engram/status.h"
#include "engram/write_path.h"

namespace engram::mcp {

// What the tools act with. `engine` is not owned and outlives every call; the Engine is
// thread-safe, so tools may run concurrently.
struct ToolEnv {
  Engine* engine = nullptr;
  MemoryWriter* writer = nullptr;  // add_memory with infer; null: infer is refused
  std::string tenant;              // every tool acts within this tenant only
  std::string default_user;        // used when the arguments carry no user_id ("" = required)
  api::Limits limits;
};

// Whether `name` is one of the tools ToolDefinitions lists.
bool IsKnownTool(std::string_view name);

// Runs tool `name` (which must be known) on `arguments` (a JSON object). Returns the
// response body, always a JSON object, or the Status explaining why the tool failed:
// InvalidArgument for bad argument values, NotFound for an id not in the user's scope, and
// the engine's other errors as they are.
Result<nlohmann::json> RunTool(const ToolEnv& env, std::string_view name,
                               const nlohmann::json& arguments);

}  // namespace engram::mcp
