// Plan files: the fixed preamble, the checksum, the memory mapping and the producer checks
// (layout in ge/core/plan.h). The graph itself is converted in plan_graph.cc.
#include <fcntl.h>
#include <xxhash.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "ge/core/dynamic.h"
#include "ge/core/file_io.h"
#include <onnx/onnx_pb.h>

#include "ge/core/plan.h"
#include "ge/core/semver.h"
#include "ge/sdk/error.h"
#include "ge/sdk/plugin.h"
#include "plan_graph.h"

namespace fs = std::filesystem;

namespace ge::core {

namespace {

static_assert(std::endian::native == std::endian::little, "plan files are read by direct loads of little-endian fields");

constexpr size_t kPreamble = 128, kSumOffset = 64, kSumSize = 32;

// Field offsets inside the preamble.
enum : size_t {
  kOffVersion = 8, kOffAbiMajor = 12, kOffAbiMinor = 16, kOffHeaderOff = 24, kOffHeaderSize = 32,
  kOffWeightsOff = 40, kOffWeightsSize = 48, kOffFileSize = 56
};

template <class T> T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}
template <class T> void put(uint8_t* p, size_t off, T v) { std::memcpy(p + off, &v, sizeof v); }

// XXH3-128 (xxHash, https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md) of every byte
// but the checksum field itself, in its first 16 bytes; the other 16 are zero. It detects
// truncation and corruption, not tampering (it is not a cryptographic hash), at ~30 GB/s: a
// 100 MB plan is checked in a few ms where SHA-256 took ~60 ms of every load.
void checksum(const uint8_t* p, size_t n, uint8_t out[kSumSize]) {
  XXH3_state_t* st = XXH3_createState();
  bool ok = st && XXH3_128bits_reset(st) == XXH_OK && XXH3_128bits_update(st, p, kSumOffset) == XXH_OK &&
            XXH3_128bits_update(st, p + kSumOffset + kSumSize, n - kSumOffset - kSumSize) == XXH_OK;
  XXH128_hash_t h{};
  if (ok) h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  if (!ok) throw Error("XXH3-128 failed (libxxhash)");
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  std::memset(out, 0, kSumSize);
  std::memcpy(out, c.digest, sizeof c.digest);
}

// The read-only file mapped privately: pages are shared with the page cache until written, and a
// kernel that wrote to a constant would only change its own copy.
struct Mapping {
  void* addr = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (addr != MAP_FAILED) munmap(addr, size);
  }
};

void check_plugins(const planfile::Header& h, const Environment& env, const std::string& what) {
  for (const auto& p : h.plugins()) {
    std::string produced = what + " was produced by plugin '" + p.name() + "' " + p.version() + "; ";
    const PluginInfo* have = nullptr;
    for (const PluginInfo& i : env.plugins)
      if (i.name == p.name()) have = &i;
    if (!have) throw Error(produced + "this environment has none");
    Version want, got;
    try {
      want = parse_version(p.version(), "");
      got = parse_version(have->version, "");
    } catch (const Error&) {
      throw Error(produced + "this environment has " + have->version + " (versions not comparable)");
    }
    if (want.major != got.major) throw Error(produced + "this environment has " + have->version + " (major differs)");
  }
}

void check_kernels(const Graph& g, const std::string& backend, const Environment& env, const std::string& what) {
  if (!env.backends.count(backend)) throw Error(what + " runs on backend '" + backend + "', which this environment lacks");
  for (const Node* n : g.nodes())
    if (!env.kernels.find(backend, n->domain(), n->op_type()))
      throw Error(what + ": " + n->describe() + " is bound to a " + backend + " kernel for " +
                  (n->domain().empty() ? "" : n->domain() + ".") + n->op_type() + ", which this environment lacks");
}

/// Records the manifest's section options (compile- and run-time alike: the loader compares only
/// the compile-time ones) in the header.
void record_compile_options(planfile::Header& h, const Environment& env) {
  h.set_records_compile_options(true);
  for (const auto& [section, keys] : env.manifest.sections)
    for (const auto& [key, val] : keys) {
      auto* o = h.add_compile_options();
      o->set_key(section + "." + key);
      o->set_toml(val.toml);
    }
}

