// tests/fuzz/onnx_mutator.cc — a structure-aware mutator for fuzz_onnx_proto: libFuzzer's
// LLVMFuzzerCustomMutator hook (https://llvm.org/docs/LibFuzzer.html#fuzzing-structured-input)
// parses the input as onnx.ModelProto, applies one to three edits of the kinds an importer must
// survive — dims, dtypes, attributes (values, types, new and dropped ones), node inputs and
// outputs rewired, op types swapped for other ai.onnx ops, nodes dropped, duplicated or
// reordered, opset and IR versions, initializer shapes, types and external-data fields, graph
// outputs — and serializes it again. libprotobuf-mutator does this generically; Debian 12 does
// not package it. An input that does not parse, and one mutation in sixteen, gets libFuzzer's
// byte-level mutation instead, so that the parser's own edge cases stay in reach.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using Rng = std::mt19937_64;

size_t pick(Rng& r, size_t n) { return n == 0 ? 0 : static_cast<size_t>(r() % n); }
bool chance(Rng& r, unsigned one_in) { return r() % one_in == 0; }

int64_t interesting_int(Rng& r) {
  static const int64_t v[] = {0, 1, 2, 3, 4, -1, -2, -3, 7, 16, 64, 255, 1 << 16, int64_t{1} << 31,
                              (int64_t{1} << 31) - 1, int64_t{1} << 40, std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min()};
  if (chance(r, 3)) return static_cast<int64_t>(r() % 9) - 2;
  return v[pick(r, std::size(v))];
}

float interesting_float(Rng& r) {
  static const float v[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-5f, 1e30f, -1e30f, 65504.0f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()};
  return v[pick(r, std::size(v))];
}

const std::vector<std::string>& op_types() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> o;
    for (const auto& s : onnx::OpSchemaRegistry::get_all_schemas())
      if (s.domain().empty()) o.push_back(s.Name());
    if (o.empty()) o = {"Add", "Relu", "Conv", "Reshape", "Concat", "Gather", "MatMul"};
    return o;
  }();
  return ops;
}

const char* const kAttrNames[] = {"axis", "axes", "perm", "keepdims", "group", "kernel_shape", "pads", "strides",
                                  "dilations", "to", "alpha", "beta", "epsilon", "mode", "shape", "value", "starts",
                                  "ends", "transA", "transB", "auto_pad", "ceil_mode", "count_include_pad",
                                  "blocksize", "largest", "sorted", "k", "split", "output_shape", "output_padding",
                                  "momentum", "coordinate_transformation_mode", "select_last_index", "noop_with_empty_axes",
                                  "allowzero", "detect_negative", "direction", "seed", "dtype", "num_outputs"};
const char* const kStrings[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "constant", "reflect", "edge", "linear",
                                "nearest", "cubic", "half_pixel", "align_corners", "asymmetric", "DCR", "CRD",
                                "round_prefer_floor", "LEFT", "RIGHT", "", "\xff\xfe"};

std::vector<std::string> value_names(const onnx::GraphProto& g) {
  std::vector<std::string> n;
  for (auto& v : g.input()) n.push_back(v.name());
  for (auto& v : g.initializer()) n.push_back(v.name());
  for (auto& nd : g.node())
    for (auto& o : nd.output()) n.push_back(o);
  if (n.empty()) n.push_back("x");
  return n;
}

onnx::ValueInfoProto* some_value_info(onnx::GraphProto& g, Rng& r) {
  size_t a = g.input_size(), b = g.output_size(), c = g.value_info_size();
  if (a + b + c == 0) return nullptr;
  size_t k = pick(r, a + b + c);
  if (k < a) return g.mutable_input(static_cast<int>(k));
  if (k < a + b) return g.mutable_output(static_cast<int>(k - a));
  return g.mutable_value_info(static_cast<int>(k - a - b));
}

void mutate_dims(onnx::GraphProto& g, Rng& r) {
  onnx::ValueInfoProto* vi = some_value_info(g, r);
  if (!vi) return;
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  if (chance(r, 8)) {
    tt->set_elem_type(static_cast<int32_t>(pick(r, 24)));
    return;
  }
  auto* shp = tt->mutable_shape();
  switch (pick(r, 5)) {
    case 0: shp->add_dim()->set_dim_value(interesting_int(r)); break;
    case 1:
      if (shp->dim_size()) shp->mutable_dim()->RemoveLast();
      break;
    case 2:
      if (shp->dim_size()) shp->mutable_dim(static_cast<int>(pick(r, shp->dim_size())))->set_dim_param(chance(r, 2) ? "N" : "");
      break;
    case 3: tt->clear_shape(); break;
    default:
      if (shp->dim_size()) shp->mutable_dim(static_cast<int>(pick(r, shp->dim_size())))->set_dim_value(interesting_int(r));
  }
}

