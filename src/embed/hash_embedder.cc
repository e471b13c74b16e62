// The built-in embedder: signed feature hashing ("the hashing trick") over the analyzer's
// features. Words (stemmed) carry the most weight; CJK bigrams and unigrams give Chinese
// partial matches regardless of segmentation; character trigrams of Latin words give partial
// credit to morphological variants and typos. Feature weights are sublinear in frequency and
// scaled by a length prior (longer words are rarer, so they count as more informative, an
// IDF-style weighting that needs no corpus statistics). The result is L2-normalized, so inner
// product is cosine similarity.
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "engram/embedder.h"
#include "text/analyzer.h"

namespace engram {
namespace {

// 64-bit FNV-1a followed by a murmur finalizer: cheap and well mixed.
uint64_t Hash64(std::string_view s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// Channel seeds keep a word and an identical n-gram from colliding on purpose.
constexpr uint64_t kWordSeed = 0x1;
constexpr uint64_t kBigramSeed = 0x2;
constexpr uint64_t kUnigramSeed = 0x3;
constexpr uint64_t kTrigramSeed = 0x4;
constexpr uint64_t kWordPairSeed = 0x5;

constexpr double kWordWeight = 1.0;
constexpr double kCjkBigramWeight = 0.8;
constexpr double kCjkUnigramWeight = 0.35;
constexpr double kTrigramWeight = 0.25;
constexpr double kWordPairWeight = 0.4;

double LengthPrior(std::string_view word) {
  // Byte length 1-2 → 0.6, 3-4 → 0.8, 5+ → 1.0 (CJK words are 3 bytes per character).
  if (word.size() <= 2) return 0.6;
  if (word.size() <= 4) return 0.8;
  return 1.0;
}

class HashEmbedder final : public Embedder {
 public:
  explicit HashEmbedder(int dimension)
      : dimension_(dimension), model_("hash-v1-" + std::to_string(dimension)) {}

  const std::string& model() const override { return model_; }
  int dimension() const override { return dimension_; }

  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (const std::string& t : texts) out.push_back(EmbedOne(t));
    return out;
  }

 private:
  std::vector<float> EmbedOne(const std::string& text) const {
    Analysis a = AnalyzeText(text);
    std::unordered_map<uint64_t, std::pair<double, double>> features;  // hash → (count, weight)
    auto add = [&](std::string_view f, uint64_t seed, double weight) {
      auto& slot = features[Hash64(f, seed)];
      slot.first += 1;
      slot.second = weight;
    };
    for (size_t i = 0; i < a.words.size(); ++i) {
      add(a.words[i], kWordSeed, kWordWeight * LengthPrior(a.words[i]));
      if (i + 1 < a.words.size()) {
        add(a.words[i] + ' ' + a.words[i + 1], kWordPairSeed, kWordPairWeight);
      }
    }
    for (const std::string& b : a.cjk_bigrams) {
      bool unigram = b.size() <= 4;
      add(b, unigram ? kUnigramSeed : kBigramSeed, unigram ? kCjkUnigramWeight : kCjkBigramWeight);
      if (!unigram && (b.size() == 6 || b.size() == 8)) {
        // The two characters also count alone (both 3-byte or both 4-byte characters).
        add(std::string_view(b).substr(0, b.size() / 2), kUnigramSeed, kCjkUnigramWeight);
        add(std::string_view(b).substr(b.size() / 2), kUnigramSeed, kCjkUnigramWeight);
      }
    }
    for (const std::string& w : a.raw_latin_words) {
      std::string padded = "#" + w + "#";
      for (size_t i = 0; i + 3 <= padded.size(); ++i) {
        add(std::string_view(padded).substr(i, 3), kTrigramSeed, kTrigramWeight);
      }
    }
    std::vector<float> v(static_cast<size_t>(dimension_), 0.0f);
    for (const auto& [h, cw] : features) {
      double value = (1.0 + std::log(cw.first)) * cw.second;
      size_t slot = static_cast<size_t>(h % static_cast<uint64_t>(dimension_));
      v[slot] += static_cast<float>((h >> 63) ? -value : value);
    }
    double norm = 0;
    for (float x : v) norm += static_cast<double>(x) * x;
    if (norm > 0) {
      float inv = static_cast<float>(1.0 / std::sqrt(norm));
      for (float& x : v) x *= inv;
    }
    return v;
  }

  int dimension_;
  std::string model_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> MakeHashEmbedder(const HashEmbedderOptions& options) {
  if (options.dimension < 16 || options.dimension > 4096) {
    return Status::InvalidArgument("hash embedder dimension must be between 16 and 4096, got " +
                                   std::to_string(options.dimension));
  }
  return std::unique_ptr<Embedder>(new HashEmbedder(options.dimension));
}

}  // namespace engram