std::optional<std::map<std::string, std::string>> read_compile_options(const planfile::Header& h) {
  if (!h.records_compile_options()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& o : h.compile_options()) out[o.key()] = o.toml();
  return out;
}

}  // namespace

static std::vector<uint8_t> assemble(const planfile::Header& h, const std::vector<uint8_t>& weights, const std::string& what);
static PlanContents parse_dynamic(const planfile::Header& h, const uint8_t* weights, uint64_t wsize,
                                  const std::shared_ptr<void>& keepalive, const Environment& env, const std::string& w);

std::vector<uint8_t> serialize_plan(const Graph& g, const Environment& env, const std::string& backend) {
  planfile::Header h;
  for (const PluginInfo& p : env.plugins) {
    auto* pp = h.add_plugins();
    pp->set_name(p.name);
    pp->set_version(p.version);
  }
  record_compile_options(h, env);
  std::vector<uint8_t> weights;
  plan_detail::graph_to_header(g, backend, h, weights);
  check_kernels(g, backend, env, "graph '" + g.name + "'");
  try {
    plan_detail::write_sections(g, env, backend, h, weights.size());
  } catch (const Error& e) {
    throw Error("graph '" + g.name + "': " + e.what());
  }
  return assemble(h, weights, "graph '" + g.name + "'");
}

static std::vector<uint8_t> assemble(const planfile::Header& h, const std::vector<uint8_t>& weights, const std::string& what) {
  std::string header;
  if (!h.SerializeToString(&header)) throw Error("cannot serialize the plan header of " + what);

  uint64_t weights_off = (kPreamble + header.size() + 63) / 64 * 64;
  std::vector<uint8_t> out(weights_off + weights.size(), 0);
  std::memcpy(out.data(), kPlanMagic, sizeof kPlanMagic);
  put<uint32_t>(out.data(), kOffVersion, kPlanFormatVersion);
  put<uint32_t>(out.data(), kOffAbiMajor, GE_SDK_ABI_MAJOR);
  put<uint32_t>(out.data(), kOffAbiMinor, GE_SDK_ABI_MINOR);
  put<uint64_t>(out.data(), kOffHeaderOff, kPreamble);
  put<uint64_t>(out.data(), kOffHeaderSize, header.size());
  put<uint64_t>(out.data(), kOffWeightsOff, weights_off);
  put<uint64_t>(out.data(), kOffWeightsSize, weights.size());
  put<uint64_t>(out.data(), kOffFileSize, out.size());
  std::memcpy(out.data() + kPreamble, header.data(), header.size());
  if (!weights.empty()) std::memcpy(out.data() + weights_off, weights.data(), weights.size());
  reseal_plan(out);
  return out;
}

void reseal_plan(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kPreamble) return;
  checksum(bytes.data(), bytes.size(), bytes.data() + kSumOffset);
}

void save_plan(const Graph& g, const Environment& env, const std::string& backend, const std::string& path) {
  std::vector<uint8_t> bytes = serialize_plan(g, env, backend);
  write_file_atomically(path, std::string(bytes.begin(), bytes.end()), "plan");
}

bool is_plan_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;  // a FIFO would block the read
  std::ifstream in(path, std::ios::binary);
  char m[sizeof kPlanMagic] = {};
  return in.read(m, sizeof m) && std::memcmp(m, kPlanMagic, sizeof m) == 0;
}

static planfile::Header read_header_unchecked(const std::string& path);

std::string plan_backend(const std::string& path) { return read_header_unchecked(path).backend(); }

bool plan_is_dynamic(const std::string& path) { return read_header_unchecked(path).has_dynamic(); }

