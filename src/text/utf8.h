// UTF-8 validation. Engram stores only well-formed UTF-8 (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
#pragma once

#include <cstddef>
#include <string_view>

namespace engram {

// True if `s` is well-formed UTF-8. On false, *bad_offset (if given) is the byte offset of the
// first byte of the first ill-formed sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_offset = nullptr);

}  // namespace engram
