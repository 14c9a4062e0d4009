// Parser of the text IR (format: ge/sdk/text_ir.h), the inverse of print_graph.
//
// The format is line oriented, so the parser is too: one hand-written recursive-descent reader
// per line kind (header, input, const, output, node). Every error names origin:line:column and
// what was expected there, because these texts are written by hand in tests.
#include <charconv>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "text_ir_lexer.h"
#include "text_ir_syntax.h"

namespace ge {

namespace {

using text_ir::is_number_char;
using text_ir::is_word_char;
using text_ir::parse_full;
using text_ir::Pos;

struct Type {
  DataType dtype = DataType::Undefined;
  Shape shape;
  Format format = Format::ND;
  /// Set when a dim is symbolic (dim_expr.h); `shape` then holds -1 there.
  std::vector<DimExpr> sym;
};

bool looks_float(std::string_view t) { return t.find_first_of(".eEinI") != std::string_view::npos; }

// Rounds a float to bfloat16 (nearest even), keeping NaN a NaN.
uint16_t float_to_bf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1)) >> 16);
}

class Parser : text_ir::Lexer {
 public:
  using Lexer::Lexer;

  std::unique_ptr<Graph> run() {
    if (!next_line()) fail("expected 'graph NAME {', got end of text");
    header();
    bool closed = false;
    while (next_line()) {
      if (eat('}')) {
        expect_end();
        closed = true;
        break;
      }
      body_line();
    }
    if (!closed) {
      seek_end();
      fail("expected '}' closing the graph, got end of text");
    }
    if (next_line()) fail("expected end of text after the graph's '}', got " + got());
    if (!pending_.empty())
      fail_at(pending_.front().second, "value '%" + pending_.front().first + "' is used but never defined");
    return std::move(g_);
  }

 private:
  std::unique_ptr<Graph> g_;
  std::map<std::string, int> def_line_;               // value → line that defines it
  std::vector<std::pair<std::string, Pos>> pending_;  // used, not (yet) defined; by first use
  std::map<std::string, int> node_line_;              // node name → line

  std::string value_name() {
    expect('%', "a value ('%name')");
    return name("a value name after '%'");
  }

  // ---- values
  Value* use(const std::string& n, Pos p) {
    if (Value* v = g_->find_value(n)) return v;
    pending_.emplace_back(n, p);
    return g_->add_value(n);
  }
  Value* define(const std::string& n, Pos p) {
    auto it = def_line_.find(n);
    if (it != def_line_.end())
      fail_at(p, "value '%" + n + "' is defined twice (first on line " + std::to_string(it->second) + ")");
    def_line_[n] = line_;
    std::erase_if(pending_, [&](auto& e) { return e.first == n; });
    Value* v = g_->find_value(n);
    return v ? v : g_->add_value(n);
  }
  Type type() {
    Type t;
    Pos p = here();
    std::string dt = std::string(run_of([](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }));
    if (dt.empty()) fail("expected a dtype (f32, i64, ...), got " + got());
    t.dtype = dtype_from_name(dt);
    if (t.dtype == DataType::Undefined && dt != "undef") fail_at(p, "unknown dtype '" + dt + "'");
    expect('[', "'[' after the dtype");
    if (!eat(']')) {
      std::vector<DimExpr> dims;
      bool symbolic = false;
      do {
        // A dim is an integer or a symbolic expression (dim_expr.h): the text up to the next
        // ',' or ']' outside parentheses.
        ws();
        Pos dp = pos();
        size_t j = i_;
        int depth = 0;
        while (j < s_.size() && (depth > 0 || (s_[j] != ',' && s_[j] != ']'))) {
          if (s_[j] == '(') ++depth;
          else if (s_[j] == ')' && --depth < 0) break;
          ++j;
        }
        std::string_view text = s_.substr(i_, j - i_);
        while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
        if (text.empty()) fail("expected a dimension, got " + got());
        DimExpr d;
        try {
          d = DimExpr::parse(text);
        } catch (const Error& e) {
          fail_at(dp, e.what());
        }
        if (d.is_constant() && d.constant() < 0) fail_at(dp, "dimension " + std::to_string(d.constant()) + " is negative");
        if (!d.is_constant() && (-d).is_positive()) fail_at(dp, "dimension " + d.str() + " is negative for every value of its symbols");
        symbolic |= !d.is_constant();
        t.shape.dims().push_back(d.is_constant() ? d.constant() : -1);
        dims.push_back(std::move(d));
        i_ = j;
      } while (eat(','));
      expect(']', "',' or ']' in the shape");
      if (symbolic) t.sym = std::move(dims);
    }
    if (i_ < s_.size() && s_[i_] == '@') {
      ++i_;
      Pos fp = pos();
      std::string f = word("a format after '@'");
      try {
        t.format = format_from_name(f);
      } catch (const Error&) {
        fail_at(fp, "unknown format '" + f + "'");
      }
    }
    return t;
  }
  Value* typed_definition() {
    Pos p = here();
    std::string n = value_name();
    expect(':', "':' and a type after '%" + n + "'");
    Value* v = define(n, p);
    Type t = type();
    v->dtype = t.dtype;
    v->shape = t.shape;
    v->format = t.format;
    if (!t.sym.empty()) v->set_symbolic_dims(t.sym);
    return v;
  }

