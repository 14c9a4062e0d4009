// tests/cpu_backend/onnx_node_runner.cc — runs ONNX node conformance tests
// (onnx/backend/test/data/node/test_*/: model.onnx + test_data_set_*/{input,output}_K.pb)
// straight against the CPU kernels, without the core: the one-node model becomes a one-node
// GE graph, the kernel is built and run, outputs are compared like ONNX's backend test
// (|got - want| <= atol + rtol * |want|, rtol 1e-3, atol 1e-5).
//
// Each test runs twice: once with every input after the first as a constant (the weight path:
// pre-reordered weights, folded parameters) and once with all inputs at run time.
//
//   onnx_node_runner <test dir>...     prints PASS / UNSUPPORTED / FAIL per test, exits 1 on FAIL
//   onnx_node_runner --model <dir>...  runs a whole model (model.onnx, test_data_set_0) node by
//                                      node through the kernels (shapes from ONNX's shape
//                                      inference, initializers and Constant outputs as constants)
//                                      and prints each output's relative L2 error against
//                                      output_K.pb; exits 1 above 1e-4 — a check of the kernels
//                                      on real graphs without the core's registry.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "ge/sdk/error.h"
#include "kernel_harness.h"
#include "kernels.h"

namespace fs = std::filesystem;
using namespace ge;

