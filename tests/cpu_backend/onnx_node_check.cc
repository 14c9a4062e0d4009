// tests/cpu_backend/onnx_node_check.cc — runs one ONNX node test case
// (onnx-node-tests/node/test_<op>*/model.onnx + test_data_set_0) through the CPU kernels via
// the kernel harness, before the full `gec run --check` path exists. Usage:
//   onnx_node_check <case_dir> [--const]   (--const: every input is a constant at build time)
// Exit 0 = pass, 1 = mismatch, 2 = unsupported (ge::UnsupportedError), 3 = other error.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "ge/sdk/error.h"
#include "kernel_harness.h"
#include "kernels.h"

namespace {

onnx::TensorProto read_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ge::Error("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(ss.str())) throw ge::Error("cannot parse " + path);
  return t;
}

ge::Tensor to_tensor(const onnx::TensorProto& p) {
  const auto dt = static_cast<ge::DataType>(p.data_type());
  ge::Shape s(std::vector<int64_t>(p.dims().begin(), p.dims().end()));
  ge::Tensor t = ge::Tensor::allocate(dt, s);
  const size_t es = ge::dtype_size(dt);
  if (es == 0) throw ge::UnsupportedError("checker: dtype " + std::to_string(p.data_type()));
  auto* out = static_cast<char*>(t.data());
  const size_t n = static_cast<size_t>(t.numel());
  if (p.has_raw_data()) {
    std::memcpy(out, p.raw_data().data(), std::min(p.raw_data().size(), n * es));
  } else if (p.float_data_size()) {
    std::memcpy(out, p.float_data().data(), n * 4);
  } else if (p.double_data_size()) {
    std::memcpy(out, p.double_data().data(), n * 8);
  } else if (p.int64_data_size()) {
    std::memcpy(out, p.int64_data().data(), n * 8);
  } else if (p.uint64_data_size()) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = p.uint64_data(static_cast<int>(i));
      std::memcpy(out + i * es, &v, es);  // little endian: low bytes first
    }
  } else if (p.int32_data_size()) {
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = p.int32_data(static_cast<int>(i));
      std::memcpy(out + i * es, &v, es);
    }
  }
  return t;
}

ge::Attributes to_attrs(const onnx::NodeProto& n) {
  ge::Attributes a;
  for (const auto& at : n.attribute()) {
    switch (at.type()) {
      case onnx::AttributeProto::INT: a.set(at.name(), int64_t{at.i()}); break;
      case onnx::AttributeProto::FLOAT: a.set(at.name(), at.f()); break;
      case onnx::AttributeProto::STRING: a.set(at.name(), at.s()); break;
      case onnx::AttributeProto::INTS: a.set(at.name(), std::vector<int64_t>(at.ints().begin(), at.ints().end())); break;
      case onnx::AttributeProto::FLOATS: a.set(at.name(), std::vector<float>(at.floats().begin(), at.floats().end())); break;
      case onnx::AttributeProto::TENSOR: a.set(at.name(), to_tensor(at.t())); break;
      default: throw ge::UnsupportedError("checker: attribute kind of " + at.name());
    }
  }
  return a;
}

bool close(const ge::Tensor& got, const ge::Tensor& want, std::string& why) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    why = "dtype/shape " + got.shape().str() + " vs " + want.shape().str();
    return false;
  }
  if (ge::dtype_is_float(want.dtype())) {
    auto g = got.to_double_vector(), w = want.to_double_vector();
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(w[i]) && std::isnan(g[i])) continue;
      if (std::abs(g[i] - w[i]) > 1e-5 + 1e-4 * std::abs(w[i])) {
        why = "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " + std::to_string(w[i]);
        return false;
      }
    }
    return true;
  }
  if (std::memcmp(got.data(), want.data(), want.nbytes()) != 0) {
    why = "bytes differ";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 3;
  const std::string dir = argv[1];
  const bool all_const = argc > 2 && std::string(argv[2]) == "--const";
  try {
    onnx::ModelProto m;
    std::ifstream f(dir + "/model.onnx", std::ios::binary);
    if (!m.ParseFromIstream(&f)) throw ge::Error("cannot parse model");
    int64_t opset = 0;
    for (const auto& o : m.opset_import()) if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    const auto& g = m.graph();
    if (g.node_size() != 1) throw ge::UnsupportedError("checker: only single-node models");
    std::map<std::string, ge::Tensor> vals;
    for (int i = 0; i < g.input_size(); ++i) {
      vals[g.input(i).name()] = to_tensor(read_pb(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb"));
    }
    for (const auto& init : g.initializer()) vals[init.name()] = to_tensor(init);
    const auto& node = g.node(0);
    std::vector<ge::Tensor> ins;
    std::set<size_t> consts;
    for (int i = 0; i < node.input_size(); ++i) {
      ins.push_back(node.input(i).empty() ? ge::Tensor() : vals.at(node.input(i)));
      if (all_const) consts.insert(static_cast<size_t>(i));
    }
    std::vector<ge::Tensor> want;
    std::vector<ge::test::OutSpec> outs;
    for (int i = 0; i < g.output_size(); ++i) {
      want.push_back(to_tensor(read_pb(dir + "/test_data_set_0/output_" + std::to_string(i) + ".pb")));
      outs.push_back({want.back().dtype(), want.back().shape()});
    }
    ge::test::KernelHarness h([](ge::Registrar& r) {
      ge::cpu::register_elementwise_kernels(r);
      ge::cpu::register_tensor_kernels(r);
    });
    auto got = h.run(node.op_type(), ins, outs, to_attrs(node), opset, consts, 2);
    for (size_t i = 0; i < want.size(); ++i) {
      std::string why;
      if (!close(got[i], want[i], why)) {
        std::cout << "FAIL " << dir << " output " << i << ": " << why << "\n";
        return 1;
      }
    }
    std::cout << "PASS " << dir << "\n";
    return 0;
  } catch (const ge::UnsupportedError& e) {
    std::cout << "UNSUPPORTED " << dir << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cout << "ERROR " << dir << ": " << e.what() << "\n";
    return 3;
  }
}