  // Zero-filled data (a `const` without elements, a `tensor<...>` attribute) has no bytes of the
  // text behind it; text_ir.h bounds it per text so that a mistyped shape cannot ask for gigabytes.
  static constexpr uint64_t kMaxZeroFilledBytes = uint64_t{1} << 30;
  uint64_t zero_filled_ = 0;

  // Bytes of a tensor of type t (padding of blocked formats included), or an error at p.
  uint64_t bytes_of(const Type& t, Pos p, const std::string& what) {
    try {
      return static_cast<uint64_t>(format_storage_numel(t.shape.dims(), t.format)) * dtype_size(t.dtype);
    } catch (const Error& e) {
      fail_at(p, what + ": " + e.what());
    }
  }
  Tensor zero_filled(const Type& t, Pos p, const std::string& what) {
    uint64_t bytes = bytes_of(t, p, what);
    if (bytes > kMaxZeroFilledBytes - zero_filled_)
      fail_at(p, what + " (" + std::string(dtype_name(t.dtype)) + t.shape.str() + ") would be zero-filled with " +
                     std::to_string(bytes) + " bytes; a text zero-fills at most " + std::to_string(kMaxZeroFilledBytes) +
                     " bytes in all (" + std::to_string(zero_filled_) + " before this line)");
    zero_filled_ += bytes;
    return Tensor::allocate(t.dtype, t.shape, t.format);
  }

