// Dynamic shapes (ge/core/dynamic.h): binding input shapes to the model's symbols, gears,
// per-shape specialization with an LRU cache, and the executor that picks what runs.
#include "ge/core/dynamic.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "ge/core/file_io.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "stages.h"
#include "ge/sdk/log.h"
#include "ge/sdk/error.h"
#include "ge/sdk/verifier.h"

namespace fs = std::filesystem;

namespace ge::core {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string shape_text(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.rank(); ++i) r += (i ? "," : "") + std::to_string(s.dims()[i]);
  return r + "]";
}

int64_t parse_extent(const std::string& t, const std::string& where) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != t.size() || t.empty() || v < 1 || v > (int64_t{1} << 40))
    throw Error(where + ": '" + t + "' is not an extent (an integer >= 1)");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Copies the leading `region` corner of `src` (row-major, ND) into `dst`, both of rank r.
void copy_corner(const uint8_t* src, const std::vector<int64_t>& sdims, uint8_t* dst, const std::vector<int64_t>& ddims,
                 const std::vector<int64_t>& region, size_t esize) {
  const size_t r = region.size();
  if (r == 0) {
    std::memcpy(dst, src, esize);
    return;
  }
  for (int64_t d : region)
    if (d == 0) return;
  std::vector<int64_t> sstr(r, 1), dstr(r, 1);
  for (size_t i = r - 1; i > 0; --i) sstr[i - 1] = sstr[i] * sdims[i], dstr[i - 1] = dstr[i] * ddims[i];
  const size_t row = static_cast<size_t>(region[r - 1]) * esize;
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < r; ++i) rows *= region[i];
  for (int64_t q = 0; q < rows; ++q) {
    int64_t rem = q, so = 0, dof = 0;
    for (size_t i = r - 1; i-- > 0;) {
      const int64_t ix = rem % region[i];
      rem /= region[i];
      so += ix * sstr[i];
      dof += ix * dstr[i];
    }
    std::memcpy(dst + dof * esize, src + so * esize, row);
  }
}
}  // namespace

std::string SymbolicTensor::dims_str() const {
  if (!has_shape) return "(no shape)";
  std::string r = "[";
  for (size_t i = 0; i < dims.size(); ++i) r += (i ? "," : "") + (dims[i].symbolic() ? dims[i].param : std::to_string(dims[i].value));
  return r + "]";
}

std::string binding_str(const Binding& b) {
  std::string r;
  for (auto& [k, v] : b) r += (r.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return r;
}

std::string DynamicSpec::source_bytes() const {
  if (source_tensors.empty()) return std::string(reinterpret_cast<const char*>(source_data), source_size);
  std::lock_guard<std::mutex> lock(rebuilt_->mu);
  if (!rebuilt_->bytes) {
    onnx::ModelProto m;
    if (!m.ParseFromArray(source_data, static_cast<int>(source_size)))
      throw Error("the source model '" + source_name + "' of the plan is not an ONNX model");
    std::map<std::string, onnx::TensorProto*> by_name;
    for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) by_name[t.name()] = &t;
    for (const SourceTensor& t : source_tensors) {
      auto it = by_name.find(t.name);
      if (it == by_name.end())
        throw Error("the source model '" + source_name + "' of the plan has no initializer '" + t.name + "'");
      it->second->set_raw_data(t.data, t.size);
    }
    auto out = std::make_shared<std::string>();
    if (!m.SerializeToString(out.get())) throw Error("the source model '" + source_name + "' could not be rebuilt");
    rebuilt_->bytes = out;
  }
  return *rebuilt_->bytes;
}

std::vector<std::string> DynamicSpec::symbols() const {
  std::vector<std::string> out;
  for (const SymbolicTensor& t : inputs)
    for (const SymbolicDim& d : t.dims)
      if (d.symbolic() && std::find(out.begin(), out.end(), d.param) == out.end()) out.push_back(d.param);
  return out;
}

