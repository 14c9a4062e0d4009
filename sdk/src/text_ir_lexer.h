// A cursor over the lines of a text-IR file: tokens of one line at a time, with errors that
// name origin:line:column (internal to libge_sdk; text_ir_parser.cc builds on it).
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace ge::text_ir {

struct Pos {
  int line = 0, col = 0;  ///< 1-based
};

/// Domains, op types, attribute names, dtypes, format names.
inline bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}
/// Characters of a number token: 3, -1, 1e+05, -inf, nan.
inline bool is_number_char(char c) { return is_word_char(c) || c == '+'; }

/// std::from_chars that must consume all of `tok`.
template <class T>
bool parse_full(std::string_view tok, T& v) {
  auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  return !tok.empty() && r.ec == std::errc() && r.ptr == tok.data() + tok.size();
}

class Lexer {
 public:
  Lexer(const std::string& text, const std::string& origin);

 protected:
  const std::string& origin_;
  std::vector<std::string> lines_;
  int line_ = 0;  ///< number of the current line
  std::string_view s_;  ///< the current line
  size_t i_ = 0;        ///< cursor in s_

  std::string where(Pos p) const;  ///< "origin:line:col: "
  Pos pos() const { return {line_, static_cast<int>(i_) + 1}; }
  Pos here();  ///< position of the next token
  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void fail_at(Pos p, const std::string& msg) const;
  /// Moves to the end of the text (for "got end of text" errors).
  void seek_end();

  /// Advances to the next line that is not blank or a `#` comment; false at end of text.
  bool next_line();
  void ws();
  bool at_end();
  bool eat(char c);
  /// The token at the cursor, for "got ..." in messages: 'Relu', '}', end of line.
  std::string got();
  void expect(char c, const std::string& what);
  void expect_end();
  template <class Pred>
  std::string_view run_of(Pred pred) {
    ws();
    size_t j = i_;
    while (j < s_.size() && pred(s_[j])) ++j;
    std::string_view t = s_.substr(i_, j - i_);
    i_ = j;
    return t;
  }
  std::string word(const std::string& what);
  int64_t integer(const std::string& what);
  /// A "..." string with the escapes text_ir::quote writes.
  std::string quoted();
  /// A name as text_ir::name prints it: bare (a trailing ':' is the type separator) or quoted.
  std::string name(const std::string& what);
};

}  // namespace ge::text_ir
