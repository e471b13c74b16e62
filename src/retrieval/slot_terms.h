// Words a question about an attribute uses, indexed with the memories that fill it: a memory of
// slot "user/job" ("User is a dental hygienist") is found by "what's my job?", one of
// "user/location" by "where do I live?", in English and Chinese. Extracted facts name the value
// and rarely the attribute; questions name the attribute. Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace engram {

// The search text of a slot ("user/amount:rent" → "rent how much 房租 …", "kevin/location" →
// "kevin live lives home city …"); empty for an empty or unknown slot.
std::string SlotSearchText(std::string_view slot);

}  // namespace engram