static planfile::Header read_header_unchecked(const std::string& path) {
  std::string w = "plan '" + path + "'";
  require_regular_file(path, "plan", UINT64_MAX);
  std::ifstream in(path, std::ios::binary);
  uint8_t pre[kPreamble] = {};
  if (!in.read(reinterpret_cast<char*>(pre), kPreamble) || std::memcmp(pre, kPlanMagic, sizeof kPlanMagic) != 0)
    throw Error(w + " is not a readable GE plan");
  uint64_t hoff = get<uint64_t>(pre, kOffHeaderOff), hsize = get<uint64_t>(pre, kOffHeaderSize);
  if (hoff != kPreamble || hsize > (uint64_t{1} << 31)) throw Error(w + " has an unreadable header");
  std::string header(hsize, '\0');
  planfile::Header h;
  if (!in.read(header.data(), static_cast<std::streamsize>(hsize)) || !h.ParseFromString(header))
    throw Error(w + " has an unreadable header");
  return h;
}

PlanContents parse_plan(const uint8_t* p, size_t size, std::shared_ptr<void> keepalive, const Environment& env,
                        const std::string& what) {
  std::string w = "plan '" + what + "'";
  if (size < sizeof kPlanMagic || std::memcmp(p, kPlanMagic, sizeof kPlanMagic) != 0)
    throw Error(w + " is not a GE plan (wrong magic bytes)");
  if (size < kPreamble)
    throw Error(w + " is truncated (" + std::to_string(size) + " bytes, shorter than the " + std::to_string(kPreamble) +
                "-byte preamble)");
  uint32_t version = get<uint32_t>(p, kOffVersion);
  if (version != kPlanFormatVersion)
    throw Error(w + " has format version " + std::to_string(version) + "; this GE reads version " +
                std::to_string(kPlanFormatVersion) + " (recompile the model)");
  uint32_t abi = get<uint32_t>(p, kOffAbiMajor);
  if (abi != GE_SDK_ABI_MAJOR)
    throw Error(w + " was produced with SDK ABI " + std::to_string(abi) + "." + std::to_string(get<uint32_t>(p, kOffAbiMinor)) +
                "; this GE has ABI " + std::to_string(GE_SDK_ABI_MAJOR) + "." + std::to_string(GE_SDK_ABI_MINOR));
  uint64_t file_size = get<uint64_t>(p, kOffFileSize);
  if (size < file_size)
    throw Error(w + " is truncated (" + std::to_string(size) + " of " + std::to_string(file_size) + " bytes)");
  if (size > file_size)
    throw Error(w + " has " + std::to_string(size - file_size) + " bytes after its end (" + std::to_string(file_size) + " bytes)");
  uint64_t hoff = get<uint64_t>(p, kOffHeaderOff), hsize = get<uint64_t>(p, kOffHeaderSize);
  uint64_t woff = get<uint64_t>(p, kOffWeightsOff), wsize = get<uint64_t>(p, kOffWeightsSize);
  // Each comparison subtracts only what an earlier one showed to be smaller: no overflow.
  if (hoff != kPreamble || hsize > size - hoff || woff < hoff + hsize || woff % 64 != 0 || woff > size ||
      wsize != size - woff)
    throw Error(w + " has sections outside the file (header at " + std::to_string(hoff) + ", " + std::to_string(hsize) +
                " bytes; weights at " + std::to_string(woff) + ", " + std::to_string(wsize) + " bytes; file " +
                std::to_string(size) + " bytes)");
  uint8_t sum[kSumSize];
  checksum(p, size, sum);
  if (std::memcmp(sum, p + kSumOffset, kSumSize) != 0) throw Error(w + " is corrupted (checksum mismatch)");

  planfile::Header h;
  if (hsize > static_cast<uint64_t>(std::numeric_limits<int>::max()) || !h.ParseFromArray(p + hoff, static_cast<int>(hsize)))
    throw Error(w + " has an unreadable header");
  check_plugins(h, env, w);
  PlanContents c;
  if (h.has_dynamic()) {
    c = parse_dynamic(h, p + woff, wsize, keepalive, env, w);
    c.file_bytes = size;
    c.header_bytes = hsize;
    c.weights_bytes = wsize;
    return c;
  }
  try {
    c.graph = plan_detail::header_to_graph(h, p + woff, wsize, keepalive);
  } catch (const std::bad_alloc&) {
    throw Error(w + ": the graph does not fit in memory");
  } catch (const Error& e) {
    throw Error(w + ": " + e.what());
  }
  c.graph->ops = &env.ops;
  check_kernels(*c.graph, h.backend(), env, w);
  try {
    plan_detail::check_invariants(*c.graph, env);
    plan_detail::validate_sections(*c.graph, env, h, wsize);
  } catch (const Error& e) {
    throw Error(w + ": " + e.what());
  }
  for (const auto& s : h.sections()) c.sections.push_back({s.name(), s.plugin(), s.data()});
  c.backend = h.backend();
  for (const auto& pl : h.plugins()) c.plugins.emplace_back(pl.name(), pl.version());
  c.compile_options = read_compile_options(h);
  c.file_bytes = size;
  c.header_bytes = hsize;
  c.weights_bytes = wsize;
  return c;
}