bool has_symbolic_inputs(const OnnxSignature& s) {
  for (const SymbolicTensor& t : s.inputs)
    for (const SymbolicDim& d : t.dims)
      if (d.symbolic()) return true;
  return false;
}

DynamicSpec spec_from_bytes(std::shared_ptr<const std::string> bytes, const std::string& name, const OnnxSignature& sig) {
  DynamicSpec s;
  s.source_name = name;
  s.source_data = reinterpret_cast<const uint8_t*>(bytes->data());
  s.source_size = bytes->size();
  s.keepalive = std::move(bytes);
  s.inputs = sig.inputs;
  s.outputs = sig.outputs;
  return s;
}

DynamicSpec dynamic_spec_from_file(const std::string& path, const CompileOptions& opts, const Manifest& m) {
  auto bytes = std::make_shared<std::string>(read_regular_file(path, "model file"));
  OnnxSignature sig = onnx_signature(*bytes, path);
  if (sig.external_data)
    throw UnsupportedError("model file '" + path +
                           "': a model with symbolic input dims and external data cannot be compiled into one plan "
                           "(the plan keeps the model for specialization; give static shapes with --input-shape)");
  for (const SymbolicTensor& t : sig.inputs)
    if (!t.has_shape) throw UnsupportedError("graph input '" + t.name + "' has no shape; give one with --input-shape");
  DynamicSpec s = spec_from_bytes(bytes, fs::path(path).filename().string(), sig);
  s.opt_level = opts.opt_level;
  s.strict_numerics = opts.strict_numerics;
  s.disabled = opts.disabled;
  s.backend = opts.backend;
  s.cache_size = static_cast<size_t>(m.specialization_cache);
  const std::vector<std::string> syms = s.symbols();
  for (const std::string& p : m.paddable) {
    if (std::find(syms.begin(), syms.end(), p) == syms.end()) {
      std::string list;
      for (auto& x : syms) list += (list.empty() ? "" : ", ") + x;
      throw Error("[compile] paddable names '" + p + "', which is no symbolic dim of the inputs of '" + path +
                  "' (symbols: " + list + ")");
    }
    s.paddable.push_back(p);
  }
  return s;
}

