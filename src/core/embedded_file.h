// A file compiled into the binary (cmake/embed_files.cmake writes the tables): the web
// console's files, the lexicons under data/.
#pragma once

#include <string_view>

namespace engram {

struct EmbeddedFile {
  std::string_view name;  // relative to the folder it was embedded from, e.g. "en/topics.tsv"
  std::string_view body;
};

}  // namespace engram
