#include "extract/changes.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>
#include <utility>
#include <vector>

#include "text/lexicon_data.h"

namespace engram::extract {
namespace {

struct Lists {
  std::vector<std::string> cue;
  std::vector<std::string> hired;       // work words that name a new employer, not only a new job
  std::vector<std::string> away;        // a city named on a trip or a visit, not a move
  std::vector<std::string> cities;      // places.tsv
  std::vector<std::string> switch_cue;  // one value taken up in place of another
  std::vector<std::string> switch_families;  // attributes whose values a switch replaces
  std::vector<std::pair<std::string, std::vector<std::string>>> attributes;
};

Lists Load(const char* file, const char* places) {
  Lists out;
  for (const auto& [key, words] : LexiconEntries(file)) {
    if (key == "cue")
      out.cue = words;
    else if (key == "hired")
      out.hired = words;
    else if (key == "away")
      out.away = words;
    else if (key == "switch")
      out.switch_cue = words;
    else if (key == "switch_families")
      out.switch_families = words;
    else
      out.attributes.emplace_back(key, words);
  }
  for (const auto& [key, words] : LexiconEntries(places)) {
    // a state or a country is where someone lives as a city is
    if (key == "city" || key == "region") {
      out.cities.insert(out.cities.end(), words.begin(), words.end());
    }
  }
  return out;
}

// " i got hired at costco " for "I got hired at Costco!!": whole words, so " at costco " finds
// a phrase and " now " never matches inside "know".
std::string SpacedWords(std::string_view text) {
  std::string out = " ";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '\'' || c == '-' || c >= 0x80) {
      out += static_cast<char>(std::tolower(c));
    } else if (out.back() != ' ') {
      out += ' ';
    }
  }
  if (out.back() != ' ') out += ' ';
  return out;
}

// `words` are padded with a space on each side for English at load (Pad), so a find is whole
// words without building a string per word per call.
bool Says(const std::string& text, const std::vector<std::string>& words, bool) {
  for (const std::string& w : words) {
    if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

void Pad(std::vector<std::string>* words) {
  for (std::string& w : *words) w = " " + w + " ";
}

const Lists& ListsFor(bool zh) {
  static const Lists en = [] {
    Lists l = Load("en/changes.tsv", "en/places.tsv");
    Pad(&l.cue);
    Pad(&l.hired);
    Pad(&l.away);
    Pad(&l.cities);
    Pad(&l.switch_cue);
    for (auto& [attribute, words] : l.attributes) Pad(&words);
    return l;
  }();
  static const Lists zh_lists = Load("zh/changes.tsv", "zh/places.tsv");
  return zh ? zh_lists : en;
}

}  // namespace

bool LeadsWithChange(std::string_view text, bool zh) {
  const Lists& lists = ListsFor(zh);
  const std::string t = zh ? std::string(text) : SpacedWords(text);
  for (const std::string& w : lists.cue) {
    if (t.starts_with(w)) return true;  // English words are padded: " now "
  }
  return false;
}

std::string CityIn(std::string_view text, bool zh) {
  const Lists& lists = ListsFor(zh);
  if (zh) {
    size_t best = std::string_view::npos;
    std::string found;
    for (const std::string& c : lists.cities) {  // the first named, the longest there
      const size_t k = text.find(c);
      if (k != std::string_view::npos && (k < best || (k == best && c.size() > found.size()))) {
        best = k;
        found = c;
      }
    }
    return found;
  }
  // SpacedWords keeps one byte per letter and turns each other run into one space: map its
  // offsets back to the text's
  std::string spaced = " ";
  std::vector<size_t> at = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isalnum(c) || c == '\'' || c == '-' || c >= 0x80) {
      spaced += static_cast<char>(std::tolower(c));
      at.push_back(i);
    } else if (spaced.back() != ' ') {
      spaced += ' ';
      at.push_back(i);
    }
  }
  spaced += ' ';
  at.push_back(text.size());
  size_t best = std::string::npos, len = 0;
  for (const std::string& c : lists.cities) {  // padded: " toledo "
    const size_t k = spaced.find(c);
    if (k != std::string::npos && (k < best || (k == best && c.size() > len))) {
      best = k;
      len = c.size();
    }
  }
  if (best == std::string::npos) return "";
  const size_t from = at[best + 1], to = at[best + len - 2] + 1;
  return std::string(text.substr(from, to - from));
}

