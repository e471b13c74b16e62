#include "knowledge/chunker.h"

#include <algorithm>

#include "text/token_counter.h"
#include "text/utf8.h"

namespace engram {
namespace {

// A piece no chunk splits: a sentence, a line of code, a heading, or a slice of a longer one.
struct Unit {
  size_t begin = 0, end = 0;
  int tokens = 0;
  int section = 0;
  bool heading = false;
};

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'; }

bool IsCjk(char32_t c) {
  return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x9FFF) ||
         (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x3000 && c <= 0x303F) ||
         (c >= 0x20000 && c <= 0x2FA1F);
}

// Where a sentence may end: after . ! ? ; followed by a space, after their full-width forms
// (Chinese and Japanese put no space after them) and the full-width comma, and at line ends.
// Chinese sentences run long in tokens (a token a character): cut at clauses too, an overlap
// of a few dozen tokens still holds whole pieces of text.
size_t SentenceEnd(std::string_view t, size_t at, size_t end) {
  while (at < end) {
    const unsigned char c = static_cast<unsigned char>(t[at]);
    if (c == '\n') return at + 1;
    if ((c == '.' || c == '!' || c == '?' || c == ';') && (at + 1 == end || IsSpace(t[at + 1]))) {
      return at + 1;
    }
    if (c == 0xE3 && at + 2 < end && static_cast<unsigned char>(t[at + 1]) == 0x80 &&
        static_cast<unsigned char>(t[at + 2]) == 0x82) {
      return at + 3;  // 。
    }
    if (c == 0xEF && at + 2 < end && static_cast<unsigned char>(t[at + 1]) == 0xBC) {
      const unsigned char d = static_cast<unsigned char>(t[at + 2]);
      if (d == 0x81 || d == 0x9F || d == 0x9B || d == 0x8C) return at + 3;  // ！ ？ ； ，
    }
    ++at;
  }
  return end;
}

size_t LineEnd(std::string_view t, size_t at, size_t end) {
  const size_t nl = t.find('\n', at);
  return nl == std::string_view::npos || nl >= end ? end : nl + 1;
}

class UnitBuilder {
 public:
  UnitBuilder(std::string_view text, int max_tokens, std::vector<Unit>* out)
      : t_(text), max_tokens_(max_tokens), out_(out) {}

  void Heading(size_t begin, size_t end, int section) {
    const int tokens = CountTokens(t_.substr(begin, end - begin));
    if (tokens <= max_tokens_) {
      out_->push_back(Unit{begin, end, tokens, section, true});
    } else {
      Words(begin, end, section);
    }
  }

  // Sentences (or lines, for code) of [begin, end), each cut further when too long.
  void Block(size_t begin, size_t end, bool code, int section) {
    size_t at = begin;
    while (at < end) {
      while (at < end && IsSpace(t_[at]) && !code) ++at;
      if (at >= end) break;
      const size_t stop = code ? LineEnd(t_, at, end) : SentenceEnd(t_, at, end);
      size_t trimmed = stop;
      while (trimmed > at && IsSpace(t_[trimmed - 1])) --trimmed;
      if (trimmed > at) Piece(at, trimmed, section);
      at = stop;
    }
  }

 private:
  void Piece(size_t begin, size_t end, int section) {
    const int tokens = CountTokens(t_.substr(begin, end - begin));
    if (tokens <= max_tokens_) {
      out_->push_back(Unit{begin, end, tokens, section, false});
    } else {
      Words(begin, end, section);
    }
  }

  // Packs words (a CJK character is a word) into units of at most max_tokens; a single word
  // longer than that is cut at code points.
  void Words(size_t begin, size_t end, int section) {
    size_t unit_begin = begin, at = begin;
    int unit_tokens = 0;
    while (at < end) {
      size_t word_end = at;
      const char32_t c = CodepointAt(t_, at);
      if (IsCjk(c)) {
        word_end += CodepointLength(t_, at);
      } else {
        while (word_end < end && !IsSpace(t_[word_end]) && !IsCjk(CodepointAt(t_, word_end))) {
          word_end += CodepointLength(t_, word_end);
        }
      }
      while (word_end < end && IsSpace(t_[word_end])) ++word_end;
      if (word_end == at) word_end = at + CodepointLength(t_, at);
      const int tokens = CountTokens(t_.substr(at, word_end - at));
      if (tokens > max_tokens_) {
        Flush(unit_begin, at, unit_tokens, section);
        LongWord(at, word_end, section);
        unit_begin = word_end;
        unit_tokens = 0;
      } else if (unit_tokens + tokens > max_tokens_) {
        Flush(unit_begin, at, unit_tokens, section);
        unit_begin = at;
        unit_tokens = tokens;
      } else {
        unit_tokens += tokens;
      }
      at = word_end;
    }
    Flush(unit_begin, end, unit_tokens, section);
  }

