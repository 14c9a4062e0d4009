#include "ge/sdk/dim_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>

#include "ge/sdk/error.h"

namespace ge {

namespace {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Error("symbolic dimension: int64 overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("symbolic dimension: int64 overflow in " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}
int64_t floor_div_int(int64_t a, int64_t k) {
  int64_t q = a / k;
  if ((a % k != 0) && ((a < 0) != (k < 0))) --q;
  return q;
}
bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

std::string DimExpr::Atom::key() const { return div ? "(" + name + ")/" + std::to_string(div) : name; }

std::string DimExpr::monomial_key(const Monomial& m) {
  std::string k;
  for (const Atom& a : m) k += (k.empty() ? "" : "*") + a.key();
  return k;
}

// Bounds that keep every expression small: a product of sums multiplies out, so (a+b)*(a+b)*...
// would otherwise grow without limit (dims of real models have a handful of terms).
constexpr size_t kMaxTerms = 64;
constexpr size_t kMaxAtoms = 16;
// A remainder repeats its operand (e % k = e - k*(e/k)) and a floor division names its numerator,
// so a chain of them doubles the text at each step: a monomial's text is bounded too.
constexpr size_t kMaxMonomialText = 1024;

void DimExpr::add_term(const Monomial& m, int64_t coef) {
  if (coef == 0) return;
  // INT64_MIN has no positive counterpart to print and parse back.
  if (coef == std::numeric_limits<int64_t>::min()) throw Error("symbolic dimension: coefficient out of range");
  if (m.size() > kMaxAtoms) throw Error("symbolic dimension: a product of more than " + std::to_string(kMaxAtoms) + " factors");
  std::string k = monomial_key(m);
  if (k.size() > kMaxMonomialText)
    throw Error("symbolic dimension: a term over " + std::to_string(kMaxMonomialText) +
                " characters (nested floor divisions and remainders)");
  auto it = terms_.find(k);
  if (it == terms_.end()) {
    if (terms_.size() >= kMaxTerms) throw Error("symbolic dimension: more than " + std::to_string(kMaxTerms) + " terms");
    terms_.emplace(std::move(k), Term{m, coef});
    return;
  }
  it->second.coef = checked_add(it->second.coef, coef);
  if (it->second.coef == std::numeric_limits<int64_t>::min()) throw Error("symbolic dimension: coefficient out of range");
  if (it->second.coef == 0) terms_.erase(it);
}

DimExpr::DimExpr(int64_t c) { add_term({}, c); }

DimExpr DimExpr::symbol(std::string_view name) {
  if (!is_identifier(name)) throw Error("symbolic dimension '" + std::string(name) + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  DimExpr e;
  e.add_term({Atom{std::string(name), nullptr, 0}}, 1);
  return e;
}

int64_t DimExpr::constant() const {
  if (!is_constant()) throw Error("dimension '" + str() + "' is symbolic, not a constant");
  return terms_.empty() ? 0 : terms_.begin()->second.coef;
}

std::string DimExpr::as_symbol() const {
  if (terms_.size() != 1) return "";
  const Term& t = terms_.begin()->second;
  if (t.coef != 1 || t.atoms.size() != 1 || t.atoms[0].div) return "";
  return t.atoms[0].name;
}

void DimExpr::collect_symbols(std::set<std::string>& out) const {
  for (auto& [k, t] : terms_)
    for (const Atom& a : t.atoms) {
      if (a.div) a.num->collect_symbols(out);
      else out.insert(a.name);
    }
}

void DimExpr::collect_divisors(std::set<int64_t>& out) const {
  for (auto& [k, t] : terms_)
    for (const Atom& a : t.atoms)
      if (a.div) {
        out.insert(a.div);
        a.num->collect_divisors(out);
      }
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  DimExpr r = a;
  for (auto& [k, t] : b.terms_) r.add_term(t.atoms, t.coef);
  return r;
}

DimExpr operator-(const DimExpr& a, const DimExpr& b) {
  DimExpr r = a;
  for (auto& [k, t] : b.terms_) r.add_term(t.atoms, checked_mul(t.coef, -1));
  return r;
}

DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  DimExpr r;
  for (auto& [ka, ta] : a.terms_)
    for (auto& [kb, tb] : b.terms_) {
      DimExpr::Monomial m = ta.atoms;
      m.insert(m.end(), tb.atoms.begin(), tb.atoms.end());
      std::sort(m.begin(), m.end(), [](const DimExpr::Atom& x, const DimExpr::Atom& y) { return x.key() < y.key(); });
      r.add_term(m, checked_mul(ta.coef, tb.coef));
    }
  return r;
}

DimExpr DimExpr::floor_div(const DimExpr& a, int64_t k) {
  if (k <= 0) throw Error("symbolic dimension: division of '" + a.str() + "' by " + std::to_string(k) + " (the divisor must be a positive constant)");
  if (k == 1) return a;
  // A factor common to every coefficient and the divisor cancels: (2*H)/32 = H/16.
  int64_t g = k;
  for (auto& [key, t] : a.terms_) g = std::gcd(g, t.coef < 0 ? -t.coef : t.coef);
  if (g > 1) {
    DimExpr reduced;
    for (auto& [key, t] : a.terms_) reduced.add_term(t.atoms, t.coef / g);
    return floor_div(reduced, k / g);
  }
  // The terms whose coefficients k divides leave the floor exactly: (k*q + r) / k = q + r / k.
  DimExpr q, r;
  for (auto& [key, t] : a.terms_) {
    if (t.coef % k == 0) q.add_term(t.atoms, t.coef / k);
    else r.add_term(t.atoms, t.coef);
  }
  if (r.is_constant()) return q + DimExpr(floor_div_int(r.constant(), k));
  // A division in a division: (e/a + c) / k = (e + a*c) / (a*k) for positive a and k and an
  // integer c (floor(floor(x/a) + c) / k) = floor((x + a*c) / (a*k))): ((H+1)/2+1)/2 = (H+3)/4.
  {
    const Term* div = nullptr;
    int64_t c = 0;
    bool only = true;
    for (auto& [key, t] : r.terms_) {
      if (key.empty()) c = t.coef;
      else if (!div && t.coef == 1 && t.atoms.size() == 1 && t.atoms[0].div) div = &t;
      else only = false;
    }
    if (only && div) {
      const Atom& a = div->atoms[0];
      return q + floor_div(*a.num + DimExpr(checked_mul(a.div, c)), checked_mul(a.div, k));
    }
  }
  // The constant of the numerator is kept in [0, k): (e + c) / k = (e + c mod k) / k + (c - c mod k) / k,
  // so that (H-1)/2+1 and (H+1)/2 are one expression.
  if (auto it = r.terms_.find(""); it != r.terms_.end()) {
    const int64_t c = it->second.coef, cm = ((c % k) + k) % k;
    q = q + DimExpr((c - cm) / k);
    r = r - DimExpr(c - cm);
  }
  DimExpr d;
  d.add_term({Atom{r.str(), std::make_shared<const DimExpr>(r), k}}, 1);
  return q + d;
}

DimExpr DimExpr::ceil_div(const DimExpr& a, int64_t k) {
  if (k <= 0) throw Error("symbolic dimension: division of '" + a.str() + "' by " + std::to_string(k) + " (the divisor must be a positive constant)");
  return floor_div(a + DimExpr(k - 1), k);
}

DimExpr DimExpr::mod(const DimExpr& a, int64_t k) {
  if (k <= 0) throw Error("symbolic dimension: '" + a.str() + "' modulo " + std::to_string(k) + " (the divisor must be a positive constant)");
  return a - DimExpr(k) * floor_div(a, k);
}

int64_t DimExpr::evaluate(const std::map<std::string, int64_t>& binding) const {
  int64_t sum = 0;
  for (auto& [key, t] : terms_) {
    int64_t p = t.coef;
    for (const Atom& a : t.atoms) {
      int64_t v;
      if (a.div) {
        v = floor_div_int(a.num->evaluate(binding), a.div);
      } else {
        auto it = binding.find(a.name);
        if (it == binding.end()) throw Error("symbolic dimension '" + str() + "': symbol '" + a.name + "' has no value");
        v = it->second;
      }
      p = checked_mul(p, v);
    }
    sum = checked_add(sum, p);
  }
  return sum;
}

DimExpr DimExpr::substitute(const std::map<std::string, DimExpr>& with) const {
  DimExpr r;
  for (auto& [key, t] : terms_) {
    DimExpr p(t.coef);
    for (const Atom& a : t.atoms) {
      if (a.div) {
        p = p * floor_div(a.num->substitute(with), a.div);
      } else {
        auto it = with.find(a.name);
        p = p * (it == with.end() ? symbol(a.name) : it->second);
      }
    }
    r = r + p;
  }
  return r;
}

bool DimExpr::is_positive() const {
  if (is_constant()) return constant() >= 1;
  for (auto& [key, t] : terms_) {
    if (t.coef <= 0) return false;
    for (const Atom& a : t.atoms)
      if (a.div) return false;
  }
  return true;
}

bool DimExpr::operator==(const DimExpr& o) const {
  if (terms_.size() != o.terms_.size()) return false;
  for (auto a = terms_.begin(), b = o.terms_.begin(); a != terms_.end(); ++a, ++b)
    if (a->first != b->first || a->second.coef != b->second.coef) return false;
  return true;
}

std::string DimExpr::term_str(const Term& t, bool first) const {
  std::string s;
  int64_t c = t.coef;
  if (!first) s += c < 0 ? "-" : "+";
  else if (c < 0) s += "-";
  const uint64_t mag = c < 0 ? static_cast<uint64_t>(0) - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
  if (t.atoms.empty()) return s + std::to_string(mag);
  std::string prod;
  // A leading minus binds tighter than '/' when parsed: -(H/2), not -H/2 (which reads (-H)/2).
  const bool alone = t.atoms.size() == 1 && mag == 1 && !(first && c < 0);
  if (mag != 1) prod = std::to_string(mag);
  for (const Atom& a : t.atoms) {
    std::string as;
    if (!a.div) {
      as = a.name;
    } else {
      // A compound numerator is parenthesized; a division inside a product is too, so that the
      // text parses back (left to right, `2*H/32` would read (2*H)/32).
      const bool simple = !a.num->as_symbol().empty();
      as = (simple ? a.name : "(" + a.name + ")") + "/" + std::to_string(a.div);
      if (!alone) as = "(" + as + ")";
    }
    prod += (prod.empty() ? "" : "*") + as;
  }
  return s + prod;
}

std::string DimExpr::str() const {
  if (terms_.empty()) return "0";
  // A remainder N - k*(N/k) (as DimExpr::mod builds it) prints as N%k, which parses back to the
  // same polynomial: when the terms of N are all there, S%3 reads better than -3*(S/3)+S.
  for (auto& [key, t] : terms_) {
    if (t.atoms.size() != 1 || !t.atoms[0].div || t.coef != -t.atoms[0].div) continue;
    const Atom& a = t.atoms[0];
    DimExpr q;
    q.add_term(t.atoms, 1);
    const DimExpr rest = *this - (*a.num - DimExpr(a.div) * q);
    if (rest.terms_.size() + 1 >= terms_.size()) continue;  // N is not (wholly) there
    const std::string m = (a.num->as_symbol().empty() ? "(" + a.name + ")" : a.name) + "%" + std::to_string(a.div);
    if (rest.terms_.empty()) return m;
    const std::string r = rest.str();
    return m + (r[0] == '-' ? r : "+" + r);
  }
  // Symbolic terms first (by key), the constant last: "sequence+1", "2*H-1".
  std::string s;
  bool first = true;
  for (auto& [key, t] : terms_) {
    if (key.empty()) continue;
    s += term_str(t, first);
    first = false;
  }
  if (auto it = terms_.find(""); it != terms_.end()) s += term_str(it->second, first);
  return s;
}

namespace {

// Recursive descent over `expr := term (('+'|'-') term)*`, `term := unary (('*'|'/'|'%') unary)*`,
// `unary := '-' unary | int | ident | '(' expr ')'`, with a depth bound against deep nesting.
class Parser {
 public:
  Parser(std::string_view s, const std::string& what) : s_(s), what_(what) {}
  DimExpr parse() {
    DimExpr e = expr(0);
    skip();
    if (i_ != s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(what_ + " '" + std::string(s_) + "': " + why + " at character " + std::to_string(i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  DimExpr expr(int depth) {
    if (depth > 64) fail("nested too deeply");
    DimExpr e = term(depth);
    for (;;) {
      if (eat('+')) e = e + term(depth);
      else if (eat('-')) e = e - term(depth);
      else return e;
    }
  }
  DimExpr term(int depth) {
    DimExpr e = unary(depth);
    for (;;) {
      if (eat('*')) {
        e = e * unary(depth);
      } else if (skip(), i_ < s_.size() && (s_[i_] == '/' || s_[i_] == '%')) {
        const bool is_mod = s_[i_++] == '%';
        size_t at = i_;
        DimExpr d = unary(depth);
        if (!d.is_constant() || d.constant() <= 0) {
          i_ = at;
          fail(std::string("the right side of '") + (is_mod ? "%" : "/") + "' must be a positive integer constant");
        }
        e = is_mod ? DimExpr::mod(e, d.constant()) : DimExpr::floor_div(e, d.constant());
      } else {
        return e;
      }
    }
  }
  DimExpr unary(int depth) {
    if (depth > 64) fail("nested too deeply");
    skip();
    if (i_ >= s_.size()) fail("expected a dimension");
    if (eat('-')) return -unary(depth + 1);
    if (eat('(')) {
      DimExpr e = expr(depth + 1);
      if (!eat(')')) fail("expected ')'");
      return e;
    }
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v)) fail("integer out of range");
        ++i_;
      }
      return DimExpr(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      return DimExpr::symbol(s_.substr(b, i_ - b));
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

}  // namespace

DimExpr DimExpr::parse(std::string_view text, const std::string& what) {
  try {
    return Parser(text, what).parse();
  } catch (const Error& e) {
    const std::string m = e.what();
    if (m.rfind(what, 0) == 0) throw;
    throw Error(what + " '" + std::string(text) + "': " + m);
  }
}

std::string dims_str(const std::vector<DimExpr>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + dims[i].str();
  return s + "]";
}

}  // namespace ge