bool IsKnownCity(std::string_view phrase, bool zh) {
  if (phrase.empty()) return false;
  // a hash set of the list, built once (called per word of a clause)
  static const std::unordered_set<std::string> en(ListsFor(false).cities.begin(),
                                                  ListsFor(false).cities.end());
  static const std::unordered_set<std::string> zh_set(ListsFor(true).cities.begin(),
                                                      ListsFor(true).cities.end());
  const std::string key = zh ? std::string(phrase) : SpacedWords(phrase);  // " tucson "
  return (zh ? zh_set : en).contains(key);
}

bool SwitchesWithin(std::string_view text, std::string_view attribute, bool zh) {
  const Lists& lists = ListsFor(zh);
  if (std::find(lists.switch_families.begin(), lists.switch_families.end(), attribute) ==
      lists.switch_families.end()) {
    return false;
  }
  return Says(zh ? std::string(text) : SpacedWords(text), lists.switch_cue, zh);
}

bool SaysAttribute(std::string_view text, std::string_view attribute, bool zh) {
  const std::string t = zh ? std::string(text) : SpacedWords(text);
  for (const auto& [name, words] : ListsFor(zh).attributes) {
    if (name == attribute && Says(t, words, zh)) return true;
  }
  return false;
}

bool HasChangeCue(std::string_view text, bool zh) {
  return Says(zh ? std::string(text) : SpacedWords(text), ListsFor(zh).cue, zh);
}

namespace {

// "moved my walk to 9:30", "moving the call to friday": "moved" with an owned thing, then "to"
// and a time or a day. `t` is SpacedWords' form (lower case, spaced words).
bool MovesATime(const std::string& t) {
  for (std::string_view verb : {" moved ", " moving ", " move ", " pushed ", " shifted "}) {
    for (size_t k = t.find(verb); k != std::string::npos; k = t.find(verb, k + 1)) {
      const size_t b = k + verb.size();
      bool owned = false;
      for (std::string_view det : {"my ", "the ", "our "})
        owned = owned || t.compare(b, det.size(), det) == 0;
      if (!owned) continue;
      const size_t to = t.find(" to ", b);
      if (to == std::string::npos || std::count(t.begin() + b, t.begin() + to, ' ') > 3) continue;
      const std::string_view next = std::string_view(t).substr(to + 4);
      if (!next.empty() && std::isdigit(static_cast<unsigned char>(next[0]))) return true;
      for (std::string_view when :
           {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "morning",
            "afternoon", "evening", "noon", "night", "weekend", "next week", "tomorrow"}) {
        if (next.starts_with(when)) return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string ChangedAttribute(std::string_view text, bool zh) {
  const Lists& lists = ListsFor(zh);
  const std::string t = zh ? std::string(text) : SpacedWords(text);
  if (!Says(t, lists.cue, zh)) return "";
  std::string found;
  for (const auto& [attribute, words] : lists.attributes) {
    if (!Says(t, words, zh)) continue;
    // Work words of both: "hired at Costco as a baker" and "跳槽去拼多多" change the employer;
    // "doing UX design full time at a small agency now" is a new job.
    if ((attribute == "job" && found == "employer") ||
        (attribute == "employer" && found == "job")) {
      found = Says(t, lists.hired, zh) ? "employer" : "job";
      continue;
    }
    if (!found.empty()) return "";
    found = attribute;
  }
  // "终于不用跑了…现在在无锡", "officially in Denver now": a city and a cue, nothing about work,
  // no trip: where the user lives now
  if (found.empty() && Says(t, lists.cities, zh) && !Says(t, lists.away, zh)) found = "location";
  // "moved my walk to 9:30", "moved the standup to tuesdays": a time moved, not the user
  if (found == "location" && !zh && MovesATime(t)) return "";
  return found;
}

}  // namespace engram::extract
