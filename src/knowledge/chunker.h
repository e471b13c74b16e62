// Cuts a read document (knowledge/document_reader.h) into chunks along its structure.
//
// Every heading starts a new section: no chunk spans two, and each chunk carries the chain of
// headings above it (its title path). Within a section, a chunk takes whole blocks (paragraphs,
// list items, code blocks, table rows) while they fit in options.chunk_tokens; a block too long
// for one chunk is cut at sentences (code: at lines), and a sentence too long at words. When a
// section goes on in a next chunk, that chunk starts with the last sentences of the one before,
// up to options.overlap_tokens (never the whole of it, so chunks always advance).
//
// A chunk's text is a contiguous slice of the document's text, and its character range (code
// points, end exclusive) is where that slice lies.
#pragma once

#include <vector>

#include "engram/knowledge.h"
#include "knowledge/document_reader.h"

namespace engram {

// Options are assumed valid (Engine validates: chunk_tokens 32..4096, overlap ≤ half of it).
std::vector<KnowledgeChunk> ChunkDocument(const ReadDocument& doc, const ChunkingOptions& options);

}  // namespace engram
