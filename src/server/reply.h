// Reply: what a handler returns, and the one place core errors become HTTP statuses.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/knowledge.h"
#include "engram/status.h"
#include "server/stream_body.h"

namespace engram::server {

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string log_detail;  // for the server log only (the real cause of a 500)
  // Set: the body is sent as it is written there (chunked), not `body`.
  std::shared_ptr<StreamBody> stream;
  // Set by a Blocking::kDeferred route's handler that will answer through Call::reply_later
  // (from another thread, once); the rest of this Reply is not sent.
  bool deferred = false;
};

// The HTTP status for a core status code: InvalidArgument 400, PermissionDenied 403,
// NotFound 404, Conflict 409, Unavailable 503, anything else 500.
int HttpStatusFor(StatusCode code);

// {"error": {"code", "message"}} with the status HttpStatusFor gives. Messages of server-side
// failures (500) are replaced by a generic one: they may name files or internals.
Reply ErrorReply(const Status& status);
// A document the knowledge tier could not read (Engine::IngestDocument's rejection), named in
// the error's code: unsupported_format 415, document_too_large 413, unreadable_document,
// parser_timeout and empty_document 422. kNone: ErrorReply(status).
Reply DocumentErrorReply(const Status& status, DocumentProblem problem);
// An error the HTTP layer itself raises: 401, 404 (no route), 405, 413, 429, ...
Reply ProtocolError(int http_status, std::string_view code, std::string message);
Reply JsonReply(const nlohmann::json& body, int status = 200);
// A body already written as JSON text (api::*JsonText).
Reply JsonTextReply(std::string body, int status = 200);

// JSON text of `body`; invalid UTF-8 (which validation keeps out) is replaced, never thrown.
std::string DumpJson(const nlohmann::json& body);

}  // namespace engram::server