PlanContents load_plan(const std::string& path, const Environment& env) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO: refused below, not waited on
  if (fd < 0) throw Error("plan '" + path + "': cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("plan '" + path + "' is not a regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<size_t>(st.st_size);
  if (m->size > 0) m->addr = ::mmap(nullptr, m->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m->size == 0) return parse_plan(nullptr, 0, nullptr, env, path);
  if (m->addr == MAP_FAILED) throw Error("plan '" + path + "': cannot map (" + std::strerror(errno) + ")");
  return parse_plan(static_cast<const uint8_t*>(m->addr), m->size, m, env, path);
}


// ---- dynamic plans (ge/core/dynamic.h): Header.dynamic holds the gears, each a full graph
// header of its own, over the one weights section.

namespace {

void put_symbolic(const SymbolicTensor& t, planfile::SymbolicTensor& p) {
  p.set_name(t.name);
  p.set_dtype(static_cast<int32_t>(t.dtype));
  p.set_no_shape(!t.has_shape);
  for (const SymbolicDim& d : t.dims) {
    auto* pd = p.add_dims();
    pd->set_param(d.param);
    pd->set_value(d.value);
  }
}

SymbolicTensor get_symbolic(const planfile::SymbolicTensor& p, const std::string& what) {
  SymbolicTensor t;
  t.name = p.name();
  t.dtype = static_cast<DataType>(p.dtype());
  t.has_shape = !p.no_shape();
  if (p.dims_size() > 16) throw Error(what + " has rank " + std::to_string(p.dims_size()) + " (at most 16)");
  for (const auto& pd : p.dims()) {
    SymbolicDim d;
    d.param = pd.param();
    d.value = pd.value();
    if (d.param.empty() && (d.value < 0 || d.value > (int64_t{1} << 40)))
      throw Error(what + " has an invalid extent " + std::to_string(d.value));
    t.dims.push_back(d);
  }
  return t;
}

}  // namespace

