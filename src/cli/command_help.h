// What `engram help` says about each command: the one line of the command list, and an example
// invocation, shown at the end of the command's own help and after a usage error of it ("turns
// is required" → "e.g. engram recall ..."). One row per command, the list in this order.
#pragma once

#include <string_view>

namespace engram::cli {

struct CommandHelp {
  std::string_view path;     // the command as typed: "add", "bench locomo"
  std::string_view listing;  // its entry in `engram help` ("add TEXT"); empty: not listed there
  std::string_view summary;  // one line for `engram help`
  std::string_view example;  // a whole command line that works
};

inline constexpr CommandHelp kCommandHelp[] = {
    {"add", "add TEXT",
     "remember what the user said: the turn kept, facts extracted and reconciled",
     R"(engram add "I live in Beijing and I'm allergic to peanuts" -u alice)"},
    {"extract", "extract TEXT", "what `add` would extract from a message, storing nothing",
     R"(engram extract "I quit coffee last week")"},
    {"list", "list", "a user's memories, newest first (--type, --tag, --status all, ...)",
     "engram list -u alice --type fact"},
    {"get", "get ID, history ID", "one memory; every recorded change of it",
     "engram get <id> -u alice"},
    {"history", "", "every recorded change of a memory", "engram history <id> -u alice"},
    {"update", "update ID", "change a memory; its history keeps the old value",
     R"(engram update <id> -u alice --content "I live in Shanghai" --reason moved)"},
    {"delete", "delete ID", "soft delete: the memory leaves search, kept in history",
     "engram delete <id> -u alice --reason \"asked to forget\""},
    {"purge", "purge ID", "hard delete of a memory (or --all-memories of a user), verifiable",
     "engram purge <id> -u alice"},
    {"search", "search QUERY", "hybrid keyword + vector search of a user's memories",
     R"(engram search "where do I live" -u alice --explain)"},
    {"context", "context QUERY", "the memories for a question, packed for an LLM prompt",
     R"(engram context "plan a dinner for me" -u alice --budget 300)"},
    {"ingest", "ingest FILE...",
     "shared documents (md, html, pdf) of the tenant or --agent, cited in context",
     "engram ingest docs/returns-policy.md --agent support"},
    {"recall", "recall TURN...", "what is worth raising unasked, given the latest turns",
     R"(engram recall "I'm going hiking tomorrow" -u alice)"},
    {"profile", "profile", "a user's lasting facts and preferences, by kind",
     "engram profile -u alice"},
    // One line for three commands: `engram --help` stays under 40 lines (cli_test).
    {"sessions", "sessions, entities",
     "a user's sessions; the people, places, ... they name (graph NAME: relations)",
     "engram sessions -u alice"},
    {"entities", "", "", "engram entities -u alice --kind person"},
    {"graph", "", "", "engram graph 老王 -u alice --hops 2"},
    {"scopes", "scopes", "the users of the tenant and how many memories each has", "engram scopes"},
    {"export", "export", "everything about a user (or --all) as JSON Lines",
     "engram export -u alice --out alice.jsonl"},
    {"import", "import FILE", "read an export back (into this or another database)",
     "engram --db other.db import alice.jsonl"},
    {"migrate", "migrate --from --to", "copy a database into PostgreSQL: resumable, verified",
     "engram migrate --from sqlite:engram-data/engram.db --to postgres://engram@db/engram"},
    {"maintain", "maintain", "the lifecycle: expire, archive, merge, summarize, purge (--dry-run)",
     "engram maintain --dry-run"},
    {"reembed", "reembed", "vectors of the current --embedder for memories lacking one",
     "engram --embedder openai --embed-model text-embedding-3-small reembed"},
    {"serve", "serve", "the HTTP API server, with the web console at /",
     "engram --db ./engram-data/engram.db serve --port 8420"},
    {"mcp", "mcp", "a Model Context Protocol server on stdin/stdout (Claude, Cursor, ...)",
     "engram --db ~/.engram/engram.db mcp --user me"},
    {"keys", "keys, audit", "the server's API keys (create, list, revoke); its audit log",
     "engram --tenant acme keys create --name backend"},
    {"keys create", "", "", "engram --tenant acme keys create --name backend"},
    {"keys list", "", "", "engram keys list --for acme"},
    {"keys revoke", "", "", "engram keys revoke <key id>"},
    {"audit", "", "the server's audit log: who touched whose data",
     "engram audit --for acme --limit 20"},
    {"keygen", "keygen FILE, rekey",
     "encryption at rest: make a key; encrypt or decrypt the database", "engram keygen engram.key"},
    {"rekey", "", "", "engram rekey --new-key-file engram.key"},
    {"bench", "bench NAME", "benchmarks: writepath, recall, maintenance, encryption, locomo, ...",
     "engram bench writepath"},
    {"bench writepath", "", "", "engram bench writepath --lang en --failures"},
    {"bench recall", "", "", "engram bench recall --lang zh"},
    {"bench maintenance", "", "", "engram bench maintenance --users 100 --items 1000"},
    {"bench encryption", "", "", "engram bench encryption --items 10000"},
    {"bench ingest", "", "", "engram --json bench ingest --mb 16 --rounds 3"},
    {"bench locomo", "", "", "engram bench locomo --data locomo10.json"},
    {"bench madial", "", "", "engram bench madial --data MADial-Bench --lang zh"},
    {"bench extraction", "", "", "engram bench extraction --data memory_extraction --lang all"},
    {"remember", "", "", R"(engram remember "I live in Beijing" -u alice)"},
    {"help", "help [flags|COMMAND]",
     "this list; every global option; a command's options (all: every command's)",
     "engram help flags"},
};

}  // namespace engram::cli
