// English words for the rule patterns: tokens with contractions expanded, word lists, and the
// third-person rewrite of a predicate.
#include "extract/english_words.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "extract/clauses.h"
#include "text/lexicon_data.h"
#include "text/time_expressions.h"

namespace engram::extract::en {
namespace {

// ('_' inside handles and addresses: "xiao_yu@163.com", "cool_cat_99" are one word each)
bool IsWordChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '\'' || c == '-' || c == '&' || c == '+' ||
         c == '#' || c == '/' || c == '@' || c == '_';
}

void PushExpanded(std::vector<Tok>* out, std::string_view word) {
  std::string low = Lower(word);
  struct Contraction {
    std::string_view word, first, second;
  };
  static constexpr std::array<Contraction, 36> kContractions = {{{"we're", "we", "are"},
                                                                 {"we've", "we", "have"},
                                                                 {"we'll", "we", "will"},
                                                                 {"we'd", "we", "would"},
                                                                 {"they're", "they", "are"},
                                                                 {"they've", "they", "have"},
                                                                 {"you're", "you", "are"},
                                                                 {"i'ma", "i", "am"},
                                                                 {"there's", "there", "is"},
                                                                 {"what's", "what", "is"},
                                                                 {"isnt", "is", "not"},
                                                                 {"cant", "can", "not"},
                                                                 {"i'm", "i", "am"},
                                                                 {"i've", "i", "have"},
                                                                 {"i'd", "i", "would"},
                                                                 {"i'll", "i", "will"},
                                                                 {"im", "i", "am"},
                                                                 {"don't", "do", "not"},
                                                                 {"dont", "do", "not"},
                                                                 {"doesn't", "does", "not"},
                                                                 {"didn't", "did", "not"},
                                                                 {"can't", "can", "not"},
                                                                 {"cannot", "can", "not"},
                                                                 {"won't", "will", "not"},
                                                                 {"isn't", "is", "not"},
                                                                 {"aren't", "are", "not"},
                                                                 {"wasn't", "was", "not"},
                                                                 {"haven't", "have", "not"},
                                                                 {"hasn't", "has", "not"},
                                                                 {"wouldn't", "would", "not"},
                                                                 {"couldn't", "could", "not"},
                                                                 {"shouldn't", "should", "not"},
                                                                 {"ain't", "am", "not"},
                                                                 {"didnt", "did", "not"},
                                                                 {"wanna", "want", "to"},
                                                                 {"gonna", "going", "to"}}};
  for (const Contraction& c : kContractions) {
    if (low == c.word) {
      out->push_back({std::string(c.first), c.first == "i" ? "I" : std::string(c.first)});
      out->push_back({std::string(c.second), std::string(c.second)});
      return;
    }
  }
  if (low.size() > 2 && low.ends_with("'s")) {
    std::string stem = low.substr(0, low.size() - 2);
    out->push_back({stem, std::string(word.substr(0, word.size() - 2))});
    bool is = stem == "name" || stem == "it" || stem == "that" || stem == "he" || stem == "she";
    out->push_back({is ? "is" : "'s", is ? "is" : "'s"});
    return;
  }
  out->push_back({std::move(low), std::string(word)});
}

void Append(std::string* out, std::string_view word) {
  if (word.empty()) return;
  if (!out->empty() && word != "," && word != "'s") *out += ' ';
  *out += word;
}

}  // namespace

std::string Lower(std::string_view s) { return LowerAscii(s); }

std::vector<Tok> Tokenize(std::string_view s) {
  std::vector<Tok> out;
  out.reserve(s.size() / 4 + 4);  // about one token per five bytes of English
  size_t i = 0;
  while (i < s.size()) {
    // "1,450" and "6:30" are one token each
    const bool digit_comma = (s[i] == ',' || s[i] == ':') && i > 0 && i + 1 < s.size() &&
                             std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
                             std::isdigit(static_cast<unsigned char>(s[i + 1]));
    if ((s[i] == ',' && !digit_comma) || s[i] == ';' || (s[i] == ':' && !digit_comma)) {
      out.push_back({",", ","});
      ++i;
      continue;
    }
    if (!IsWordChar(s[i]) && !(s[i] == '.' && i > 0 && i + 1 < s.size() &&
                               std::isalnum(static_cast<unsigned char>(s[i + 1])))) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < s.size() &&
           (IsWordChar(s[i]) ||
            ((s[i] == '.' || s[i] == ',' || s[i] == ':' || s[i] == '%') && i + 1 <= s.size() &&
             (s[i] == '%' ||
              (i + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[i + 1])) &&
               (s[i] == '.' || (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
                                std::isdigit(static_cast<unsigned char>(s[i + 1]))))))))) {
      ++i;
    }
    std::string_view w = s.substr(b, i - b);
    while (!w.empty() && (w.front() == '\'' || w.front() == '-')) w.remove_prefix(1);
    while (!w.empty() && (w.back() == '\'' || w.back() == '-')) w.remove_suffix(1);
    if (!w.empty()) PushExpanded(&out, w);
  }
  return out;
}

