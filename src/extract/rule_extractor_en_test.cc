// The rule extractor on English self-statements.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "extract/clauses.h"
#include "extract/corrections.h"
#include "extract/extraction_test_util.h"
#include "extract/speech_acts.h"
#include "text/utf8.h"

namespace engram {
namespace {

using namespace testing_extract;

TEST(RuleExtractorEnTest, Name) {
  for (const char* text :
       {"My name is Alice.", "Hi, I'm Alice", "Call me Alice.", "I am called Alice"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.type, MemoryType::kFact) << text;
    EXPECT_EQ(c.slot, "user/name") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "User's name is Alice") << text;
    EXPECT_EQ(c.entities, std::vector<std::string>{"Alice"}) << text;
  }
  EXPECT_EQ(One("My name's Bob Smith").content, "User's name is Bob Smith");
}

// A name given in the next clause ("named her Mochi", "we named him Biscuit") is the name of
// what the statement before introduced, not a statement of its own.
TEST(RuleExtractorEnTest, ANameInTheNextClauseNamesThePet) {
  for (const auto& [text, name] : std::vector<std::pair<std::string, std::string>>{
           {"adopted a kitten yesterday, named her Mochi", "Mochi"},
           {"got a puppy, we named him Biscuit", "Biscuit"},
           {"I have a cat, her name is Luna", "Luna"}}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/pet:" + extract::LowerAscii(name)) << text;
    EXPECT_TRUE(c.content.ends_with("named " + name)) << c.content;
  }
}

// An emoji is dropped without joining the words on each side of it into one nobody said, and a
// character past the Basic Multilingual Plane that is a word (CJK Extension B, as in 𠮷野家) is
// not taken for an emoji (found by fuzz/extractor_fuzzer).
TEST(RuleExtractorEnTest, EmojiAreDroppedWithoutJoiningWords) {
  EXPECT_EQ(One("I'm allergic to s\U0001F431fish").content, "User is allergic to s fish");
  EXPECT_EQ(One("I'm allergic to shellfish \U0001F990\U0001F990").content,
            "User is allergic to shellfish");
  const Candidate c = One("I love \U00020BB7野家");
  EXPECT_NE(c.content.find("\U00020BB7野家"), std::string::npos) << c.content;
}

// A clause's ends are trimmed by whole characters: a Chinese character whose last byte is a
// byte of a dash kept whole (found by fuzz/extractor_fuzzer: the content was not UTF-8).
TEST(RuleExtractorEnTest, TrimmingNeverCutsACharacter) {
  for (const Candidate& c : Extract("eating-out budget is 600/month from now on, 三月打 —")) {
    EXPECT_TRUE(IsValidUtf8(c.content)) << c.content;
  }
  const std::vector<Candidate> got =
      Extract("h明年he eating-out budget to 600/month from now on0my+ra三月打");
  ASSERT_FALSE(got.empty());
  for (const Candidate& c : got) {
    EXPECT_TRUE(IsValidUtf8(c.content)) << c.content;
    EXPECT_TRUE(c.content.ends_with("三月打")) << c.content;
  }
}

// A correction's value replaces a whole word of the fact, never part of one: "9" inside
// "Sunday9" is no number to replace (found by fuzz/extractor_fuzzer: "Sundaynota9").
TEST(RuleExtractorEnTest, ACorrectionReplacesOnlyWholeWords) {
  EXPECT_EQ(extract::ReplaceValue("User's dad arrives Sunday9", "", "10"), std::nullopt);
  EXPECT_EQ(extract::ReplaceValue("User's son is in 4th grade", "4th", "5th"),
            "User's son is in 5th grade");
  // "Max" is no word of it: the name as a whole is what the correction names, not "Rexine".
  EXPECT_EQ(extract::ReplaceValue("User's dog Maxine is 3", "Max", "Rex"), "User's dog Rex is 3");
  EXPECT_EQ(extract::ReplaceValue("User's dog Max is 3", "Max", "Rex"), "User's dog Rex is 3");
  EXPECT_EQ(extract::ReplaceValue("User lives in 杭州", "杭州", "苏州"), "User lives in 苏州");
  for (const Candidate& c : Extract("actually my dad arrives Sunday9, nota9")) {
    EXPECT_EQ(c.content.find("Sundaynota9"), std::string::npos) << c.content;
  }
}

TEST(RuleExtractorEnTest, Location) {
  // The content is the user's clause in the third person; the slot and value are what conflict
  // detection reads.
  for (const char* text : {"I live in Shanghai.", "I moved to Shanghai", "I've moved to Shanghai!",
                           "I'm living in Shanghai", "I just moved to Shanghai with my wife",
                           "Currently I live in Shanghai."}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/location") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.value, "Shanghai") << text;
    EXPECT_NE(c.content.find("Shanghai"), std::string::npos) << text;
    EXPECT_NE(c.content.find("ser"), std::string::npos) << text;  // "User …", "the user …"
    EXPECT_FALSE(c.valid_from.has_value()) << text;
  }
  EXPECT_EQ(One("I live in Shanghai.").content, "User lives in Shanghai");
  EXPECT_EQ(One("I just moved to Shanghai with my wife").content,
            "User just moved to Shanghai with their wife");
  Candidate c = One("I moved to Berlin last year.");
  EXPECT_EQ(c.content, "User moved to Berlin in 2025");
  EXPECT_EQ(c.valid_from, Date(2025, 1, 1));
  EXPECT_EQ(One("I grew up in Ohio").slot, "user/hometown");
  // a known city typed in lower case, after an adverb with no subject
  Candidate typed = One("still living w my parents in tucson");
  EXPECT_EQ(typed.slot, "user/location");
  EXPECT_EQ(typed.content, "User is still living with their parents in tucson");
  EXPECT_EQ(One("on a pixel 6, loving it").slot, "user/device:phone");
  // who the speaker is, as a list after a colon: the age first, an occupation with a place, a
  // count of kids
  const std::vector<Candidate> intro =
      Extract("some context so you have it: 41, dental hygienist in tacoma, 3 kids");
  ASSERT_EQ(intro.size(), 3u);
  EXPECT_EQ(intro[0].slot, "user/age");
  EXPECT_EQ(intro[0].content, "User is 41");
  EXPECT_EQ(intro[1].slot, "user/job");
  EXPECT_EQ(intro[1].content, "User is a dental hygienist in tacoma");
  EXPECT_EQ(intro[2].slot, "user/children");
  EXPECT_TRUE(Extract("scores: 45, 50, 38").empty());  // numbers, not an age
  // the same list with no colon and no subject: where the speaker lives and works, said with
  // the verb alone, is the speaker's; the number that opens it is their age
  const std::vector<Candidate> bare = Extract("34, live in austin, work in cybersecurity");
  ASSERT_EQ(bare.size(), 3u);
  EXPECT_EQ(bare[0].content, "User is 34");
  EXPECT_EQ(bare[1].slot, "user/location");
  EXPECT_EQ(bare[1].content, "User lives in austin");
  EXPECT_EQ(bare[2].slot, "user/job");
  EXPECT_EQ(bare[2].content, "User works in cybersecurity");
  // but a request with the same verbs asks something of the assistant, and a number that opens
  // a sentence about something else is no age
  EXPECT_TRUE(Extract("work on my essay with me").empty());
  EXPECT_TRUE(Extract("live with it lol").empty());
  EXPECT_TRUE(Extract("12, that's how many cookies i ate").empty());
  // "back in <a city>" or "back at my mum's in <a city>" is where the speaker lives now; "back
  // in 2019", "back in college" and "back at work" are not
  EXPECT_EQ(One("back in leeds for a bit").slot, "user/location");
  EXPECT_EQ(One("back at my mum's in leeds to save up").slot, "user/location");
  for (const char* text : {"back in college i ran track", "back at work today, ugh"}) {
    for (const Candidate& c : Extract(text)) EXPECT_NE(c.slot, "user/location") << text;
  }
  // a condition named first with a time after it is the speaker's, and a state with what it is
  // of after a comma is a clause of its own, not a list item of the one before
  const std::vector<Candidate> intake =
      Extract("asthma since i was a kid, allergic to latex, and i take levothyroxine daily");
  ASSERT_EQ(intake.size(), 3u);
  EXPECT_EQ(intake[0].slot, "user/health:asthma");
  EXPECT_EQ(intake[1].slot, "user/allergy:latex");
  EXPECT_EQ(intake[1].content, "User is allergic to latex");
  EXPECT_TRUE(Extract("asthma is so scary").empty());
  // a relative named first is read as "my brother is Ben"; a pronoun first, or someone else's
  // relative, is not
  Candidate named = One("Ben is my brother");
  EXPECT_EQ(named.slot, "user/family:brother");
  EXPECT_EQ(named.content, "User's brother is Ben");
  EXPECT_EQ(One("ben is my older brother").content, "User's older brother is ben");
  EXPECT_TRUE(Extract("he is my brother").empty());
  EXPECT_TRUE(Extract("ben is my brother's friend").empty());
  for (const Candidate& c : Extract("tucson is my aunt")) {  // where the aunt is, not her name
    EXPECT_EQ(c.content.find("aunt is tucson"), std::string::npos) << c.content;
  }
  EXPECT_TRUE(Extract("the nurse here is nice").empty());
  // a subject of two takes the verb as said
  EXPECT_EQ(One("jess and i split in may").content, "Jess and the user split in may 2026");
  // a clock time is one word: "6:30", not "6, 30"
  EXPECT_EQ(One("I wake up at 6:30 every day").content, "User wakes up at 6:30 every day");
  EXPECT_EQ(One("I'm from Ohio").content, "User is from Ohio");
  // a past home is kept, but is not where the user lives now
  Candidate past = One("I used to live in Boston.");
  EXPECT_EQ(past.content, "User used to live in Boston");
  EXPECT_EQ(past.slot, "");
  EXPECT_FALSE(past.exclusive);
  // nor is a maybe, or a plan
  for (const char* text : {"Maybe I'll move to Paris", "I'm moving to Paris next month"}) {
    for (const Candidate& c : Extract(text)) EXPECT_NE(c.slot, "user/location") << text;
  }
}

TEST(RuleExtractorEnTest, EmployerAndJob) {
  Candidate c = One("I work at Google.");
  EXPECT_EQ(c.slot, "user/employer");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "User works at Google");
  EXPECT_EQ(c.value, "Google");
  Candidate acme = One("I work for Acme Corp");
  EXPECT_EQ(acme.content, "User works for Acme Corp");
  EXPECT_EQ(acme.slot, "user/employer");
  EXPECT_EQ(acme.value, "Acme Corp");
  Candidate stripe = One("I've been working at Stripe for 3 years");
  EXPECT_EQ(stripe.content, "User has been working at Stripe for 3 years");
  EXPECT_EQ(stripe.value, "Stripe");
  Candidate job = One("I'm a software engineer.");
  EXPECT_EQ(job.slot, "user/job");
  EXPECT_TRUE(job.exclusive);
  EXPECT_EQ(job.content, "User is a software engineer");
  EXPECT_EQ(One("I am an accountant").content, "User is an accountant");
  EXPECT_EQ(One("I work as a nurse").slot, "user/job");
  // an ISO date is said once, not repeated after itself
  Candidate started = One("I started working at Microsoft on 2024-05-03.");
  EXPECT_EQ(started.content, "User started working at Microsoft on 2024-05-03");
  EXPECT_EQ(started.slot, "user/employer");
  EXPECT_EQ(started.valid_from, Date(2024, 5, 3));
  // a passing mood is no occupation: kept with little weight, no slot
  Candidate tired = One("I'm a bit tired");
  EXPECT_EQ(tired.slot, "");
  EXPECT_LE(tired.importance, 0.2);
  for (const Candidate& home : Extract("I work at home")) EXPECT_NE(home.slot, "user/employer");
}

