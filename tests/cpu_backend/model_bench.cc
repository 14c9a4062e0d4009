// tests/cpu_backend/model_bench.cc — a developer tool: runs a static-shaped ONNX model straight
// on the CPU kernels (no core: ONNX's own shape inference, one kernel per node, every value in
// its own buffer, nodes in file order), checks test_data_set_0 and times the run. It measures
// the kernels, not GE's runtime (no fusion, no arena, no layout pass).
//
//   model_bench <model.onnx> [threads] [iterations]
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cpu_backend.h"
#include "ge/sdk/error.h"
#include "kernel_harness.h"
#include "kernels.h"

namespace fs = std::filesystem;
using namespace ge;

namespace {

Tensor to_tensor(const onnx::TensorProto& t) {
  auto dt = static_cast<DataType>(t.data_type());
  Tensor out = Tensor::allocate(dt, Shape(std::vector<int64_t>(t.dims().begin(), t.dims().end())));
  const size_t n = out.numel();
  if (t.has_raw_data()) std::memcpy(out.data(), t.raw_data().data(), out.nbytes());
  else if (dt == DataType::Float32) for (size_t i = 0; i < n; ++i) out.data_as<float>()[i] = t.float_data(i);
  else if (dt == DataType::Int64) for (size_t i = 0; i < n; ++i) out.data_as<int64_t>()[i] = t.int64_data(i);
  else if (n) throw Error("bench: typed data of dtype " + std::to_string(t.data_type()));
  return out;
}

Tensor load_pb(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  onnx::TensorProto t;
  if (!t.ParseFromIstream(&f)) throw Error("cannot parse " + p.string());
  return to_tensor(t);
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
      case onnx::AttributeProto::TENSOR: a.set(at.name(), to_tensor(at.t())); break;
      default: throw Error("bench: attribute kind of " + at.name());
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) throw Error("usage: model_bench <model.onnx> [threads] [iterations]");
  const fs::path path(argv[1]);
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1, iters = argc > 3 ? std::atoi(argv[3]) : 20;
  onnx::ModelProto m;
  {
    std::ifstream f(path, std::ios::binary);
    if (!m.ParseFromIstream(&f)) throw Error("cannot parse " + path.string());
  }
  onnx::shape_inference::InferShapes(m);
  test::CollectingRegistrar reg;
  for (auto fn : {cpu::register_conv_kernels, cpu::register_matmul_kernels, cpu::register_norm_kernels,
                  cpu::register_pool_kernels, cpu::register_reduce_kernels, cpu::register_elementwise_kernels,
                  cpu::register_tensor_kernels})
    fn(reg);
  reg.backends.push_back(cpu::make_cpu_backend());
  reg.backends[0]->set_threads(threads);

  Graph g("bench");
  for (const auto& o : m.opset_import())
    if (o.domain().empty()) g.opsets[""] = o.version();
  auto type_of = [](const onnx::ValueInfoProto& v) {
    std::vector<int64_t> d;
    for (const auto& x : v.type().tensor_type().shape().dim()) d.push_back(x.dim_value());
    return std::make_pair(static_cast<DataType>(v.type().tensor_type().elem_type()), Shape(d));
  };
  for (const auto& init : m.graph().initializer()) g.add_constant(init.name(), to_tensor(init));
  std::vector<Value*> inputs;
  for (const auto& in : m.graph().input())
    if (!g.find_value(in.name())) {
      auto [t, s] = type_of(in);
      inputs.push_back(g.add_input(in.name(), t, s));
    }
  std::map<std::string, std::pair<DataType, Shape>> infos;
  for (const auto& v : m.graph().value_info()) infos[v.name()] = type_of(v);
  for (const auto& v : m.graph().output()) infos[v.name()] = type_of(v);
  for (const auto& n : m.graph().node()) {
    std::vector<Value*> ins, outs;
    for (const auto& i : n.input()) ins.push_back(i.empty() ? nullptr : g.find_value(i));
    for (const auto& o : n.output()) {
      auto it = infos.find(o);
      if (it == infos.end()) throw Error("no inferred shape for " + o);
      outs.push_back(g.add_value(o, it->second.first, it->second.second));
    }
    g.add_node(n.op_type(), n.name(), ins, outs, to_attrs(n));
  }
  // Kernels and buffers.
  std::map<const Value*, Tensor> buf;
  struct Step { Node* n; std::unique_ptr<Kernel> k; std::vector<Tensor> in, out; double ms = 0; };
  std::vector<Step> steps;
  for (Node* n : g.nodes()) {
    const KernelDef* def = reg.kernels.find("cpu", "", n->op_type());
    if (!def) throw Error("no cpu kernel for " + n->op_type());
    Step s{n, def->factory(KernelBuildContext{*n, g.opset(""), threads}), {}, {}};
    for (Value* v : n->outputs()) buf[v] = Tensor::allocate(v->dtype, v->shape);
    steps.push_back(std::move(s));
  }
  for (Value* v : g.values())
    if (v->is_constant()) buf[v] = *v->data;
  const fs::path data = path.parent_path() / "test_data_set_0";
  for (size_t i = 0; i < inputs.size(); ++i) {
    buf[inputs[i]] = load_pb(data / ("input_" + std::to_string(i) + ".pb"));
  }
  for (Step& s : steps) {
    for (Value* v : s.n->inputs()) s.in.push_back(v ? buf[v] : Tensor());
    for (Value* v : s.n->outputs()) s.out.push_back(buf[v]);
  }
  auto run_all = [&](bool profile) {
    for (Step& s : steps) {
      auto t0 = std::chrono::steady_clock::now();
      KernelIO io{s.in, s.out};
      s.k->run(io);
      if (profile) s.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  };
  run_all(false);
  // Check output 0 by relative L2 error (models/README.md).
  Tensor want = load_pb(data / "output_0.pb");
  const Tensor& got = buf[g.find_value(m.graph().output(0).name())];
  double num = 0, den = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double d = got.data_as<float>()[i] - want.data_as<float>()[i];
    num += d * d;
    den += static_cast<double>(want.data_as<float>()[i]) * want.data_as<float>()[i];
  }
  std::cout << "relative L2 error " << std::sqrt(num / std::max(den, 1e-30)) << "\n";
  std::vector<double> times;
  for (int it = 0; it < iters; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    run_all(true);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::cout << "median " << times[times.size() / 2] << " ms, min " << times[0] << " ms (" << threads << " threads)\n";
  std::map<std::string, double> per_op;
  for (Step& s : steps) per_op[s.n->op_type() + " " + s.k->impl_name()] += s.ms / iters;
  for (auto& [k, v] : per_op) std::cout << "  " << v << " ms  " << k << "\n";
  if (std::getenv("GE_BENCH_NODES"))  // per-node times, for comparing kernel variants
    for (Step& s : steps) std::cout << "node " << s.n->name() << " " << s.n->op_type() << " " << s.ms / iters << " " << s.k->impl_name() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "model_bench: " << e.what() << "\n";
  return 1;
}
