// `engram ingest`: the knowledge tier from the command line (documents of the --tenant, or of
// its --agent), and `engram bench ingest`: the ingest rate (reading, chunking, embedding with
// the configured embedder, storing) on generated Markdown.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "api/knowledge_api.h"
#include "cli/cli_app.h"
#include "knowledge/chunker.h"
#include "knowledge/document_reader.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

struct IngestFlags {
  std::vector<std::string> files;
  std::string doc_id;
  std::string title;
  std::string format;
  int chunk_tokens = ChunkingOptions{}.chunk_tokens;
  int overlap_tokens = ChunkingOptions{}.overlap_tokens;
  bool list = false;
  std::string show;
  std::string remove;
  bool verify = false;
};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open '" + path + "'");
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

std::string DocIdOf(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' &&
        c != ':') {
      c = '-';
    }
  }
  return stem.substr(0, 128);
}

int IngestOne(Context& ctx, Engine* engine, const KnowledgeScope& scope, const IngestFlags& f,
              const std::string& path) {
  NewDocument doc;
  doc.doc_id = f.doc_id.empty() ? DocIdOf(path) : f.doc_id;
  doc.title = f.title;
  doc.source = std::filesystem::path(path).filename().string();
  doc.chunking = ChunkingOptions{f.chunk_tokens, f.overlap_tokens};
  const auto format =
      f.format.empty() ? DocumentFormatFromFileName(path) : DocumentFormatFromName(f.format);
  if (!format) {
    return ctx.FailUsage("cannot tell the format of '" + path +
                         "': name it with --format text|markdown|html|pdf");
  }
  doc.format = *format;
  auto data = ReadFile(path);
  if (!data.ok()) return ctx.Fail(data.status());
  doc.content = std::move(data).value();
  DocumentProblem problem = DocumentProblem::kNone;
  auto result = engine->IngestDocument(scope, doc, &problem);
  if (!result.ok()) {
    return ctx.Fail(
        problem == DocumentProblem::kNone
            ? result.status()
            : result.status().WithContext(path + ": " + std::string(ToString(problem))));
  }
  if (ctx.json) {
    std::cout << api::IngestResultToJson(*result).dump() << "\n";
  } else {
    const KnowledgeDocument& d = result->document;
    std::cout << (result->replaced ? "replaced " : "ingested ") << d.doc_id << " ("
              << ToString(d.format) << ", " << d.chunks << " chunks, version " << d.version
              << "): " << d.title << "\n";
  }
  return kExitOk;
}

int RunIngest(Context& ctx, const IngestFlags& f) {
  const int actions = (f.list ? 1 : 0) + (f.show.empty() ? 0 : 1) + (f.remove.empty() ? 0 : 1) +
                      (f.files.empty() ? 0 : 1);
  if (actions != 1) return ctx.FailUsage("give FILE..., or one of --list, --show, --delete");
  if (!f.doc_id.empty() && f.files.size() > 1) {
    return ctx.FailUsage("--doc-id names one document: give one FILE with it");
  }
  Engine* engine = ctx.OpenEngine(/*create=*/!f.files.empty());
  if (engine == nullptr) return ctx.last_exit;
  const KnowledgeScope scope{ctx.tenant, ctx.agent};
  if (f.list) {
    auto docs = engine->ListDocuments(scope);
    if (!docs.ok()) return ctx.Fail(docs.status());
    if (ctx.json) {
      std::cout << api::DocumentListToJson(*docs).dump() << "\n";
    } else {
      for (const KnowledgeDocument& d : *docs) {
        std::cout << d.doc_id << "\t" << ToString(d.format) << "\t" << d.chunks << " chunks\tv"
                  << d.version << "\t" << d.title << "\n";
      }
    }
    return kExitOk;
  }
  if (!f.show.empty()) {
    auto detail = engine->GetDocument(scope, f.show);
    if (!detail.ok()) return ctx.Fail(detail.status());
    if (ctx.json) {
      std::cout << api::DocumentDetailToJson(*detail).dump() << "\n";
    } else {
      for (const KnowledgeChunk& c : detail->chunks) {
        KnowledgeHit cite{.doc_id = detail->document.doc_id, .title_path = c.title_path};
        std::cout << "#" << c.ordinal << " " << KnowledgeCitation(cite) << " chars " << c.char_start
                  << ".." << c.char_end << "\n"
                  << c.text << "\n\n";
      }
    }
    return kExitOk;
  }
  if (!f.remove.empty()) {
    auto deleted = engine->DeleteDocument(scope, f.remove, f.verify);
    if (!deleted.ok()) return ctx.Fail(deleted.status());
    if (ctx.json) {
      std::cout << api::DocumentDeletionToJson(f.remove, *deleted).dump() << "\n";
    } else {
      std::cout << "deleted " << f.remove << " (" << deleted->chunks << " chunks)";
      if (deleted->verified) {
        std::cout << (deleted->traces.empty() ? ", verified: no trace left" : ", TRACES FOUND:");
        for (const std::string& t : deleted->traces) std::cout << "\n  " << t;
      }
      std::cout << "\n";
    }
    return deleted->traces.empty() ? kExitOk : kExitTraces;
  }
  for (const std::string& path : f.files) {
    if (const int rc = IngestOne(ctx, engine, scope, f, path); rc != kExitOk) return rc;
  }
  return kExitOk;
}