TEST(RuleExtractorEnTest, TwoStatementsInOneSentence) {
  auto c = Extract("I live in Paris and work at Airbnb.");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_EQ(c[1].slot, "user/employer");
  EXPECT_EQ(c[1].content, "User works at Airbnb");
  auto three = Extract("I'm a teacher. I love jazz! I have a cat named Tom.");
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[2].slot, "user/pet:tom");
}

TEST(RuleExtractorEnTest, LikesAndDislikesShareASlot) {
  Candidate like = One("I love coffee.");
  EXPECT_EQ(like.type, MemoryType::kPreference);
  EXPECT_EQ(like.slot, "user/likes:coffee");
  EXPECT_FALSE(like.exclusive);
  EXPECT_EQ(like.content, "User loves coffee");
  Candidate dislike = One("I don't like coffee");
  EXPECT_EQ(dislike.slot, "user/likes:coffee");
  EXPECT_EQ(dislike.content, "User does not like coffee");
  EXPECT_EQ(One("I hate Coffee!").slot, "user/likes:coffee");
  EXPECT_EQ(One("I can't stand loud music").content, "User cannot stand loud music");
  EXPECT_EQ(One("I'm not a fan of horror movies").slot, "user/likes:horror movie");
  EXPECT_EQ(One("I prefer tea over coffee").slot, "user/likes:tea");
  EXPECT_EQ(One("I'm a big fan of jazz").content, "User is a big fan of jazz");
}

