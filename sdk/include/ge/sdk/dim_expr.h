// ge/sdk/dim_expr.h — symbolic tensor dimensions (ABI 1.10).
//
// A DimExpr is an integer expression over named symbols — the `dim_param`s of an ONNX model
// (onnx/docs/IR.md, "Tensor shapes"): `batch`, `2*sequence`, `sequence+1`, `H/32`,
// `(H+1)/2*W`. It is kept in a canonical form, a polynomial with int64 coefficients whose
// monomials are products of atoms, an atom being a symbol or the floor division of a polynomial
// by a positive constant; so two expressions that the rules below make equal compare equal:
//
//   e + e = 2*e,  e - e = 0,  (a+b)*c = a*c + b*c,
//   (k*e + r) / k = e + r/k            (floor division, k > 0, every coefficient of k*e divisible by k)
//   (e / a + c) / b = (e + a*c) / (a*b)  (a, b > 0; so (e / a) / b = e / (a*b))
//   (g*e) / (g*k) = e / k,  (e + c) / k = (e + c mod k) / k + (c - c mod k) / k
//   e % k = e - k*(e/k)
//
// Floor division is the one of Python and of the convolution output-size formula in
// onnx/defs/nn/defs.cc (convPoolShapeInference): `(H + pads - ((K-1)*dilation+1)) / stride + 1`.
// Symbols stand for extents, so they are >= 1 (see `is_positive`), but evaluation does not assume
// it: a binding gives every symbol a value.
//
// Text form (the text IR's dims): integers, symbols ([A-Za-z_][A-Za-z0-9_]*; the importer maps
// an ONNX dim_param that is no identifier onto one), `+ - * / %` with the usual precedence, left
// to right, and parentheses; `/` and `%` take a positive integer constant on their right.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ge {

class DimExpr {
 public:
  /// The constant c.
  DimExpr(int64_t c = 0);  // NOLINT(google-explicit-constructor): 2 * e reads as it should
  /// The symbol `name`; throws ge::Error unless name is an identifier ([A-Za-z_][A-Za-z0-9_]*).
  static DimExpr symbol(std::string_view name);

  bool is_constant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }
  /// The value of a constant expression; throws ge::Error for a symbolic one.
  int64_t constant() const;
  /// A lone symbol (coefficient 1, nothing added): its name; "" otherwise.
  std::string as_symbol() const;
  /// Every symbol the expression mentions.
  void collect_symbols(std::set<std::string>& out) const;
  /// The divisors of its floor divisions (nested ones too): {2, 32} for (H+1)/2 + W/32.
  void collect_divisors(std::set<int64_t>& out) const;

  /// Overflow of a coefficient past int64, more than 64 terms, a product of more than 16
  /// factors or a term whose text exceeds 1024 characters (nested divisions and remainders)
  /// throws ge::Error.
  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  DimExpr operator-() const { return DimExpr(0) - *this; }
  /// floor(a / k) for k > 0 (ge::Error otherwise).
  static DimExpr floor_div(const DimExpr& a, int64_t k);
  /// ceil(a / k) = floor((a + k - 1) / k) for k > 0.
  static DimExpr ceil_div(const DimExpr& a, int64_t k);
  /// a - k*floor(a/k) for k > 0: in [0, k).
  static DimExpr mod(const DimExpr& a, int64_t k);

  /// The value under a binding of every symbol it mentions; throws ge::Error naming an unbound
  /// symbol, or on int64 overflow.
  int64_t evaluate(const std::map<std::string, int64_t>& binding) const;
  /// Replaces the bound symbols by expressions (the rest stay).
  DimExpr substitute(const std::map<std::string, DimExpr>& with) const;
  /// True when the expression is >= 1 for every binding of its symbols to values >= 1: every
  /// coefficient positive and no floor division below the top, or a constant >= 1. (A sufficient
  /// test, not a decision procedure.)
  bool is_positive() const;

  /// Canonical text: "2*sequence+1", "(H+1)/2", "batch*sequence"; parse(str()) == *this.
  std::string str() const;
  /// Parses the text form; throws ge::Error naming `what` and the offending character.
  static DimExpr parse(std::string_view text, const std::string& what = "dimension");

  bool operator==(const DimExpr& o) const;
  bool operator!=(const DimExpr& o) const { return !(*this == o); }
  /// A total order (by canonical text) for use as a map key.
  bool operator<(const DimExpr& o) const { return str() < o.str(); }

 private:
  // An atom: a symbol (div_ == 0) or floor(num / div) (div > 1).
  struct Atom {
    std::string name;                     // the symbol, or the canonical text of num for a division
    std::shared_ptr<const DimExpr> num;   // for a division
    int64_t div = 0;
    std::string key() const;
  };
  // A monomial: atoms in key order (repeats allowed: batch*batch). The empty monomial is 1.
  using Monomial = std::vector<Atom>;
  struct Term {
    Monomial atoms;
    int64_t coef = 0;
  };
  static std::string monomial_key(const Monomial& m);
  void add_term(const Monomial& m, int64_t coef);
  std::string term_str(const Term& t, bool first) const;

  // Monomial key → term; the key of the constant term is "". Zero coefficients are dropped.
  std::map<std::string, Term> terms_;
};

/// The text of a symbolic shape: "[batch,3,224,224]".
std::string dims_str(const std::vector<DimExpr>& dims);

}  // namespace ge
