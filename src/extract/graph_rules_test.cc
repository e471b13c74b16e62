// The entity graph's rules against the corpus in tests/fixtures/graph/{zh,en}.jsonl: for each
// message, exactly the entities (name, kind, whether only a role to resolve), aliases and
// relations listed, nothing more (a rule that invents an entity or an edge fails here).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engram/extraction.h"

namespace engram {
namespace {

using nlohmann::json;

std::vector<json> Corpus(const std::string& lang) {
  std::ifstream in(std::string(ENGRAM_SOURCE_DIR) + "/tests/fixtures/graph/" + lang + ".jsonl");
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

std::set<std::string> ExpectedEntities(const json& c) {
  std::set<std::string> out;
  for (const json& e : c["entities"]) {
    out.insert(e[0].get<std::string>() + "|" + e[1].get<std::string>() +
               (e.size() > 2 ? "|reference" : ""));
  }
  return out;
}

std::set<std::string> ExpectedRelations(const json& c) {
  std::set<std::string> out;
  for (const json& r : c["relations"]) {
    out.insert(r[0].get<std::string>() + " " + r[1].get<std::string>() + " " +
               r[2].get<std::string>() + (r.size() > 3 ? " ended" : ""));
  }
  return out;
}

void CheckCorpus(const std::string& lang, size_t at_least) {
  const std::vector<json> corpus = Corpus(lang);
  ASSERT_GE(corpus.size(), at_least) << "tests/fixtures/graph/" << lang << ".jsonl";
  for (const json& c : corpus) {
    const std::string text = c["text"];
    const GraphFacts got = ExtractGraph(text);
    std::set<std::string> entities, relations;
    for (const GraphEntity& e : got.entities) {
      entities.insert(e.name + "|" + std::string(ToString(e.kind)) +
                      (e.reference_only ? "|reference" : ""));
    }
    for (const GraphRelation& r : got.relations) {
      relations.insert(r.subject + " " + r.predicate + " " + r.object + (r.ended ? " ended" : ""));
    }
    EXPECT_EQ(entities, ExpectedEntities(c)) << text;
    EXPECT_EQ(relations, ExpectedRelations(c)) << text;
    std::map<std::string, std::vector<std::string>> aliases;
    for (const GraphEntity& e : got.entities) {
      if (!e.aliases.empty()) aliases[e.name] = e.aliases;
    }
    std::map<std::string, std::vector<std::string>> want;
    if (c.contains("aliases")) {
      for (const auto& [name, list] : c["aliases"].items()) {
        want[name] = list.get<std::vector<std::string>>();
      }
    }
    EXPECT_EQ(aliases, want) << text;
  }
}

TEST(GraphRulesTest, ChineseCorpus) { CheckCorpus("zh", 20); }

TEST(GraphRulesTest, EnglishCorpus) { CheckCorpus("en", 18); }

TEST(GraphRulesTest, BadInputYieldsNothing) {
  EXPECT_TRUE(ExtractGraph("").empty());
  EXPECT_TRUE(ExtractGraph(std::string("\xff\xfe 我住在上海", 17)).empty());
  // A name is never longer than the rules allow, however long the text.
  const GraphFacts long_text = ExtractGraph("我住在" + std::string(3000, 'a'));
  for (const GraphEntity& e : long_text.entities) EXPECT_LE(e.name.size(), 40u);
}

}  // namespace
}  // namespace engram