TEST(RuleExtractorEnTest, ListOfObjects) {
  auto c = Extract("I hate olives, pickles and anchovies.");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].content, "User hates olives");
  EXPECT_EQ(c[1].slot, "user/likes:pickle");
  EXPECT_EQ(c[2].content, "User hates anchovies");
  // a verb after the comma starts the next clause, it is no list item
  for (const Candidate& more : Extract("I'm allergic to peanuts, carry an epipen")) {
    EXPECT_EQ(more.content.find("allergic to carry"), std::string::npos) << more.content;
  }
  EXPECT_EQ(One("I'm allergic to peanuts, carry an epipen").slot, "user/allergy:peanut");
}

TEST(RuleExtractorEnTest, AllergiesAndHealth) {
  Candidate a = One("I'm allergic to peanuts.");
  EXPECT_EQ(a.type, MemoryType::kFact);
  EXPECT_EQ(a.slot, "user/allergy:peanut");
  EXPECT_FALSE(a.exclusive);
  EXPECT_EQ(a.content, "User is allergic to peanuts");
  EXPECT_GE(a.importance, 0.85);
  EXPECT_EQ(One("I have a peanut allergy").slot, "user/allergy:peanut");
  EXPECT_EQ(One("I'm diabetic").slot, "user/health:diabetes");
  EXPECT_EQ(One("I have high blood pressure").content, "User has high blood pressure");
  EXPECT_EQ(One("I was diagnosed with asthma last year").valid_from, Date(2025, 1, 1));
  // no allergy is worth knowing too, but it is no allergy slot
  Candidate none = One("I'm not allergic to anything");
  EXPECT_EQ(none.content, "User is not allergic to anything");
  EXPECT_FALSE(none.slot.starts_with("user/allergy"));
  // a state said with no subject is the speaker's (data/lexicon/en/predicates.tsv)
  Candidate typed = One("allergic to shellfish btw");
  EXPECT_EQ(typed.slot, "user/allergy:shellfish");
  EXPECT_EQ(typed.content, "User is allergic to shellfish");
  EXPECT_EQ(One("lactose intolerant, so no dairy").slot, "user/health:lactose intolerance");
  EXPECT_EQ(One("originally from ohio").slot, "user/hometown");
  // a misspelling with one reading is read as the word meant (casual.tsv), and a safety fact
  // said with a question mark in the form of a statement is kept
  EXPECT_EQ(One("the doctor wants to give me bactrim but im alergic to sulfa??").slot,
            "user/allergy:sulfa");
  EXPECT_TRUE(Extract("am i allergic to penicillin?").empty());
  // the speaker's own, said without "my" (predicates.tsv `mine`); "'s" after it is "is"
  EXPECT_EQ(One("birthday's aug 9 btw").slot, "user/birthday");
  EXPECT_EQ(One("my birthday's aug 9").content, "User's birthday is aug 9");
  EXPECT_EQ(One("my boss's name is karen").content, "User's boss's name is karen");
}

TEST(RuleExtractorEnTest, Pets) {
  // Each pet is a slot of its own: a second pet adds, news about one replaces what it was.
  Candidate c = One("I have a dog named Max.");
  EXPECT_EQ(c.slot, "user/pet:max");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "User has a dog named Max");
  EXPECT_EQ(c.entities, std::vector<std::string>{"Max"});
  EXPECT_EQ(One("I have two cats").slot, "user/pet:cat");
  EXPECT_EQ(One("My dog's name is Rex").slot, "user/pet:rex");
  EXPECT_EQ(One("my cat is called Miso").slot, "user/pet:miso");  // not the cat's own slot
  Candidate adopted = One("3 days ago I adopted a kitten named Luna.");
  EXPECT_EQ(adopted.slot, "user/pet:luna");
  EXPECT_EQ(adopted.content, "On 2026-11-27 the user adopted a kitten named Luna");
  EXPECT_EQ(adopted.valid_from, Date(2026, 11, 27));
}

TEST(RuleExtractorEnTest, NegationsAreKeptWithoutTheSlot) {
  // "I don't have a dog" says something, but never that the user has one.
  for (auto [text, content] : std::vector<std::pair<const char*, const char*>>{
           {"I don't have a dog.", "User does not have a dog"},
           {"I never lived in Paris", "User never lived in Paris"},
           {"I don't work at Google", "User does not work at Google"}}) {
    Candidate c = One(text);
    EXPECT_EQ(c.content, content) << text;
    EXPECT_EQ(c.slot, "") << text;
    EXPECT_FALSE(c.exclusive) << text;
  }
}

// The speaker as a parent ("mom of 2 boys here") has children; someone's parent does not.
TEST(RuleExtractorEnTest, AParentOfSomeIsTheSpeakersChildren) {
  Candidate boys = One("mom of 2 boys here, the laundry never ends");
  EXPECT_EQ(boys.slot, "user/children");
  EXPECT_EQ(boys.content, "User has 2 boys");
  EXPECT_EQ(One("well. mom of 3 now").content, "User is a mom of 3 now");
  EXPECT_EQ(One("single dad of 4yo twins here").content, "User has 4yo twins");
  EXPECT_EQ(One("I have 2 boys").slot, "user/children");
  for (const Candidate& c : Extract("my mom of 70 years old")) {
    EXPECT_NE(c.slot, "user/children") << c.content;
  }
  // a state or country is a place, in lower case too
  EXPECT_EQ(One("officially a texas resident now").slot, "user/location");
}