const WordSet& Adverbs() {
  static const WordSet k = {
      "really",     "also",      "actually",   "now",        "currently", "still",     "just",
      "absolutely", "totally",   "definitely", "usually",    "honestly",  "mostly",    "recently",
      "finally",    "truly",     "especially", "even",       "always",    "generally", "personally",
      "seriously",  "literally", "sometimes",  "often",      "already",   "only",      "mainly",
      "basically",  "deeply",    "genuinely",  "so",         "very",      "much",      "kinda",
      "sorta",      "probably",  "definitely", "officially", "happily",   "secretly",  "both",
      "all",        "too",       "certainly",  "surely",     "normally",  "typically", "originally",
      "initially"};
  return k;
}

bool IsNegator(std::string_view w) { return w == "not" || w == "never" || w == "no"; }

const WordSet& Boundaries() {
  static const WordSet k = {
      "because",    "since",        "but",       "so",       "which",  "who",    "where",
      "when",       "while",        "although",  "though",   "and",    "or",     "with",
      "for",        "now",          "anymore",   "too",      "either", "as",     "until",
      "lately",     "nowadays",     "currently", "these",    "right",  "at",     ",",
      "lol",        "haha",         "if",        "whenever", "than",   "ever",   "though",
      "unless",     "cause",        "coz",       "cuz",      "after",  "before", "during",
      "by",         "from",         "either",    "though",   "over",   "rather", "instead",
      "especially", "particularly", "including", "like",     "such"};
  return k;
}

const WordSet& Occupations() {
  static const WordSet k = {
      "engineer",     "developer",    "programmer",   "designer",      "teacher",
      "professor",    "lecturer",     "doctor",       "nurse",         "surgeon",
      "dentist",      "pharmacist",   "lawyer",       "attorney",      "accountant",
      "consultant",   "manager",      "director",     "analyst",       "scientist",
      "researcher",   "architect",    "chef",         "cook",          "baker",
      "waiter",       "waitress",     "barista",      "driver",        "pilot",
      "mechanic",     "electrician",  "plumber",      "carpenter",     "farmer",
      "writer",       "author",       "journalist",   "editor",        "photographer",
      "artist",       "musician",     "actor",        "actress",       "student",
      "freelancer",   "entrepreneur", "founder",      "ceo",           "cto",
      "cfo",          "intern",       "retiree",      "clerk",         "cashier",
      "salesperson",  "salesman",     "banker",       "trader",        "firefighter",
      "officer",      "soldier",      "veterinarian", "vet",           "therapist",
      "psychologist", "counselor",    "librarian",    "translator",    "tutor",
      "coach",        "secretary",    "receptionist", "technician",    "administrator",
      "economist",    "physician",    "paramedic",    "cleaner",       "janitor",
      "tailor",       "hairdresser",  "barber",       "guard",         "nanny",
      "housewife",    "homemaker",    "postdoc",      "freshman",      "sophomore",
      "junior",       "senior",       "undergrad",    "undergraduate", "grad",
      "policeman",    "policewoman",  "professional", "assistant",     "supervisor",
      "executive",    "specialist",   "officer",      "instructor",    "dev",
      "sre",          "pm",           "ux",           "marketer",      "recruiter",
      "investor",     "broker",       "agent",        "contractor",    "builder",
      "welder",       "midwife",      "caregiver",    "paralegal",     "judge",
      "surveyor",     "producer"};
  return k;
}

