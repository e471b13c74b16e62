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

// A short reply about the assistant's last answer that also holds words no phrase lists ("thx
// that worked!!", "can u redo that but more casual", "换个说法呗 太官方了"): the kind of the
// chit-chat phrase it holds, or empty. Read structurally, not by list: at most eight words (or
// sixteen Chinese characters), at least one phrase of a kind other than filler, at most four
// other words (or six characters), and nothing that makes it about someone: no first person
// as subject or owner ("I", "my", "we", "我", "咱"; "got me" is fine), no digit, no name
// (a capitalized word past the first), no relation ("the kids", "老公"). The write path asks
// it only of a turn that gave no statement, so "lol allergic to cats too" is kept.
std::string_view ReplyChitChatKind(std::string_view text);

// "whats the difference between affect and effect again", "can u translate this to french",
// "1公斤等于多少磅来着", "帮我把上面那段翻成英文": every sentence a question or a request to the
// assistant, and nothing in it about the user (no first person but the request's own "me"/"我",
// no relation, no name, no health or safety word, no reminder): "question" or "request", else
// empty. The write path asks it only of a turn that gave no statement.
std::string_view AskOnlyKind(std::string_view text);

}  // namespace engram
