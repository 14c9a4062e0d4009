// Plan files: the fixed preamble, the checksum, the memory mapping and the producer checks
// (layout in ge/core/plan.h). The graph itself is converted in plan_graph.cc.
#include <fcntl.h>
#include <xxhash.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ge/core/file_io.h"
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

}  // namespace

std::vector<uint8_t> serialize_plan(const Graph& g, const Environment& env, const std::string& backend) {
  planfile::Header h;
  for (const PluginInfo& p : env.plugins) {
    auto* pp = h.add_plugins();
    pp->set_name(p.name);
    pp->set_version(p.version);
  }
  std::vector<uint8_t> weights;
  plan_detail::graph_to_header(g, backend, h, weights);
  check_kernels(g, backend, env, "graph '" + g.name + "'");
  try {
    plan_detail::write_sections(g, env, backend, h, weights.size());
  } catch (const Error& e) {
    throw Error("graph '" + g.name + "': " + e.what());
  }
  std::string header;
  if (!h.SerializeToString(&header)) throw Error("cannot serialize the plan header of graph '" + g.name + "'");

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

std::string plan_backend(const std::string& path) {
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
  return h.backend();
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

}  // namespace ge::core