bool LooksLikeOccupation(const std::vector<Tok>& t, size_t b, size_t e) {
  // "a paralegal in columbus", "an engineer at google": the head is before the preposition
  for (size_t i = b + 1; i < e; ++i) {
    const std::string_view w = t[i].low;
    if (w == "in" || w == "at" || w == "for" || w == "with" || w == "from" || w == "near" ||
        w == "here") {
      e = i;
      break;
    }
  }
  if (b >= e) return false;
  std::string_view head = t[e - 1].low;
  if (head == "student" || Occupations().contains(head)) return true;
  for (std::string_view suffix : {"ist", "eer", "ician", "ologist", "grapher"}) {
    if (head.size() > suffix.size() + 2 && head.ends_with(suffix)) return true;
  }
  return false;
}

const WordSet& Pets() {
  // data/lexicon/en/pets.tsv; the lexicon lives for the process, so the views stay valid
  static const WordSet k = [] {
    WordSet out;
    for (const auto& [key, words] : LexiconEntries("en/pets.tsv")) {
      if (key != "pet") continue;
      for (const std::string& w : words) out.insert(w);
    }
    return out;
  }();
  return k;
}

const WordSet& Relations() {
  static const WordSet k = {
      "wife",          "husband",     "spouse",       "partner",  "boyfriend",    "girlfriend",
      "fiance",        "fiancee",     "son",          "sons",     "daughter",     "daughters",
      "kid",           "kids",        "child",        "children", "baby",         "mom",
      "mother",        "mum",         "dad",          "father",   "parents",      "brother",
      "brothers",      "sister",      "sisters",      "siblings", "grandma",      "grandmother",
      "grandpa",       "grandfather", "grandparents", "aunt",     "uncle",        "cousin",
      "niece",         "nephew",      "twins",        "stepson",  "stepdaughter", "mother-in-law",
      "father-in-law", "in-laws",     "stepmom",      "stepdad",  "grandson",     "granddaughter",
      "grandchildren", "grandkids"};
  return k;
}

const WordSet& HealthConditions() {
  static const WordSet k = {
      "diabetes",       "asthma",    "hypertension", "arthritis",  "migraines",
      "migraine",       "epilepsy",  "anemia",       "depression", "anxiety",
      "adhd",           "autism",    "insomnia",     "eczema",     "psoriasis",
      "celiac",         "gout",      "cancer",       "copd",       "ibs",
      "crohn's",        "lupus",     "scoliosis",    "tinnitus",   "glaucoma",
      "hypothyroidism", "allergies", "dyslexia",     "ptsd",       "ocd",
      "bipolar"};
  return k;
}

std::string Singular(std::string_view w) {
  if (w == "children") return "child";
  static const WordSet kIeWords = {"movies",  "cookies",  "zombies", "pies",      "ties",
                                   "lies",    "brownies", "selfies", "smoothies", "hippies",
                                   "rookies", "indies",   "veggies", "goalies",   "newbies",
                                   "techies", "freebies"};
  if (kIeWords.contains(w)) return std::string(w.substr(0, w.size() - 1));
  if (w.size() > 4 && w.ends_with("ies")) return std::string(w.substr(0, w.size() - 3)) + "y";
  for (std::string_view es : {"ches", "shes", "xes", "sses"}) {
    if (w.size() > es.size() + 1 && w.ends_with(es)) return std::string(w.substr(0, w.size() - 2));
  }
  if (w.size() > 3 && w.ends_with("s") && !w.ends_with("ss") && !w.ends_with("us") &&
      !w.ends_with("is")) {
    return std::string(w.substr(0, w.size() - 1));
  }
  return std::string(w);
}