std::vector<uint8_t> serialize_dynamic_plan(const DynamicPlan& p, const Environment& env) {
  const DynamicSpec& s = p.spec;
  planfile::Header h;
  for (const PluginInfo& pi : env.plugins) {
    auto* pp = h.add_plugins();
    pp->set_name(pi.name);
    pp->set_version(pi.version);
  }
  record_compile_options(h, env);
  h.set_graph_name(fs::path(s.source_name).stem().string());
  h.set_backend(s.backend);
  // The source model's large initializers go into the weights section first, aligned, so that the
  // gears' constants equal to them (weights a pass left as they were) are stored once; the model
  // itself follows without their raw bytes.
  std::vector<uint8_t> weights;
  plan_detail::WeightDedupe dedupe;
  auto* d = h.mutable_dynamic();
  onnx::ModelProto model;
  const std::string full = s.source_bytes();
  if (!model.ParseFromString(full)) throw Error("model '" + s.source_name + "': the source model is not an ONNX model");
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.raw_data().size() < 4096 || t.data_location() == onnx::TensorProto::EXTERNAL) continue;
    auto* st = d->add_source_tensors();
    st->set_name(t.name());
    st->set_offset(plan_detail::store_weight_bytes(reinterpret_cast<const uint8_t*>(t.raw_data().data()),
                                                   t.raw_data().size(), weights, &dedupe));
    st->set_size(t.raw_data().size());
    t.clear_raw_data();
  }
  std::string stripped;
  if (!model.SerializeToString(&stripped)) throw Error("model '" + s.source_name + "': the source model could not be stored");
  d->set_source_offset(plan_detail::store_weight_bytes(reinterpret_cast<const uint8_t*>(stripped.data()), stripped.size(),
                                                       weights, nullptr));
  d->set_source_size(stripped.size());
  d->set_source_name(s.source_name);
  for (const SymbolicTensor& t : s.inputs) put_symbolic(t, *d->add_inputs());
  for (const SymbolicTensor& t : s.outputs) put_symbolic(t, *d->add_outputs());
  for (const std::string& x : s.paddable) d->add_paddable(x);
  d->set_cache_size(static_cast<uint32_t>(s.cache_size));
  d->set_opt_level(static_cast<int32_t>(s.opt_level));
  d->set_strict_numerics(s.strict_numerics);
  for (const std::string& x : s.disabled) d->add_disabled(x);
  for (const GearGraph& gg : p.gears) {
    const std::string what = "gear " + binding_str(gg.binding);
    auto* pg = d->add_gears();
    for (auto& [sym, v] : gg.binding) {
      pg->add_symbols(sym);
      pg->add_values(v);
    }
    plan_detail::graph_to_header(*gg.graph, s.backend, *pg->mutable_plan(), weights, &dedupe);
    check_kernels(*gg.graph, s.backend, env, what);
  }
  // Backend sections see the whole weights section (the size every gear is checked against at
  // load), so they are written once every gear has stored its constants.
  for (size_t k = 0; k < p.gears.size(); ++k) {
    const GearGraph& gg = p.gears[k];
    try {
      plan_detail::write_sections(*gg.graph, env, s.backend, *d->mutable_gears(static_cast<int>(k))->mutable_plan(),
                                  weights.size());
    } catch (const Error& e) {
      throw Error("gear " + binding_str(gg.binding) + ": " + e.what());
    }
  }
  return assemble(h, weights, "model '" + s.source_name + "'");
}

void save_dynamic_plan(const DynamicPlan& p, const Environment& env, const std::string& path) {
  std::vector<uint8_t> bytes = serialize_dynamic_plan(p, env);
  write_file_atomically(path, std::string(bytes.begin(), bytes.end()), "plan");
}

