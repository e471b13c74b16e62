// libFuzzer target over the offline extractor (MakeRuleExtractor, "rules-v2"): any UTF-8 text a
// user may send, in one to three turns said at a real date, must not crash it, must not make it
// run long (libFuzzer's -timeout), and must give only candidates whose text is the user's own
// words put into a template: no fact text is ever made of words the user did not say.
//
// Input: the first byte picks the turns' layout (bits 0-1: split the rest at '\x1e' into up to
// that many + 1 turns; bit 2: every second turn is the assistant's; bits 3-7: the week the
// message is said in, from 2026-01-05, so relative dates resolve across months and years).
// The rest is the text. Bytes that are not UTF-8 are not fed: the server refuses them before
// extraction (ValidateText), so the extractor's contract starts at valid UTF-8.
//
// What a candidate's content may hold is extract::UnsaidWords's rule (src/extract/provenance.h;
// its entities and slot are keys, which may be a lexicon's canonical word: 吃素 → 素食): the
// user's words and characters, the templates' own, digits and punctuation. Anything else is a
// piece of text nobody said: the target aborts. Also: no empty candidate, none longer than four
// times what was said, valid UTF-8, importance and confidence within 0..1, no error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/extraction.h"
#include "extract/provenance.h"
#include "text/utf8.h"

namespace engram {
namespace {

// 2026-01-05T09:30:00Z: a Monday; day offsets up to 31 weeks from it.
constexpr TimestampMs kBaseMs = 1767605400000;
constexpr TimestampMs kDayMs = 86400000;

// Control characters escaped: a candidate may hold a NUL the user sent.
std::string Shown(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(ch));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

[[noreturn]] void Violated(const char* what, const std::string& detail, std::string_view input) {
  std::fprintf(stderr, "extractor_fuzzer: %s: %s\ninput: %s\n", what, Shown(detail).c_str(),
               Shown(input).c_str());
  std::abort();
}

}  // namespace
}  // namespace engram

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engram;
  if (size < 1) return 0;
  const uint8_t layout = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (!IsValidUtf8(text)) return 0;

  static const std::unique_ptr<Extractor> extractor = MakeRuleExtractor();
  const size_t max_turns = (layout & 3u) + 1;
  const bool alternate = (layout & 4u) != 0;
  const TimestampMs said = kBaseMs + static_cast<TimestampMs>(layout >> 3) * 7 * kDayMs;

  ExtractionInput in;
  size_t at = 0;
  while (at <= text.size() && in.turns.size() < max_turns) {
    size_t end = in.turns.size() + 1 == max_turns ? text.size() : text.find('\x1e', at);
    if (end == std::string_view::npos) end = text.size();
    Turn t;
    t.role = alternate && in.turns.size() % 2 == 1 ? "assistant" : "user";
    t.content = std::string(text.substr(at, end - at));
    t.at = said + static_cast<TimestampMs>(in.turns.size()) * 60000;
    in.turns.push_back(std::move(t));
    at = end + 1;
  }

  auto result = extractor->Extract(in);
  if (!result.ok()) Violated("an error", result.status().ToString(), text);

  // Only the user's turns are read: what the candidates may draw on is theirs.
  std::string user_text;
  for (const Turn& t : in.turns) {
    if (t.role == "user") user_text += t.content + "\n";
  }
  for (const Candidate& c : result->candidates) {
    if (c.content.empty()) Violated("an empty candidate", c.slot, text);
    if (!IsValidUtf8(c.content)) Violated("not UTF-8", c.content, text);
    if (c.content.size() > 4 * user_text.size() + 256) {
      Violated("a candidate longer than what was said", c.content, text);
    }
    if (!(c.importance >= 0 && c.importance <= 1) || !(c.confidence >= 0 && c.confidence <= 1)) {
      Violated("importance or confidence outside 0..1", c.content, text);
    }
    const std::vector<std::string> unsaid = extract::UnsaidWords(c.content, user_text);
    if (!unsaid.empty()) {
      Violated("a word nobody said", "'" + c.content + "' has '" + unsaid.front() + "'", text);
    }
  }
  return 0;
}
