// Reads an uploaded document into its text and structural blocks (headings, paragraphs, list
// items, code, table rows), the chunker's input (knowledge/chunker.h).
//
// The text: for plain text and Markdown, the upload itself (so a chunk's character range points
// into what was uploaded); for HTML, the visible text, one block per line group; for PDF, what
// `pdftotext` prints (pages separated by form feeds). Blocks are byte ranges into the text, in
// order, never overlapping.
//
// Threads: the functions are pure (ReadPdf runs a child process) and safe to call concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engram/knowledge.h"
#include "engram/status.h"

namespace engram {

enum class BlockKind { kHeading, kParagraph, kListItem, kCode, kTableRow, kQuote };

struct DocumentBlock {
  BlockKind kind = BlockKind::kParagraph;
  int level = 0;     // kHeading: 1..6; a PDF page heading is level 1
  size_t begin = 0;  // byte range in ReadDocument::text
  size_t end = 0;
  std::string heading;  // kHeading: its text without markup (for title paths)
};

struct ReadDocument {
  std::string text;
  std::vector<DocumentBlock> blocks;
  std::string title;  // the HTML <title>, or the first heading; may be empty
};

struct ReadLimits {
  size_t max_text_bytes = size_t{32} << 20;   // extracted text (HTML, PDF) beyond this: kTooLarge
  int pdf_timeout_ms = 20'000;                // wall time of pdftotext
  int pdf_cpu_seconds = 20;                   // its CPU time (RLIMIT_CPU)
  size_t pdf_memory_bytes = size_t{1} << 30;  // its address space (RLIMIT_AS)
  std::string pdftotext = "pdftotext";        // the program, looked up on PATH
};

// Reads `content` as `format`. On failure returns InvalidArgument naming the reason and sets
// *problem (not kNone); on success *problem is kNone.
Result<ReadDocument> ReadDocumentContent(DocumentFormat format, std::string_view content,
                                         const ReadLimits& limits, DocumentProblem* problem);

// The pieces, for tests.
ReadDocument ReadPlainText(std::string_view text);
ReadDocument ReadMarkdown(std::string_view text);
Result<ReadDocument> ReadHtml(std::string_view html, const ReadLimits& limits,
                              DocumentProblem* problem);
Result<ReadDocument> ReadPdf(std::string_view pdf, const ReadLimits& limits,
                             DocumentProblem* problem);
// pdftotext's output as blocks: paragraphs split at blank lines, each page opened by a level-1
// heading block "page N" with an empty range.
ReadDocument BlocksOfPdfText(std::string text);

}  // namespace engram