static PlanContents parse_dynamic(const planfile::Header& h, const uint8_t* weights, uint64_t wsize,
                                  const std::shared_ptr<void>& keepalive, const Environment& env, const std::string& w) {
  const planfile::Dynamic& d = h.dynamic();
  if (h.nodes_size() || h.values_size())
    throw Error(w + ": a dynamic plan holds its graphs in its gears, but its header has a graph of its own");
  if (d.source_offset() > wsize || d.source_size() > wsize - d.source_offset() || d.source_size() == 0)
    throw Error(w + ": the source model lies outside the weights section (offset " + std::to_string(d.source_offset()) +
                ", " + std::to_string(d.source_size()) + " bytes, section " + std::to_string(wsize) + ")");
  auto dp = std::make_shared<DynamicPlan>();
  DynamicSpec& s = dp->spec;
  s.source_name = d.source_name();
  s.source_data = weights + d.source_offset();
  s.source_size = d.source_size();
  s.keepalive = keepalive;
  for (const auto& st : d.source_tensors()) {
    if (st.offset() > wsize || st.size() > wsize - st.offset() || st.name().empty())
      throw Error(w + ": source initializer '" + st.name() + "' lies outside the weights section (offset " +
                  std::to_string(st.offset()) + ", " + std::to_string(st.size()) + " bytes, section " + std::to_string(wsize) + ")");
    s.source_tensors.push_back({st.name(), weights + st.offset(), static_cast<size_t>(st.size())});
  }
  for (int i = 0; i < d.inputs_size(); ++i) s.inputs.push_back(get_symbolic(d.inputs(i), w + ": input #" + std::to_string(i)));
  for (int i = 0; i < d.outputs_size(); ++i) s.outputs.push_back(get_symbolic(d.outputs(i), w + ": output #" + std::to_string(i)));
  const std::vector<std::string> syms = s.symbols();
  for (const auto& x : d.paddable()) {
    if (std::find(syms.begin(), syms.end(), x) == syms.end())
      throw Error(w + ": paddable '" + x + "' is no symbol of the inputs");
    s.paddable.push_back(x);
  }
  if (d.cache_size() < 1 || d.cache_size() > 4096)
    throw Error(w + ": specialization cache size " + std::to_string(d.cache_size()) + " is outside 1..4096");
  s.cache_size = d.cache_size();
  if (d.opt_level() < 0 || d.opt_level() > 3) throw Error(w + ": invalid opt level " + std::to_string(d.opt_level()));
  s.opt_level = static_cast<OptLevel>(d.opt_level());
  s.strict_numerics = d.strict_numerics();
  for (const auto& x : d.disabled()) s.disabled.push_back(x);
  s.backend = h.backend();
  for (int i = 0; i < d.gears_size(); ++i) {
    const planfile::Gear& pg = d.gears(i);
    std::string gw = w + ": gear #" + std::to_string(i);
    if (pg.symbols_size() != pg.values_size()) throw Error(gw + " has " + std::to_string(pg.symbols_size()) +
                                                           " symbols but " + std::to_string(pg.values_size()) + " values");
    GearGraph gg;
    for (int k = 0; k < pg.symbols_size(); ++k) {
      if (std::find(syms.begin(), syms.end(), pg.symbols(k)) == syms.end() || gg.binding.count(pg.symbols(k)) ||
          pg.values(k) < 1)
        throw Error(gw + " binds '" + pg.symbols(k) + "' to " + std::to_string(pg.values(k)) +
                    " (not a symbol of the inputs, bound twice, or below 1)");
      gg.binding[pg.symbols(k)] = pg.values(k);
    }
    if (gg.binding.size() != syms.size()) throw Error(gw + " does not bind every symbol of the inputs");
    gw = w + ": gear " + binding_str(gg.binding);
    try {
      gg.graph = plan_detail::header_to_graph(pg.plan(), weights, wsize, keepalive);
    } catch (const std::bad_alloc&) {
      throw Error(gw + ": the graph does not fit in memory");
    } catch (const Error& e) {
      throw Error(gw + ": " + e.what());
    }
    gg.graph->ops = &env.ops;  // op contracts (views, op classes) for the checks below and the runtime
    check_kernels(*gg.graph, h.backend(), env, gw);
    try {
      plan_detail::check_invariants(*gg.graph, env);
      plan_detail::validate_sections(*gg.graph, env, pg.plan(), wsize);
    } catch (const Error& e) {
      throw Error(gw + ": " + e.what());
    }
    // The gear's inputs must be the binding's shapes.
    const auto shapes = input_shapes_for(s, gg.binding);
    if (gg.graph->inputs().size() != s.inputs.size()) throw Error(gw + ": its graph has another number of inputs");
    for (size_t k = 0; k < s.inputs.size(); ++k) {
      const Value* v = gg.graph->inputs()[k];
      if (v->name() != s.inputs[k].name || v->shape.dims() != shapes.at(s.inputs[k].name))
        throw Error(gw + ": graph input '" + v->name() + "' does not have the gear's shape");
    }
    dp->gears.push_back(std::move(gg));
  }
  PlanContents c;
  c.dynamic = dp;
  if (!dp->gears.empty()) c.graph = dp->gears.front().graph;
  c.backend = h.backend();
  for (const auto& pl : h.plugins()) c.plugins.emplace_back(pl.name(), pl.version());
  c.compile_options = read_compile_options(h);
  return c;
}

}  // namespace ge::core
