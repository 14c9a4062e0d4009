// plugins/ascend_backend/util.h — small helpers the ascend backend's files share: integer
// rounding for tile counts, "not tileable, because …" results of the tiling problems, and the
// plain-layout test (ND / NCHW: the layouts the data-movement and AI CPU kernels read as is).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ge/sdk/ir.h"

namespace ge::ascend {

/// ⌈a / b⌉ for a ≥ 0, b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// a rounded up to a multiple of b (a ≥ 0, b > 0).
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
/// A tiling problem's refusal: sets *why (when the caller asked) and returns no problem.
inline std::nullopt_t no(std::string* why, const std::string& text) {
  if (why) *why = text;
  return std::nullopt;
}
/// An unblocked layout (ND or NCHW).
inline bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }
/// A missing value or one in an unblocked layout.
inline bool plain(const Value* v) { return !v || plain(v->format); }

}  // namespace ge::ascend