std::string ThirdPerson(const Tok& t) {
  std::string_view w = t.low;
  // a verb is a word of letters: "00y" takes no ending ("00ies" is a word nobody said), nor one
  // with an apostrophe ("w'y") or with its letters apart ("frnoom--y"): a hyphen counts only
  // between two letters ("double-check")
  bool word = !w.empty() && std::isalpha(static_cast<unsigned char>(w.back()));
  for (size_t i = 0; i < w.size() && word; ++i) {
    const auto c = static_cast<unsigned char>(w[i]);
    if (std::isalpha(c)) continue;
    word = c == '-' && i > 0 && i + 1 < w.size() &&
           std::isalpha(static_cast<unsigned char>(w[i - 1])) &&
           std::isalpha(static_cast<unsigned char>(w[i + 1]));
  }
  if (!word) {
    return t.text;
  }
  static const WordSet kUnchanged = {"will", "would", "can",   "could", "should", "might", "must",
                                     "may",  "used",  "shall", "quit",  "put",    "cut",   "set",
                                     "hit",  "let",   "read",  "hurt",  "cost",   "upset", "bet"};
  if (w == "am" || w == "be") return "is";
  if (w == "have") return "has";
  if (w == "do") return "does";
  if (w == "go") return "goes";
  if (kUnchanged.contains(w) || IsEnglishPastForm(w) || w.ends_with("ing")) return t.text;
  // "still feels fake" after an "I" the splitter carried over: already third person (a first-
  // person verb ends in "s" only as "miss", "guess", "focus")
  if (w.size() > 2 && w.ends_with("s") && !w.ends_with("ss") && !w.ends_with("us")) {
    return t.text;
  }
  if (w.ends_with("s") || w.ends_with("sh") || w.ends_with("ch") || w.ends_with("x") ||
      w.ends_with("z") || w.ends_with("o")) {
    return t.text + "es";
  }
  if (w.size() > 1 && w.back() == 'y' && !std::strchr("aeiou", w[w.size() - 2])) {
    return t.text.substr(0, t.text.size() - 1) + "ies";
  }
  return t.text + "s";
}

std::string SwapPronoun(const Tok& t) {
  if (t.low == "my") return "their";
  if (t.low == "me") return "them";
  if (t.low == "myself") return "themselves";
  if (t.low == "mine") return "theirs";
  if (t.low == "i") return "the user";
  return t.text;
}

// Tokens [b, e) after the subject as a third-person predicate: the first verb conjugated,
// first-person pronouns swapped.
std::string Rewrite(const std::vector<Tok>& t, size_t b, size_t e) {
  std::string out;
  bool conjugated = false;
  for (size_t i = b; i < e; ++i) {
    const bool no_longer = t[i].low == "longer" && i > b && t[i - 1].low == "no";
    if (!conjugated && !Adverbs().contains(t[i].low) && !IsNegator(t[i].low) && !no_longer) {
      if (t[i].low == "can" && i + 1 < e && t[i + 1].low == "not") {
        Append(&out, "cannot");
        ++i;
      } else {
        Append(&out, ThirdPerson(t[i]));
      }
      conjugated = true;
      continue;
    }
    Append(&out, SwapPronoun(t[i]));
  }
  while (!out.empty() && out.back() == ',') out.pop_back();
  return out;
}

std::string Join(const std::vector<Tok>& t, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e; ++i) Append(&out, SwapPronoun(t[i]));
  return out;
}

std::string WithArticle(std::string_view value) {
  std::string v(value);
  std::string low = Lower(v);
  if (low.starts_with("a ") || low.starts_with("an ") || low.starts_with("the ") ||
      low == "retired" || low.ends_with("employed")) {
    return v;
  }
  bool vowel = !low.empty() && std::strchr("aeiou", low[0]);
  return std::string(vowel ? "an " : "a ") + v;
}

bool IsNameAfterNaming(const Tok& t) {
  if (IsCapitalized(t)) return t.low != "i";
  static const WordSet kNot = {
      "a",     "an",   "the",  "after", "for",      "by",       "something", "that",     "this",
      "it",    "him",  "her",  "them",  "me",       "my",       "his",       "their",    "our",
      "like",  "so",   "and",  "but",   "what",     "whatever", "nothing",   "anything", "random",
      "weird", "out",  "off",  "up",    "in",       "on",       "to",        "at",       "back",
      "into",  "just", "only", "very",  "really",   "because",  "when",      "while",    "lol",
      "haha",  "too",  "you",  "us",    "everyone", "one"};
  if (t.low.size() < 2 || kNot.contains(t.low)) return false;
  return std::all_of(t.low.begin(), t.low.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '-';
  });
}

bool IsCapitalized(const Tok& t) {
  return !t.text.empty() && std::isupper(static_cast<unsigned char>(t.text[0]));
}

const WordSet& Nationalities() {
  static const WordSet k = {
      "chinese",    "american",  "british",  "english",    "french",   "german",  "japanese",
      "korean",     "indian",    "canadian", "australian", "italian",  "spanish", "mexican",
      "russian",    "brazilian", "dutch",    "swiss",      "swedish",  "irish",   "scottish",
      "vietnamese", "thai",      "filipino", "taiwanese",  "european", "asian",   "african",
      "polish",     "turkish",   "greek"};
  return k;
}

}  // namespace engram::extract::en