namespace {

template <class M>
M load(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw Error("cannot open " + p.string());
  M m;
  if (!m.ParseFromIstream(&f)) throw Error("cannot parse " + p.string());
  return m;
}

Tensor to_tensor(const onnx::TensorProto& t) {
  auto dt = static_cast<DataType>(t.data_type());
  Shape s(std::vector<int64_t>(t.dims().begin(), t.dims().end()));
  Tensor out = Tensor::allocate(dt, s);
  const size_t n = static_cast<size_t>(s.numel()), es = dtype_size(dt);
  if (es == 0) throw UnsupportedError("runner: tensor dtype " + std::to_string(t.data_type()));
  if (t.has_raw_data()) {
    if (t.raw_data().size() != n * es) throw Error("runner: raw_data size mismatch");
    std::memcpy(out.data(), t.raw_data().data(), n * es);
    return out;
  }
  for (size_t i = 0; i < n; ++i) {
    switch (dt) {
      case DataType::Float32: out.data_as<float>()[i] = t.float_data(i); break;
      case DataType::Float64: out.data_as<double>()[i] = t.double_data(i); break;
      case DataType::Int64: out.data_as<int64_t>()[i] = t.int64_data(i); break;
      case DataType::Int32: out.data_as<int32_t>()[i] = t.int32_data(i); break;
      case DataType::UInt8: out.data_as<uint8_t>()[i] = static_cast<uint8_t>(t.int32_data(i)); break;
      case DataType::Int8: out.data_as<int8_t>()[i] = static_cast<int8_t>(t.int32_data(i)); break;
      // int32_data carries the 16-bit types (float16/bfloat16 as bit patterns) and bool.
      case DataType::UInt16: case DataType::Float16: case DataType::BFloat16:
        out.data_as<uint16_t>()[i] = static_cast<uint16_t>(t.int32_data(i)); break;
      case DataType::Int16: out.data_as<int16_t>()[i] = static_cast<int16_t>(t.int32_data(i)); break;
      case DataType::Bool: out.data_as<bool>()[i] = t.int32_data(i) != 0; break;
      case DataType::UInt32: out.data_as<uint32_t>()[i] = static_cast<uint32_t>(t.uint64_data(i)); break;
      case DataType::UInt64: out.data_as<uint64_t>()[i] = t.uint64_data(i); break;
      default: throw UnsupportedError("runner: typed data of dtype " + std::to_string(t.data_type()));
    }
  }
  return out;
}

Attributes to_attrs(const onnx::NodeProto& n) {
  Attributes a;
  for (const auto& at : n.attribute()) {
    switch (at.type()) {
      case onnx::AttributeProto::INT: a.set(at.name(), int64_t{at.i()}); break;
      case onnx::AttributeProto::FLOAT: a.set(at.name(), at.f()); break;
      case onnx::AttributeProto::STRING: a.set(at.name(), at.s()); break;
      case onnx::AttributeProto::INTS: a.set(at.name(), std::vector<int64_t>(at.ints().begin(), at.ints().end())); break;
      case onnx::AttributeProto::FLOATS: a.set(at.name(), std::vector<float>(at.floats().begin(), at.floats().end())); break;
      case onnx::AttributeProto::STRINGS: a.set(at.name(), std::vector<std::string>(at.strings().begin(), at.strings().end())); break;
      case onnx::AttributeProto::TENSOR: a.set(at.name(), to_tensor(at.t())); break;
      default: throw UnsupportedError("runner: attribute kind of " + at.name());
    }
  }
  return a;
}

double elem(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::Float32: return t.data_as<float>()[i];
    case DataType::Float64: return t.data_as<double>()[i];
    case DataType::Float16: return half_to_float(t.data_as<uint16_t>()[i]);
    case DataType::BFloat16: {
      const uint32_t u = static_cast<uint32_t>(t.data_as<uint16_t>()[i]) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case DataType::Int64: return static_cast<double>(t.data_as<int64_t>()[i]);
    case DataType::Int32: return t.data_as<int32_t>()[i];
    case DataType::Int16: return t.data_as<int16_t>()[i];
    case DataType::Int8: return t.data_as<int8_t>()[i];
    case DataType::UInt64: return static_cast<double>(t.data_as<uint64_t>()[i]);
    case DataType::UInt32: return t.data_as<uint32_t>()[i];
    case DataType::UInt16: return t.data_as<uint16_t>()[i];
    case DataType::UInt8: return t.data_as<uint8_t>()[i];
    case DataType::Bool: return t.data_as<bool>()[i] ? 1 : 0;
    default: throw UnsupportedError("runner: compare dtype");
  }
}

/// ONNX's backend test: |got - want| <= atol + rtol |want|, NaN matching NaN, equal infinities
/// matching.
bool close(double g, double w) {
  if (std::isnan(w)) return std::isnan(g);
  if (std::isinf(w)) return g == w;
  return std::fabs(g - w) <= 1e-5 + 1e-3 * std::fabs(w);
}

/// ONNX 1.12 stores bfloat16 test data as uint16 tensors (numpy has no bfloat16): such a
/// tensor is read as the element type the graph declares when the sizes agree.
Tensor as_declared(const Tensor& t, const onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type()) return t;
  const auto dt = static_cast<DataType>(vi.type().tensor_type().elem_type());
  if (dt == t.dtype() || dtype_size(dt) != dtype_size(t.dtype()) || dtype_size(dt) == 0) return t;
  Tensor out = Tensor::allocate(dt, t.shape());
  std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

void run_once(test::KernelHarness& h, const onnx::ModelProto& m, const std::vector<Tensor>& inputs,
              const std::vector<Tensor>& want, bool weights_constant) {
  const onnx::NodeProto& n = m.graph().node(0);
  int64_t opset = 1;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  // Node inputs by name → value from input_K.pb in graph-input order.
  std::map<std::string, Tensor> by_name;
  for (int i = 0; i < m.graph().input_size() && i < static_cast<int>(inputs.size()); ++i)
    by_name[m.graph().input(i).name()] = as_declared(inputs[i], m.graph().input(i));
  for (const auto& init : m.graph().initializer()) by_name[init.name()] = to_tensor(init);
  std::vector<Tensor> node_in;
  std::set<size_t> consts;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) {
      node_in.emplace_back();
      continue;
    }
    auto it = by_name.find(n.input(i));
    if (it == by_name.end()) throw Error("runner: input " + n.input(i) + " has no data");
    node_in.push_back(it->second);
    if (weights_constant && i > 0) consts.insert(i);
  }
  // Node outputs in order; output_K.pb is the K-th graph output, an unnamed node output is
  // omitted (LSTM's Y in ['', 'Y_h']).
  std::map<std::string, size_t> want_of;
  for (int k = 0; k < m.graph().output_size() && k < static_cast<int>(want.size()); ++k)
    want_of[m.graph().output(k).name()] = static_cast<size_t>(k);
  std::vector<test::OutSpec> outs;
  std::vector<Tensor> want_typed;
  for (int k = 0; k < static_cast<int>(want.size()); ++k)
    want_typed.push_back(k < m.graph().output_size() ? as_declared(want[k], m.graph().output(k)) : want[k]);
  std::vector<size_t> node_out;  // node output index of want[k]
  node_out.resize(want.size());
  for (int i = 0; i < n.output_size(); ++i) {
    auto it = want_of.find(n.output(i));
    if (n.output(i).empty() || it == want_of.end()) {
      outs.push_back({DataType::Undefined, Shape{}});
      continue;
    }
    outs.push_back({want_typed[it->second].dtype(), want_typed[it->second].shape()});
    node_out[it->second] = static_cast<size_t>(i);
  }
  std::vector<Tensor> got_node = h.run(n.op_type(), node_in, outs, to_attrs(n), opset, consts);
  std::vector<Tensor> got;
  for (size_t k = 0; k < want.size(); ++k) got.push_back(got_node[node_out[k]]);
  for (size_t k = 0; k < want.size(); ++k) {
    if (got[k].shape() != want[k].shape()) throw Error("output " + std::to_string(k) + " shape " + got[k].shape().str() + " vs " + want[k].shape().str());
    for (int64_t i = 0; i < want[k].numel(); ++i) {
      const double g = elem(got[k], i), w = elem(want_typed[k], i);
      if (!close(g, w))
        throw Error("output " + std::to_string(k) + " element " + std::to_string(i) + ": got " + std::to_string(g) +
                    ", want " + std::to_string(w) + (weights_constant ? " (constant weights)" : " (runtime inputs)"));
    }
  }
}

