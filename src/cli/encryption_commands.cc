// `engram keygen` and `engram rekey`: encryption at rest (include/engram/encryption.h).
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct RekeyFlags {
  std::string new_key_file;
  bool decrypt = false;
};

// Writes a new key to `path` (0600, never over an existing file).
Status WriteKeyFile(const std::string& path, const EncryptionKey& key) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return errno == EEXIST ? Status::Conflict(path + " exists; a key file is never overwritten")
                           : Status::IOError("cannot create " + path);
  }
  const std::string text = key.Hex() + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  return ok ? Status::Ok() : Status::IOError("cannot write " + path);
}

}  // namespace

void AddEncryptionCommands(CLI::App& app, Context& ctx) {
  auto out = std::make_shared<std::string>();
  CLI::App* keygen = app.add_subcommand(
      "keygen",
      "Make an encryption key (32 random bytes as 64 hex digits) in a new file, mode 0600");
  keygen->add_option("file", *out, "The key file to create")->required();
  keygen->callback([&ctx, out] {
    ctx.action = [&ctx, out] {
      const EncryptionKey key = EncryptionKey::Generate();
      Status st = WriteKeyFile(*out, key);
      if (!st.ok()) return ctx.Fail(st);
      if (ctx.json) {
        std::cout << json{{"file", *out}, {"key_id", key.Id()}}.dump() << "\n";
      } else {
        std::cout << "wrote key " << key.Id() << " to " << *out
                  << " (keep a copy: without it the database cannot be read)\n";
      }
      return kExitOk;
    };
  });

  auto flags = std::make_shared<RekeyFlags>();
  CLI::App* rekey = app.add_subcommand(
      "rekey",
      "Encrypt the database under a new key (--new-key-file), or decrypt it (--decrypt); the "
      "current key is --key-file / ENGRAM_KEY_FILE / ENGRAM_KEY, none for a plain database. "
      "Stop the server first");
  auto* target = rekey->add_option("--new-key-file", flags->new_key_file,
                                   "The key to seal the database with (`engram keygen`)");
  rekey->add_flag("--decrypt", flags->decrypt, "Leave the database plain")->excludes(target);
  rekey->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      if (flags->new_key_file.empty() && !flags->decrypt) {
        return ctx.FailUsage("give --new-key-file FILE or --decrypt");
      }
      if (!ctx.RequireDatabase() || !ctx.LoadKey()) return ctx.last_exit;
      std::shared_ptr<const EncryptionKey> next;
      if (!flags->decrypt) {
        auto loaded = EncryptionKey::FromFile(flags->new_key_file);
        if (!loaded.ok()) return ctx.Fail(loaded.status().WithContext("--new-key-file"));
        next = std::make_shared<const EncryptionKey>(*loaded);
      }
      if (!ctx.json) {
        std::cerr << "rewriting " << ctx.db_path
                  << (next ? " sealed with key " + next->Id() : std::string(" plain")) << "...\n";
      }
      auto report = Engine::Rekey(ctx.db_path, ctx.key, next);
      if (!report.ok()) return ctx.Fail(report.status());
      if (ctx.json) {
        std::cout << json{{"from_key_id", report->from_key_id},
                          {"to_key_id", report->to_key_id},
                          {"bytes_before", report->bytes_before},
                          {"bytes_after", report->bytes_after},
                          {"snapshots_removed", report->snapshots_removed}}
                         .dump()
                  << "\n";
      } else {
        auto name = [](const std::string& id) { return id.empty() ? "plain" : "key " + id; };
        std::cout << ctx.db_path << ": " << name(report->from_key_id) << " -> "
                  << name(report->to_key_id) << " (" << report->bytes_before << " -> "
                  << report->bytes_after << " bytes; " << report->snapshots_removed
                  << " index snapshots removed, rebuilt when next needed)\n";
      }
      return kExitOk;
    };
  });
}

}  // namespace engram::cli
