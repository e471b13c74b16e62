#include "text/lexicon_data.h"

#include <map>
#include <mutex>

namespace engram {
namespace {

using Entries = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

Entries Parse(std::string_view body) {
  Entries out;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(start, end - start);
    start = end + 1;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    std::vector<std::string> words;
    std::string_view rest = line.substr(tab + 1);
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string word = Trim(rest.substr(0, comma));
      for (char& c : word) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      if (!word.empty()) words.push_back(std::move(word));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    out.emplace_back(Trim(line.substr(0, tab)), std::move(words));
  }
  return out;
}

}  // namespace

const Entries& LexiconEntries(std::string_view file) {
  static const std::map<std::string, Entries, std::less<>>* all = [] {
    auto* m = new std::map<std::string, Entries, std::less<>>;
    for (size_t i = 0; i < kLexiconFiles_count; ++i) {
      (*m)[std::string(kLexiconFiles[i].name)] = Parse(kLexiconFiles[i].body);
    }
    return m;
  }();
  static const Entries kNone;
  auto it = all->find(file);
  return it == all->end() ? kNone : it->second;
}

std::vector<std::string> LexiconWords(std::string_view file, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& [k, words] : LexiconEntries(file)) {
    if (k == key) out.insert(out.end(), words.begin(), words.end());
  }
  return out;
}

}  // namespace engram
