// plugins/ascend_backend/tiling_load.cc — load-time verification of a node's stored tiling
// (tiling_load.h).
#include "tiling_load.h"

#include <map>
#include <memory>
#include <mutex>

#include "ge/sdk/error.h"
#include "tensor_io.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

[[noreturn]] void refuse(const Node& n, const std::string& what) { throw Error("ascend: " + who(n) + ": " + what); }

void same(const Node& n, const char* field, int64_t stored, int64_t expected) {
  if (stored != expected)
    refuse(n, std::string("corrupted tiling: ") + field + " = " + std::to_string(stored) + " but the node's shapes give " +
                  std::to_string(expected));
}

}  // namespace

KernelFactory aicpu_only(KernelFactory f, const std::string& platform_dir) {
  return [f = std::move(f), platform_dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> {
    if (load_task(c.node, platform_dir).engine != Engine::AiCpu)
      refuse(c.node, std::string("corrupted tiling: ") + kAttrEngine + " = '" + c.node.attrs.get_string(kAttrEngine, "") +
                         "' but the op has only an AI CPU kernel");
    return f(c);
  };
}

std::string platform_dir_of(const std::string& plugin_dir) { return plugin_dir + "/ascend/platforms"; }

const Platform& cached_platform(const std::string& dir, const std::string& soc) {
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<Platform>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& p = cache[{dir, soc}];
  if (!p) p = std::make_unique<Platform>(load_platform(dir, soc));
  return *p;
}

StoredTask load_task(const Node& n, const std::string& platform_dir) {
  if (!n.attrs.has(kAttrEngine))
    refuse(n, std::string("no ") + kAttrEngine + " attribute: the graph was not compiled by the ascend_tiling pass (an older plan?); "
                                                 "recompile it for backend ascend");
  const std::string engine = n.attrs.get_string(kAttrEngine, "");
  const int64_t block_dim = n.attrs.get_int(kAttrBlockDim, -1);
  StoredTask t;
  if (engine == "aicpu") {
    if (block_dim != 1) refuse(n, std::string("corrupted tiling: an AI CPU task has ") + kAttrBlockDim + " = " + std::to_string(block_dim) + ", not 1");
    return t;
  }
  if (engine != "cube" && engine != "vector")
    refuse(n, std::string("corrupted tiling: ") + kAttrEngine + " = '" + engine + "' (known: cube, vector, aicpu)");
  if (!n.attrs.has(kAttrTiling)) refuse(n, std::string("corrupted tiling: engine ") + engine + " without " + kAttrTiling);
  if (!n.attrs.has(kAttrSoc)) refuse(n, std::string("corrupted tiling: no ") + kAttrSoc + " attribute");
  const std::string soc = n.attrs.get_string(kAttrSoc, "");
  const Platform* pp = nullptr;
  try {
    pp = &cached_platform(platform_dir, soc);
  } catch (const Error& e) {
    refuse(n, std::string("the platform of its tiling (") + kAttrSoc + " '" + soc + "'): " + e.what());
  }
  const Platform& p = *pp;
  const std::string name = "ascend: " + who(n);
  const std::vector<int64_t> enc = n.attrs.get_ints(kAttrTiling);
  if (engine == "cube") {
    t.engine = Engine::Cube;
    if (!is_cube_op(n)) refuse(n, "corrupted tiling: engine cube for an op the Cube does not run");
    for (size_t i = 0; i < 2 && i < n.num_inputs(); ++i)
      if (n.input(i) && n.input(i)->dtype != DataType::Float16)
        refuse(n, "corrupted tiling: engine cube for a " + std::string(dtype_name(n.input(i)->dtype)) + " input (the Cube multiplies fp16 only)");
    CubeTiling c = decode_cube(enc, name);
    std::string why;
    const std::optional<CubeTiling> prob = cube_problem(n, &why);
    if (!prob) refuse(n, "corrupted tiling: engine cube but " + why);
    same(n, "batch", c.batch, prob->batch), same(n, "M", c.M, prob->M), same(n, "N", c.N, prob->N), same(n, "K", c.K, prob->K);
    check(c, p, name);
    same(n, kAttrBlockDim, block_dim, c.block_dim);
    t.cube = c;
  } else {
    t.engine = Engine::Vector;
    VectorTiling v = decode_vector(enc, name);
    std::string why;
    const std::optional<VectorTiling> prob = vector_problem(n, p.get_int("alignment.ub"), &why);
    if (!prob) refuse(n, "corrupted tiling: engine vector but " + why);
    same(n, "units", v.units, prob->units), same(n, "unit_elements", v.unit_elements, prob->unit_elements);
    same(n, "ub_bytes_per_unit", v.ub_bytes_per_unit, prob->ub_bytes_per_unit);
    check(v, p, name);
    same(n, kAttrBlockDim, block_dim, v.block_dim);
    t.vector = v;
  }
  return t;
}

}  // namespace ge::ascend
