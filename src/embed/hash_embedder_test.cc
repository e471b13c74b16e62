#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engram/embedder.h"

namespace engram {
namespace {

std::unique_ptr<Embedder> Make(int dimension = 384) {
  auto e = MakeHashEmbedder({.dimension = dimension});
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

std::vector<float> EmbedOne(Embedder& e, const std::string& text) {
  auto v = e.Embed({text});
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->size(), 1u);
  return v.ok() && !v->empty() ? (*v)[0] : std::vector<float>{};
}

double Norm(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  return std::sqrt(sum);
}

double Cosine(Embedder& e, const std::string& a, const std::string& b) {
  std::vector<float> x = EmbedOne(e, a), y = EmbedOne(e, b);
  double dot = 0;
  for (size_t i = 0; i < x.size(); ++i) dot += static_cast<double>(x[i]) * y[i];
  return dot;
}

TEST(HashEmbedderTest, IsDeterministicAcrossInstances) {
  auto a = Make();
  auto b = Make();
  const std::string text = "I moved to Beijing last year and 我喜欢喝绿茶";
  std::vector<float> first = EmbedOne(*a, text);
  EXPECT_EQ(EmbedOne(*a, text), first);
  EXPECT_EQ(EmbedOne(*b, text), first);
  EXPECT_NE(EmbedOne(*a, "something else entirely"), first);
}

TEST(HashEmbedderTest, VectorsAreUnitLengthWithTheConfiguredDimension) {
  for (int dim : {16, 64, 384, 4096}) {
    auto e = Make(dim);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->dimension(), dim);
    auto vs = e->Embed({"hello world", "我住在北京", "x", "running runs ran 42"});
    ASSERT_TRUE(vs.ok());
    ASSERT_EQ(vs->size(), 4u);
    for (const auto& v : *vs) {
      EXPECT_EQ(static_cast<int>(v.size()), dim);
      EXPECT_NEAR(Norm(v), 1.0, 1e-5);
    }
  }
}

TEST(HashEmbedderTest, BatchEmbedsEachTextAsAlone) {
  auto e = Make();
  auto batch = e->Embed({"green tea", "black coffee", "green tea"});
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 3u);
  EXPECT_EQ((*batch)[0], EmbedOne(*e, "green tea"));
  EXPECT_EQ((*batch)[1], EmbedOne(*e, "black coffee"));
  EXPECT_EQ((*batch)[0], (*batch)[2]);
  auto none = e->Embed({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(HashEmbedderTest, InvalidDimensionIsRejected) {
  for (int dim : {8, 15, 0, -1, 4097, 5000}) {
    auto e = MakeHashEmbedder({.dimension = dim});
    ASSERT_FALSE(e.ok()) << dim;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(e.status().message().find("dimension"), std::string::npos) << e.status().message();
  }
}

TEST(HashEmbedderTest, ModelNamesTheDimension) {
  EXPECT_EQ(Make(384)->model(), "hash-v1-384");
  EXPECT_EQ(Make(64)->model(), "hash-v1-64");
  EXPECT_NE(Make(64)->model(), Make(128)->model());  // different vector spaces
}

TEST(HashEmbedderTest, TextWithoutFeaturesGivesAZeroVectorNotNaN) {
  auto e = Make(32);
  // Empty text, only punctuation, only stop words: nothing to hash.
  for (const std::string text : {"", "  ", "?!.,", "the and of"}) {
    std::vector<float> v = EmbedOne(*e, text);
    ASSERT_EQ(v.size(), 32u) << text;
    for (float x : v) {
      EXPECT_FALSE(std::isnan(x)) << text;
      EXPECT_EQ(x, 0.0f) << text;
    }
  }
}

TEST(HashEmbedderTest, RelatedTextsAreCloserThanUnrelatedOnes) {
  auto e = Make();
  const double related = Cosine(*e, "I live in Beijing", "I moved to Beijing last year");
  const double unrelated = Cosine(*e, "I live in Beijing", "My cat likes fish");
  EXPECT_GT(related, unrelated);
  EXPECT_GT(related, 0.2);
  EXPECT_LT(std::fabs(unrelated), 0.2);

  const double related_zh = Cosine(*e, "我住在北京", "我搬到北京了");
  const double unrelated_zh = Cosine(*e, "我住在北京", "猫喜欢吃鱼");
  EXPECT_GT(related_zh, unrelated_zh);
  EXPECT_GT(related_zh, 0.2);
  EXPECT_LT(std::fabs(unrelated_zh), 0.2);

  // Inflections meet in the same stem.
  EXPECT_GT(Cosine(*e, "she runs every morning", "running in the morning"),
            Cosine(*e, "she runs every morning", "reading at night"));
  // Case and full-width forms do not matter.
  EXPECT_NEAR(Cosine(*e, "BEIJING 2024", "beijing ２０２４"), 1.0, 1e-5);
}

TEST(HashEmbedderTest, ToleratesTypos) {
  auto e = Make();
  const double typo = Cosine(*e, "restaurant", "restaurnat");
  // Two transposed letters keep 6 of the 10 character trigrams; the whole word (weight 1.0)
  // no longer matches, so the similarity is about 0.375 / 1.625.
  EXPECT_GT(typo, 0.2) << "restaurant vs restaurnat";
  EXPECT_GT(typo, Cosine(*e, "restaurant", "bicycle"));
}

}  // namespace
}  // namespace engram