std::vector<Binding> parse_gears(const std::string& text, const DynamicSpec& spec) {
  const std::string what = "gears '" + text + "'";
  const std::vector<std::string> syms = spec.symbols();
  std::string symlist;
  for (auto& x : syms) symlist += (symlist.empty() ? "" : ", ") + x;
  std::vector<Binding> out;
  if (trim(text).empty()) return out;
  const bool grid = text.find('=') != std::string::npos;
  if (grid && text.find(':') != std::string::npos)
    throw Error(what + ": mixes symbol values (batch=1,2) with whole-shape profiles (NAME:1x64); use one form");
  if (grid) {
    std::map<std::string, std::vector<int64_t>> values;
    for (const std::string& part0 : split(text, ';')) {
      std::string part = trim(part0);
      auto eq = part.find('=');
      if (eq == std::string::npos) throw Error(what + ": '" + part + "' is not SYMBOL=V1,V2,...");
      std::string sym = trim(part.substr(0, eq));
      if (std::find(syms.begin(), syms.end(), sym) == syms.end())
        throw Error(what + ": '" + sym + "' is no symbolic dim of the model's inputs (symbols: " + symlist + ")");
      if (values.count(sym)) throw Error(what + ": '" + sym + "' is given twice");
      std::vector<int64_t>& v = values[sym];
      for (const std::string& e : split(part.substr(eq + 1), ',')) {
        int64_t x = parse_extent(trim(e), what + ", " + sym);
        if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
      }
    }
    for (const std::string& s : syms)
      if (!values.count(s)) throw Error(what + ": symbol '" + s + "' has no values (symbols: " + symlist + ")");
    out.push_back({});
    for (auto& [sym, vals] : values) {
      std::vector<Binding> next;
      for (const Binding& b : out)
        for (int64_t x : vals) {
          Binding nb = b;
          nb[sym] = x;
          next.push_back(nb);
        }
      out = std::move(next);
    }
    if (out.size() > 256) throw Error(what + ": " + std::to_string(out.size()) + " gears (at most 256)");
    return out;
  }
  for (const std::string& prof0 : split(text, ';')) {
    const std::string prof = trim(prof0);
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const std::string& e0 : split(prof, ',')) {
      std::string e = trim(e0);
      auto colon = e.rfind(':');
      if (colon == std::string::npos || colon == 0) throw Error(what + ": '" + e + "' is not NAME:D0xD1x...");
      std::vector<int64_t> dims;
      for (const std::string& d : split(e.substr(colon + 1), 'x')) dims.push_back(parse_extent(trim(d), what + ", " + e));
      shapes[e.substr(0, colon)] = dims;
    }
    std::vector<Tensor> probe;
    for (const SymbolicTensor& t : spec.inputs) {
      auto it = shapes.find(t.name);
      if (it == shapes.end()) throw Error(what + ": profile '" + prof + "' gives no shape for input '" + t.name + "'");
      probe.push_back(Tensor::view(t.dtype, Shape(it->second), nullptr));
      shapes.erase(it);
    }
    if (!shapes.empty()) throw Error(what + ": '" + shapes.begin()->first + "' is not a graph input");
    Binding b;
    try {
      b = bind_inputs(spec, probe);
    } catch (const Error& e) {
      throw Error(what + ": " + e.what());
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

Binding bind_inputs(const DynamicSpec& spec, const std::vector<Tensor>& inputs) {
  if (inputs.size() != spec.inputs.size())
    throw Error("the model '" + spec.source_name + "' has " + std::to_string(spec.inputs.size()) + " input" +
                (spec.inputs.size() == 1 ? "" : "s") + "; " + std::to_string(inputs.size()) + " given");
  Binding b;
  std::map<std::string, std::string> where;  // symbol → "input 'x' dim k"
  for (size_t i = 0; i < inputs.size(); ++i) {
    const SymbolicTensor& t = spec.inputs[i];
    const Shape& s = inputs[i].shape();
    if (inputs[i].dtype() != t.dtype)
      throw Error("input '" + t.name + "' is " + std::string(dtype_name(inputs[i].dtype())) + "; the model's input is " +
                  std::string(dtype_name(t.dtype)));
    if (s.rank() != t.dims.size())
      throw Error("input '" + t.name + "' has rank " + std::to_string(s.rank()) + " (shape " + shape_text(s) +
                  "); the model's input has rank " + std::to_string(t.dims.size()) + " " + t.dims_str());
    for (size_t k = 0; k < t.dims.size(); ++k) {
      const int64_t v = s.dims()[k];
      const std::string here = "input '" + t.name + "' dim " + std::to_string(k);
      if (!t.dims[k].symbolic()) {
        if (v != t.dims[k].value)
          throw Error(here + " is " + std::to_string(v) + "; the model fixes it to " + std::to_string(t.dims[k].value) +
                      " " + t.dims_str());
        continue;
      }
      const std::string& sym = t.dims[k].param;
      if (v < (spec.allow_empty ? 0 : 1))
        throw Error(here + " ('" + sym + "') is " + std::to_string(v) + "; a symbolic dim must be at least 1");
      auto it = b.find(sym);
      if (it == b.end()) {
        b[sym] = v;
        where[sym] = here;
      } else if (it->second != v) {
        throw Error(here + " binds '" + sym + "' to " + std::to_string(v) + "; " + where[sym] + " bound it to " +
                    std::to_string(it->second));
      }
    }
  }
  return b;
}

std::map<std::string, std::vector<int64_t>> input_shapes_for(const DynamicSpec& spec, const Binding& b) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const SymbolicTensor& t : spec.inputs) {
    std::vector<int64_t> dims;
    for (const SymbolicDim& d : t.dims) {
      if (!d.symbolic()) {
        dims.push_back(d.value);
        continue;
      }
      auto it = b.find(d.param);
      if (it == b.end()) throw Error("binding " + binding_str(b) + " lacks symbol '" + d.param + "'");
      dims.push_back(it->second);
    }
    out[t.name] = dims;
  }
  return out;
}

