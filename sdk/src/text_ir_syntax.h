// Lexical rules the text-IR printer and parser share (internal to libge_sdk).
#pragma once
#include <charconv>
#include <string>

namespace ge::text_ir {

/// Characters of an unquoted value or graph name. ONNX names often contain '.', ':', '/', '-'
/// ("onnx::Conv_12", "layer1.0/conv"); anything else is printed quoted.
inline bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '-' || c == '+' || c == '$' || c == '\'';
}

/// "..." with \" \\ \n \t \r and \xHH for other control characters, so a string never spans lines.
inline std::string quote(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          o += "\\x";
          o += kHex[(c >> 4) & 0xf];
          o += kHex[c & 0xf];
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

/// A name as printed: bare when every character is a name character and it does not end in ':'
/// (the type separator), quoted otherwise (empty names, spaces, commas, ...).
inline std::string name(const std::string& s) {
  bool plain = !s.empty() && s.back() != ':';
  for (char c : s) plain = plain && is_name_char(c);
  return plain ? s : quote(s);
}

/// A node name after "# " as printed: the rest of the line as it is, unless a line cannot hold it
/// as it is (a control character: '\r' or '\n' would end the line, others would not survive
/// editors) or it starts with '"' or a space; then quoted like a string.
inline std::string node_name(const std::string& s) {
  bool raw = !s.empty() && s.front() != '"' && s.front() != ' ';
  for (char c : s) raw = raw && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  return raw ? s : quote(s);
}

/// Shortest text that parses back to exactly `x` (std::to_chars), e.g. 1e-05, 0.1, 100, inf.
template <class F>
std::string shortest(F x) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace ge::text_ir
