#include "server/console_assets.h"

#include <fstream>
#include <sstream>

namespace engram::server {

namespace {

constexpr std::string_view kPrefix = "/console/";

std::string_view ContentType(std::string_view name) {
  const size_t dot = name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json") return "application/json";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "ico") return "image/x-icon";
  return "application/octet-stream";
}

// A file name the console may have: no folder, no hidden file, nothing to climb with.
bool PlainName(std::string_view name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool ConsoleAssets::IsConsolePath(std::string_view path) {
  return path == "/" || (path.starts_with(kPrefix) && PlainName(path.substr(kPrefix.size())));
}

std::optional<std::string> ConsoleAssets::Read(std::string_view name) const {
  if (dir_.empty()) {
    for (size_t i = 0; i < kConsoleFiles_count; ++i) {
      if (kConsoleFiles[i].name == name) return std::string(kConsoleFiles[i].body);
    }
    return std::nullopt;
  }
  std::ifstream in(dir_ + "/" + std::string(name), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream body;
  body << in.rdbuf();
  return body.str();
}

std::optional<Reply> ConsoleAssets::Serve(std::string_view path) const {
  if (!IsConsolePath(path)) return std::nullopt;
  const std::string_view name = path == "/" ? "index.html" : path.substr(kPrefix.size());
  auto body = Read(name);
  if (!body) return std::nullopt;
  Reply r;
  r.body = std::move(*body);
  r.content_type = std::string(ContentType(name));
  // The page runs only its own scripts and styles and talks only to this server: a memory
  // text that slipped through escaping still could not run or send anything elsewhere.
  r.headers = {{"Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
               {"X-Content-Type-Options", "nosniff"},
               {"Referrer-Policy", "no-referrer"},
               {"Cache-Control", "no-cache"}};
  return r;
}

}  // namespace engram::server
