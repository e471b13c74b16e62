// McpServer: the Model Context Protocol (JSON-RPC 2.0) message handling of `engram mcp`,
// free of any transport. The stdio loop (src/cli/mcp_command.cc) hands it one line at a time
// and writes back what it returns; tests call it directly.
//
// What it implements: initialize (version negotiation: 2025-06-18, 2025-03-26, 2024-11-05),
// notifications/initialized, ping, tools/list and tools/call over the tools of
// tool_definitions.h. Requests other than ping before initialize are refused with
// kNotInitialized. JSON-RPC batches are accepted only when 2025-03-26 was negotiated (the one
// version that has them). Tool failures (bad argument values, an unknown id) are tool results
// with isError: true, as MCP asks, so the model sees them; protocol errors are JSON-RPC errors.
//
// Thread safety: none; one instance serves one connection, one message at a time.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "mcp/memory_tools.h"

namespace engram::mcp {

// JSON-RPC error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// Implementation-defined (JSON-RPC's -32000..-32099 range; the number LSP uses for the same).
inline constexpr int kNotInitialized = -32002;

// Protocol versions this server speaks, newest first.
inline constexpr std::string_view kProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

struct McpOptions {
  std::string tenant = "default";
  std::string default_user;  // user_id of tool calls that give none; "" makes it required
  std::string server_version = "0.0.0";
  api::Limits limits;
  size_t max_message_bytes = 8 << 20;  // longer lines are refused as invalid requests
  // Diagnostics (never protocol output); may be empty. The CLI writes them to stderr.
  std::function<void(std::string_view)> log;
};

class McpServer {
 public:
  // `engine` is not owned and must outlive the server.
  McpServer(Engine* engine, McpOptions options, MemoryWriter* writer = nullptr);

  // Handles one newline-delimited message (without its newline). Returns the reply line
  // (without a newline), or "" when none is due: notifications, responses, blank lines.
  // Never throws.
  std::string HandleLine(std::string_view line);

  // The version agreed in initialize; empty before.
  const std::string& protocol_version() const { return protocol_version_; }
  // Whether the client sent notifications/initialized.
  bool client_ready() const { return client_ready_; }

 private:
  // The reply to one parsed message (a single message or a batch element); nullopt if none.
  std::optional<nlohmann::json> HandleMessage(const nlohmann::json& message, bool in_batch);
  std::optional<nlohmann::json> HandleBatch(const nlohmann::json& batch);
  void HandleNotification(const std::string& method);
  nlohmann::json HandleRequest(const nlohmann::json& id, const std::string& method,
                               const nlohmann::json& params, bool in_batch);
  nlohmann::json Initialize(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json CallTool(const nlohmann::json& id, const nlohmann::json& params);
  void Log(std::string_view message) const;

  McpOptions options_;
  ToolEnv env_;
  std::string protocol_version_;
  bool client_ready_ = false;
};

}  // namespace engram::mcp
