// The knowledge tier's messages (include/engram/knowledge.h) for the HTTP and MCP servers:
// strict decoders to native structs and the response encoders.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/requests.h"
#include "engram/knowledge.h"

namespace engram::api {

// POST /v1/knowledge: {doc_id?, agent_id?, title?, source?, format?, filename?, content? |
// content_base64? | path?, chunk_tokens?, overlap_tokens?, metadata?}. doc_id defaults to the
// file name (or path) without its extension, other characters than [A-Za-z0-9._:-] as '-'.
// format defaults to what the file name (or path) says, else "text" for `content`; binary
// content (a PDF) comes as content_base64. `path` names a file on the server, read only when the
// server allows it (the route checks: engram serve --knowledge-dir).
struct IngestApiRequest {
  KnowledgeScope scope;
  NewDocument document;
  std::string path;
  // Set when the format named is none Engram reads, or none can be told: the route answers it
  // as that document problem (unsupported_format), not as a malformed request.
  std::string unsupported_format;
};
Result<IngestApiRequest> DecodeIngest(const nlohmann::json& body, const std::string& tenant);

// GET/DELETE /v1/knowledge[/{doc}]?agent_id=…[&verify=…]
struct KnowledgeTarget {
  KnowledgeScope scope;
  bool verify = false;
};
Result<KnowledgeTarget> DecodeKnowledgeParams(const Params& params, const std::string& tenant,
                                              bool allow_verify);

nlohmann::json DocumentToJson(const KnowledgeDocument& d);
nlohmann::json IngestResultToJson(const IngestResult& r);
nlohmann::json DocumentListToJson(const std::vector<KnowledgeDocument>& docs);
nlohmann::json DocumentDetailToJson(const DocumentDetail& d);
nlohmann::json DocumentDeletionToJson(const std::string& doc_id, const DocumentDeletion& d);

}  // namespace engram::api
