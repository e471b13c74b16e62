#include "index/quantized_vectors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace engram {
namespace {

std::vector<float> RandomUnitVector(size_t dim, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(dim);
  float norm = 0;
  for (float& x : v) {
    x = normal(rng);
    norm += x * x;
  }
  for (float& x : v) x /= std::sqrt(norm);
  return v;
}

double FloatDot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double{a[i]} * b[i];
  return s;
}

TEST(QuantizedVectorsTest, QuantizeUsesTheFullRangeAndRoundsToNearest) {
  const std::vector<float> v = {0.5f, -0.25f, 0.0f, 0.126f, -0.5f};
  std::vector<int8_t> codes(v.size());
  const float scale = QuantizeInt8(v.data(), v.size(), codes.data());
  EXPECT_FLOAT_EQ(scale, 0.5f / 127);
  EXPECT_EQ(codes, (std::vector<int8_t>{127, -64, 0, 32, -127}));  // -63.5 rounds to even
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(codes[i] * scale, v[i], scale / 2 + 1e-7);
}

TEST(QuantizedVectorsTest, ZeroVectorHasZeroScaleAndCodes) {
  const std::vector<float> v(7, 0.0f);
  std::vector<int8_t> codes(7, 5);
  EXPECT_EQ(QuantizeInt8(v.data(), v.size(), codes.data()), 0.0f);
  EXPECT_EQ(codes, std::vector<int8_t>(7, 0));
}

// The vectorized integer dot product equals the plain sum for every length (tails included)
// and extreme codes.
TEST(QuantizedVectorsTest, DotInt8IsExact) {
  std::mt19937 rng(1);
  for (size_t n : {0, 1, 15, 16, 31, 32, 33, 100, 384, 385, 4096}) {
    std::vector<int8_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      b[i] = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
    }
    int64_t want = 0;
    for (size_t i = 0; i < n; ++i) want += a[i] * b[i];
    EXPECT_EQ(DotInt8(a.data(), b.data(), n), want) << n;
  }
  std::vector<int8_t> max(4096, 127), min(4096, -127);
  EXPECT_EQ(DotInt8(max.data(), min.data(), 4096), -4096 * 127 * 127);
}

// For 384-dimension unit vectors the approximate inner product stays within 0.01 of the float
// one (measured: mean error about 0.001).
TEST(QuantizedVectorsTest, ApproximateDotWithinToleranceOfFloat) {
  constexpr size_t kDim = 384;
  std::mt19937 rng(2);
  QuantizedVectors rows(kDim);
  std::vector<std::vector<float>> data;
  for (size_t i = 0; i < 200; ++i) {
    data.push_back(RandomUnitVector(kDim, rng));
    rows.Set(i, data.back().data());
  }
  EXPECT_GE(rows.rows(), 200u);
  double worst = 0, total = 0;
  for (int q = 0; q < 20; ++q) {
    std::vector<float> query = RandomUnitVector(kDim, rng);
    std::vector<int8_t> codes(kDim);
    const float scale = QuantizeInt8(query.data(), kDim, codes.data());
    for (size_t i = 0; i < data.size(); ++i) {
      const double error = std::fabs(rows.Dot(codes.data(), scale, i) - FloatDot(query, data[i]));
      worst = std::max(worst, error);
      total += error;
    }
    // A row against its own vector: close to 1.
    std::vector<int8_t> own(kDim);
    const float own_scale = QuantizeInt8(data[q].data(), kDim, own.data());
    EXPECT_NEAR(rows.Dot(own.data(), own_scale, static_cast<size_t>(q)), 1.0, 0.01);
  }
  EXPECT_LT(worst, 0.01);
  EXPECT_LT(total / (20.0 * data.size()), 0.003);
}

TEST(QuantizedVectorsTest, ClearAndResize) {
  QuantizedVectors rows(4);
  const float v[4] = {1, 0, 0, 0};
  rows.Set(3, v);
  EXPECT_GE(rows.rows(), 4u);
  EXPECT_GT(rows.scale(3), 0.0f);
  rows.Clear(3);
  EXPECT_EQ(rows.scale(3), 0.0f);
  EXPECT_EQ(rows.codes(3)[0], 0);
  rows.Resize(10);
  EXPECT_EQ(rows.rows(), 10u);
  EXPECT_EQ(rows.scale(9), 0.0f);
}

}  // namespace
}  // namespace engram
