// Sentences and clauses of a user turn, and what the extractor learns about a clause before
// matching it: discourse markers ("oh btw", "对了"), reported speech ("my doctor said …",
// "医生说我…"), corrections, and values the clause says stopped holding ("switched from X to
// Y", "X instead of Y", "把X停了"). Internal to src/extract/; stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::extract {

struct Sentence {
  std::string text;
  bool question = false;
};

// Sentences ending at 。！？!?；;… or a newline, or "." before a space (not "Dr.", not "3.5").
std::vector<Sentence> SplitSentences(std::string_view text);

struct Piece {
  std::string text;
  bool inherited = false;  // the subject ("I", "我") was carried over from the previous piece
};

// Clauses: Chinese at ，and conjunctions (但是, 而且 …), the subject 我 carried on; English at
// commas, dashes, parentheses and at "and"/"but"/"so"/"because" before a new subject or verb,
// with list continuations ("tea, coffee and juice") kept together.
std::vector<Piece> SplitClausesZh(const std::string& sentence);
// `question`: the sentence ended with a question mark, which belongs to its last clause ("my dog
// is a golden retriever, best vacuum?": the last piece is the question, no list item).
std::vector<Piece> SplitClausesEn(const std::string& sentence, bool question = false);

// The sentence corrects something said before ("actually …", "sorry, I meant", "不对", "说错了").
bool IsCorrection(std::string_view sentence, bool zh);
// The sentence names a slip of typing or memory (corrections.tsv `slip`: "autocorrect",
// "输入法", "记混"): after a value said alone, the value is a correction.
bool NamesSlipWord(std::string_view sentence, bool zh);
// The text is only a correction marker of corrections.tsv `lead` ("Forgive me", "my mistake",
// "wrong one"), any case, punctuation around it ignored: it names no value.
bool IsCorrectionLead(std::string_view text);
// `s` without the interjections that open it ("lol ", "ugh ", "emmm", "啊"):
// data/lexicon/{en,zh}/corrections.tsv (English matched in any case).
std::string_view WithoutInterjections(std::string_view s, bool zh);
// A correction that says the value first and then the one it is not ("是美短，不是英短",
// "Lincoln High, not Roosevelt"): its first clause is the value, not talk before a marker.
bool IsValueFirstCorrection(std::string_view sentence, bool zh);
// "我不是住在北京，而是住在上海" → "我是住在上海" (the caller flags the correction).
std::string RewriteNotButZh(const std::string& s);

// "ben is my older brother" → "my older brother is ben": a person named first and then said to
// be a relative of the speaker's reads as the relative's name, the way the frames read it.
// The clause as it is when it is not that (a pronoun first, "Ben is my brother's friend").
std::string RelationNamedFirstEn(const std::string& clause);

// The clause without leading (and trailing) discourse markers and fillers: "oh btw", "so",
// "ugh", "update:", "lol"; "对了", "话说", "跟你说", "嗯……".
std::string StripMarkersEn(std::string_view clause);
std::string StripMarkersZh(std::string_view clause);

// Speech the user reports: "my doctor said I'm prediabetic" → {"doctor", "I'm prediabetic"};
// "医生说我有轻度脂肪肝" → {"医生", "我有轻度脂肪肝"}; "医生让我把降压药停了" →
// {"医生", "我把降压药停了", directive}. nullopt when the clause is not reported speech.
struct Reported {
  std::string reporter;    // as said: "doctor", "my boss", "医生"
  std::string rest;        // what was reported, as a clause of its own
  bool directive = false;  // "让我…": what the user was told to do
};
std::optional<Reported> ReportedSpeechEn(std::string_view clause);
std::optional<Reported> ReportedSpeechZh(std::string_view clause);

// Values the clause says stopped holding, taken out of it: "my psychiatrist switched me from
// sertraline to Wellbutrin" → "my psychiatrist switched me to Wellbutrin", ends {"sertraline"};
// "I'm on an insulin pump now instead of pens" → ends {"pens"}; "从北京搬回长沙" →
// "搬回长沙", ends {"北京"}.
std::string TakeEndsEn(std::string_view clause, std::vector<std::string>* ends);
std::string TakeEndsZh(std::string_view clause, std::vector<std::string>* ends);

std::string LowerAscii(std::string_view s);

// Takes words of `words` off the front (StripLeadingWords) or the back (StripTrailingWords) of
// *s for as long as one matches and something is left, trying the words in the order given.
void StripLeadingWords(std::string* s, const std::vector<std::string_view>& words);
void StripTrailingWords(std::string* s, const std::vector<std::string_view>& words);
bool StartsWithWord(std::string_view s, std::string_view word);

}  // namespace engram::extract
