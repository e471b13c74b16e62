#include "server/reply.h"

#include "api/responses.h"

namespace engram::server {

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kConflict:
      return 409;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kCorruption:
    case StatusCode::kIOError:
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

std::string DumpJson(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply ErrorReply(const Status& status) {
  const int http = HttpStatusFor(status.code());
  if (http == 500) {
    Reply r = ProtocolError(500, StatusCodeName(status.code()),
                            "the server failed to complete the request (see the server log)");
    r.log_detail = status.ToString();
    return r;
  }
  return JsonReply(api::ErrorToJson(status), http);
}

Reply DocumentErrorReply(const Status& status, DocumentProblem problem) {
  switch (problem) {
    case DocumentProblem::kNone:
      return ErrorReply(status);
    case DocumentProblem::kUnsupportedFormat:
      return ProtocolError(415, ToString(problem), status.message());
    case DocumentProblem::kTooLarge:
      return ProtocolError(413, ToString(problem), status.message());
    case DocumentProblem::kUnreadable:
    case DocumentProblem::kParserTimeout:
    case DocumentProblem::kEmpty:
      return ProtocolError(422, ToString(problem), status.message());
  }
  return ErrorReply(status);
}

Reply ProtocolError(int http_status, std::string_view code, std::string message) {
  nlohmann::json body = {{"error", {{"code", code}, {"message", std::move(message)}}}};
  return JsonReply(body, http_status);
}

Reply JsonReply(const nlohmann::json& body, int status) {
  return JsonTextReply(DumpJson(body), status);
}

Reply JsonTextReply(std::string body, int status) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace engram::server
