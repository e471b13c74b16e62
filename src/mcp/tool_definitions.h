// The MCP tools Engram offers, as `tools/list` describes them: name, title, description, JSON
// Schema of the arguments and behaviour hints. The argument fields are the v1 HTTP API's
// (docs/openapi.json), so one decoder (src/api) serves both front ends; what runs each tool is
// in memory_tools.h.
#pragma once

#include <nlohmann/json.hpp>

#include "api/requests.h"

namespace engram::mcp {

// The `tools` array of a tools/list result. The schemas' numeric bounds follow `limits`.
// Built on each call (cheap, and only done on tools/list).
nlohmann::json ToolDefinitions(const api::Limits& limits);

}  // namespace engram::mcp
