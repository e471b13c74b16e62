// HTML into visible text and blocks, parsed by libxml2's HTML parser (forgiving, as browsers
// are: a damaged page still yields its text).
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "knowledge/document_reader.h"

namespace engram {
namespace {

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};

bool NameIs(const xmlNode* n, const char* name) {
  return n->name && std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}

bool NameIn(const xmlNode* n, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (NameIs(n, name)) return true;
  }
  return false;
}

int HeadingLevel(const xmlNode* n) {
  const char* name = reinterpret_cast<const char*>(n->name);
  if (name && name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && name[2] == '\0') {
    return name[1] - '0';
  }
  return 0;
}

// Appends `s` with each run of whitespace as one space.
void AppendCollapsed(std::string_view s, std::string* out) {
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f';
    if (space) {
      if (!out->empty() && out->back() != ' ') out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
}

std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

void CollectText(const xmlNode* n, std::string* out) {
  for (; n; n = n->next) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
      if (n->content) AppendCollapsed(reinterpret_cast<const char*>(n->content), out);
    } else if (n->type == XML_ELEMENT_NODE &&
               !NameIn(n, {"script", "style", "noscript", "template"})) {
      if (NameIs(n, "br")) out->push_back(' ');
      CollectText(n->children, out);
    }
  }
}

void CollectRaw(const xmlNode* n, std::string* out) {
  for (; n; n = n->next) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
      if (n->content) *out += reinterpret_cast<const char*>(n->content);
    } else if (n->type == XML_ELEMENT_NODE) {
      if (NameIs(n, "br")) out->push_back('\n');
      CollectRaw(n->children, out);
    }
  }
}

class HtmlWalker {
 public:
  explicit HtmlWalker(ReadDocument* doc) : doc_(doc) {}

  void Walk(const xmlNode* n) {
    for (; n; n = n->next) {
      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
        if (n->content) AppendCollapsed(reinterpret_cast<const char*>(n->content), &inline_);
        continue;
      }
      if (n->type != XML_ELEMENT_NODE) continue;
      Element(n);
    }
  }

  void Flush() {
    std::string text = Trimmed(inline_);
    inline_.clear();
    if (!text.empty()) Emit(kind_, text);
  }

 private:
  void Element(const xmlNode* n) {
    if (NameIn(n, {"script", "style", "noscript", "template", "svg", "iframe", "object", "head"})) {
      if (NameIs(n, "head")) Title(n->children);
      return;
    }
    if (NameIs(n, "br")) {
      inline_.push_back(' ');
      return;
    }
    if (const int level = HeadingLevel(n)) {
      Flush();
      std::string text;
      CollectText(n->children, &text);
      text = Trimmed(text);
      if (!text.empty()) {
        if (doc_->title.empty()) doc_->title = text;
        Emit(BlockKind::kHeading, text, level);
      }
      return;
    }
    if (NameIs(n, "pre")) {
      Flush();
      std::string raw;
      CollectRaw(n->children, &raw);
      while (!raw.empty() && (raw.back() == '\n' || raw.back() == ' ')) raw.pop_back();
      if (raw.find_first_not_of(" \n\t") != std::string::npos) Emit(BlockKind::kCode, raw);
      return;
    }
    if (NameIs(n, "tr")) {
      Flush();
      std::string row;
      for (const xmlNode* cell = n->children; cell; cell = cell->next) {
        if (cell->type != XML_ELEMENT_NODE || !NameIn(cell, {"td", "th"})) continue;
        std::string text;
        CollectText(cell->children, &text);
        text = Trimmed(text);
        if (!row.empty()) row += " | ";
        row += text;
      }
      if (Trimmed(row).size() > 0 && row.find_first_not_of(" |") != std::string::npos) {
        Emit(BlockKind::kTableRow, row);
      }
      return;
    }
    const bool item = NameIn(n, {"li", "dt", "dd"});
    const bool quote = NameIs(n, "blockquote");
    const bool block =
        item || quote ||
        NameIn(n, {"p",       "div",  "section", "article",  "main",    "header",     "footer",
                   "aside",   "nav",  "form",    "fieldset", "figure",  "figcaption", "address",
                   "dl",      "ul",   "ol",      "table",    "thead",   "tbody",      "tfoot",
                   "caption", "body", "html",    "details",  "summary", "hr"});
    if (!block) {
      Walk(n->children);
      return;
    }
    Flush();
    const BlockKind outer = kind_;
    if (item) kind_ = BlockKind::kListItem;
    if (quote) kind_ = BlockKind::kQuote;
    Walk(n->children);
    Flush();
    kind_ = outer;
  }

  void Title(const xmlNode* n) {
    for (; n; n = n->next) {
      if (n->type == XML_ELEMENT_NODE && NameIs(n, "title") && title_.empty()) {
        CollectText(n->children, &title_);
        title_ = Trimmed(title_);
      }
    }
  }

  void Emit(BlockKind kind, const std::string& text, int level = 0) {
    if (!doc_->text.empty()) doc_->text += "\n\n";
    const size_t begin = doc_->text.size();
    doc_->text += text;
    doc_->blocks.push_back(DocumentBlock{kind, level, begin, doc_->text.size(),
                                         kind == BlockKind::kHeading ? text : ""});
  }

 public:
  std::string title_;

 private:
  ReadDocument* doc_;
  std::string inline_;
  BlockKind kind_ = BlockKind::kParagraph;
};

}  // namespace

Result<ReadDocument> ReadHtml(std::string_view html, const ReadLimits& limits,
                              DocumentProblem* problem) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  *problem = DocumentProblem::kNone;
  ReadDocument doc;
  if (html.size() > static_cast<size_t>(INT32_MAX)) {
    *problem = DocumentProblem::kTooLarge;
    return Status::InvalidArgument("the HTML document is too large to parse");
  }
  std::unique_ptr<xmlDoc, DocFree> parsed(
      htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr, "UTF-8",
                     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                         HTML_PARSE_NONET | HTML_PARSE_NOIMPLIED));
  if (!parsed) {
    *problem = DocumentProblem::kUnreadable;
    return Status::InvalidArgument("the HTML document could not be parsed");
  }
  HtmlWalker walker(&doc);
  // The root and its siblings (HTML_PARSE_NOIMPLIED keeps a fragment's top level as it is).
  walker.Walk(xmlDocGetRootElement(parsed.get()));
  walker.Flush();
  if (!walker.title_.empty()) doc.title = walker.title_;
  if (doc.text.size() > limits.max_text_bytes) {
    *problem = DocumentProblem::kTooLarge;
    return Status::InvalidArgument("the HTML document's text is over " +
                                   std::to_string(limits.max_text_bytes) + " bytes");
  }
  return doc;
}

}  // namespace engram