  // Parses `[e0,e1,...]` into a tensor of type t, each element in t's dtype. The elements are read
  // before the tensor is allocated: its size is then bounded by the text's.
  Tensor elements(const Type& t, const std::string& what) {
    Pos start = here();
    int64_t numel = 0;
    try {
      numel = t.shape.numel();
    } catch (const Error& e) {
      fail_at(start, what + ": " + e.what());
    }
    expect('[', "'[' starting the constant's elements");
    std::vector<std::pair<std::string_view, Pos>> toks;
    if (!eat(']')) {
      do {
        Pos p = here();
        toks.emplace_back(run_of(is_number_char), p);
      } while (eat(','));
      expect(']', "',' or ']' in the elements");
    }
    const auto n = static_cast<int64_t>(toks.size());
    if (n != numel)
      fail_at(start, "expected " + std::to_string(numel) + " elements for " + std::string(dtype_name(t.dtype)) +
           t.shape.str() + ", got " + std::to_string(n));
    bytes_of(t, start, what);  // a blocked format's padding must stay in range too
    Tensor out = Tensor::allocate(t.dtype, t.shape, t.format);
    for (int64_t k = 0; k < n; ++k)
      if (!store(out, k, toks[k].first))
        fail_at(toks[k].second, "expected a " + std::string(dtype_name(t.dtype)) + " element, got '" + std::string(toks[k].first) + "'");
    return out;
  }
  static bool store(Tensor& t, int64_t i, std::string_view tok) {
    float f;
    int64_t k;
    switch (t.dtype()) {
      case DataType::Float32: return parse_full(tok, t.data_as<float>()[i]);
      case DataType::Float64: return parse_full(tok, t.data_as<double>()[i]);
      case DataType::Float16: return parse_full(tok, f) && (t.data_as<uint16_t>()[i] = float_to_half(f), true);
      case DataType::BFloat16: return parse_full(tok, f) && (t.data_as<uint16_t>()[i] = float_to_bf16(f), true);
      case DataType::UInt64: return parse_full(tok, t.data_as<uint64_t>()[i]);
      case DataType::Int64: return parse_full(tok, t.data_as<int64_t>()[i]);
      case DataType::Int32: return parse_full(tok, t.data_as<int32_t>()[i]);
      case DataType::Int16: return parse_full(tok, t.data_as<int16_t>()[i]);
      case DataType::Int8: return parse_full(tok, t.data_as<int8_t>()[i]);
      case DataType::UInt32: return parse_full(tok, t.data_as<uint32_t>()[i]);
      case DataType::UInt16: return parse_full(tok, t.data_as<uint16_t>()[i]);
      case DataType::UInt8: return parse_full(tok, t.data_as<uint8_t>()[i]);
      case DataType::Bool: return parse_full(tok, k) && (k == 0 || k == 1) && (t.data_as<bool>()[i] = k != 0, true);
      default: return false;
    }
  }

  AttrValue attr_value() {
    ws();
    Pos p = here();
    if (i_ < s_.size() && s_[i_] == '"') return quoted();
    if (eat('[')) return attr_list();
    std::string_view tok = run_of(is_number_char);
    if (tok == "tensor" && eat('<')) {
      Type t = type();
      if (!t.sym.empty()) fail_at(p, "a tensor attribute's shape is static, got " + dims_str(t.sym));
      expect('>', "'>' closing the tensor type");
      return zero_filled(t, p, "tensor attribute");
    }
    std::optional<AttrValue> v = number(tok);
    if (!v) {
      i_ = static_cast<size_t>(p.col - 1);
      fail("expected an attribute value (3, 1.5, \"s\", [..], tensor<..>), got " + got());
    }
    return *v;
  }
  static std::optional<AttrValue> number(std::string_view tok) {
    if (looks_float(tok)) {
      float f;
      if (parse_full(tok, f)) return f;
    } else {
      int64_t k;
      if (parse_full(tok, k)) return k;
    }
    return std::nullopt;
  }
  AttrValue attr_list() {
    std::vector<std::string> strs;
    std::vector<std::string_view> nums;
    bool any_float = false;
    if (!eat(']')) {
      do {
        ws();
        if (i_ < s_.size() && s_[i_] == '"') {
          if (!nums.empty()) fail("expected a number (a list holds one kind), got a string");
          strs.push_back(quoted());
          continue;
        }
        if (!strs.empty()) fail("expected a string (a list holds one kind), got " + got());
        Pos p = here();
        std::string_view tok = run_of(is_number_char);
        if (!number(tok)) {
          i_ = static_cast<size_t>(p.col - 1);
          fail("expected a list element, got " + got());
        }
        any_float = any_float || looks_float(tok);
        nums.push_back(tok);
      } while (eat(','));
      expect(']', "',' or ']' in the list");
    }
    if (!strs.empty()) return strs;
    if (any_float) {
      std::vector<float> fs(nums.size());
      for (size_t k = 0; k < nums.size(); ++k) parse_full(nums[k], fs[k]);
      return fs;
    }
    std::vector<int64_t> is(nums.size());  // also the empty list: its kind is not in the text
    for (size_t k = 0; k < nums.size(); ++k) parse_full(nums[k], is[k]);
    return is;
  }

