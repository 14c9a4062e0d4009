// plugins/ascend_backend/ops_info.cc — the op information library (ops_info.h) read from the
// embedded ops_info.toml.
#include "ops_info.h"

#include <algorithm>
#include <map>
#include <utility>
#include <variant>

#include <toml++/toml.h>

#include "ge/sdk/error.h"

namespace ge::ascend {
namespace detail {
namespace {

[[noreturn]] void bad(const std::string& origin, const toml::node& at, const std::string& what) {
  throw Error(origin + ":" + std::to_string(at.source().begin.line) + ": " + what);
}

template <typename E>
E pick(const std::string& origin, const toml::node& at, const std::string& key, const std::string& v,
       const std::vector<std::pair<const char*, E>>& choices) {
  std::string known;
  for (const auto& [name, e] : choices) {
    if (v == name) return e;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  bad(origin, at, "'" + key + "' must be one of " + known + ", not '" + v + "'");
}

}  // namespace

std::vector<OpInfo> parse_ops_info(const std::string& text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw Error(origin + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  for (const auto& [k, v] : root)
    if (k.str() != "op") bad(origin, v, "unknown key '" + std::string(k.str()) + "' (only [[op]] tables)");
  const toml::array* ops = root["op"].as_array();
  if (!ops) throw Error(origin + ": no [[op]] entries");
  std::vector<OpInfo> out;
  for (const toml::node& entry : *ops) {
    const toml::table* t = entry.as_table();
    if (!t) bad(origin, entry, "'op' must be an array of tables");
    OpInfo info;
    auto str = [&](const char* key, bool required) -> std::optional<std::string> {
      const toml::node* n = t->get(key);
      if (!n) {
        if (required) bad(origin, *t, "[[op]] needs '" + std::string(key) + "'");
        return std::nullopt;
      }
      if (!n->is_string()) bad(origin, *n, "'" + std::string(key) + "' must be a string");
      return n->value<std::string>();
    };
    for (const auto& [k, v] : *t) {
      static const char* known[] = {"op_type", "domain", "engine", "problem", "vector_ops", "vector_ops_per_optional_input",
                                    "streamed_inputs", "reads_output_only", "index_inputs"};
      if (std::none_of(std::begin(known), std::end(known), [&key = k](const char* s) { return key.str() == s; }))
        bad(origin, v, "unknown key '" + std::string(k.str()) + "' in [[op]]");
    }
    info.op_type = *str("op_type", true);
    info.domain = str("domain", false).value_or("");
    const std::string who = (info.domain.empty() ? "" : info.domain + ".") + info.op_type;
    info.cube = pick<bool>(origin, *t, "engine", *str("engine", true), {{"cube", true}, {"vector", false}});
    info.problem = pick<Problem>(origin, *t, "problem", *str("problem", true),
                                 {{"conv", Problem::Conv},
                                  {"conv_transpose", Problem::ConvTranspose},
                                  {"matmul", Problem::MatMul},
                                  {"gemm", Problem::Gemm},
                                  {"fused_matmul", Problem::FusedMatMul},
                                  {"elementwise", Problem::Elementwise},
                                  {"pool", Problem::Pool},
                                  {"global_pool", Problem::GlobalPool},
                                  {"rows", Problem::Rows},
                                  {"move", Problem::Move},
                                  {"convert", Problem::Convert}});
    const bool cube_problem = info.problem <= Problem::FusedMatMul;
    if (info.cube != cube_problem) bad(origin, *t, who + ": problem and engine disagree (a Cube problem needs engine \"cube\")");
    if (const toml::node* v = t->get("vector_ops")) {
      if (v->is_string()) {
        info.vector_ops_rule = pick<VectorOpsRule>(origin, *v, "vector_ops", *v->value<std::string>(),
                                                   {{"inputs_minus_one", VectorOpsRule::InputsMinusOne},
                                                    {"kernel_window", VectorOpsRule::KernelWindow},
                                                    {"spatial", VectorOpsRule::Spatial},
                                                    {"reduced", VectorOpsRule::Reduced},
                                                    {"program", VectorOpsRule::Program}});
      } else if (v->is_number() && *v->value<double>() >= 0) {
        info.vector_ops = *v->value<double>();
      } else {
        bad(origin, *v, who + ": 'vector_ops' must be a number ≥ 0 or a rule name");
      }
    }
    if (const toml::node* v = t->get("vector_ops_per_optional_input")) {
      if (!v->is_number() || *v->value<double>() < 0) bad(origin, *v, who + ": 'vector_ops_per_optional_input' must be a number ≥ 0");
      info.vector_ops_per_optional_input = *v->value<double>();
    }
    if (const toml::node* v = t->get("streamed_inputs")) {
      if (!v->is_integer() || *v->value<int64_t>() < 1) bad(origin, *v, who + ": 'streamed_inputs' must be an integer ≥ 1");
      info.streamed_inputs = static_cast<int>(*v->value<int64_t>());
    }
    if (const toml::node* v = t->get("reads_output_only")) {
      if (!v->is_boolean()) bad(origin, *v, who + ": 'reads_output_only' must be true or false");
      info.reads_output_only = *v->value<bool>();
    }
    if (const toml::node* v = t->get("index_inputs")) {
      const toml::array* a = v->as_array();
      if (!a) bad(origin, *v, who + ": 'index_inputs' must be an array of input indices");
      for (const toml::node& i : *a) {
        if (!i.is_integer() || *i.value<int64_t>() < 0) bad(origin, i, who + ": 'index_inputs' entries must be integers ≥ 0");
        info.index_inputs.push_back(static_cast<int>(*i.value<int64_t>()));
      }
    }
    for (const OpInfo& o : out)
      if (o.domain == info.domain && o.op_type == info.op_type) bad(origin, *t, who + " is listed twice");
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace detail

namespace {

struct Library {
  std::vector<OpInfo> infos;
  std::map<std::pair<std::string, std::string>, size_t> index;
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    for (const detail::EmbeddedOpsInfo& f : detail::embedded_ops_info())
      for (OpInfo& i : detail::parse_ops_info(f.text, f.origin)) l.infos.push_back(std::move(i));
    for (size_t k = 0; k < l.infos.size(); ++k) l.index[{l.infos[k].domain, l.infos[k].op_type}] = k;
    return l;
  }();
  return lib;
}

}  // namespace

const OpInfo* find_op_info(const Node& n) {
  const Library& l = library();
  const auto it = l.index.find({n.domain(), n.op_type()});
  return it == l.index.end() ? nullptr : &l.infos[it->second];
}

std::span<const OpInfo> all_op_infos() { return library().infos; }

double op_info_vector_ops(const OpInfo& info, const Node& n) {
  double ops = info.vector_ops;
  switch (info.vector_ops_rule) {
    case VectorOpsRule::Fixed: break;
    case VectorOpsRule::InputsMinusOne: ops = std::max<double>(1, static_cast<double>(n.num_inputs()) - 1); break;
    case VectorOpsRule::KernelWindow: {
      ops = 1;
      for (int64_t k : n.attrs.get_ints("kernel_shape", {1, 1})) ops *= static_cast<double>(k);
      break;
    }
    case VectorOpsRule::Spatial: {
      ops = 1;
      if (n.input(0) && n.input(0)->shape.rank() == 4) {
        const Shape& s = n.input(0)->shape;
        ops = std::max<double>(1, static_cast<double>(s[2] * s[3]));
      }
      break;
    }
    case VectorOpsRule::Reduced: {
      ops = 1;
      if (n.input(0) && n.output(0) && n.output(0)->shape.numel() > 0)
        ops = static_cast<double>(n.input(0)->shape.numel()) / static_cast<double>(n.output(0)->shape.numel());
      break;
    }
    case VectorOpsRule::Program: {
      const AttrValue* p = n.attrs.find("ops");
      ops = p && std::holds_alternative<std::vector<std::string>>(*p)
                ? std::max<double>(1, static_cast<double>(std::get<std::vector<std::string>>(*p).size()))
                : 1.0;
      break;
    }
  }
  for (size_t i = 1; i < n.num_inputs(); ++i)
    if (n.input(i)) ops += info.vector_ops_per_optional_input;
  return ops;
}

}  // namespace ge::ascend
