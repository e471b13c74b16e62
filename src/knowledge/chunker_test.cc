#include "knowledge/chunker.h"

#include <gtest/gtest.h>

#include "text/token_counter.h"
#include "text/utf8.h"

namespace engram {
namespace {

// The chunk's text is where its character range says, in code points of the document's text.
void ExpectRangesPointAtTheirText(const std::string& text, const std::vector<KnowledgeChunk>& cs) {
  for (const KnowledgeChunk& c : cs) {
    size_t begin = 0, cp = 0;
    while (cp < static_cast<size_t>(c.char_start)) {
      NextCodepoint(text, &begin);
      ++cp;
    }
    size_t end = begin;
    while (cp < static_cast<size_t>(c.char_end)) {
      NextCodepoint(text, &end);
      ++cp;
    }
    EXPECT_EQ(text.substr(begin, end - begin), c.text) << "chunk " << c.ordinal;
  }
}

TEST(KnowledgeChunkerTest, MarkdownHeadingsGiveEachChunkItsTitlePath) {
  const std::string md =
      "# Returns\n\nWe take returns of unused items.\n\n"
      "## Timing\n\nRefunds are paid within 14 days of receiving the parcel.\n\n"
      "## Damaged items\n\n- Photograph the damage.\n- Write to support@example.com.\n\n"
      "# Shipping\n\n```\nzone A: 2 days\nzone B: 5 days\n```\n";
  const ReadDocument doc = ReadMarkdown(md);
  EXPECT_EQ(doc.title, "Returns");
  const auto chunks = ChunkDocument(doc, ChunkingOptions{.chunk_tokens = 300, .overlap_tokens = 0});
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].title_path, (std::vector<std::string>{"Returns"}));
  EXPECT_EQ(chunks[0].text, "# Returns\n\nWe take returns of unused items.");
  EXPECT_EQ(chunks[1].title_path, (std::vector<std::string>{"Returns", "Timing"}));
  EXPECT_NE(chunks[1].text.find("14 days"), std::string::npos);
  EXPECT_EQ(chunks[2].title_path, (std::vector<std::string>{"Returns", "Damaged items"}));
  EXPECT_NE(chunks[2].text.find("- Photograph the damage.\n- Write to"), std::string::npos);
  EXPECT_EQ(chunks[3].title_path, (std::vector<std::string>{"Shipping"}));  // level 1 pops both
  EXPECT_NE(chunks[3].text.find("zone B: 5 days\n```"), std::string::npos);
  for (size_t i = 0; i < chunks.size(); ++i) EXPECT_EQ(chunks[i].ordinal, static_cast<int>(i));
  ExpectRangesPointAtTheirText(md, chunks);
}

TEST(KnowledgeChunkerTest, ALongSectionIsCutAtSentencesWithOverlapAndWithinTheSize) {
  std::string md = "# Policy\n\n";
  for (int i = 0; i < 60; ++i) {
    md += "Rule number " + std::to_string(i) + " says that orders ship on weekdays only. ";
  }
  const ChunkingOptions options{.chunk_tokens = 64, .overlap_tokens = 16};
  const auto chunks = ChunkDocument(ReadMarkdown(md), options);
  ASSERT_GT(chunks.size(), 5u);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LE(chunks[i].tokens, options.chunk_tokens) << i;
    EXPECT_EQ(chunks[i].title_path, (std::vector<std::string>{"Policy"}));
    if (i == 0) continue;
    // Each chunk starts inside the one before (the overlap) and ends after it (progress).
    EXPECT_LT(chunks[i].char_start, chunks[i - 1].char_end) << i;
    EXPECT_GT(chunks[i].char_start, chunks[i - 1].char_start) << i;
    EXPECT_GT(chunks[i].char_end, chunks[i - 1].char_end) << i;
    // The overlap is whole sentences of the chunk before.
    EXPECT_TRUE(chunks[i].text.starts_with("Rule number ")) << chunks[i].text;
  }
  ExpectRangesPointAtTheirText(md, chunks);
  // Without overlap, chunks meet but do not share text.
  const auto plain = ChunkDocument(ReadMarkdown(md), ChunkingOptions{64, 0});
  for (size_t i = 1; i < plain.size(); ++i) EXPECT_GE(plain[i].char_start, plain[i - 1].char_end);
}

TEST(KnowledgeChunkerTest, ChineseTextIsCutAtFullWidthStopsAndRangesCountCharacters) {
  std::string md = "# 退货政策\n\n";
  for (int i = 0; i < 40; ++i) md += "收到商品后七天内可以申请无理由退货，运费由买家承担。";
  md += "\n\n## 发票\n\n电子发票在订单完成后自动开具。\n";
  const auto chunks =
      ChunkDocument(ReadMarkdown(md), ChunkingOptions{.chunk_tokens = 80, .overlap_tokens = 20});
  ASSERT_GE(chunks.size(), 3u);
  EXPECT_EQ(chunks.front().title_path, (std::vector<std::string>{"退货政策"}));
  EXPECT_EQ(chunks.back().title_path, (std::vector<std::string>{"退货政策", "发票"}));
  EXPECT_EQ(chunks.back().text, "## 发票\n\n电子发票在订单完成后自动开具。");
  for (const KnowledgeChunk& c : chunks) {
    EXPECT_LE(c.tokens, 80);
    EXPECT_TRUE(IsValidUtf8(c.text));
  }
  // Middle chunks start at a sentence or clause (after 。 or ，), inside the chunk before.
  for (size_t i = 1; i + 1 < chunks.size(); ++i) {
    EXPECT_TRUE(chunks[i].text.starts_with("收到商品后") || chunks[i].text.starts_with("运费由"))
        << chunks[i].text;
    EXPECT_LT(chunks[i].char_start, chunks[i - 1].char_end);  // overlap
    EXPECT_GT(chunks[i].char_end, chunks[i - 1].char_end);
  }
  // Ranges are code points: the last chunk ends at the document's last character.
  EXPECT_EQ(chunks.back().char_end, static_cast<int64_t>(CountCodepoints(md)) - 1);
  ExpectRangesPointAtTheirText(md, chunks);
}

TEST(KnowledgeChunkerTest, AWordLongerThanAChunkIsCutWithoutBreakingCharacters) {
  const std::string text = std::string(5000, 'x') + " tail";
  const auto chunks =
      ChunkDocument(ReadPlainText(text), ChunkingOptions{.chunk_tokens = 64, .overlap_tokens = 0});
  ASSERT_GT(chunks.size(), 10u);
  for (const KnowledgeChunk& c : chunks) EXPECT_LE(c.tokens, 64);
  EXPECT_EQ(chunks.back().text.substr(chunks.back().text.size() - 4), "tail");
  ExpectRangesPointAtTheirText(text, chunks);
}

TEST(KnowledgeChunkerTest, PlainTextParagraphsAreBlocksAndFitTogether) {
  const std::string text = "First paragraph.\nStill first.\n\n\nSecond paragraph.\n";
  const ReadDocument doc = ReadPlainText(text);
  ASSERT_EQ(doc.blocks.size(), 2u);
  EXPECT_EQ(text.substr(doc.blocks[1].begin, doc.blocks[1].end - doc.blocks[1].begin),
            "Second paragraph.");
  const auto chunks = ChunkDocument(doc, ChunkingOptions{});
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_TRUE(chunks[0].title_path.empty());
  EXPECT_EQ(chunks[0].text, "First paragraph.\nStill first.\n\n\nSecond paragraph.");
  EXPECT_EQ(chunks[0].char_start, 0);
}

}  // namespace
}  // namespace engram