namespace {
CompileOptions replayed(const DynamicSpec& spec, const CompileOptions& base) {
  CompileOptions o = base;
  o.opt_level = spec.opt_level;
  o.strict_numerics = spec.strict_numerics;
  o.disabled = spec.disabled;
  o.backend = spec.backend;
  return o;
}

}  // namespace

std::shared_ptr<Graph> compile_binding(const DynamicSpec& spec, const Binding& b, const Environment& env,
                                       const CompileOptions& base, CompileResult* result) {
  ImportOptions io;
  io.frontend.input_shapes = input_shapes_for(spec, b);
  io.backend = spec.backend;
  std::shared_ptr<Graph> g;
  try {
    g = load_onnx_bytes(spec.source_bytes(), spec.source_name, "", io.frontend);
    propagate_shapes(*g, env, io);
  } catch (const DataDependentShapeError& e) {
    throw Error("model '" + spec.source_name + "' at " + binding_str(b) + ": " + e.what() +
                "; a gear is one static plan, so this model cannot have gears: its shapes specialize at run, in stages "
                "cut at that node (compile it without --gears)");
  } catch (const Error& e) {
    throw Error("model '" + spec.source_name + "' at " + binding_str(b) + ": " + e.what());
  }
  CompileResult r = compile_graph(*g, env, replayed(spec, base));
  if (result) *result = std::move(r);
  return g;
}

Specialization specialize(const DynamicSpec& spec, const Binding& b, const Environment& env, const CompileOptions& base) {
  ImportOptions io;
  io.frontend.input_shapes = input_shapes_for(spec, b);
  io.backend = spec.backend;
  io.host_backend = base.host_backend;
  std::shared_ptr<Graph> g;
  const std::string where = "model '" + spec.source_name + "'" + (b.empty() ? std::string() : " at " + binding_str(b)) + ": ";
  try {
    g = load_onnx_bytes(spec.source_bytes(), spec.source_name, "", io.frontend);
  } catch (const Error& e) {
    throw Error(where + e.what());
  }
  try {
    propagate_shapes(*g, env, io);
  } catch (const DataDependentShapeError& e) {
    return {nullptr, make_staging(spec, b, env, base, *g, e)};
  } catch (const Error& e) {
    throw Error(where + e.what());
  }
  compile_graph(*g, env, replayed(spec, base));
  return {g, nullptr};
}

// ---- specialization cache

SpecializationCache::SpecializationCache(std::shared_ptr<const DynamicPlan> plan, const Environment& env,
                                         CompileOptions base)
    : plan_(std::move(plan)), env_(env), base_(std::move(base)) {
  base_.on_stage_done = nullptr;
  base_.print_after.clear();
}

Specialization SpecializationCache::get(const Binding& b, bool* compiled, double* ms) {
  std::lock_guard<std::mutex> lock(mu_);
  *compiled = false;
  *ms = 0;
  for (auto it = lru_.begin(); it != lru_.end(); ++it)
    if (it->first == b) {
      lru_.splice(lru_.begin(), lru_, it);
      ++stats_.hits;
      return lru_.front().second;
    }
  // Compiled under the lock: two threads asking for one new shape compile it once.
  auto t0 = Clock::now();
  Specialization g = specialize(plan_->spec, b, env_, base_);
  *ms = ms_since(t0);
  *compiled = true;
  ++stats_.compiled;
  stats_.compile_ms += *ms;
  lru_.emplace_front(b, g);
  while (lru_.size() > std::max<size_t>(1, plan_->spec.cache_size)) {
    lru_.pop_back();
    ++stats_.evicted;
  }
  return g;
}