// ---- bench ingest ----

struct IngestBenchFlags {
  int mb = 16;
  int doc_kb = 1024;
  int rounds = 3;
  std::string dir;
};

// A manual-like Markdown document of about `bytes` bytes: sections and subsections of
// paragraphs (English, and one in five Chinese), lists and code blocks.
std::string MakeManual(std::mt19937& rng, size_t bytes, int doc) {
  static const char* const kWords[] = {
      "refund",  "order",  "parcel", "warranty", "battery",  "account", "invoice", "customer",
      "support", "device", "reset",  "password", "shipping", "within",  "days",    "after",
      "the",     "and",    "must",   "should",   "contact",  "policy",  "returns", "update"};
  static const char* const kZh[] = {"退货",   "订单", "发票", "保修", "电池", "客服",
                                    "七天内", "可以", "申请", "运费", "账户", "设置"};
  std::uniform_int_distribution<int> w(0, 23), z(0, 11), len(8, 24), pick(0, 9);
  std::string md = "# Manual " + std::to_string(doc) + "\n\n";
  int section = 0;
  while (md.size() < bytes) {
    md += "## Section " + std::to_string(++section) + "\n\n";
    for (int sub = 1; sub <= 3 && md.size() < bytes; ++sub) {
      md += "### Topic " + std::to_string(section) + "." + std::to_string(sub) + "\n\n";
      for (int p = 0; p < 4; ++p) {
        const int kind = pick(rng);
        if (kind < 2) {
          for (int s = 0; s < 5; ++s) {
            for (int i = len(rng); i > 0; --i) md += kZh[z(rng)];
            md += "。";
          }
          md += "\n\n";
        } else if (kind < 4) {
          for (int i = 0; i < 5; ++i) {
            md += "- ";
            for (int j = len(rng) / 2; j > 0; --j) md += std::string(kWords[w(rng)]) + " ";
            md += "\n";
          }
          md += "\n";
        } else if (kind == 4) {
          md += "```\n";
          for (int i = 0; i < 6; ++i)
            md +=
                "set " + std::string(kWords[w(rng)]) + " = " + std::to_string(rng() % 1000) + "\n";
          md += "```\n\n";
        } else {
          for (int s = 0; s < 5; ++s) {
            for (int i = len(rng); i > 0; --i) md += std::string(kWords[w(rng)]) + " ";
            md.back() = '.';
            md += " ";
          }
          md += "\n\n";
        }
      }
    }
  }
  return md;
}

