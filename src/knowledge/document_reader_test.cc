#include "knowledge/document_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "knowledge/chunker.h"
#include "testing/record_support.h"

namespace engram {
namespace {

std::string BlockText(const ReadDocument& doc, const DocumentBlock& b) {
  return doc.text.substr(b.begin, b.end - b.begin);
}

// A one-page PDF whose page shows `lines`, with a correct cross-reference table.
std::string MinimalPdf(const std::vector<std::string>& lines) {
  std::string stream = "BT /F1 12 Tf 72 720 Td 14 TL\n";
  for (const std::string& l : lines) stream += "(" + l + ") Tj T*\n";
  stream += "ET\n";
  const std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R "
      ">> >> /Contents 4 0 R >>",
      "<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream + "endstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"};
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[32];
    snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
         " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

TEST(KnowledgeReaderTest, HtmlGivesHeadingsParagraphsItemsRowsAndCodeWithoutScripts) {
  const std::string html =
      "<html><head><title>Help Center</title><style>p{color:red}</style></head><body>"
      "<nav>Home</nav><h1>Returns</h1><p>Items can be <b>returned</b>\n  within 30 days.</p>"
      "<script>alert('x')</script><h2>How</h2><ul><li>Pack it</li><li>Ship it</li></ul>"
      "<table><tr><th>Zone</th><th>Days</th></tr><tr><td>A</td><td>2</td></tr></table>"
      "<pre>line 1\n  line 2</pre></body></html>";
  DocumentProblem problem;
  auto doc = ReadHtml(html, ReadLimits{}, &problem);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->title, "Help Center");
  std::vector<std::string> texts;
  std::vector<BlockKind> kinds;
  for (const DocumentBlock& b : doc->blocks) {
    texts.push_back(BlockText(*doc, b));
    kinds.push_back(b.kind);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "Home", "Returns", "Items can be returned within 30 days.", "How", "Pack it",
                       "Ship it", "Zone | Days", "A | 2", "line 1\n  line 2"}));
  EXPECT_EQ(kinds[1], BlockKind::kHeading);
  EXPECT_EQ(doc->blocks[3].level, 2);
  EXPECT_EQ(kinds[4], BlockKind::kListItem);
  EXPECT_EQ(kinds[6], BlockKind::kTableRow);
  EXPECT_EQ(kinds[8], BlockKind::kCode);
  EXPECT_EQ(doc->text.find("alert"), std::string::npos);
  EXPECT_EQ(doc->text.find("color"), std::string::npos);
  const auto chunks = ChunkDocument(*doc, ChunkingOptions{});
  ASSERT_EQ(chunks.size(), 3u);  // before the first heading, Returns, Returns > How
  EXPECT_EQ(chunks[2].title_path, (std::vector<std::string>{"Returns", "How"}));
}

TEST(KnowledgeReaderTest, APdfMadeHereIsReadPageByPage) {
  const std::string pdf = MinimalPdf({"Warranty terms", "Batteries are covered for two years."});
  DocumentProblem problem;
  auto doc = ReadPdf(pdf, ReadLimits{}, &problem);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(problem, DocumentProblem::kNone);
  EXPECT_NE(doc->text.find("Batteries are covered for two years."), std::string::npos);
  const auto chunks = ChunkDocument(*doc, ChunkingOptions{});
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].title_path, (std::vector<std::string>{"page 1"}));
}

TEST(KnowledgeReaderTest, PdfTextPagesBecomePageHeadings) {
  const ReadDocument doc = BlocksOfPdfText("one\ntwo\n\nthree\n\fpage two text\n\f");
  std::vector<std::string> headings;
  for (const DocumentBlock& b : doc.blocks) {
    if (b.kind == BlockKind::kHeading) headings.push_back(b.heading);
  }
  EXPECT_EQ(headings, (std::vector<std::string>{"page 1", "page 2"}));
  const auto chunks = ChunkDocument(doc, ChunkingOptions{});
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].text, "one\ntwo\n\nthree");
  EXPECT_EQ(chunks[1].text, "page two text");
  EXPECT_EQ(chunks[1].title_path, (std::vector<std::string>{"page 2"}));
}

