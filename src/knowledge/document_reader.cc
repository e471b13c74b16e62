// Plain text and Markdown (cmark) into blocks, and the reader's entry point; HTML:
// html_reader.cc; PDF: pdf_reader.cc.
#include "knowledge/document_reader.h"

#include <cmark.h>

#include <memory>

#include "text/utf8.h"

namespace engram {
namespace {

bool IsBlankLine(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

// The byte offset where each line starts (line 1 at index 0), and one past the end.
std::vector<size_t> LineStarts(std::string_view text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  starts.push_back(text.size() + 1);
  return starts;
}

struct CmarkNodeFree {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};
struct CmarkIterFree {
  void operator()(cmark_iter* i) const { cmark_iter_free(i); }
};

// The text of a heading without its markup: the literals of its inline descendants.
std::string InlineText(cmark_node* node) {
  std::string out;
  std::unique_ptr<cmark_iter, CmarkIterFree> it(cmark_iter_new(node));
  for (cmark_event_type ev; (ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE;) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it.get());
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
      case CMARK_NODE_HTML_INLINE:
        if (const char* lit = cmark_node_get_literal(n)) out += lit;
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        out += ' ';
        break;
      default:
        break;
    }
  }
  return out;
}

// The byte range of a block from cmark's source positions (1-based lines and byte columns,
// end column inclusive), kept within the lines it names.
bool SourceRange(cmark_node* node, const std::vector<size_t>& lines, size_t size, size_t* begin,
                 size_t* end) {
  const int sl = cmark_node_get_start_line(node), sc = cmark_node_get_start_column(node);
  const int el = cmark_node_get_end_line(node), ec = cmark_node_get_end_column(node);
  const size_t line_count = lines.size() - 1;
  if (sl < 1 || el < sl || static_cast<size_t>(el) > line_count) return false;
  const size_t first = lines[sl - 1], last = lines[el - 1];
  const size_t last_end = std::min(lines[el] - 1, size);  // the end of line el, newline excluded
  *begin = std::min(first + static_cast<size_t>(std::max(sc, 1)) - 1, lines[sl] - 1);
  *end = ec >= 1 ? std::min(last + static_cast<size_t>(ec), last_end) : last_end;
  if (*end <= *begin) *end = last_end;
  return *end > *begin;
}

void AddBlock(ReadDocument* doc, BlockKind kind, size_t begin, size_t end, int level = 0,
              std::string heading = "") {
  doc->blocks.push_back(DocumentBlock{kind, level, begin, end, std::move(heading)});
}

void AddMarkdownNode(cmark_node* node, const std::vector<size_t>& lines, ReadDocument* doc) {
  size_t begin = 0, end = 0;
  const cmark_node_type type = cmark_node_get_type(node);
  if (type == CMARK_NODE_LIST) {  // each item a block of its own
    for (cmark_node* item = cmark_node_first_child(node); item; item = cmark_node_next(item)) {
      if (SourceRange(item, lines, doc->text.size(), &begin, &end)) {
        AddBlock(doc, BlockKind::kListItem, begin, end);
      }
    }
    return;
  }
  if (type == CMARK_NODE_THEMATIC_BREAK) return;
  if (!SourceRange(node, lines, doc->text.size(), &begin, &end)) return;
  switch (type) {
    case CMARK_NODE_HEADING: {
      std::string heading = InlineText(node);
      if (doc->title.empty()) doc->title = heading;
      AddBlock(doc, BlockKind::kHeading, begin, end, cmark_node_get_heading_level(node),
               std::move(heading));
      return;
    }
    case CMARK_NODE_CODE_BLOCK:
      AddBlock(doc, BlockKind::kCode, begin, end);
      return;
    case CMARK_NODE_BLOCK_QUOTE:
      AddBlock(doc, BlockKind::kQuote, begin, end);
      return;
    default:  // paragraphs, HTML blocks
      AddBlock(doc, BlockKind::kParagraph, begin, end);
      return;
  }
}

}  // namespace

ReadDocument ReadPlainText(std::string_view text) {
  ReadDocument doc;
  doc.text = std::string(text);
  size_t para_begin = std::string::npos, para_end = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(at, nl - at);
    if (IsBlankLine(line)) {
      if (para_begin != std::string::npos)
        AddBlock(&doc, BlockKind::kParagraph, para_begin, para_end);
      para_begin = std::string::npos;
    } else {
      if (para_begin == std::string::npos) para_begin = at;
      para_end = nl;
    }
    at = nl + 1;
  }
  if (para_begin != std::string::npos) AddBlock(&doc, BlockKind::kParagraph, para_begin, para_end);
  return doc;
}

ReadDocument ReadMarkdown(std::string_view text) {
  ReadDocument doc;
  doc.text = std::string(text);
  const std::vector<size_t> lines = LineStarts(text);
  std::unique_ptr<cmark_node, CmarkNodeFree> root(
      cmark_parse_document(text.data(), text.size(), CMARK_OPT_DEFAULT));
  if (!root) return ReadPlainText(text);
  for (cmark_node* n = cmark_node_first_child(root.get()); n; n = cmark_node_next(n)) {
    AddMarkdownNode(n, lines, &doc);
  }
  return doc;
}

Result<ReadDocument> ReadDocumentContent(DocumentFormat format, std::string_view content,
                                         const ReadLimits& limits, DocumentProblem* problem) {
  *problem = DocumentProblem::kNone;
  auto refuse = [&](DocumentProblem p, std::string message) -> Status {
    *problem = p;
    return Status::InvalidArgument(std::move(message));
  };
  Result<ReadDocument> doc = Status::Internal("unread");
  if (format == DocumentFormat::kPdf) {
    doc = ReadPdf(content, limits, problem);
  } else {
    size_t bad = 0;
    if (!IsValidUtf8(content, &bad)) {
      return refuse(DocumentProblem::kUnreadable,
                    "the document is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
    }
    if (content.starts_with("%PDF-")) {
      return refuse(DocumentProblem::kUnsupportedFormat,
                    "the document is a PDF but was sent as " + std::string(ToString(format)));
    }
    switch (format) {
      case DocumentFormat::kMarkdown:
        doc = ReadMarkdown(content);
        break;
      case DocumentFormat::kHtml:
        doc = ReadHtml(content, limits, problem);
        break;
      default:
        doc = ReadPlainText(content);
        break;
    }
  }
  if (!doc.ok()) return doc;
  if (doc->blocks.empty() || doc->text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    return refuse(DocumentProblem::kEmpty, "the document holds no text");
  }
  return doc;
}

}  // namespace engram