SpecializationStats SpecializationCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  SpecializationStats s = stats_;
  auto add = [&](const SpecializationStats& o) {
    s.compiled += o.compiled, s.hits += o.hits, s.evicted += o.evicted;
    s.compile_ms += o.compile_ms;
  };
  for (const auto& [b, sp] : lru_) {
    if (!sp.staged) continue;
    if (sp.staged->prefix_cache) add(sp.staged->prefix_cache->stats());
    std::lock_guard<std::mutex> l2(sp.staged->mu);
    for (const auto& [k, pc] : sp.staged->suffixes) add(pc.second->stats());
  }
  return s;
}

// ---- executor

DynamicExecutor::DynamicExecutor(std::shared_ptr<const DynamicPlan> plan, std::shared_ptr<SpecializationCache> cache,
                                 const Environment& env, ExecOptions opts)
    : plan_(std::move(plan)), cache_(std::move(cache)), env_(env), opts_(std::move(opts)) {
  uint64_t most = 0;
  for (const GearGraph& g : plan_->gears) most = std::max(most, g.graph->arena_bytes);
  if (most) arena_ = Tensor::allocate(DataType::UInt8, Shape{static_cast<int64_t>(most)});
}

uint64_t DynamicExecutor::arena_bytes() const { return arena_.data() ? arena_.nbytes() : 0; }

Executable& DynamicExecutor::executable(const std::string& key, std::shared_ptr<const Graph> g) {
  for (auto it = exes_.begin(); it != exes_.end(); ++it)
    if (it->first == key) {
      exes_.splice(exes_.begin(), exes_, it);
      return *exes_.front().second;
    }
  if (g->arena_bytes > arena_bytes()) {
    // Every executable built so far views the old arena: they are rebuilt on their next use.
    exes_.clear();
    arena_ = Tensor();
    arena_ = Tensor::allocate(DataType::UInt8, Shape{static_cast<int64_t>(g->arena_bytes)});
  }
  auto t0 = Clock::now();
  ExecOptions o = opts_;
  o.arena = arena_;
  exes_.emplace_front(key, std::make_unique<Executable>(std::move(g), env_, o));
  last_.built = true;
  last_.build_ms = ms_since(t0);
  // Gears are always kept; specializations as many as the plan's cache.
  const size_t keep = plan_->gears.size() + std::max<size_t>(1, plan_->spec.cache_size);
  while (exes_.size() > keep) exes_.pop_back();
  return *exes_.front().second;
}