double Seconds(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int RunIngestBench(Context& ctx, const IngestBenchFlags& f) {
  std::string dir = f.dir;
  bool remove_dir = false;
  if (dir.empty()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "engram-ingest-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      return ctx.Fail(Status::IOError("cannot make a temporary directory"));
    dir = tmpl;
    remove_dir = true;
  }
  std::filesystem::create_directories(dir);
  std::mt19937 rng(39);
  const size_t doc_bytes = static_cast<size_t>(f.doc_kb) * 1024;
  std::vector<std::string> docs;
  size_t total = 0;
  while (total < static_cast<size_t>(f.mb) << 20) {
    docs.push_back(MakeManual(rng, doc_bytes, static_cast<int>(docs.size())));
    total += docs.back().size();
  }
  auto embedder = ctx.MakeEmbedder();
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  json runs = json::array();
  const double mb = static_cast<double>(total) / (1 << 20);
  for (int round = 0; round < f.rounds; ++round) {
    const std::string path = dir + "/ingest-" + std::to_string(round) + ".db";
    std::filesystem::remove(path);
    EngineOptions o;
    o.path = path;
    o.embedder = *embedder;
    auto engine = Engine::Open(o);
    if (!engine.ok()) return ctx.Fail(engine.status());
    // The parts alone: reading and chunking, then embedding the chunks.
    size_t chunks = 0;
    double chunk_s = 0, embed_s = 0;
    for (const std::string& d : docs) {
      const auto t0 = SteadyClock::now();
      DocumentProblem problem;
      auto read = ReadDocumentContent(DocumentFormat::kMarkdown, d, ReadLimits{}, &problem);
      if (!read.ok()) return ctx.Fail(read.status());
      auto cs = ChunkDocument(*read, ChunkingOptions{});
      const auto t1 = SteadyClock::now();
      std::vector<std::string> texts;
      for (KnowledgeChunk& c : cs) texts.push_back(std::move(c.text));
      for (size_t at = 0; at < texts.size(); at += 256) {
        std::vector<std::string> batch(
            texts.begin() + static_cast<long>(at),
            texts.begin() + static_cast<long>(std::min(texts.size(), at + 256)));
        auto v = (*embedder)->Embed(batch);
        if (!v.ok()) return ctx.Fail(v.status());
      }
      const auto t2 = SteadyClock::now();
      chunks += cs.size();
      chunk_s += Seconds(t0, t1);
      embed_s += Seconds(t1, t2);
    }
    // The whole ingest, as the API does it: read, chunk, embed, store (one commit a document).
    const auto start = SteadyClock::now();
    for (size_t i = 0; i < docs.size(); ++i) {
      NewDocument d;
      d.doc_id = "manual-" + std::to_string(i);
      d.format = DocumentFormat::kMarkdown;
      d.content = docs[i];
      auto r = (*engine)->IngestDocument(KnowledgeScope{"bench", ""}, d);
      if (!r.ok()) return ctx.Fail(r.status());
    }
    const double ingest_s = Seconds(start, SteadyClock::now());
    json run{{"round", round + 1},
             {"documents", docs.size()},
             {"mb", mb},
             {"chunks", chunks},
             {"chunk_s", chunk_s},
             {"embed_s", embed_s},
             {"ingest_s", ingest_s},
             {"chunk_mb_per_s", mb / chunk_s},
             {"embed_mb_per_s", mb / embed_s},
             {"ingest_mb_per_s", mb / ingest_s}};
    runs.push_back(run);
    if (!ctx.json) {
      std::cout << std::fixed << std::setprecision(2) << "round " << round + 1 << ": " << mb
                << " MB, " << docs.size() << " documents, " << chunks << " chunks; chunking "
                << mb / chunk_s << " MB/s, embedding " << mb / embed_s << " MB/s, ingest "
                << mb / ingest_s << " MB/s (" << ingest_s << " s)\n";
    }
  }
  if (remove_dir) std::filesystem::remove_all(dir);
  std::vector<double> rates;
  for (const json& r : runs) rates.push_back(r["ingest_mb_per_s"].get<double>());
  std::sort(rates.begin(), rates.end());
  const double median = rates[rates.size() / 2];
  if (ctx.json) {
    std::cout << json{{"bench", "ingest"},
                      {"embedder", (*embedder)->model()},
                      {"cores", std::thread::hardware_concurrency()},
                      {"runs", runs},
                      {"median_ingest_mb_per_s", median}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "median ingest: " << median << " MB/s (one thread)\n";
  }
  return kExitOk;
}

}  // namespace

void AddKnowledgeCommands(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<IngestFlags>();
  auto* cmd = app.add_subcommand(
      "ingest",
      "Knowledge documents (text, Markdown, HTML, PDF) shared by the --tenant, or by its "
      "--agent: ingest files (a document id again replaces it), list, show, delete");
  cmd->add_option("files", f->files, "Files to ingest (.txt .md .html .pdf)");
  cmd->add_option("--doc-id", f->doc_id, "The document's id (default: the file name's stem)");
  cmd->add_option("--title", f->title, "Its title (default: its first heading)");
  cmd->add_option("--format", f->format, "text, markdown, html or pdf (default: by extension)");
  cmd->add_option("--chunk-tokens", f->chunk_tokens, "Chunk size in tokens")
      ->check(CLI::Range(32, 4096))
      ->capture_default_str();
  cmd->add_option("--overlap-tokens", f->overlap_tokens, "Tokens shared by consecutive chunks")
      ->check(CLI::Range(0, 2048))
      ->capture_default_str();
  cmd->add_flag("--list", f->list, "List the documents with their chunk counts");
  cmd->add_option("--show", f->show, "Show a document's chunks with their citations");
  cmd->add_option("--delete", f->remove, "Hard delete a document, its chunks and vectors");
  cmd->add_flag("--verify", f->verify,
                "With --delete: scan the database files for what was deleted (SQLite)");
  cmd->callback([&ctx, f] { ctx.action = [&ctx, f] { return RunIngest(ctx, *f); }; });
}

void AddIngestBenchCommand(CLI::App* bench, Context& ctx) {
  auto f = std::make_shared<IngestBenchFlags>();
  auto* cmd = bench->add_subcommand(
      "ingest",
      "The knowledge tier's ingest rate: generated Markdown read, chunked, embedded with the "
      "--embedder and stored, one thread (builds its own databases)");
  cmd->add_option("--mb", f->mb, "Megabytes of Markdown per round")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--doc-kb", f->doc_kb, "Size of each document")
      ->check(CLI::Range(1, 32768))
      ->capture_default_str();
  cmd->add_option("--rounds", f->rounds, "Rounds (each on a fresh database)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--dir", f->dir, "Directory for the databases (default: a temporary one)");
  cmd->callback([&ctx, f] { ctx.action = [&ctx, f] { return RunIngestBench(ctx, *f); }; });
}

}  // namespace engram::cli