TEST(RuleExtractorEnTest, Family) {
  // What someone the user knows is or does is keyed by that person.
  Candidate c = One("My wife is a nurse.");
  EXPECT_EQ(c.slot, "wife/job");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "User's wife is a nurse");
  Candidate d = One("My daughter Emma just started school");
  EXPECT_EQ(d.slot, "user/family:daughter");
  EXPECT_EQ(d.entities, std::vector<std::string>{"Emma"});
  EXPECT_EQ(One("I have two kids").slot, "user/children");
  EXPECT_EQ(One("I'm married").slot, "user/partner");
  Candidate friend_home = One("My friend lives in Paris.");
  EXPECT_EQ(friend_home.slot, "friend/location");
  EXPECT_EQ(friend_home.content, "User's friend lives in Paris");
}

TEST(RuleExtractorEnTest, Goals) {
  Candidate c = One("I want to learn Spanish.");
  EXPECT_EQ(c.type, MemoryType::kGoal);
  EXPECT_EQ(c.slot, "user/language:spanish");  // the language's state: learning, fluent, quit
  EXPECT_EQ(c.content, "User wants to learn Spanish");
  EXPECT_EQ(One("I'd like to learn piano").content, "User would like to learn piano");
  EXPECT_EQ(One("I'm planning to visit Japan").content, "User is planning to visit Japan");
  Candidate g = One("My goal is to run a marathon next year");
  EXPECT_EQ(g.type, MemoryType::kGoal);
  EXPECT_EQ(g.content, "User's goal is to run a marathon in 2027");
  EXPECT_EQ(g.valid_from, Date(2027, 1, 1));
  Candidate send = One("I'll send the revised budget to Maria by Thursday");
  EXPECT_TRUE(send.type == MemoryType::kGoal || send.type == MemoryType::kCommitment);
  EXPECT_EQ(One("I promised to call my mom on her birthday").content,
            "User promised to call their mom on her birthday");
  EXPECT_EQ(One("I will definitely visit Kyoto in spring").content,
            "User will definitely visit Kyoto in spring");
  EXPECT_TRUE(Extract("I'll think about it").empty());
  EXPECT_TRUE(Extract("I'll be there").empty());
  EXPECT_TRUE(Extract("I need to go").empty());
  EXPECT_TRUE(Extract("I want to know what time it is").empty());  // a request
  EXPECT_TRUE(Extract("I'm going to the gym").empty());
}

TEST(RuleExtractorEnTest, SchedulesAndAppointments) {
  // A routine is keyed by the activity: "now I go on Tuesdays" replaces the day.
  Candidate r = One("Every Monday I go to the gym.");
  EXPECT_EQ(r.type, MemoryType::kFact);
  EXPECT_EQ(r.slot, "user/schedule:gym");
  EXPECT_EQ(r.content, "Every Monday the user goes to the gym");
  EXPECT_FALSE(r.valid_from.has_value());
  EXPECT_EQ(One("I play tennis on Sundays").slot, "user/schedule:tennis");
  // An appointment is an event on its date, keyed by what it is: two appointments are two.
  Candidate a = One("Next Friday I have a dentist appointment.");
  EXPECT_EQ(a.type, MemoryType::kEvent);
  EXPECT_EQ(a.slot, "user/plan:dentist appointment");
  EXPECT_EQ(a.content, "On 2026-12-11 the user has a dentist appointment");
  EXPECT_EQ(a.valid_from, Date(2026, 12, 11));
  Candidate doctor = One("oh and a doctor appointment on Tuesday too");
  EXPECT_EQ(doctor.slot, "user/plan:doctor appointment");
  EXPECT_EQ(doctor.valid_from, Date(2026, 12, 1));
  EXPECT_EQ(One("I have a job interview tomorrow").valid_from, Date(2026, 12, 1));
  Candidate e = One("Yesterday I went to the hospital.");
  EXPECT_EQ(e.type, MemoryType::kEvent);
  EXPECT_EQ(e.valid_from, Date(2026, 11, 29));
  EXPECT_EQ(e.content, "On 2026-11-29 the user went to the hospital");
}

TEST(RuleExtractorEnTest, Skills) {
  auto c = Extract("I can speak French and German.");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].type, MemoryType::kSkill);
  EXPECT_EQ(c[0].slot, "user/language:french");
  EXPECT_EQ(c[1].slot, "user/language:german");
  Candidate guitar = One("I play the guitar");
  EXPECT_EQ(guitar.type, MemoryType::kSkill);
  EXPECT_EQ(guitar.slot, "user/skill:guitar");
}

