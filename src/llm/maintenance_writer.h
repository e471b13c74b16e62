// What maintenance asks an LLM to write, and the strict reading of its replies: a summary of
// faded conversation turns (prompts/summarize-v1.txt) and a summary of a user's profile
// (prompts/profile-v1.txt). Here, so that the engine calls a function and never sees JSON.
#pragma once

#include <string>
#include <vector>

#include "engram/llm.h"
#include "engram/memory.h"
#include "engram/profile.h"
#include "engram/status.h"

namespace engram::llm {

// The summary text of `turns` (oldest first). Unavailable when the provider failed or the reply
// is unusable (cut off, not the JSON contract, empty, over max_bytes, not UTF-8): the caller
// writes nothing.
Result<std::string> WriteTurnSummary(LlmClient& llm, const std::vector<const MemoryItem*>& turns,
                                     size_t max_bytes);

// A summary of `profile` (its lines, each with its memory's id), with `fingerprint`, `model`,
// `prompt_version` and `generated_at` = now filled. Unavailable as above, and when it cites no
// memory or one that is not a line of the profile.
Result<ProfileSummary> WriteProfileSummary(LlmClient& llm, const Profile& profile, size_t max_bytes,
                                           TimestampMs now);

}  // namespace engram::llm