void random_attr_value(onnx::AttributeProto& a, Rng& r) {
  using A = onnx::AttributeProto;
  a.clear_i();
  a.clear_f();
  a.clear_s();
  a.clear_ints();
  a.clear_floats();
  a.clear_strings();
  a.clear_t();
  switch (pick(r, 7)) {
    case 0: a.set_type(A::INT); a.set_i(interesting_int(r)); break;
    case 1: a.set_type(A::FLOAT); a.set_f(interesting_float(r)); break;
    case 2: a.set_type(A::STRING); a.set_s(kStrings[pick(r, std::size(kStrings))]); break;
    case 3: {
      a.set_type(A::INTS);
      for (size_t i = 0, n = pick(r, 7); i < n; ++i) a.add_ints(interesting_int(r));
      break;
    }
    case 4: {
      a.set_type(A::FLOATS);
      for (size_t i = 0, n = pick(r, 5); i < n; ++i) a.add_floats(interesting_float(r));
      break;
    }
    case 5: {
      a.set_type(A::TENSOR);
      auto* t = a.mutable_t();
      t->set_data_type(static_cast<int32_t>(pick(r, 17)));
      for (size_t i = 0, n = pick(r, 3); i < n; ++i) t->add_dims(static_cast<int64_t>(pick(r, 4)));
      t->set_raw_data(std::string(pick(r, 33), '\x01'));
      break;
    }
    default: a.set_type(static_cast<A::AttributeType>(pick(r, 15)));
  }
}

void mutate_attribute(onnx::NodeProto& n, Rng& r) {
  if (n.attribute_size() == 0 || chance(r, 4)) {
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name(kAttrNames[pick(r, std::size(kAttrNames))]);
    random_attr_value(*a, r);
    return;
  }
  const int idx = static_cast<int>(pick(r, n.attribute_size()));
  onnx::AttributeProto& a = *n.mutable_attribute(idx);
  using A = onnx::AttributeProto;
  switch (pick(r, 6)) {
    case 0: n.mutable_attribute()->DeleteSubrange(idx, 1); return;
    case 1: random_attr_value(a, r); return;
    default: break;
  }
  if (a.type() == A::INT)  // a step of -1, 0 or +1, wrapping (unsigned) at the int64 ends
    a.set_i(chance(r, 2) ? interesting_int(r)
                         : static_cast<int64_t>(static_cast<uint64_t>(a.i()) + pick(r, 3) - 1));
  else if (a.type() == A::FLOAT) a.set_f(interesting_float(r));
  else if (a.type() == A::INTS) {
    if (a.ints_size() && !chance(r, 3)) a.set_ints(static_cast<int>(pick(r, a.ints_size())), interesting_int(r));
    else if (a.ints_size() && chance(r, 2)) a.mutable_ints()->RemoveLast();
    else a.add_ints(interesting_int(r));
  } else if (a.type() == A::FLOATS) {
    if (a.floats_size()) a.set_floats(static_cast<int>(pick(r, a.floats_size())), interesting_float(r));
    else a.add_floats(interesting_float(r));
  } else if (a.type() == A::STRING) a.set_s(kStrings[pick(r, std::size(kStrings))]);
  else if (a.type() == A::TENSOR) {
    auto* t = a.mutable_t();
    if (t->dims_size() && chance(r, 2)) t->set_dims(static_cast<int>(pick(r, t->dims_size())), interesting_int(r));
    else t->set_data_type(static_cast<int32_t>(pick(r, 17)));
  } else random_attr_value(a, r);
}