std::vector<Tensor> DynamicExecutor::run(const std::vector<Tensor>& inputs) {
  const DynamicSpec& spec = plan_->spec;
  DynamicRunInfo info;
  info.binding = bind_inputs(spec, inputs);
  last_ = DynamicRunInfo{};
  // 1. a gear of this very binding
  for (size_t i = 0; i < plan_->gears.size(); ++i)
    if (plan_->gears[i].binding == info.binding) {
      Executable& e = executable("gear:" + std::to_string(i), plan_->gears[i].graph);
      info.kind = "gear";
      info.gear = static_cast<int>(i);
      info.ran = info.binding;
      info.arena_bytes = plan_->gears[i].graph->arena_bytes;
      info.built = last_.built, info.build_ms = last_.build_ms;
      last_exe_ = &e;
      std::vector<Tensor> out = e.run(inputs);
      last_ = info;
      return out;
    }
  // 2. the smallest larger gear, padding only along paddable symbols whose every output dim
  // is that very symbol or fixed (so that the outputs can be cut back)
  int best = -1;
  double best_cost = 0;
  for (size_t i = 0; i < plan_->gears.size() && !spec.paddable.empty(); ++i) {
    const Binding& gb = plan_->gears[i].binding;
    bool ok = true;
    double cost = 1;
    for (auto& [sym, v] : info.binding) {
      const int64_t gv = gb.at(sym);
      cost *= static_cast<double>(gv);
      if (gv == v) continue;
      ok &= gv > v && std::find(spec.paddable.begin(), spec.paddable.end(), sym) != spec.paddable.end();
    }
    if (!ok) continue;
    // Every output dim: fixed, or a symbol of the inputs (cut back to the binding's value).
    const Graph& g = *plan_->gears[i].graph;
    if (spec.outputs.size() != g.outputs().size()) continue;
    for (size_t k = 0; k < spec.outputs.size() && ok; ++k) {
      const SymbolicTensor& o = spec.outputs[k];
      if (!o.has_shape || o.dims.size() != g.outputs()[k]->shape.rank()) {
        ok = false;
        break;
      }
      for (size_t d = 0; d < o.dims.size() && ok; ++d) {
        const int64_t have = g.outputs()[k]->shape.dims()[d];
        if (!o.dims[d].symbolic()) ok = have == o.dims[d].value;
        else ok = gb.count(o.dims[d].param) && gb.at(o.dims[d].param) == have;
      }
    }
    if (ok && (best < 0 || cost < best_cost)) best = static_cast<int>(i), best_cost = cost;
  }
  if (best >= 0) {
    const GearGraph& gg = plan_->gears[static_cast<size_t>(best)];
    std::map<std::string, std::vector<int64_t>> want = input_shapes_for(spec, gg.binding);
    std::vector<Tensor> padded;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::vector<int64_t>& dims = want[spec.inputs[i].name];
      if (dims == inputs[i].shape().dims()) {
        padded.push_back(inputs[i]);
        continue;
      }
      Tensor t = Tensor::allocate(inputs[i].dtype(), Shape(dims));  // zero-filled
      copy_corner(static_cast<const uint8_t*>(inputs[i].data()), inputs[i].shape().dims(), t.data_as<uint8_t>(), dims,
                  inputs[i].shape().dims(), dtype_size(inputs[i].dtype()));
      padded.push_back(std::move(t));
    }
    Executable& e = executable("gear:" + std::to_string(best), gg.graph);
    info.kind = "padded gear";
    info.gear = best;
    info.ran = gg.binding;
    info.arena_bytes = gg.graph->arena_bytes;
    info.built = last_.built, info.build_ms = last_.build_ms;
    last_exe_ = &e;
    std::vector<Tensor> full = e.run(padded);
    std::vector<Tensor> out;
    for (size_t k = 0; k < full.size(); ++k) {
      std::vector<int64_t> dims = full[k].shape().dims();
      for (size_t d = 0; d < dims.size(); ++d)
        if (spec.outputs[k].dims[d].symbolic()) dims[d] = info.binding.count(spec.outputs[k].dims[d].param)
                                                              ? info.binding.at(spec.outputs[k].dims[d].param)
                                                              : dims[d];
      if (dims == full[k].shape().dims()) {
        out.push_back(std::move(full[k]));
        continue;
      }
      Tensor t = Tensor::allocate(full[k].dtype(), Shape(dims));
      copy_corner(static_cast<const uint8_t*>(full[k].data()), full[k].shape().dims(), t.data_as<uint8_t>(), dims, dims,
                  dtype_size(full[k].dtype()));
      out.push_back(std::move(t));
    }
    last_ = info;
    return out;
  }
  // 3. a specialization
  bool compiled = false;
  double ms = 0;
  Specialization sp = cache_->get(info.binding, &compiled, &ms);
  if (sp.staged) {
    info.kind = "stages";
    info.ran = info.binding;
    info.compiled = compiled;
    info.compile_ms = ms;
    std::vector<Tensor> out = run_stages("spec:" + binding_str(info.binding), sp.staged, inputs, info);
    last_ = info;
    return out;
  }
  std::shared_ptr<const Graph> g = sp.graph;
  Executable& e = executable("spec:" + binding_str(info.binding), g);
  info.kind = "specialization";
  info.ran = info.binding;
  info.compiled = compiled;
  info.compile_ms = ms;
  info.arena_bytes = g->arena_bytes;
  info.built = last_.built, info.build_ms = last_.build_ms;
  last_exe_ = &e;
  std::vector<Tensor> out = e.run(inputs);
  last_ = info;
  return out;
}

}  // namespace ge::core
