#include "codec/field_names.h"

#include <gtest/gtest.h>

#include "api/requests.h"
#include "codec/field_reader.h"

namespace engram {
namespace {

using json = nlohmann::json;

const std::set<std::string> kAddFields = {"user_id",  "agent_id", "session_id", "content", "text",
                                          "messages", "type",     "tier",       "tags",    "infer"};

TEST(EditDistanceTest, CountsEditsAndNeighbourSwapsOnce) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("txt", "text"), 1u);
  EXPECT_EQ(EditDistance("tpye", "type"), 1u);  // a swap, not two substitutions
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(SuggestFieldNameTest, NearMissesGetTheKnownName) {
  EXPECT_EQ(SuggestFieldName("tpye", kAddFields), "type");
  EXPECT_EQ(SuggestFieldName("tag", kAddFields), "tags");
  EXPECT_EQ(SuggestFieldName("mesages", kAddFields), "messages");
  EXPECT_EQ(SuggestFieldName("userId", kAddFields), "user_id");  // case and '_' ignored
  EXPECT_EQ(SuggestFieldName("user-id", kAddFields), "user_id");
}

TEST(SuggestFieldNameTest, ADeprecatedNameIsNeverSuggested) {
  // "txt" is nearest to "text", which is going: the client is told the name that stays.
  EXPECT_EQ(SuggestFieldName("txt", kAddFields), "content");
  EXPECT_EQ(SuggestFieldName("texts", kAddFields), "content");
  // Where only "text" is known (no replacement among the fields), it is what there is.
  EXPECT_EQ(SuggestFieldName("txt", {"text", "at", "role"}), "text");
}

TEST(SuggestFieldNameTest, WellKnownAliasesPointAtTheFieldOnlyWhereItExists) {
  EXPECT_EQ(SuggestFieldName("memory", kAddFields), "content");
  EXPECT_EQ(SuggestFieldName("user", kAddFields), "user_id");
  EXPECT_EQ(SuggestFieldName("top_k", {"query", "k", "user_id"}), "k");
  EXPECT_EQ(SuggestFieldName("q", {"query", "k", "user_id"}), "query");
  // "top_k" is no alias of anything an add request takes, and is far from every field.
  EXPECT_EQ(SuggestFieldName("top_k", kAddFields), "");
}

TEST(SuggestFieldNameTest, NothingCloseMeansNoSuggestion) {
  EXPECT_EQ(SuggestFieldName("bogus", kAddFields), "");
  EXPECT_EQ(SuggestFieldName("colour", kAddFields), "");
  EXPECT_EQ(SuggestFieldName("x", {}), "");
  EXPECT_EQ(DidYouMean("bogus", kAddFields), "");
  EXPECT_EQ(DidYouMean("txt", kAddFields), "; did you mean 'content'?");
}

// The decoders that refuse unknown names all carry the hint.
TEST(UnknownFieldHintTest, EveryRefusingDecoderNamesTheFieldToUse) {
  const json body = {{"txt", "x"}};  // FieldReader keeps a reference: it must outlive it
  FieldReader r(body, "request");
  r.CheckKnown(kAddFields);
  EXPECT_EQ(r.status().message(),
            "request field 'txt' is not a known field; did you mean 'content'?");

  api::Limits limits;
  auto add = api::DecodeAdd(json{{"user_id", "u"}, {"txt", "hi"}}, "t", limits);
  ASSERT_FALSE(add.ok());
  EXPECT_NE(add.status().message().find("did you mean 'content'?"), std::string::npos);

  auto patch = api::DecodePatch(json{{"text", "hi"}});
  ASSERT_FALSE(patch.ok());
  EXPECT_NE(patch.status().message().find("'text' is not a known field; did you mean 'content'?"),
            std::string::npos);

  auto search =
      api::DecodeSearch(json{{"user_id", "u"}, {"query", "x"}, {"top_k", 3}}, "t", limits);
  ASSERT_FALSE(search.ok());
  EXPECT_NE(search.status().message().find("did you mean 'k'?"), std::string::npos);

  auto list = api::DecodeList({{"user_id", "u"}, {"limt", "5"}}, "t", limits);
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("did you mean 'limit'?"), std::string::npos);
}

}  // namespace
}  // namespace engram