  void LongWord(size_t begin, size_t end, int section) {
    // Four bytes per token keeps a slice of non-CJK text (4.5 bytes a token) within the limit.
    const size_t slice = static_cast<size_t>(max_tokens_) * 4;
    for (size_t at = begin; at < end;) {
      size_t stop = std::min(end, at + slice);
      if (stop < end) stop = CodepointStart(t_, stop);
      if (stop <= at) stop = at + CodepointLength(t_, at);
      Flush(at, stop, CountTokens(t_.substr(at, stop - at)), section);
      at = stop;
    }
  }

  void Flush(size_t begin, size_t end, int tokens, int section) {
    while (end > begin && IsSpace(t_[end - 1])) --end;
    if (end > begin) out_->push_back(Unit{begin, end, std::max(tokens, 1), section, false});
  }

  std::string_view t_;
  int max_tokens_;
  std::vector<Unit>* out_;
};

// Code points before a byte offset, for offsets that never go back.
class CodepointCursor {
 public:
  explicit CodepointCursor(std::string_view t) : t_(t) {}
  int64_t At(size_t byte) {
    for (; byte_ < byte; ++byte_) {
      if ((static_cast<unsigned char>(t_[byte_]) & 0xC0) != 0x80) ++count_;
    }
    return count_;
  }

 private:
  std::string_view t_;
  size_t byte_ = 0;
  int64_t count_ = 0;
};

}  // namespace

std::vector<KnowledgeChunk> ChunkDocument(const ReadDocument& doc, const ChunkingOptions& options) {
  const std::string_view t = doc.text;
  std::vector<Unit> units;
  units.reserve(doc.blocks.size() * 2 + t.size() / 200);
  std::vector<std::vector<std::string>> paths{{}};  // by section
  struct Open {
    int level;
    std::string text;
  };
  std::vector<Open> headings;
  UnitBuilder build(t, options.chunk_tokens, &units);
  for (const DocumentBlock& b : doc.blocks) {
    if (b.kind == BlockKind::kHeading) {
      while (!headings.empty() && headings.back().level >= b.level) headings.pop_back();
      headings.push_back({b.level, b.heading});
      std::vector<std::string> path;
      for (const Open& h : headings) path.push_back(h.text);
      paths.push_back(std::move(path));
      if (b.end > b.begin) build.Heading(b.begin, b.end, static_cast<int>(paths.size()) - 1);
      continue;
    }
    build.Block(b.begin, b.end, b.kind == BlockKind::kCode, static_cast<int>(paths.size()) - 1);
  }

  std::vector<KnowledgeChunk> chunks;
  CodepointCursor start_cp(t), end_cp(t);
  auto emit = [&](size_t first, size_t last) {  // units [first, last)
    KnowledgeChunk c;
    c.ordinal = static_cast<int>(chunks.size());
    const size_t begin = units[first].begin, end = units[last - 1].end;
    c.text = std::string(t.substr(begin, end - begin));
    c.title_path = paths[units[first].section];
    c.char_start = start_cp.At(begin);
    c.char_end = end_cp.At(end);
    for (size_t i = first; i < last; ++i) c.tokens += units[i].tokens;
    chunks.push_back(std::move(c));
  };
  size_t first = 0;
  int tokens = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit& u = units[i];
    const bool new_section = i > first && (u.heading || u.section != units[first].section);
    if (i > first && (new_section || tokens + u.tokens > options.chunk_tokens)) {
      emit(first, i);
      size_t next = i;
      if (!new_section) {  // the section goes on: start with the end of the chunk before
        int overlap = 0;
        while (next - 1 > first && overlap + units[next - 1].tokens <= options.overlap_tokens &&
               overlap + units[next - 1].tokens + u.tokens <= options.chunk_tokens) {
          --next;
          overlap += units[next].tokens;
        }
        tokens = overlap;
      } else {
        tokens = 0;
      }
      first = next;
    }
    tokens += u.tokens;
  }
  if (first < units.size()) emit(first, units.size());
  return chunks;
}

}  // namespace engram