/// --model: runs every node of dir/model.onnx in order; returns the worst rel L2 of the outputs.
double run_model(test::KernelHarness& h, const fs::path& dir) {
  auto m = load<onnx::ModelProto>(dir / "model.onnx");
  // The data's shapes replace symbolic input dims; data propagation sizes Shape->...->Expand chains.
  const fs::path d = dir / "test_data_set_0";
  {
    int k = 0;
    std::set<std::string> inits;
    for (const auto& init : m.graph().initializer()) inits.insert(init.name());
    for (auto& in : *m.mutable_graph()->mutable_input()) {
      if (inits.count(in.name())) continue;
      const auto t = load<onnx::TensorProto>(d / ("input_" + std::to_string(k++) + ".pb"));
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->clear_dim();
      for (int64_t dim : t.dims()) shape->add_dim()->set_dim_value(dim);
    }
  }
  onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(false, 0, true));
  int64_t opset = 1;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  std::map<std::string, const onnx::TypeProto*> types;
  for (const auto& v : m.graph().value_info()) types[v.name()] = &v.type();
  for (const auto& v : m.graph().output()) types[v.name()] = &v.type();
  std::map<std::string, Tensor> vals;
  std::set<std::string> consts;
  for (const auto& init : m.graph().initializer()) {
    vals[init.name()] = to_tensor(init);
    consts.insert(init.name());
  }
  int k = 0;
  for (const auto& in : m.graph().input()) {
    if (vals.count(in.name())) continue;
    vals[in.name()] = to_tensor(load<onnx::TensorProto>(d / ("input_" + std::to_string(k++) + ".pb")));
  }
  for (const auto& n : m.graph().node()) {
    std::vector<Tensor> in;
    std::set<size_t> cin;
    bool all_const = true;
    for (int i = 0; i < n.input_size(); ++i) {
      if (n.input(i).empty()) {
        in.emplace_back();
        continue;
      }
      auto it = vals.find(n.input(i));
      if (it == vals.end()) throw Error("model: " + n.name() + " input " + n.input(i) + " has no value");
      in.push_back(it->second);
      if (consts.count(n.input(i))) cin.insert(static_cast<size_t>(i));
      else all_const = false;
    }
    std::vector<test::OutSpec> outs;
    for (const auto& o : n.output()) {
      auto t = types.find(o);
      if (o.empty() || t == types.end() || !t->second->has_tensor_type()) {
        if (!o.empty() && n.op_type() != "Constant") throw Error("model: no inferred type for " + o);
        outs.push_back({DataType::Undefined, Shape{}});
        continue;
      }
      const auto& tt = t->second->tensor_type();
      std::vector<int64_t> dims;
      for (const auto& dd : tt.shape().dim()) {
        if (!dd.has_dim_value()) throw UnsupportedError("model: symbolic shape of " + o);
        dims.push_back(dd.dim_value());
      }
      outs.push_back({static_cast<DataType>(tt.elem_type()), Shape(dims)});
    }
    std::vector<Tensor> got;
    if (n.op_type() == "Constant") {
      got.push_back(to_tensor(n.attribute(0).t()));  // value (the only form these exports use)
    } else {
      try {
        got = h.run(n.op_type(), in, outs, to_attrs(n), opset, cin);
      } catch (const std::exception& e) {
        throw Error("model: node " + n.name() + " (" + n.op_type() + "): " + e.what());
      }
    }
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty()) continue;
      vals[n.output(i)] = got[static_cast<size_t>(i)];
      // Outputs of Constant nodes (and of nodes on constants only) are constants downstream.
      if (n.op_type() == "Constant" || (all_const && n.input_size() > 0)) consts.insert(n.output(i));
    }
  }
  double worst = 0;
  for (int i = 0; i < m.graph().output_size(); ++i) {
    Tensor want = to_tensor(load<onnx::TensorProto>(d / ("output_" + std::to_string(i) + ".pb")));
    const Tensor& got = vals.at(m.graph().output(i).name());
    if (got.shape() != want.shape()) throw Error("model: output " + std::to_string(i) + " shape " + got.shape().str() + " vs " + want.shape().str());
    double num = 0, den = 0;
    for (int64_t e = 0; e < want.numel(); ++e) {
      const double g = elem(got, e), w = elem(want, e);
      num += (g - w) * (g - w);
      den += w * w;
    }
    const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    std::cout << "  output " << m.graph().output(i).name() << " " << want.shape().str() << ": rel L2 " << rel << "\n";
    worst = std::max(worst, rel);
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  test::KernelHarness h([](Registrar& r) {
    cpu::register_conv_kernels(r);
    cpu::register_matmul_kernels(r);
    cpu::register_norm_kernels(r);
    cpu::register_pool_kernels(r);
    cpu::register_reduce_kernels(r);
    cpu::register_nn_kernels(r);
    cpu::register_elementwise_kernels(r);
    cpu::register_tensor_kernels(r);
    cpu::register_split_kernels(r);
  });
  int fails = 0, passes = 0, unsupported = 0;
  if (argc > 1 && std::string(argv[1]) == "--model") {
    for (int a = 2; a < argc; ++a) {
      const std::string name = fs::path(argv[a]).filename().string();
      try {
        const double rel = run_model(h, argv[a]);
        const bool ok = rel <= 1e-4;
        std::cout << (ok ? "PASS        " : "FAIL        ") << name << " (worst rel L2 " << rel << ")\n";
        ok ? ++passes : ++fails;
      } catch (const UnsupportedError& e) {
        std::cout << "UNSUPPORTED " << name << ": " << e.what() << "\n";
        ++unsupported;
      } catch (const std::exception& e) {
        std::cout << "FAIL        " << name << ": " << e.what() << "\n";
        ++fails;
      }
    }
    std::cout << passes << " passed, " << unsupported << " unsupported, " << fails << " failed\n";
    return fails ? 1 : 0;
  }
  for (int a = 1; a < argc; ++a) {
    fs::path dir(argv[a]);
    const std::string name = dir.filename().string();
    try {
      auto m = load<onnx::ModelProto>(dir / "model.onnx");
      if (m.graph().node_size() != 1) throw UnsupportedError("runner: " + std::to_string(m.graph().node_size()) + " nodes");
      for (const auto& v : m.graph().input())  // GE has no sequence or optional values
        if (!v.type().has_tensor_type()) throw UnsupportedError("runner: input " + v.name() + " is not a tensor");
      for (const auto& v : m.graph().output())
        if (!v.type().has_tensor_type()) throw UnsupportedError("runner: output " + v.name() + " is not a tensor");
      int sets = 0;
      for (int s = 0; fs::exists(dir / ("test_data_set_" + std::to_string(s))); ++s, ++sets) {
        fs::path d = dir / ("test_data_set_" + std::to_string(s));
        std::vector<Tensor> in, want;
        for (int k = 0; fs::exists(d / ("input_" + std::to_string(k) + ".pb")); ++k)
          in.push_back(to_tensor(load<onnx::TensorProto>(d / ("input_" + std::to_string(k) + ".pb"))));
        for (int k = 0; fs::exists(d / ("output_" + std::to_string(k) + ".pb")); ++k)
          want.push_back(to_tensor(load<onnx::TensorProto>(d / ("output_" + std::to_string(k) + ".pb"))));
        run_once(h, m, in, want, true);
        run_once(h, m, in, want, false);
      }
      std::cout << "PASS        " << name << " (" << sets << " data sets)\n";
      ++passes;
    } catch (const UnsupportedError& e) {
      std::cout << "UNSUPPORTED " << name << ": " << e.what() << "\n";
      ++unsupported;
    } catch (const std::exception& e) {
      std::cout << "FAIL        " << name << ": " << e.what() << "\n";
      ++fails;
    }
  }
  std::cout << passes << " passed, " << unsupported << " unsupported, " << fails << " failed\n";
  return fails ? 1 : 0;
}
