#include "text/analyzer.h"

#include <gtest/gtest.h>

#include <iostream>

#include "engram/embedder.h"
#include "text/normalizer.h"
#include "text/token_counter.h"

namespace engram {
namespace {

void Dump(const char* text) {
  Analysis a = AnalyzeText(text);
  std::cout << "[" << text << "] words:";
  for (auto& w : a.words) std::cout << " <" << w << ">";
  std::cout << " bigrams:";
  for (auto& w : a.cjk_bigrams) std::cout << " <" << w << ">";
  std::cout << " raw:";
  for (auto& w : a.raw_latin_words) std::cout << " <" << w << ">";
  std::cout << " tokens=" << CountTokens(text) << "\n";
}

TEST(AnalyzerProbe, Print) {
  for (const char* t : {"ＡＢＣ１２３", "running runs cities", "我喜欢喝绿茶", "绿茶很好喝",
                        "I love 北京 food", "born in 1990, 3.14 and 42", "don’t Tom’s car",
                        "Tom's car", "ﬁne ① ㎏ Straße", "The user is allergic to peanuts",
                        "我住在北京", "我搬到北京了", "猫喜欢吃鱼", "hello world", "茶",
                        "東京に住んでいます", "我的猫喜欢吃鱼", "我在谷歌当工程师"}) {
    Dump(t);
  }
  auto e = MakeHashEmbedder({});
  auto v = (*e)->Embed({"restaurant", "restaurnat", "I live in Beijing",
                        "I moved to Beijing last year", "My cat likes fish", "我住在北京",
                        "我搬到北京了", "猫喜欢吃鱼"});
  auto cos = [&](int a, int b) {
    double d = 0;
    for (size_t i = 0; i < (*v)[a].size(); ++i) d += (*v)[a][i] * (*v)[b][i];
    return d;
  };
  std::cout << "typo " << cos(0, 1) << " en " << cos(2, 3) << " vs " << cos(2, 4) << " zh "
            << cos(5, 6) << " vs " << cos(5, 7) << "\n";
}

}  // namespace
}  // namespace engram