TEST(RuleExtractorEnTest, Corrections) {
  Candidate c = One("Actually, I live in Hangzhou.");
  EXPECT_TRUE(c.correction);
  EXPECT_EQ(c.slot, "user/location");
  EXPECT_EQ(c.content, "User lives in Hangzhou");
  // "no longer" and "anymore" say what ended: the write path supersedes the memory stating it
  Candidate n = One("I no longer work at Google.");
  EXPECT_EQ(n.content, "User no longer works at Google");
  EXPECT_EQ(n.ends, std::vector<std::string>{"work at Google"});
  Candidate m = One("I don't eat meat anymore");
  EXPECT_EQ(m.content, "User does not eat meat anymore");
  EXPECT_EQ(m.ends, std::vector<std::string>{"eat meat"});
  Candidate quit = One("I quit coffee");
  EXPECT_EQ(quit.ends, std::vector<std::string>{"coffee"});
  // what the user stopped, dropped or gave away ends; after "left" only a name does
  for (const auto& [text, ended] : std::vector<std::pair<std::string, std::string>>{
           {"scrapped norway, too pricey", "norway"},
           {"we had to rehome Pip", "Pip"},
           {"cancelled my gym membership bc of the move", "gym membership"},
           {"we lost biscuit in august", "biscuit"},
           {"sad update, we had to put pepper down", "pepper"},
           {"had to put my old cat luna to sleep", "luna"}}) {
    std::vector<std::string> ends;
    extract::TakeEndsEn(text, &ends);
    EXPECT_EQ(ends, std::vector<std::string>{ended}) << text;
  }
  // the ended thing said first, and the word naming its kind left out
  for (const auto& [text, ended] : std::vector<std::pair<std::string, std::string>>{
           {"jess and i split in may", "jess"},
           {"marco and i broke up in the spring", "marco"},
           {"jake and i are done. like done done.", "jake"},
           {"bali's off, flights were insane", "bali"},
           {"ok keto is dead to me", "keto"},
           {"scrapped the camino idea", "camino"},
           {"scrapping the nyc plan, my knee hurts", "nyc"},
           {"doc took me off lisinopril bc of the cough", "lisinopril"}}) {
    std::vector<std::string> ends;
    extract::TakeEndsEn(text, &ends);
    EXPECT_EQ(ends, std::vector<std::string>{ended}) << text;
  }
  // a word asking the assistant after a comma is the question, not a list item of the statement
  EXPECT_EQ(One("my boyfriend dmitri wants a cabin weekend for his bday, ideas?").slot,
            "user/family:boyfriend");
  // a name after "named", "called", "name is" is a name however it is typed
  EXPECT_EQ(One("my dog's name is pretzel haha").slot, "user/pet:pretzel");
  EXPECT_EQ(One("i have a dog named pretzel").slot, "user/pet:pretzel");
  EXPECT_EQ(One("i have a dog named after a cheese").slot, "user/pet:dog");
  // a known place says something however it is typed
  EXPECT_EQ(One("been in phoenix since 2017, the summers never get easier").content,
            "User has been in phoenix since 2017");
  // a year of study and "at": the school, however it is typed; not a senior job
  EXPECT_EQ(One("junior at Ohio State, econ major, pls send coffee").slot, "user/school");
  EXPECT_EQ(One("junior at Ohio State, econ major, pls send coffee").content,
            "User is a junior at Ohio State");
  EXPECT_EQ(One("2nd year nursing student at napier, placements are brutal").slot, "user/school");
  EXPECT_EQ(One("my son is a junior at lincoln high").slot, "son/school");
  EXPECT_EQ(One("im a senior engineer at google").slot, "user/job");
  EXPECT_TRUE(Extract("he's a senior at ucla").empty());
  // a change said with a place, in a message about school, is of the school
  EXPECT_EQ(One("first week at michigan done, the transfer was 100% worth it").slot, "user/school");
  EXPECT_EQ(One("officially in denver now").slot, "user/location");
  // a name given in the clause after, however it is typed
  EXPECT_EQ(One("we adopted a rescue bunny, her name's clementine and she hates everyone").slot,
            "user/pet:clementine");
  EXPECT_EQ(One("adopted a rescue cat last friday!! named her pepper").slot, "user/pet:pepper");
  // an attribute of the speaker's with its value said first; an apology to the assistant says
  // nothing; a quantifier is a subject of its own
  EXPECT_EQ(One("portuguese is my first language btw so sorry if my english is weird").content,
            "User's first language is portuguese");
  EXPECT_EQ(One("khruangbin is my fav band").content, "User's fav band is khruangbin");
  EXPECT_TRUE(Extract("this is my first language class").empty());
  EXPECT_TRUE(Extract("nothing beats khruangbin for me").empty());
  EXPECT_EQ(One("sorry for the long message, i live in denver").content, "User lives in denver");
  for (const char* text : {"the power is off again", "work's over lol", "that's off topic",
                           "me and my sister went to the mall", "the party is over"}) {
    std::vector<std::string> ends;
    extract::TakeEndsEn(text, &ends);
    EXPECT_TRUE(ends.empty()) << text << ": " << (ends.empty() ? "" : ends[0]);
  }
  for (const char* text : {"stopped it", "quit that", "lost 10 lbs", "lost my keys again",
                           "i had to put my phone down for a bit", "we had to put it down"}) {
    std::vector<std::string> ends;
    extract::TakeEndsEn(text, &ends);
    EXPECT_TRUE(ends.empty()) << text;
  }
  // after "left", a name or a place of work ends; a day's leaving or a thing left behind not
  EXPECT_EQ(One("left deloitte last month").ends, std::vector<std::string>{"deloitte"});
  for (const char* text : {"I left work at 5 today", "left my keys in the car", "I left early"}) {
    EXPECT_TRUE(One(text).ends.empty()) << text;
  }
  EXPECT_FALSE(One("I live in Hangzhou").correction);
  EXPECT_TRUE(One("I live in Hangzhou").ends.empty());
}

TEST(RuleExtractorEnTest, IMeantUsesTheEarlierSlot) {
  // Corrected within the message: only the corrected statement is extracted.
  auto same = Extract("I live in Hangzhou. Sorry, I meant Suzhou.");
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].slot, "user/location");
  EXPECT_EQ(same[0].content, "User lives in Suzhou");
  // Corrected in a later message: the bare value, for the write path to apply to the memory
  // the user wrote last.
  Candidate later = One("I meant Stripe");
  EXPECT_TRUE(later.bare);
  EXPECT_TRUE(later.correction);
  EXPECT_EQ(later.value, "Stripe");
}

