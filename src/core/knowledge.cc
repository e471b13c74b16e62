#include "engram/knowledge.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace engram {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view ToString(DocumentFormat format) {
  switch (format) {
    case DocumentFormat::kText:
      return "text";
    case DocumentFormat::kMarkdown:
      return "markdown";
    case DocumentFormat::kHtml:
      return "html";
    case DocumentFormat::kPdf:
      return "pdf";
  }
  return "text";
}

std::optional<DocumentFormat> DocumentFormatFromName(std::string_view name) {
  const std::string n = Lower(name);
  if (n == "text" || n == "txt" || n == "plain") return DocumentFormat::kText;
  if (n == "markdown" || n == "md") return DocumentFormat::kMarkdown;
  if (n == "html" || n == "htm") return DocumentFormat::kHtml;
  if (n == "pdf") return DocumentFormat::kPdf;
  return std::nullopt;
}

std::optional<DocumentFormat> DocumentFormatFromFileName(std::string_view file_name) {
  std::string n = Lower(file_name);
  if (const size_t semi = n.find(';'); semi != std::string::npos) n.resize(semi);  // "; charset"
  static constexpr std::array<std::pair<std::string_view, DocumentFormat>, 5> kMime{{
      {"text/plain", DocumentFormat::kText},
      {"text/markdown", DocumentFormat::kMarkdown},
      {"text/x-markdown", DocumentFormat::kMarkdown},
      {"text/html", DocumentFormat::kHtml},
      {"application/pdf", DocumentFormat::kPdf},
  }};
  for (const auto& [mime, format] : kMime) {
    if (n == mime) return format;
  }
  const size_t dot = n.rfind('.');
  if (dot == std::string::npos || n.find('/', dot) != std::string::npos) return std::nullopt;
  const std::string ext = n.substr(dot + 1);
  if (ext == "text") return DocumentFormat::kText;
  if (ext == "markdown") return DocumentFormat::kMarkdown;
  return DocumentFormatFromName(ext == "plain" ? "" : ext);
}

std::string_view ToString(DocumentProblem problem) {
  switch (problem) {
    case DocumentProblem::kNone:
      return "none";
    case DocumentProblem::kUnsupportedFormat:
      return "unsupported_format";
    case DocumentProblem::kTooLarge:
      return "document_too_large";
    case DocumentProblem::kUnreadable:
      return "unreadable_document";
    case DocumentProblem::kParserTimeout:
      return "parser_timeout";
    case DocumentProblem::kEmpty:
      return "empty_document";
  }
  return "none";
}

std::string KnowledgeCitation(const KnowledgeHit& hit) {
  std::string out = "[" + hit.doc_id;
  if (!hit.title_path.empty()) {
    out += " §";
    for (size_t i = 0; i < hit.title_path.size(); ++i) {
      if (i) out += " > ";
      out += hit.title_path[i];
    }
  }
  return out + "]";
}

}  // namespace engram