  // ---- lines
  void header() {
    Pos p = here();
    if (std::string_view(run_of(is_word_char)) != "graph") fail_at(p, "expected 'graph NAME {'");
    g_ = std::make_unique<Graph>(name("the graph's name"));
    Pos op = here();
    if (!at_end() && s_[i_] != '{') {
      if (word("'opset(' or '{'") != "opset") fail_at(op, "expected 'opset(' or '{'");
      expect('(', "'(' after 'opset'");
      if (!eat(')')) {
        do {
          std::string d = word("a domain (ai.onnx, ge, ...)");
          expect('=', "'=' after the domain");
          g_->opsets[d == "ai.onnx" ? "" : d] = integer("an opset version");
        } while (eat(','));
        expect(')', "',' or ')' in the opset list");
      }
    }
    expect('{', "'{' opening the graph");
    expect_end();
  }

  void body_line() {
    ws();
    char c = s_[i_];
    if (c == '%' || c == '_' || c == '=') return node_line();
    Pos p = here();
    std::string kw(run_of(is_word_char));
    if (kw == "input") {
      g_->mark_input(typed_definition());
    } else if (kw == "const") {
      Pos p = here();
      Value* v = typed_definition();
      if (v->symbolic_dims()) fail_at(p, "constant '%" + v->name() + "' has a symbolic shape " + dims_str(*v->symbolic_dims()) + "; a constant's shape is static");
      const Type t{.dtype = v->dtype, .shape = v->shape, .format = v->format, .sym = {}};
      const std::string what = "constant '%" + v->name() + "'";
      Tensor data;
      if (eat('=')) {
        if (v->dtype == DataType::String) fail("string constants have no element syntax");
        data = elements(t, what);
      } else {
        data = zero_filled(t, p, what);
      }
      v->data = std::make_shared<const Tensor>(std::move(data));
    } else if (kw == "output") {
      Pos vp = here();
      std::string n = value_name();
      g_->mark_output(use(n, vp));
    } else {
      i_ = static_cast<size_t>(p.col - 1);
      fail("expected 'input', 'const', 'output', a node line or '}', got " + got());
    }
    expect_end();
  }

  void node_line() {
    std::vector<Value*> outs, ins;
    ws();
    if (s_[i_] != '=') {
      do {
        if (eat('_')) outs.push_back(nullptr);
        else outs.push_back(typed_definition());
      } while (eat(','));
    }
    expect('=', "'=' after the node's outputs");
    std::string op = word("an op type");
    std::string domain;
    if (size_t dot = op.rfind('.'); dot != std::string::npos) {
      domain = op.substr(0, dot);
      op = op.substr(dot + 1);
    }
    expect('(', "'(' after the op type");
    if (!eat(')')) {
      do {
        Pos p = here();
        ins.push_back(eat('_') ? nullptr : use(value_name(), p));
      } while (eat(','));
      expect(')', "',' or ')' in the inputs");
    }
    Attributes attrs;
    if (eat('{') && !eat('}')) {
      do {
        Pos p = here();
        std::string key = word("an attribute name");
        if (attrs.has(key)) fail_at(p, "attribute '" + key + "' given twice");
        expect('=', "'=' after attribute '" + key + "'");
        attrs.set(key, attr_value());
      } while (eat(','));
      expect('}', "',' or '}' in the attributes");
    }
    std::string node_name;
    Pos np = pos();
    if (eat('#')) {
      if (i_ < s_.size() && s_[i_] == ' ') ++i_;  // the printer writes "# NAME"
      np = pos();
      if (i_ < s_.size() && s_[i_] == '"') {
        node_name = quoted();  // a name a line cannot hold as it is (text_ir::node_name)
      } else {
        node_name = std::string(s_.substr(i_));
        i_ = s_.size();
      }
      auto [it, fresh] = node_line_.emplace(node_name, line_);
      if (!fresh) fail_at(np, "node name '" + node_name + "' is used twice (first on line " + std::to_string(it->second) + ")");
    }
    expect_end();
    g_->add_node(op, node_name, std::move(ins), std::move(outs), std::move(attrs), domain);
  }
};

}  // namespace

std::unique_ptr<Graph> parse_graph(const std::string& text, const std::string& origin) {
  return Parser(text, origin).run();
}

}  // namespace ge
