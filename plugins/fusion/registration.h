// plugins/fusion/registration.h — how this plugin's files register themselves.
//
// Every pass, fusion rule and fused-op shape inference lives in its own file and registers
// itself with one of the macros below; plugin.cc hands everything to the host. The files are
// compiled as an OBJECT library, so the plugin and the tests both keep every registration.
//
//   GE_FUSION_PASS(DeadCodeElimination, 20)      // order within the plugin's pass list
//   GE_FUSION_RULE(ConvBnRule)
//   GE_FUSION_INFER("ge", "FusedConv", infer_fused_conv)
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/sdk/pass.h"
#include "ge/sdk/plugin.h"

namespace ge::fusion {

struct PassEntry {
  int order;
  std::function<std::shared_ptr<Pass>()> make;
};
struct InferEntry {
  std::string domain, op_type;
  ShapeInferenceFn fn;
};
struct OpFile {
  std::string origin, text;
};

std::vector<PassEntry>& pass_entries();
std::vector<std::function<std::shared_ptr<FusionRule>()>>& rule_entries();
std::vector<InferEntry>& infer_entries();
/// ops/*.toml of this plugin, embedded at build time (the fused op types' definitions).
std::span<const OpFile> embedded_op_files();

/// Adds everything above to a registrar (plugin.cc and tests use it).
void register_all(Registrar& r);

struct AutoRegister {
  explicit AutoRegister(std::function<void()> f) { f(); }
};

}  // namespace ge::fusion

#define GE_FUSION_CONCAT2(a, b) a##b
#define GE_FUSION_CONCAT(a, b) GE_FUSION_CONCAT2(a, b)
#define GE_FUSION_PASS(CLASS, ORDER)                                                            \
  static ::ge::fusion::AutoRegister GE_FUSION_CONCAT(ge_fusion_reg_, __LINE__)([] {             \
    ::ge::fusion::pass_entries().push_back({ORDER, [] { return std::make_shared<CLASS>(); }}); \
  })
#define GE_FUSION_RULE(CLASS)                                                                    \
  static ::ge::fusion::AutoRegister GE_FUSION_CONCAT(ge_fusion_reg_, __LINE__)([] {              \
    ::ge::fusion::rule_entries().push_back([] { return std::make_shared<CLASS>(); });            \
  })
#define GE_FUSION_INFER(DOMAIN, OP, FN)                                                          \
  static ::ge::fusion::AutoRegister GE_FUSION_CONCAT(ge_fusion_reg_, __LINE__)([] {              \
    ::ge::fusion::infer_entries().push_back({DOMAIN, OP, FN});                                   \
  })
