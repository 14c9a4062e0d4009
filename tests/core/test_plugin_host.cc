// Every refusal of the plugin host, each with its message.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "ge/core/plugin_loading.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/error.h"
#include "ge/sdk/plugin.h"
#include "ge/sdk/text_ir.h"
#include "test_helpers.h"

using namespace ge;

namespace {
const std::string kDir = GE_TEST_PLUGIN_DIR;

std::string load_error(const std::string& manifest_text) {
  try {
    core::load_environment(core::load_manifest(test::write_temp_manifest(manifest_text)));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string plugin(const std::string& name, const std::string& file, const std::string& extra = "") {
  return "[[plugin]]\nname = \"" + name + "\"\npath = \"" + kDir + "/" + file + "\"\n" + extra;
}

void expect_contains(const std::string& s, const std::string& part) {
  EXPECT_NE(s.find(part), std::string::npos) << "message: " << s << "\nexpected to contain: " << part;
}
}  // namespace

TEST(PluginHost, LoadsAGoodPluginAndListsWhatItRegistered) {
  auto env = core::load_environment(core::load_manifest(test::write_temp_manifest(plugin("good", "libge_test_good.so"))));
  ASSERT_EQ(env->plugins.size(), 1u);
  EXPECT_EQ(env->plugins[0].version, "1.2.3");
  EXPECT_EQ(env->plugins[0].kernels, std::vector<std::string>{"cpu:Negate"});
  EXPECT_NE(env->ops.find("test", "Negate", 1), nullptr);
  EXPECT_EQ(env->plugins[0].sha256.size(), 64u);
}

TEST(PluginHost, RefusesAMissingFile) {
  expect_contains(load_error(plugin("ghost", "libge_nothing_here.so")), "plugin 'ghost' (" + kDir + "/libge_nothing_here.so");
  expect_contains(load_error(plugin("ghost", "libge_nothing_here.so")), "): file does not exist");
}

TEST(PluginHost, RefusesAFileThatIsNotASharedLibrary) {
  std::string m = load_error(plugin("text", "libge_test_text.so"));
  expect_contains(m, "not a loadable shared library: ");
  expect_contains(m, "not an ELF file");  // checked before dlopen
}

// The first 4 KB of a real library: dlopen maps segments past the end of the file and faults
// (SIGBUS) when it touches them; the ELF headers are checked against the file size first.
TEST(PluginHost, RefusesATruncatedLibrary) {
  const auto dir = std::filesystem::temp_directory_path() / ("ge_test_trunc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto cut = dir / "libge_test_good.so";
  {
    std::ifstream in(kDir + "/libge_test_good.so", std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(cut, std::ios::binary).write(head.data(), in.gcount());
  }
  std::string m = load_error("[[plugin]]\nname = \"good\"\npath = \"" + cut.string() + "\"\n");
  expect_contains(m, "not a loadable shared library: ");
  expect_contains(m, "truncated?");
  std::filesystem::remove_all(dir);
}


TEST(PluginHost, RefusesALibraryWithoutTheEntrySymbol) {
  expect_contains(load_error(plugin("no_entry", "libge_test_no_entry.so")),
                  "entry symbol 'ge_plugin_entry' is missing (not a GE plugin)");
}

// The host's ABI as its messages print it (the minor grows as the SDK gains entry points).
const std::string kHostAbi = std::to_string(GE_SDK_ABI_MAJOR) + "." + std::to_string(GE_SDK_ABI_MINOR);

TEST(PluginHost, RefusesAnotherAbiMajor) {
  expect_contains(load_error(plugin("abi_major", "libge_test_abi_major.so")),
                  "built for SDK ABI 2.0, this host has ABI " + kHostAbi + " (the major version must match");
}

TEST(PluginHost, RefusesANewerAbiMinor) {
  expect_contains(load_error(plugin("abi_minor", "libge_test_abi_minor.so")),
                  "built for SDK ABI 1." + std::to_string(GE_SDK_ABI_MINOR + 1) + ", newer than this host's ABI " + kHostAbi);
}

// DeviceSimulation (ge/sdk/device_sim.h) gained bound_us in ABI 1.4: a simulator built against
// 1.3 would hand back the old layout.
TEST(PluginHost, RefusesADeviceSimulatorBuiltBeforeAbi14) {
  expect_contains(load_error(plugin("old_simulator", "libge_test_old_simulator.so")),
                  "plugin 'old_simulator' (SDK ABI 1.3) registers a device simulator for backend 'old_device', but "
                  "DeviceSimulation changed in SDK ABI 1.4 (bound_us): rebuild the plugin against this SDK");
}

// KernelDef and KernelBuildContext gained fields in ABI 1.7 (allocates_outputs, dynamic_outputs).
TEST(PluginHost, RefusesAKernelBuiltBeforeAbi17) {
  expect_contains(load_error(plugin("old_kernel", "libge_test_old_kernel.so")),
                  "plugin 'old_kernel' (SDK ABI 1.6) registers kernel 'cpu:OldRelu', but KernelDef and "
                  "KernelBuildContext changed in SDK ABI 1.7 (kernels that allocate their outputs): rebuild the plugin "
                  "against this SDK");
}

TEST(PluginHost, RefusesAVersionOutsideTheRequirement) {
  expect_contains(load_error(plugin("good", "libge_test_good.so", "version = \">=2.0, <3\"\n")),
                  "version 1.2.3 does not satisfy the requirement '>=2.0, <3'");
  EXPECT_EQ(load_error(plugin("good", "libge_test_good.so", "version = \">=1.2, <2\"\n")), "");
}

TEST(PluginHost, RefusesASha256Mismatch) {
  expect_contains(load_error(plugin("good", "libge_test_good.so", "sha256 = \"" + std::string(64, '0') + "\"\n")),
                  "sha256 mismatch: the manifest pins 0000");
}

TEST(PluginHost, RefusesANameThatDiffersFromTheLibrary) {
  expect_contains(load_error(plugin("other", "libge_test_good.so")), "the library calls itself 'good', not 'other'");
}

TEST(PluginHost, RollsBackAPluginWhoseRegistrationThrows) {
  std::string m = load_error(plugin("throws", "libge_test_throws.so"));
  expect_contains(m, "registration failed: deliberate failure after registering ThrowsOp");
}

// A plugin that replaced another plugin's shape inference and function expander, then threw,
// leaves the registry's own behind (they stayed the failed plugin's before).
TEST(PluginHost, RollsBackShapeInferenceAndExpandersOfAFailedPlugin) {
  auto env = core::load_environment(core::load_manifest(test::write_temp_manifest(
      "[[plugin]]\nname = \"registry\"\npath = \"" + std::string(GE_PLUGIN_DIR) + "/libge_registry.so\"\n")));
  const FunctionExpander* celu = env->ops.expander("", "Celu");
  ASSERT_NE(celu, nullptr);
  ASSERT_TRUE(celu->has_body(13));
  core::PluginEntry e{"throws_infer", kDir + "/libge_test_throws_infer.so", "", "", true, "test"};
  try {
    core::load_plugin(*env, e);
    FAIL() << "expected the registration to fail";
  } catch (const Error& ex) {
    expect_contains(ex.what(), "registration failed: deliberate failure after replacing Relu's inference and Celu's body");
  }
  EXPECT_EQ(env->plugins.size(), 1u);
  auto g = parse_graph("graph g opset(ai.onnx=14) {\n  input %x: f32[2,3]\n  %y: f32[2,3] = Relu(%x)\n  output %y\n}\n");
  Node* relu = g->nodes()[0];
  relu->outputs()[0]->shape = Shape{};
  const OpDef* def = env->ops.find("", "Relu", 14);
  ASSERT_NE(def, nullptr);
  ASSERT_TRUE(def->infer);
  InferContext ctx(*relu, *def, 14);
  EXPECT_NO_THROW(def->infer(ctx));
  EXPECT_EQ(relu->outputs()[0]->shape, (Shape{2, 3}));
  celu = env->ops.expander("", "Celu");
  ASSERT_NE(celu, nullptr);
  EXPECT_TRUE(celu->has_body(13));
  EXPECT_EQ(celu->source, "registry");
}

TEST(PluginHost, DisabledPluginsAreNotLoaded) {
  auto env = core::load_environment(core::load_manifest(
      test::write_temp_manifest(plugin("ghost", "libge_nothing_here.so", "enabled = false\n"))));
  EXPECT_TRUE(env->plugins.empty());
}

namespace {
std::string std_plugin(const std::string& name) {
  return "[[plugin]]\nname = \"" + name + "\"\npath = \"" + std::string(GE_PLUGIN_DIR) + "/libge_" + name + ".so\"\n";
}
}  // namespace

TEST(PluginHost, RefusesASecondDefinitionOfAnOpVersion) {
  std::string m = load_error(std_plugin("registry") + plugin("dup_op", "libge_test_dup_op.so"));
  expect_contains(m, "registration failed: op Relu (since version 14) registered twice: by 'registry' and by 'dup_op'");
}

TEST(PluginHost, RefusesASecondKernelForAnOp) {
  std::string m = load_error(std_plugin("cpu_backend") + plugin("dup_kernel", "libge_test_dup_kernel.so"));
  expect_contains(m, "registration failed: kernel for Relu on backend 'cpu' registered twice: by 'cpu_backend' and by 'dup_kernel'");
}

// A second plugin's format preferences for backend "cpu" (a third-party kernel's) are composed
// with the backend's: asked first, its answer taken where it gives one, the backend's elsewhere.
TEST(PluginHost, ComposesFormatPreferencesOfSeveralPluginsForABackend) {
  auto both = core::load_environment(core::load_manifest(test::write_temp_manifest(
      std_plugin("registry") + std_plugin("cpu_backend") + plugin("dup_format_preference", "libge_test_dup_format_preference.so"))));
  auto alone = core::load_environment(
      core::load_manifest(test::write_temp_manifest(std_plugin("registry") + std_plugin("cpu_backend"))));
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  const %w: f32[16,16,3,3]
  %c: f32[1,16,6,6] = Conv(%x, %w)  # conv
  %r: f32[1,16,6,6] = Relu(%c)  # relu
  output %r
}
)");
  const FormatPreferenceFn& pref = both->format_preferences.at("cpu");
  std::optional<NodeFormats> relu = pref(*g->find_node("relu"));
  ASSERT_TRUE(relu.has_value());
  EXPECT_EQ(relu->inputs, std::vector<Format>{Format::NC1HWC0});
  EXPECT_TRUE(relu->follows);
  std::optional<NodeFormats> conv = pref(*g->find_node("conv"));
  std::optional<NodeFormats> conv_alone = alone->format_preferences.at("cpu")(*g->find_node("conv"));
  ASSERT_EQ(conv.has_value(), conv_alone.has_value());
  if (conv) {
    EXPECT_EQ(conv->inputs, conv_alone->inputs);
    EXPECT_EQ(conv->outputs, conv_alone->outputs);
  }
  ASSERT_EQ(both->format_preference_chain.at("cpu").size(), 2u);
  EXPECT_EQ(both->format_preference_chain.at("cpu")[1].first, "dup_format_preference");
}

TEST(PluginHost, RefusesTwoFormatPreferencesFromOnePluginForABackend) {
  setenv("GE_TEST_DUP_PREFERENCE_TWICE", "1", 1);
  std::string m = load_error(std_plugin("cpu_backend") + plugin("dup_format_preference", "libge_test_dup_format_preference.so"));
  unsetenv("GE_TEST_DUP_PREFERENCE_TWICE");
  expect_contains(m, "format preferences of backend 'cpu' registered twice by plugin 'dup_format_preference'");
}

TEST(PluginHost, ManifestRegistryFilesOverrideFusionMetadata) {
  std::string extra = test::write_temp_manifest(
      "[[op]]\nname = \"Relu\"\nsince = 14\npattern = \"elementwise\"\nfuse_flag = \"never\"\n", "relu_never");
  auto env = core::load_environment(core::load_manifest(
      test::write_temp_manifest(std_plugin("registry") + "[registry]\nfiles = [\"" + extra + "\"]\n")));
  const OpDef* relu = env->ops.find("", "Relu", 14);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->fuse_flag, FuseFlag::Never);
  EXPECT_TRUE(static_cast<bool>(relu->infer));  // shape inference kept from the plugin's definition
  EXPECT_EQ(env->ops.find("", "Relu", 13)->fuse_flag, FuseFlag::Fusable);  // other versions untouched
}

// Special files as plugin path, manifest include or registry file: refused at once (a FIFO
// used to block forever, /dev/zero to read without end, a directory to read as empty).
TEST(PluginHost, RefusesSpecialFilesAsPluginIncludeOrRegistryFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("ge_test_special_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_contains(load_error("[[plugin]]\nname = \"f\"\npath = \"" + fifo.string() + "\"\n"), "is not a regular file");
  for (const std::string& inc : {fifo.string(), std::string("/dev/zero")})
    expect_contains(load_error("include = \"" + inc + "\"\n"), "is not a regular file");
  expect_contains(load_error("include = \"" + dir.string() + "\"\n"), "is a directory");
  expect_contains(load_error(std_plugin("registry") + "[registry]\nfiles = [\"" + dir.string() + "\"]\n"), "is a directory");
  expect_contains(load_error(std_plugin("registry") + "[registry]\nfiles = [\"" + fifo.string() + "\"]\n"),
                  "is not a regular file");
  // A model path that is a FIFO: choosing its frontend read its first bytes and blocked.
  auto env = core::load_environment(core::load_manifest(test::write_temp_manifest("")));
  try {
    env->frontend_for(fifo.string());
    ADD_FAILURE() << "a FIFO got a frontend";
  } catch (const Error& e) {
    expect_contains(e.what(), "is not a regular file");
  }
  std::filesystem::remove_all(dir);
}
