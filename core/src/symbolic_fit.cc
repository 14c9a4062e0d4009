// The candidate fitting of the symbolic inference: probe bindings, candidates, their fit to probes.
#include "symbolic_fit.h"

#include <algorithm>

#include "ge/sdk/error.h"

namespace ge::core::symbolic_detail {

namespace {

/// c at every binding of bs; nullopt when it cannot be evaluated at one (a fresh symbol, an
/// int64 overflow).
std::optional<std::vector<int64_t>> values_at(const DimExpr& c, const std::vector<Binding>& bs) {
  std::vector<int64_t> cv;
  cv.reserve(bs.size());
  try {
    for (const Binding& b : bs) cv.push_back(c.evaluate(b));
  } catch (const Error&) {
    return std::nullopt;
  }
  return cv;
}

}  // namespace

std::vector<Binding> probes(const std::set<std::string>& symbols, size_t k, int family) {
  std::vector<Binding> out(k);
  size_t i = 0;
  for (const std::string& s : symbols) {
    for (size_t j = 0; j < k; ++j) {
      uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (j + 1) * 0xC2B2AE3D27D4EB4Full;
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 32;
      const int64_t r = static_cast<int64_t>(h % 90);
      out[j][s] = family == 0 ? 7 + r : family == 1 ? 96 + 32 * (r % 13) : 4096 + 256 * (r % 32);
    }
    ++i;
  }
  return out;
}
std::string family_text(int family) {
  return family == 1 ? "multiples of 32 from 96 on" : "multiples of 256 from 4096 on";
}

Candidates candidates(const Node* n, const TrackedValue& tracked) {
  Candidates c;
  std::set<std::string> seen;
  auto add = [&](const DimExpr& e) {
    if (e.is_constant()) return;
    if (seen.insert(e.str()).second) c.push_back(e);
  };
  for (Value* v : n->inputs())
    if (v)
      for (const DimExpr& e : v->dim_exprs()) add(e);
  for (Value* v : n->inputs())
    if (const Dims* t = tracked(v))
      for (const DimExpr& e : *t) add(e);
  for (Value* v : n->inputs()) {
    if (!v || !v->symbolic_dims()) continue;
    const Dims d = v->dim_exprs();
    for (size_t a = 0; a < d.size(); ++a) {
      DimExpr p = d[a];
      for (size_t z = a + 1; z < d.size(); ++z) {
        p = p * d[z];
        add(p);
      }
    }
  }
  size_t rank = 0;
  for (Value* v : n->inputs()) rank = std::max(rank, v ? v->shape.rank() : 0);
  for (size_t k = 0; k < rank && n->num_inputs() > 1; ++k) {
    DimExpr s(0);
    bool ok = true;
    for (Value* v : n->inputs()) {
      const Dims d = v ? v->dim_exprs() : Dims{};
      if (!v || v->shape.rank() != rank || d.size() != rank) {
        ok = false;
        break;
      }
      s = s + d[k];
    }
    if (ok) add(s);
  }
  return c;
}

bool matches(const DimExpr& e, const std::vector<Binding>& bs, const std::vector<int64_t>& obs) {
  try {
    for (size_t j = 0; j < bs.size(); ++j)
      if (e.evaluate(bs[j]) != obs[j]) return false;
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::optional<DimExpr> fit(const Candidates& cands, const std::vector<Binding>& bs, const std::vector<int64_t>& obs) {
  bool constant = true;
  for (int64_t o : obs) constant &= o == obs[0];
  if (constant) return DimExpr(obs[0]);
  // Each candidate is evaluated at the bindings once, here; the affine and floor-division forms
  // below read these values.
  std::vector<std::optional<std::vector<int64_t>>> values;
  values.reserve(cands.size());
  for (const DimExpr& c : cands) {
    values.push_back(values_at(c, bs));
    if (values.back() == obs) return c;
  }
  for (size_t i = 0; i < cands.size(); ++i) {
    if (!values[i]) continue;
    const std::vector<int64_t>& cv = *values[i];
    size_t j = 1;
    while (j < cv.size() && cv[j] == cv[0]) ++j;
    if (j == cv.size()) continue;
    const int64_t dc = cv[j] - cv[0], dout = obs[j] - obs[0];
    if (dout % dc != 0) continue;
    const int64_t a = dout / dc, b0 = obs[0] - a * cv[0];
    bool ok = a != 0;
    for (size_t q = 0; q < cv.size() && ok; ++q) ok = a * cv[q] + b0 == obs[q];
    if (ok) return DimExpr(a) * cands[i] + DimExpr(b0);
  }
  // Floor divisions (a*c + b) / k, k in [2, 16], a in [1, 2k], |b| <= 2k: a Slice with step 2,
  // Range with step 3, an equal Split of a symbolic axis, Resize by 0.7 (= 7/10). The check
  // bindings after the fit (Engine::validate) catch a form that holds at the probes only.
  for (size_t i = 0; i < cands.size(); ++i) {
    if (!values[i]) continue;
    const std::vector<int64_t>& cv = *values[i];
    for (int64_t k = 2; k <= 16; ++k)
      for (int64_t a = 1; a <= 2 * k; ++a) {
        if (a % k == 0) continue;  // affine, tried above
        for (int64_t b = -2 * k; b <= 2 * k; ++b) {
          bool ok = true;
          for (size_t q = 0; q < cv.size() && ok; ++q) {
            const int64_t num = a * cv[q] + b;
            const int64_t fl = num >= 0 ? num / k : -((-num + k - 1) / k);
            ok = fl == obs[q];
          }
          if (ok) return DimExpr::floor_div(DimExpr(a) * cands[i] + DimExpr(b), k);
        }
      }
  }
  return std::nullopt;
}

}  // namespace ge::core::symbolic_detail
