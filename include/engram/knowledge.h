// The knowledge tier: documents (FAQs, product rules, manuals) shared by a tenant or by one of
// its agents, not owned by any user. A document is read (plain text, Markdown, HTML, PDF),
// chunked along its structure, and each chunk is stored with its vector and a citation: the
// document, the chain of headings above it (its title path) and its character range.
// Re-ingesting a document id replaces all its chunks in one transaction; deleting it removes
// every chunk and vector for good.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"

namespace engram {

enum class DocumentFormat { kText, kMarkdown, kHtml, kPdf };

// "text", "markdown", "html", "pdf".
std::string_view ToString(DocumentFormat format);
// Those names (and "txt", "md"); nullopt for anything else.
std::optional<DocumentFormat> DocumentFormatFromName(std::string_view name);
// From a file name's extension (.txt .text .md .markdown .html .htm .pdf, any case) or a MIME
// type (text/plain, text/markdown, text/html, application/pdf); nullopt when neither tells.
std::optional<DocumentFormat> DocumentFormatFromFileName(std::string_view file_name);

// Limits of reading documents (EngineOptions::knowledge).
struct KnowledgeOptions {
  size_t max_document_bytes = size_t{32} << 20;  // an upload beyond: DocumentProblem::kTooLarge
  int parser_timeout_ms = 20'000;                // pdftotext's wall time (and CPU seconds)
  std::string pdftotext = "pdftotext";           // the program (poppler-utils), found on PATH
};

// Whose documents: a tenant's shared ones (agent_id empty) or one agent's. Documents of one
// scope are invisible to every other (another tenant's, or another agent's).
struct KnowledgeScope {
  std::string tenant;
  std::string agent_id;
};

// Chunk sizes in tokens (text/token_counter.h, which errs high). A chunk holds whole blocks
// (paragraphs, list items, code lines) while they fit; a longer block is cut at sentences, then
// words. Consecutive chunks of one section share up to overlap_tokens of text.
struct ChunkingOptions {
  int chunk_tokens = 300;   // 32..4096
  int overlap_tokens = 40;  // 0..chunk_tokens/2
};

struct NewDocument {
  // The document's name in its scope ([A-Za-z0-9._:-], 1..128 bytes): ingesting the same id
  // again replaces the document.
  std::string doc_id;
  std::string
      title;  // default: the first heading (or HTML <title>), else the file name, else doc_id
  DocumentFormat format = DocumentFormat::kText;
  std::string content;          // the document's bytes as uploaded (UTF-8 for text, Markdown, HTML)
  std::string source;           // where it came from (a file name, a URL): shown with it, not read
  std::string metadata = "{}";  // a JSON object
  ChunkingOptions chunking;
};

// Why a document could not be read (Engine::IngestDocument): the document is refused and the
// version stored before, if any, stays whole.
enum class DocumentProblem {
  kNone,
  kUnsupportedFormat,  // not one of the formats above, or bytes that are not of the format named
  kTooLarge,           // over EngineOptions::max_document_bytes, or extracted text over its limit
  kUnreadable,         // a damaged PDF, text that is not UTF-8
  kParserTimeout,      // the PDF parser ran past its time limit
  kEmpty,              // no text at all
};
std::string_view ToString(DocumentProblem problem);  // "unsupported_format", "too_large", ...

// One stored chunk. char_start/char_end: code points into the document's text (the uploaded
// text for text and Markdown; the extracted text for HTML and PDF), end exclusive.
struct KnowledgeChunk {
  int ordinal = 0;  // 0-based, in document order
  std::string text;
  std::vector<std::string> title_path;  // headings from the top down; PDF: "page N"
  int64_t char_start = 0;
  int64_t char_end = 0;
  int tokens = 0;
};

struct KnowledgeDocument {
  std::string doc_id;
  std::string agent_id;
  std::string title;
  DocumentFormat format = DocumentFormat::kText;
  std::string source;
  std::string metadata = "{}";
  int64_t bytes = 0;         // as uploaded
  int64_t chars = 0;         // code points of its text
  std::string content_hash;  // SHA-256 of the uploaded bytes, hex
  int64_t version = 1;       // 1 on first ingest, +1 on each re-ingest
  int64_t chunks = 0;
  ChunkingOptions chunking;
  std::string embedding_model;
  TimestampMs created_at = 0;
  TimestampMs updated_at = 0;
};

struct IngestResult {
  KnowledgeDocument document;
  bool replaced = false;  // a version was stored before and is gone now
};

// A document with its chunks (Engine::GetDocument).
struct DocumentDetail {
  KnowledgeDocument document;
  std::vector<KnowledgeChunk> chunks;
};

// What Engine::DeleteDocument removed, and with `verify`, the byte scan for what was left
// (as Engine::PurgeScopeVerified does for a user).
struct DocumentDeletion {
  int64_t chunks = 0;
  bool verified = false;  // a scan ran
  int64_t needles = 0, shared = 0, files = 0;
  std::vector<std::string> traces;  // empty when nothing of the document is left
};

struct KnowledgeQuery {
  std::string text;  // required
  int k = 5;         // 1..50
  std::optional<double> min_score;
  double keyword_weight = 0.5;  // share of BM25 (normalized by the best) against cosine
};

struct KnowledgeHit {
  std::string doc_id;
  std::string agent_id;  // "" for the tenant's shared documents
  std::string title;
  std::vector<std::string> title_path;
  int ordinal = 0;
  int64_t char_start = 0, char_end = 0;
  std::string text;
  double score = 0;  // 0..1
};

// "[doc_id §A > B]" (or "[doc_id]" without a title path): how packed context cites a chunk.
std::string KnowledgeCitation(const KnowledgeHit& hit);

}  // namespace engram
