#include "api/knowledge_api.h"

#include <openssl/evp.h>

#include <filesystem>

#include "codec/field_reader.h"
#include "core/status_macros.h"

namespace engram::api {
namespace {

using json = nlohmann::json;

Result<std::string> DecodeBase64(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') clean.push_back(c);
  }
  if (clean.size() % 4 != 0) {
    return Status::InvalidArgument(
        "content_base64 is not base64 (its length is not a multiple of 4)");
  }
  std::string out(clean.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(clean.data()),
                                static_cast<int>(clean.size()));
  if (n < 0) return Status::InvalidArgument("content_base64 is not base64");
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  if (!clean.empty() && clean.back() == '=') --size;
  if (clean.size() >= 2 && clean[clean.size() - 2] == '=') --size;
  out.resize(size);
  return out;
}

// "Returns Policy.v2.md" → "Returns-Policy.v2"
std::string DocIdFromName(const std::string& name) {
  std::string stem = std::filesystem::path(name).stem().string();
  for (char& c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == ':';
    if (!ok) c = '-';
  }
  return stem.substr(0, 128);
}

std::string FormatTime(TimestampMs t) { return FormatTimestamp(t); }

}  // namespace

Result<IngestApiRequest> DecodeIngest(const json& body, const std::string& tenant) {
  FieldReader r(body, "request");
  r.CheckKnown({"doc_id", "agent_id", "title", "source", "format", "filename", "content",
                "content_base64", "path", "chunk_tokens", "overlap_tokens", "metadata"});
  IngestApiRequest req;
  req.scope.tenant = tenant;
  r.String("agent_id", &req.scope.agent_id);
  NewDocument& d = req.document;
  r.String("doc_id", &d.doc_id);
  r.String("title", &d.title);
  r.String("source", &d.source);
  std::string format, filename, base64;
  r.String("format", &format);
  r.String("filename", &filename);
  r.String("content", &d.content);
  r.String("content_base64", &base64);
  r.String("path", &req.path);
  r.Int("chunk_tokens", &d.chunking.chunk_tokens);
  r.Int("overlap_tokens", &d.chunking.overlap_tokens);
  if (r.Has("metadata")) {
    if (!body["metadata"].is_object()) {
      r.Fail("metadata", "must be an object");
    } else {
      d.metadata = body["metadata"].dump();
    }
  }
  ENGRAM_RETURN_IF_ERROR(r.status());
  const int given =
      (r.Has("content") ? 1 : 0) + (r.Has("content_base64") ? 1 : 0) + (req.path.empty() ? 0 : 1);
  if (given != 1) {
    return Status::InvalidArgument(
        "request: give exactly one of content, content_base64 (binary documents such as PDF) "
        "and path (a file on the server)");
  }
  if (r.Has("content_base64")) {
    ENGRAM_ASSIGN_OR_RETURN(d.content, DecodeBase64(base64));
  }
  if (d.source.empty()) d.source = !filename.empty() ? filename : req.path;
  const std::string name = !filename.empty() ? filename : req.path;
  if (!format.empty()) {
    auto f = DocumentFormatFromName(format);
    if (f)
      d.format = *f;
    else
      req.unsupported_format =
          "format '" + format + "' is not one Engram reads (text, markdown, html, pdf)";
  } else if (!name.empty()) {
    auto f = DocumentFormatFromFileName(name);
    if (f)
      d.format = *f;
    else
      req.unsupported_format =
          "the type of '" + name +
          "' is not one Engram reads (.txt, .md, .html, .pdf); name it with format";
  } else if (r.Has("content_base64")) {
    req.unsupported_format = "content_base64 needs a format or a filename";
  } else {
    d.format = DocumentFormat::kText;
  }
  if (d.doc_id.empty() && !name.empty()) d.doc_id = DocIdFromName(name);
  if (d.doc_id.empty()) {
    return Status::InvalidArgument("request.doc_id: required unless a filename or path names it");
  }
  return req;
}

Result<KnowledgeTarget> DecodeKnowledgeParams(const Params& params, const std::string& tenant,
                                              bool allow_verify) {
  KnowledgeTarget t;
  t.scope.tenant = tenant;
  for (const auto& [key, value] : params) {
    if (key == "agent_id") {
      if (params.count(key) > 1) {
        return Status::InvalidArgument("query parameter 'agent_id' is given more than once");
      }
      t.scope.agent_id = value;
    } else if (key != "verify" || !allow_verify) {
      return Status::InvalidArgument("query parameter '" + key + "' is not known here (agent_id" +
                                     std::string(allow_verify ? ", verify)" : ")"));
    }
  }
  if (allow_verify) {
    ENGRAM_ASSIGN_OR_RETURN(t.verify, ParamBool(params, "verify", false));
  }
  return t;
}

json DocumentToJson(const KnowledgeDocument& d) {
  json j{{"doc_id", d.doc_id},
         {"agent_id", d.agent_id},
         {"title", d.title},
         {"format", ToString(d.format)},
         {"source", d.source},
         {"metadata", json::parse(d.metadata, nullptr, false)},
         {"bytes", d.bytes},
         {"chars", d.chars},
         {"content_hash", d.content_hash},
         {"version", d.version},
         {"chunks", d.chunks},
         {"chunk_tokens", d.chunking.chunk_tokens},
         {"overlap_tokens", d.chunking.overlap_tokens},
         {"created_at", FormatTime(d.created_at)},
         {"updated_at", FormatTime(d.updated_at)}};
  if (!d.embedding_model.empty()) j["embedding_model"] = d.embedding_model;
  return j;
}

json IngestResultToJson(const IngestResult& r) {
  return json{{"document", DocumentToJson(r.document)}, {"replaced", r.replaced}};
}

json DocumentListToJson(const std::vector<KnowledgeDocument>& docs) {
  json out = json::array();
  for (const KnowledgeDocument& d : docs) out.push_back(DocumentToJson(d));
  return json{{"documents", std::move(out)}};
}

json DocumentDetailToJson(const DocumentDetail& d) {
  json chunks = json::array();
  for (const KnowledgeChunk& c : d.chunks) {
    chunks.push_back({{"ordinal", c.ordinal},
                      {"title_path", c.title_path},
                      {"char_start", c.char_start},
                      {"char_end", c.char_end},
                      {"tokens", c.tokens},
                      {"text", c.text}});
  }
  return json{{"document", DocumentToJson(d.document)}, {"chunks", std::move(chunks)}};
}

json DocumentDeletionToJson(const std::string& doc_id, const DocumentDeletion& d) {
  json out{{"doc_id", doc_id}, {"deleted", true}, {"chunks", d.chunks}};
  if (d.verified) {
    out["verified"] = d.traces.empty();
    out["traces"] = d.traces;
    out["needles"] = d.needles;
    out["shared"] = d.shared;
    out["files"] = d.files;
  }
  return out;
}

}  // namespace engram::api