TEST(RuleExtractorEnTest, ChitChatQuestionsAndOthersGiveNothing) {
  for (const char* text :
       {"Hello!", "thanks!", "ok", "lol", "haha that's funny", "Good morning", "Where do I live?",
        "What's my name", "Do I like coffee?", "Can you remind me to call mom?",
        "Please translate this", "If I lived in Paris I would be happy.", "You live in Paris",
        "I wish I had a dog", "What's the weather like today?"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorEnTest, SmallTalkObjectsGiveNothing) {
  for (const char* text : {"I love it!", "I love how it turned out", "I like your photos",
                           "I love what you did there", "I love that", "I want to see you soon"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
  // a name is no small talk, even as the only word that says something
  EXPECT_EQ(One("I'm a Googler").content, "User is a Googler");
}

TEST(RuleExtractorEnTest, ObjectsKeepTheirPhrase) {
  EXPECT_EQ(One("I want to start a dance studio for kids and teens").content,
            "User wants to start a dance studio for kids and teens");
  EXPECT_EQ(One("I love coffee with oat milk").content, "User loves coffee with oat milk");
  EXPECT_EQ(One("I love hiking, especially in autumn").content, "User loves hiking");
  EXPECT_EQ(One("I'm a big fan of pottery - the creativity is great").content,
            "User is a big fan of pottery");
  EXPECT_TRUE(Extract("I had a quiet weekend after we went camping two weekends ago").size() <= 1);
  for (const Candidate& c :
       Extract("I had a quiet weekend after we went camping two weekends ago")) {
    EXPECT_NE(c.slot, "user/routine:weekend");
  }
  EXPECT_EQ(One("Last Friday I went to a parade and it was awesome").content,
            "On 2026-11-27 the user went to a parade and it was awesome");
  EXPECT_EQ(One("I love beaches").slot, "user/likes:beach");
  EXPECT_EQ(One("I love berries").slot, "user/likes:berry");
}

TEST(RuleExtractorEnTest, AssistantTurnsAreIgnored) {
  EXPECT_TRUE(Extract("I live in Paris.", "assistant").empty());
  EXPECT_TRUE(Extract("I live in Paris.", "system").empty());
  EXPECT_EQ(Extract("I live in Paris.", "Caroline").size(), 1u);  // a named speaker
}

TEST(RuleExtractorEnTest, ResultNamesTheExtractorAndTurn) {
  auto extractor = MakeRuleExtractor();
  ExtractionInput in;
  in.turns = {Turn{"user", "hi", kAt, ""}, Turn{"assistant", "Hello!", kAt, ""},
              Turn{"user", "I live in Oslo", kAt, ""}};
  auto r = extractor->Extract(in);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->extractor, "rules-v2");
  EXPECT_EQ(extractor->name(), "rules-v2");
  ASSERT_EQ(r->candidates.size(), 1u);
  EXPECT_EQ(r->candidates[0].turn_indexes, std::vector<size_t>{2});
}

// A request run on after a statement, with or without a comma ("… so late checkout please",
// "… now need help w a budget sheet", "… every morning lol how do i stop this"), is no part of
// the fact; a request said with no question word ("need tips for …") is no fact at all, while a
// need the user has ("I need a new laptop") and "call me Liz please" are kept.
TEST(RuleExtractorEnTest, RequestsRunOnAfterAStatementAreLeftOut) {
  for (const auto& [text, content] : std::vector<std::pair<std::string, std::string>>{
           {"i'm a night owl so late checkout please", "User is a night owl"},
           {"doing contract work full time now need help w a budget sheet",
            "User is doing contract work full time now"},
           {"my dog rex barks at the mailman every morning lol how do i stop this",
            "User's dog rex barks at the mailman every morning"},
           {"my daughter's in grade 2, what should she be reading", "User's daughter's in grade 2"},
           {"my girlfriend sam wants to go skiing for her birthday, any ideas that arent too "
            "pricey",
            "User's girlfriend sam wants to go skiing for her birthday"}}) {
    const std::vector<Candidate> got = Extract(text);
    ASSERT_EQ(got.size(), 1u) << text;
    EXPECT_EQ(got[0].content, content) << text;
  }
  EXPECT_TRUE(Extract("need tips for keeping basil alive on a windowsill").empty());
  EXPECT_TRUE(Extract("really need some ideas for a 5 year old's party").empty());
  EXPECT_EQ(Extract("I need a new laptop for school").size(), 1u);
  EXPECT_TRUE(extract::IsRequestEn("no onions in anything please"));
  EXPECT_FALSE(extract::IsRequestEn("call me liz please"));
  EXPECT_FALSE(extract::IsRequestEn("i need a new laptop"));
}

// A weight lost or gained is no weight; "down to 170 lbs", said with no subject, is one.
TEST(RuleExtractorEnTest, AWeightLostIsNoWeight) {
  EXPECT_EQ(One("im 185 lbs right now").slot, "user/amount:weight");
  EXPECT_EQ(One("down to 170 lbs!!").slot, "user/amount:weight");
  EXPECT_EQ(One("down to 170 lbs!!").content, "User is down to 170 lbs");
  EXPECT_NE(One("lost 10 lbs this month").slot, "user/amount:weight");
  EXPECT_EQ(One("im 176 cm").slot, "user/amount:height");
}

// A value with the marker right after it and talk of the slip after that corrects with the
// value alone.
TEST(RuleExtractorEnTest, AValueThenSorryAndTalkCorrects) {
  EXPECT_TRUE(extract::IsCorrection("60615 sorry fat fingers", false));
  EXPECT_EQ(extract::BareCorrectionValue("60615 sorry fat fingers", false).value_or(""), "60615");
  EXPECT_FALSE(extract::IsCorrection("60615 is my zip", false));
}

// "my phone's a pixel 6" is the device (too few digits for a number); days typed short or
// several at once ("mon/wed/fri", "tue + thu") are a routine.
TEST(RuleExtractorEnTest, PhonesAsDevicesAndDaysTypedShort) {
  EXPECT_EQ(One("my phone's a pixel 6").slot, "user/device:phone");
  EXPECT_EQ(One("my phone number is 555-201-3344").slot, "user/phone");
  EXPECT_EQ(One("i go to the gym mon/wed/fri at 6am").slot, "user/schedule:gym");
  EXPECT_EQ(One("moved my gym days to tue + thu evenings").slot, "user/schedule:gym");
}

// An employer typed in lower case is read by the word its name ends in ("… insurance",
// "… logistics"), not a description ("a small agency"); "planning team" is no plan; an emoji
// between a statement and a new subject ends the sentence.
TEST(RuleExtractorEnTest, LowerCaseEmployersAndEmojiBetweenSentences) {
  const Candidate team = One("i work in the planning team at halvorsen logistics");
  EXPECT_EQ(team.slot, "user/employer");
  EXPECT_EQ(team.type, MemoryType::kFact);
  EXPECT_EQ(One("first week at brightwell insurance done").slot, "user/employer");
  EXPECT_NE(One("doing ux design full time now at a small agency").slot, "user/employer");
  const std::vector<Candidate> two =
      Extract("first week at brightwell insurance done \u2705 my cat is sick again");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].slot, "user/employer");
  EXPECT_EQ(One("my dog \U0001F436 is sick").content, "User's dog is sick");
}

// "single" is the relationship status only where it says one: not "every single day", not
// "a single bed"; a move said as the first night somewhere new is the speaker's.
TEST(RuleExtractorEnTest, SingleAsAStatusAndFirstNightsSomewhereNew) {
  EXPECT_EQ(One("we rent a tiny flat in lyon and the dog next door barks every single day").slot,
            "user/location");
  EXPECT_EQ(One("i'm single again lol").slot, "user/partner");
  EXPECT_NE(One("i sleep in a single bed").slot, "user/partner");
  EXPECT_EQ(One("first night sleeping in the new house in grenoble").slot, "user/location");
}

// After "and", a clause with no subject goes on about whom the clause before was about: a
// relative ("my dad's 68 and just got diagnosed with …") as well as the speaker.
TEST(RuleExtractorEnTest, AClauseWithNoSubjectGoesOnAboutTheRelative) {
  const std::vector<Candidate> dad =
      Extract("my dad's 68 and just got diagnosed with high blood pressure");
  ASSERT_EQ(dad.size(), 2u);
  EXPECT_EQ(dad[1].content, "User's dad just got diagnosed with high blood pressure");
  EXPECT_NE(dad[1].slot, "user/health:high blood pressure");
  const std::vector<Candidate> me = Extract("i live in Austin and work as a nurse");
  ASSERT_EQ(me.size(), 2u);
  EXPECT_EQ(me[1].content, "User works as a nurse");
  // a request with a number in it says something of the user: not dropped as a request
  EXPECT_FALSE(extract::IsRequestEn("hiking boots in size 9 pls"));
}

TEST(RuleExtractorEnTest, MinConfidenceDropsWeakCandidates) {
  RuleExtractorOptions strict;
  strict.min_confidence = 0.8;
  auto extractor = MakeRuleExtractor(strict);
  ExtractionInput in;
  in.turns = {Turn{"user", "Yesterday I went to the hospital.", kAt, ""}};  // 0.65
  EXPECT_TRUE(extractor->Extract(in)->candidates.empty());
  in.turns = {Turn{"user", "I live in Oslo", kAt, ""}};
  EXPECT_EQ(extractor->Extract(in)->candidates.size(), 1u);
}

TEST(RuleExtractorEnTest, Deterministic) {
  const std::string text =
      "I'm Ann. I live in Rome, I love pasta and wine, and next Friday I have an exam.";
  auto a = Extract(text);
  auto b = Extract(text);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].content, b[i].content);
    EXPECT_EQ(a[i].slot, b[i].slot);
  }
  EXPECT_GE(a.size(), 4u);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

