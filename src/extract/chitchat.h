// Chit-chat: a turn that says nothing worth keeping (greetings, thanks, acknowledgements,
// laughter, fillers, farewells, small reactions), in Chinese and English. The write path keeps
// every other user turn (product.md, "Write path": "nothing said is lost; chit-chat aside").
#pragma once

#include <string>
#include <string_view>

namespace engram {

// What kind of chit-chat a text is, for the reason the write path reports; empty when the text
// says something more. A text is chit-chat when, after punctuation, emoji and whitespace are
// set aside, it is made only of the phrases of these kinds ("thanks so much!", "哈哈哈好的",
// "ok cool, bye"); a question, a name, a number or any other word makes it not chit-chat.
std::string_view ChitChatKind(std::string_view text);

inline bool IsChitChat(std::string_view text) { return !ChitChatKind(text).empty(); }

}  // namespace engram