void mutate_node(onnx::GraphProto& g, Rng& r) {
  if (g.node_size() == 0) return;
  onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(r, g.node_size())));
  const std::vector<std::string> names = value_names(g);
  switch (pick(r, 9)) {
    case 0:
    case 1: mutate_attribute(n, r); break;
    case 2:
      if (n.input_size()) n.set_input(static_cast<int>(pick(r, n.input_size())), chance(r, 6) ? "" : names[pick(r, names.size())]);
      break;
    case 3:
      if (chance(r, 2) || !n.input_size()) n.add_input(names[pick(r, names.size())]);
      else n.mutable_input()->RemoveLast();
      break;
    case 4: n.set_op_type(op_types()[pick(r, op_types().size())]); break;
    case 5:
      if (n.output_size()) n.set_output(static_cast<int>(pick(r, n.output_size())), names[pick(r, names.size())]);
      else n.add_output("fuzz_out");
      break;
    case 6:
      if (chance(r, 2)) n.add_output("fuzz_out" + std::to_string(pick(r, 3)));
      else if (n.output_size()) n.mutable_output()->RemoveLast();
      break;
    case 7: n.set_domain(chance(r, 2) ? "ai.onnx" : (chance(r, 2) ? "ge" : "com.microsoft")); break;
    default: mutate_attribute(n, r);
  }
}

void mutate_graph_structure(onnx::GraphProto& g, Rng& r) {
  const int n = g.node_size();
  switch (pick(r, 5)) {
    case 0:
      if (n) g.mutable_node()->DeleteSubrange(static_cast<int>(pick(r, n)), 1);
      break;
    case 1:
      if (n) *g.add_node() = g.node(static_cast<int>(pick(r, n)));
      break;
    case 2:
      if (n > 1) g.mutable_node()->SwapElements(static_cast<int>(pick(r, n)), static_cast<int>(pick(r, n)));
      break;
    case 3: {
      const std::vector<std::string> names = value_names(g);
      if (chance(r, 2) || !g.output_size()) g.add_output()->set_name(names[pick(r, names.size())]);
      else g.mutable_output()->RemoveLast();
      break;
    }
    default:
      if (g.input_size() && chance(r, 2)) g.mutable_input()->DeleteSubrange(static_cast<int>(pick(r, g.input_size())), 1);
      else if (g.value_info_size()) g.mutable_value_info()->RemoveLast();
  }
}

void mutate_initializer(onnx::GraphProto& g, Rng& r) {
  if (g.initializer_size() == 0) return;
  onnx::TensorProto& t = *g.mutable_initializer(static_cast<int>(pick(r, g.initializer_size())));
  switch (pick(r, 6)) {
    case 0:
      if (t.dims_size()) t.set_dims(static_cast<int>(pick(r, t.dims_size())), interesting_int(r));
      else t.add_dims(interesting_int(r));
      break;
    case 1: t.set_data_type(static_cast<int32_t>(pick(r, 24))); break;
    case 2:
      if (t.has_raw_data()) t.mutable_raw_data()->resize(pick(r, t.raw_data().size() + 9));
      else t.add_int64_data(interesting_int(r));
      break;
    case 3: {
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      t.clear_external_data();
      static const char* const locs[] = {"weights.bin", "../weights.bin", "/etc/passwd", "missing.bin", "."};
      auto* kv = t.add_external_data();
      kv->set_key("location");
      kv->set_value(locs[pick(r, std::size(locs))]);
      if (chance(r, 2)) {
        kv = t.add_external_data();
        kv->set_key(chance(r, 2) ? "offset" : "length");
        kv->set_value(std::to_string(interesting_int(r)));
      }
      break;
    }
    case 4:
      if (t.dims_size()) t.mutable_dims()->RemoveLast();
      break;
    default: t.set_name(value_names(g)[pick(r, value_names(g).size())]);
  }
}

void mutate_model(onnx::ModelProto& m, Rng& r) {
  onnx::GraphProto& g = *m.mutable_graph();
  switch (pick(r, 12)) {
    case 0:
    case 1:
    case 2: mutate_dims(g, r); break;
    case 3:
    case 4:
    case 5:
    case 6: mutate_node(g, r); break;
    case 7: mutate_graph_structure(g, r); break;
    case 8:
    case 9: mutate_initializer(g, r); break;
    case 10: {
      if (m.opset_import_size() == 0) m.add_opset_import()->set_domain("");
      m.mutable_opset_import(static_cast<int>(pick(r, m.opset_import_size())))->set_version(static_cast<int64_t>(pick(r, 21)));
      break;
    }
    default: m.set_ir_version(static_cast<int64_t>(pick(r, 11)));
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng r(seed);
  onnx::ModelProto m;
  if (size == 0 || chance(r, 16) || !m.ParseFromArray(data, static_cast<int>(size)) || !m.has_graph())
    return LLVMFuzzerMutate(data, size, max_size);
  for (size_t i = 0, n = 1 + pick(r, 3); i < n; ++i) mutate_model(m, r);
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