using namespace testing_extract;

TEST(RuleExtractorRobustnessTest, OddInputsGiveNoCrashAndNoCandidates) {
  const std::string long_text(20000, 'a');
  for (const std::string& text : {std::string(""),
                                  std::string("I"),
                                  std::string("my"),
                                  std::string("我"),
                                  std::string("我的"),
                                  std::string("I'm"),
                                  std::string("...!!!???"),
                                  std::string("\xff\xfe invalid"),
                                  std::string("🙂🙂🙂"),
                                  std::string("I am a"),
                                  std::string("my name is"),
                                  std::string("我叫"),
                                  std::string("我对过敏"),
                                  std::string("我是患者"),
                                  std::string("9999年前我"),
                                  long_text,
                                  std::string("I live in"),
                                  std::string("every"),
                                  std::string("I have a"),
                                  std::string("我在工作"),
                                  std::string("不是而是"),
                                  std::string("，，，我，，")}) {
    auto c = Extract(text);
    for (const Candidate& cand : c) EXPECT_FALSE(cand.content.empty()) << text;
    EXPECT_LE(c.size(), 1u) << text;
  }
}

TEST(RuleExtractorRobustnessTest, OneExtractorServesManyThreads) {
  auto extractor = MakeRuleExtractor();
  const std::vector<std::string> texts = {"I live in Oslo and I love skiing.",
                                          "我住在上海，喜欢喝咖啡。", "Next Friday I have an exam.",
                                          "我不再喜欢咖啡了"};
  std::vector<std::vector<std::string>> expected;
  for (const std::string& t : texts) {
    ExtractionInput in;
    in.turns.push_back(Turn{"user", t, kAt, ""});
    std::vector<std::string> contents;
    auto r = extractor->Extract(in);
    for (const Candidate& c : r->candidates) contents.push_back(c.content);
    expected.push_back(contents);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        for (size_t i = 0; i < texts.size(); ++i) {
          ExtractionInput in;
          in.turns.push_back(Turn{"user", texts[i], kAt, ""});
          std::vector<std::string> contents;
          auto r = extractor->Extract(in);
          for (const Candidate& c : r->candidates) contents.push_back(c.content);
          if (contents != expected[i]) ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

using namespace testing_extract;

// Expiry (Candidate::expires_at): a wish, plan or whereabouts for a day or a week lapses when
// it is over; what happened, and what lasts, never does. kAt is Monday 2026-11-30.
TEST(RuleExtractorLifecycleTest, WishesAndPlansForADayOrAWeekExpire) {
  EXPECT_EQ(One("Today I want to eat Sichuan food").expires_at, Date(2026, 12, 1));
  EXPECT_EQ(One("tonight I want to watch a movie").expires_at, Date(2026, 12, 1));
  EXPECT_EQ(One("Tomorrow I'm going to the dentist").expires_at, Date(2026, 12, 2));
  EXPECT_EQ(One("This week I'm in Tokyo for work").expires_at, Date(2026, 12, 7));
  EXPECT_EQ(One("我今天想吃川菜").expires_at, Date(2026, 12, 1));
  EXPECT_EQ(One("明天要去爬山").expires_at, Date(2026, 12, 2));
  EXPECT_EQ(One("我这周在北京出差").expires_at, Date(2026, 12, 7));
  // Done, past, or lasting: no expiry.
  for (const char* text :
       {"I started a new job today", "Yesterday I wanted pizza", "I live in Shanghai",
        "I like jazz", "我昨天去爬山了", "I want to learn Japanese this year"}) {
    for (const Candidate& c : Extract(text)) EXPECT_FALSE(c.expires_at.has_value()) << text;
  }
}

TEST(RuleExtractorLifecycleTest, SafetyFactsAndRememberRequestsAreCritical) {
  for (const char* text : {"I'm allergic to peanuts", "我对花粉过敏", "I take metformin every day",
                           "Remember this: my passport number ends in 42", "记住，我女儿叫小雨",
                           "别忘了我下周三要交报告"}) {
    std::vector<Candidate> found = Extract(text);
    ASSERT_FALSE(found.empty()) << text;
    for (const Candidate& c : found) EXPECT_TRUE(c.critical) << text << ": " << c.content;
  }
  // A critical statement never lapses, even said for a day.
  for (const Candidate& c : Extract("Remember this: today I want noodles")) {
    EXPECT_FALSE(c.expires_at.has_value()) << c.content;
  }
  for (const char* text : {"I like jazz", "I live in Shanghai", "I remember when we met"}) {
    for (const Candidate& c : Extract(text)) EXPECT_FALSE(c.critical) << text;
  }
}

// Said without "my": a person or an attribute of the speaker's, and a condition on the listener
// that does not make the statement hypothetical.
TEST(RuleExtractorEnTest, OwnAttributesSaidWithoutMyAndConditionsOnTheListener) {
  auto contents = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Candidate& c : Extract(text)) out.push_back(c.content);
    return out;
  };
  EXPECT_EQ(contents("ring size is 7 if u were wondering"),
            std::vector<std::string>{"User's ring size is 7"});
  EXPECT_EQ(contents("landlord is mrs ferreira, can u draft a text to her"),
            std::vector<std::string>{"User's landlord is mrs ferreira"});
  EXPECT_EQ(contents("i'm vegetarian if that matters, dinner ideas?").size(), 1u);
  EXPECT_TRUE(contents("i'd move to denver if i got the offer").empty());  // the speaker's if
  // a title makes the words after it a name: the entity a correction replaces
  const std::vector<Candidate> c = Extract("landlord is mrs ferreira");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].entities, std::vector<std::string>{"mrs ferreira"});
}

