// The topics people change (where they live, their work, partner, diet, pets, budget, schedule,
// devices, school, health, languages), read from data/lexicon: which a text is about, which a
// slot is about, whether a text is about someone else, and whether a question asks about the
// past. What retrieval needs to let the newest evidence on a topic outrank an older fact
// (retrieval/freshness.h). Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

using TopicSet = uint32_t;  // bit i: the i-th topic of data/lexicon/en/topics.tsv

// What one pass over a text finds (English words whole, Chinese as substrings).
struct TextTraits {
  TopicSet topics = 0;        // the topics whose words it uses
  bool others = false;        // it names someone else (a relative, a friend, a pet)
  bool past = false;          // it speaks of the past ("used to", "before", "以前")
  bool first_person = false;  // the speaker speaks of themself ("I", "my", "we", "我")
  bool question = false;      // it asks ("?", "？")
};
TextTraits ReadTextTraits(std::string_view text);
TopicSet TopicsOfText(std::string_view text);
// A question about the past ("where did I live before?", "我以前住哪").
bool AsksAboutPast(std::string_view question);

// The topic of a slot's attribute ("user/job" → work), by data/lexicon/slot_topics.tsv; 0 when
// none or no slot.
TopicSet TopicOfSlot(std::string_view slot);
// The words questions about the topics use (data/lexicon/*/topic_questions.tsv), each once.
std::vector<std::string> QuestionWordsOfTopics(TopicSet topics);
// The topics that hold many values at once (sport, music, hobby, condition: the `many` line of
// topics.tsv): a newer statement on one does not outdate an older one.
TopicSet ManyValuedTopics();
// The topics a person has one of at a time (where they live, their work, their school, their
// partner: the `one` line of topics.tsv): a change said in any words replaces the one before.
TopicSet OneValuedTopics();
// A name per topic, for explanations ("work"); "" for none.
std::string TopicNames(TopicSet topics);

}  // namespace engram