TEST(KnowledgeReaderTest, BadDocumentsAreRefusedNamingTheReason) {
  const ReadLimits limits;
  DocumentProblem problem;
  // A damaged PDF: the header, then garbage.
  auto damaged = ReadDocumentContent(DocumentFormat::kPdf, "%PDF-1.7\n\x01\x02 not a pdf body",
                                     limits, &problem);
  ASSERT_FALSE(damaged.ok());
  EXPECT_TRUE(problem == DocumentProblem::kUnreadable || problem == DocumentProblem::kEmpty)
      << ToString(problem);
  auto not_pdf = ReadDocumentContent(DocumentFormat::kPdf, "hello", limits, &problem);
  ASSERT_FALSE(not_pdf.ok());
  EXPECT_EQ(problem, DocumentProblem::kUnsupportedFormat);
  auto pdf_as_text =
      ReadDocumentContent(DocumentFormat::kMarkdown, "%PDF-1.4 ...", limits, &problem);
  ASSERT_FALSE(pdf_as_text.ok());
  EXPECT_EQ(problem, DocumentProblem::kUnsupportedFormat);
  auto binary =
      ReadDocumentContent(DocumentFormat::kText, std::string("ab\xff\xfe", 4), limits, &problem);
  ASSERT_FALSE(binary.ok());
  EXPECT_EQ(problem, DocumentProblem::kUnreadable);
  auto empty =
      ReadDocumentContent(DocumentFormat::kHtml, "<p> </p><script>x</script>", limits, &problem);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(problem, DocumentProblem::kEmpty);
  auto fine = ReadDocumentContent(DocumentFormat::kText, "fine", limits, &problem);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(problem, DocumentProblem::kNone);
}

TEST(KnowledgeReaderTest, AParserPastItsTimeIsKilledAndReported) {
  testing::TempDir dir;
  const std::string slow = dir.LocalFile("slow-pdftotext");
  {
    std::ofstream out(slow);
    out << "#!/bin/sh\nexec sleep 30\n";
  }
  chmod(slow.c_str(), 0755);
  ReadLimits limits;
  limits.pdftotext = slow;
  limits.pdf_timeout_ms = 300;
  DocumentProblem problem;
  const auto started = std::chrono::steady_clock::now();
  auto doc = ReadPdf(MinimalPdf({"x"}), limits, &problem);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(problem, DocumentProblem::kParserTimeout);
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(KnowledgeReaderTest, AParserPrintingTooMuchIsStoppedAtTheTextLimit) {
  testing::TempDir dir;
  const std::string chatty = dir.LocalFile("chatty-pdftotext");
  {
    std::ofstream out(chatty);
    out << "#!/bin/sh\nexec yes 'all work and no play'\n";
  }
  chmod(chatty.c_str(), 0755);
  ReadLimits limits;
  limits.pdftotext = chatty;
  limits.max_text_bytes = 1 << 20;
  DocumentProblem problem;
  auto doc = ReadPdf(MinimalPdf({"x"}), limits, &problem);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(problem, DocumentProblem::kTooLarge);
}

TEST(KnowledgeReaderTest, FormatsAreNamedByExtensionOrMimeType) {
  EXPECT_EQ(DocumentFormatFromFileName("Guide.MD"), DocumentFormat::kMarkdown);
  EXPECT_EQ(DocumentFormatFromFileName("/srv/docs/faq.htm"), DocumentFormat::kHtml);
  EXPECT_EQ(DocumentFormatFromFileName("manual.pdf"), DocumentFormat::kPdf);
  EXPECT_EQ(DocumentFormatFromFileName("notes.txt"), DocumentFormat::kText);
  EXPECT_EQ(DocumentFormatFromFileName("application/pdf"), DocumentFormat::kPdf);
  EXPECT_EQ(DocumentFormatFromFileName("text/html; charset=utf-8"), DocumentFormat::kHtml);
  EXPECT_EQ(DocumentFormatFromFileName("archive.zip"), std::nullopt);
  EXPECT_EQ(DocumentFormatFromFileName("README"), std::nullopt);
  EXPECT_EQ(DocumentFormatFromName("docx"), std::nullopt);
}

}  // namespace
}  // namespace engram