// "hybrid" and "remote" as kinds of things are not how the user works; a person who "moved out"
// no longer lives where they did.
TEST(RuleExtractorEnTest, WorkWordsAsThingsAndMovingOut) {
  for (const Candidate& c : Extract("sold the jeep, got a used prius hybrid!!")) {
    EXPECT_NE(c.slot, "user/work_arrangement") << c.content;
  }
  for (const Candidate& c : Extract("lost the tv remote again")) {
    EXPECT_NE(c.slot, "user/work_arrangement") << c.content;
  }
  bool hybrid = false;
  for (const Candidate& c : Extract("we went hybrid at work")) {
    hybrid = hybrid || c.slot == "user/work_arrangement";
  }
  EXPECT_TRUE(hybrid);
  const std::vector<Candidate> out = Extract("my daughter moved out last week");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out[0].slot, "daughter/location");
  EXPECT_EQ(out[0].value, "moved out");
}

// What ended, said with a verb of endings.tsv `stop` or as "<someone> and I have gone our
// separate ways" (one clause, not two).
TEST(RuleExtractorEnTest, EndingsSaidInOtherWords) {
  auto ends = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Candidate& c : Extract(text)) out.insert(out.end(), c.ends.begin(), c.ends.end());
    return out;
  };
  EXPECT_EQ(ends("uninstalled duolingo lol, too many notifications"),
            std::vector<std::string>{"duolingo"});
  EXPECT_EQ(ends("I have given up on Portuguese, sadly"), std::vector<std::string>{"Portuguese"});
  EXPECT_EQ(ends("I regret to say that Martin and I have parted ways."),
            std::vector<std::string>{"Martin"});
  // a pet's death said as typed, and "anyway" turning the talk to what is true now
  EXPECT_EQ(ends("rip Nugget 😭 anyway i have a bearded dragon now"),
            std::vector<std::string>{"Nugget"});
  // a death said in other words, the name typed in lower case
  EXPECT_EQ(ends("mochi crossed the rainbow bridge in april"), std::vector<std::string>{"mochi"});
  EXPECT_TRUE(ends("I passed my exam").empty());
  // "the old Transit" is the Transit
  const std::vector<std::string> sold = ends("sold the old Transit to a guy who does landscaping");
  EXPECT_NE(std::find(sold.begin(), sold.end(), "Transit"), sold.end());
  bool dragon = false;
  for (const Candidate& c : Extract("rip Nugget 😭 anyway i have a bearded dragon now")) {
    dragon = dragon || (c.content.starts_with("User has a bearded dragon") && c.ends.empty());
  }
  EXPECT_TRUE(dragon);
}

// "moved my walk to 9:30": a time moved is no change of where the user lives.
TEST(RuleExtractorEnTest, AMovedTimeIsNoMove) {
  for (const Candidate& c : Extract("I have moved my swim to 6:15 since the pool got busy")) {
    EXPECT_NE(c.slot, "user/location") << c.content;
  }
  bool moved = false;
  for (const Candidate& c : Extract("moved to tacoma last week")) {
    moved = moved || c.slot == "user/location";
  }
  EXPECT_TRUE(moved);
}

// Dictated or typed with no stop: a question or request, then the speaker's statement; a new
// subject with its verb ends the statement before it. What leads into the words after it ("what
// i'm supposed to", "my doctor said i'm …") keeps them one clause.
TEST(RuleExtractorEnTest, RunOnMessagesSplitAtTheSpeakersStatement) {
  auto slots = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Candidate& c : Extract(text)) out.push_back(c.slot);
    return out;
  };
  EXPECT_EQ(slots("can you suggest a lunchbox idea i'm allergic to shellfish it makes my throat "
                  "itch"),
            std::vector<std::string>{"user/allergy:shellfish"});
  const std::vector<Candidate> diet =
      Extract("hey what goes well with tofu i've been vegan for like six years");
  ASSERT_EQ(diet.size(), 1u);
  EXPECT_EQ(diet[0].slot, "user/diet");
  EXPECT_TRUE(Extract("can you tell me what i'm supposed to bring").empty());
  bool reported = false;
  for (const Candidate& c : Extract("so my doctor said i'm anemic and need more iron")) {
    reported = reported || c.content.find("doctor") != std::string::npos;
  }
  EXPECT_TRUE(reported);
}

// An underscore inside a handle or an address is part of the word: no "xiao yu@163.com".
TEST(RuleExtractorEnTest, UnderscoresStayInsideWords) {
  const std::vector<Candidate> c = Extract("my email is li_wei_88@example.com");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].content, "User's email is li_wei_88@example.com");
}

// A university named in its own language is a school: "TU Delft", "Uni Wien".
TEST(RuleExtractorEnTest, UniversitiesNamedInTheirOwnLanguage) {
  for (const char* text : {"I study physics at TU Munich", "i'm doing my masters at Uni Wien"}) {
    bool school = false;
    for (const Candidate& c : Extract(text)) school = school || c.slot == "user/school";
    EXPECT_TRUE(school) << text;
  }
}

}  // namespace
}  // namespace engram
