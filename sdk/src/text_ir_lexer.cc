// Line cursor of the text-IR parser (see text_ir_lexer.h).
#include "text_ir_lexer.h"

#include <algorithm>

#include "ge/sdk/error.h"
#include "text_ir_syntax.h"

namespace ge::text_ir {

Lexer::Lexer(const std::string& text, const std::string& origin) : origin_(origin) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines_.push_back(std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

std::string Lexer::where(Pos p) const {
  return origin_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": ";
}
Pos Lexer::here() {
  ws();
  return pos();
}
void Lexer::fail(const std::string& msg) const { throw InvalidGraphError(where(pos()) + msg); }
void Lexer::fail_at(Pos p, const std::string& msg) const { throw InvalidGraphError(where(p) + msg); }
void Lexer::seek_end() {
  line_ = static_cast<int>(lines_.size());
  s_ = lines_.back();
  i_ = s_.size();
}

bool Lexer::next_line() {
  while (line_ < static_cast<int>(lines_.size())) {
    s_ = lines_[static_cast<size_t>(line_++)];
    i_ = 0;
    ws();
    if (i_ < s_.size() && s_[i_] != '#') return true;
  }
  return false;
}

void Lexer::ws() {
  while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
}

bool Lexer::at_end() {
  ws();
  return i_ >= s_.size();
}

bool Lexer::eat(char c) {
  ws();
  if (i_ < s_.size() && s_[i_] == c) {
    ++i_;
    return true;
  }
  return false;
}

std::string Lexer::got() {
  if (at_end()) return "end of line";
  size_t j = i_;
  while (j < s_.size() && is_name_char(s_[j])) ++j;
  return "'" + std::string(s_.substr(i_, std::max(j, i_ + 1) - i_)) + "'";
}

void Lexer::expect(char c, const std::string& what) {
  if (!eat(c)) fail("expected " + what + ", got " + got());
}

void Lexer::expect_end() {
  if (!at_end()) fail("expected end of line, got " + got());
}

std::string Lexer::word(const std::string& what) {
  std::string_view w = run_of(is_word_char);
  if (w.empty()) fail("expected " + what + ", got " + got());
  return std::string(w);
}

int64_t Lexer::integer(const std::string& what) {
  Pos p = here();
  std::string_view t = run_of(is_number_char);
  int64_t v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
    i_ = static_cast<size_t>(p.col - 1);
    fail("expected " + what + ", got " + got());
  }
  return v;
}

std::string Lexer::quoted() {
  ws();
  if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string, got " + got());
  Pos start = pos();
  std::string out;
  for (++i_; i_ < s_.size(); ++i_) {
    char c = s_[i_];
    if (c == '"') {
      ++i_;
      return out;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i_ >= s_.size()) break;
    switch (s_[i_]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'x': {
        unsigned v = 0;
        auto r = std::from_chars(s_.data() + i_ + 1, s_.data() + std::min(i_ + 3, s_.size()), v, 16);
        if (r.ptr != s_.data() + i_ + 3) fail("expected two hex digits after '\\x'");
        out += static_cast<char>(v);
        i_ += 2;
        break;
      }
      default: fail(std::string("unknown escape '\\") + s_[i_] + "' in string");
    }
  }
  fail_at(start, "unterminated string");
}

std::string Lexer::name(const std::string& what) {
  ws();
  if (i_ < s_.size() && s_[i_] == '"') return quoted();
  std::string_view n = run_of(is_name_char);
  while (!n.empty() && n.back() == ':') {
    n.remove_suffix(1);
    --i_;
  }
  if (n.empty()) fail("expected " + what + ", got " + got());
  return std::string(n);
}

}  // namespace ge::text_ir
