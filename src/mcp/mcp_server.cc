#include "mcp/mcp_server.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "api/responses.h"
#include "mcp/tool_definitions.h"

namespace engram::mcp {
namespace {

using json = nlohmann::json;

// The JSON-RPC envelope around tool arguments (message → params → arguments) adds two levels
// to the nesting an HTTP body of the same arguments has.
constexpr int kEnvelopeDepth = 2;

// The only version with JSON-RPC batches: 2024-11-05 never had them, 2025-06-18 removed them.
constexpr std::string_view kBatchVersion = "2025-03-26";

constexpr const char* kInstructions =
    "Engram is the user's long-term memory. Call search_memories (or get_context) before "
    "answering anything that may depend on what the user said in earlier conversations; call "
    "add_memory with what the user says about themselves or people they know (it keeps the "
    "message and extracts and reconciles the facts, preferences, plans and events in it, "
    "corrections included); use update_memory or delete_memory to change or retract a "
    "stored memory by id.";

json ErrorReply(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json ResultReply(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

// Invalid UTF-8 cannot reach here (the parser and the engine refuse it), but a dump must
// never throw, so it is replaced rather than reported.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// MCP ids are strings or integers; JSON-RPC's null id is not allowed.
bool ValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

// Parses one message; `deepest` receives its deepest nesting of arrays and objects. The
// parser and json's destructor are iterative, so depth is checked after parsing.
json ParseMessage(std::string_view line, int* deepest) {
  json::parser_callback_t track = [deepest](int depth, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) {
      *deepest = std::max(*deepest, depth + 1);
    }
    return true;
  };
  return json::parse(line.begin(), line.end(), track, /*allow_exceptions=*/false);
}

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

std::string NegotiateVersion(const std::string& requested) {
  for (std::string_view v : kProtocolVersions) {
    if (v == requested) return requested;
  }
  return std::string(kProtocolVersions[0]);
}

json TextContent(std::string text) {
  return json::array({json{{"type", "text"}, {"text", std::move(text)}}});
}

// A tool's outcome as a CallToolResult: the response body as text (for clients that read
// only content) and as structuredContent; a failure is a result too, flagged isError.
json ToolResult(const Result<json>& outcome) {
  if (outcome.ok()) {
    return {{"content", TextContent(Dump(*outcome))},
            {"structuredContent", *outcome},
            {"isError", false}};
  }
  const Status& st = outcome.status();
  return {{"content", TextContent(std::string(StatusCodeName(st.code())) + ": " + st.message())},
          {"structuredContent", api::ErrorToJson(st)},
          {"isError", true}};
}

// Failures a caller can cause and fix; anything else is worth a line in the log.
bool IsCallerError(StatusCode code) {
  return code == StatusCode::kInvalidArgument || code == StatusCode::kNotFound ||
         code == StatusCode::kConflict;
}

}  // namespace

McpServer::McpServer(Engine* engine, McpOptions options, MemoryWriter* writer)
    : options_(std::move(options)) {
  env_.engine = engine;
  env_.writer = writer;
  env_.tenant = options_.tenant;
  env_.default_user = options_.default_user;
  env_.limits = options_.limits;
}

void McpServer::Log(std::string_view message) const {
  if (options_.log) options_.log(message);
}

std::string McpServer::HandleLine(std::string_view raw) {
  try {
    std::string_view line = Trim(raw);
    if (line.empty()) return "";
    if (line.size() > options_.max_message_bytes) {
      return Dump(ErrorReply(
          nullptr, kInvalidRequest,
          "message larger than " + std::to_string(options_.max_message_bytes) + " bytes"));
    }
    int deepest = 0;
    json message = ParseMessage(line, &deepest);
    if (message.is_discarded()) {
      return Dump(ErrorReply(nullptr, kParseError, "Parse error: the line is not valid JSON"));
    }
    const int max_depth = options_.limits.max_json_depth + kEnvelopeDepth;
    if (deepest > max_depth) {
      return Dump(
          ErrorReply(nullptr, kInvalidRequest,
                     "message nested deeper than " + std::to_string(max_depth) + " levels"));
    }
    std::optional<json> reply =
        message.is_array() ? HandleBatch(message) : HandleMessage(message, false);
    return reply ? Dump(*reply) : "";
  } catch (const std::exception& e) {
    Log(std::string("internal error handling a message: ") + e.what());
    return Dump(ErrorReply(nullptr, kInternalError, "Internal error"));
  }
}

std::optional<json> McpServer::HandleBatch(const json& batch) {
  if (protocol_version_ != kBatchVersion) {
    return ErrorReply(
        nullptr, kInvalidRequest,
        "JSON-RPC batches are not supported with protocol version " +
            (protocol_version_.empty() ? std::string("(none yet)") : protocol_version_));
  }
  if (batch.empty()) return ErrorReply(nullptr, kInvalidRequest, "the batch is empty");
  json replies = json::array();
  for (const json& message : batch) {
    if (auto reply = HandleMessage(message, /*in_batch=*/true)) replies.push_back(*reply);
  }
  if (replies.empty()) return std::nullopt;  // only notifications
  return replies;
}

std::optional<json> McpServer::HandleMessage(const json& message, bool in_batch) {
  if (!message.is_object()) {
    return ErrorReply(nullptr, kInvalidRequest, "a message must be a JSON object");
  }
  const bool has_id = message.contains("id");
  const json reply_id = has_id && ValidId(message.at("id")) ? message.at("id") : json(nullptr);
  if (message.value("jsonrpc", json()) != "2.0") {
    return ErrorReply(reply_id, kInvalidRequest, "jsonrpc must be \"2.0\"");
  }
  if (!message.contains("method")) {
    // A response; this server sends no requests, so there is nothing it could answer.
    if (message.contains("result") || message.contains("error")) return std::nullopt;
    return ErrorReply(reply_id, kInvalidRequest, "a request needs a method");
  }
  if (!message.at("method").is_string()) {
    return ErrorReply(reply_id, kInvalidRequest, "method must be a string");
  }
  const std::string method = message.at("method").get<std::string>();
  if (!has_id) {
    HandleNotification(method);
    return std::nullopt;
  }
  if (!ValidId(message.at("id"))) {
    return ErrorReply(nullptr, kInvalidRequest, "id must be a string or an integer");
  }
  const json params = message.value("params", json::object());
  if (!params.is_object() && !params.is_null()) {
    return ErrorReply(reply_id, kInvalidParams, "params must be an object");
  }
  try {
    return HandleRequest(reply_id, method, params.is_null() ? json::object() : params, in_batch);
  } catch (const std::exception& e) {
    Log("internal error in " + method + ": " + e.what());
    return ErrorReply(reply_id, kInternalError, "Internal error");
  }
}

void McpServer::HandleNotification(const std::string& method) {
  // Others (notifications/cancelled, progress, roots) need nothing: every request is answered
  // before the next line is read, so there is never one in flight to cancel.
  if (method == "notifications/initialized") client_ready_ = true;
}

json McpServer::HandleRequest(const json& id, const std::string& method, const json& params,
                              bool in_batch) {
  if (method == "ping") return ResultReply(id, json::object());
  if (method == "initialize") {
    if (in_batch) return ErrorReply(id, kInvalidRequest, "initialize must not be in a batch");
    return Initialize(id, params);
  }
  if (protocol_version_.empty()) {
    return ErrorReply(id, kNotInitialized, "the server is not initialized: send initialize first");
  }
  if (method == "tools/list") {
    return ResultReply(id, {{"tools", ToolDefinitions(options_.limits)}});
  }
  if (method == "tools/call") return CallTool(id, params);
  return ErrorReply(id, kMethodNotFound, "method not found: " + method);
}

json McpServer::Initialize(const json& id, const json& params) {
  if (!protocol_version_.empty()) {
    return ErrorReply(id, kInvalidRequest, "the server is already initialized");
  }
  const json version = params.value("protocolVersion", json());
  if (!version.is_string()) {
    return ErrorReply(id, kInvalidParams, "initialize needs params.protocolVersion (a string)");
  }
  protocol_version_ = NegotiateVersion(version.get<std::string>());
  const json client = params.value("clientInfo", json::object());
  Log("client " + (client.is_object() ? Dump(client) : std::string("(unnamed)")) +
      " asked for protocol " + version.get<std::string>() + ", using " + protocol_version_);
  return ResultReply(
      id, {{"protocolVersion", protocol_version_},
           {"capabilities", {{"tools", {{"listChanged", false}}}}},
           {"serverInfo",
            {{"name", "engram"}, {"title", "Engram"}, {"version", options_.server_version}}},
           {"instructions", kInstructions}});
}

json McpServer::CallTool(const json& id, const json& params) {
  const json name = params.value("name", json());
  if (!name.is_string()) {
    return ErrorReply(id, kInvalidParams, "tools/call needs params.name (a string)");
  }
  const std::string tool = name.get<std::string>();
  if (!IsKnownTool(tool)) return ErrorReply(id, kInvalidParams, "unknown tool: " + tool);
  const json arguments = params.value("arguments", json::object());
  if (!arguments.is_object() && !arguments.is_null()) {
    return ErrorReply(id, kInvalidParams, "params.arguments must be an object");
  }
  Result<json> outcome = RunTool(env_, tool, arguments.is_null() ? json::object() : arguments);
  if (!outcome.ok() && !IsCallerError(outcome.status().code())) {
    Log("tool " + tool + " failed: " + outcome.status().ToString());
  }
  return ResultReply(id, ToolResult(outcome));
}

}  // namespace engram::mcp
