// oneDNN's blocked weight formats as GE formats (types.h): OIhw16i16o, Ohwi16o, Goihw16g. Every
// element lands where types.h's formula says (written out independently here), the padding is
// zero, conversions round-trip, and GE's bytes equal oneDNN's own reorder into that layout.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include <dnnl.hpp>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/layout.h"
#include "ge/sdk/text_ir.h"

namespace ge {
namespace {

Tensor iota(Shape s) {
  Tensor t = Tensor::allocate(DataType::Float32, std::move(s), Format::NCHW);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i + 1);  // no zeros
  return t;
}

/// Checks every stored element of convert_format(x, f): `at(o, i, h, w)` is the storage offset
/// of a logical element; every offset no logical element maps to must hold zero.
void expect_placement(const Tensor& x, Format f, const std::function<int64_t(int64_t, int64_t, int64_t, int64_t)>& at) {
  const Shape& s = x.shape();
  Tensor b = convert_format(x, f);
  ASSERT_EQ(b.format(), f);
  const int64_t stored = format_storage_numel(s.dims(), f);
  ASSERT_EQ(b.storage_numel(), stored);
  std::vector<bool> hit(static_cast<size_t>(stored), false);
  const float* p = b.data_as<float>();
  const float* q = x.data_as<float>();
  for (int64_t o = 0; o < s[0]; ++o)
    for (int64_t i = 0; i < s[1]; ++i)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w) {
          const int64_t k = at(o, i, h, w);
          ASSERT_TRUE(k >= 0 && k < stored) << o << "," << i << "," << h << "," << w;
          ASSERT_FALSE(hit[k]) << "two elements at " << k;
          hit[k] = true;
          ASSERT_EQ(p[k], q[((o * s[1] + i) * s[2] + h) * s[3] + w]) << o << "," << i << "," << h << "," << w;
        }
  for (int64_t k = 0; k < stored; ++k) {
    if (!hit[k]) {
      ASSERT_EQ(p[k], 0.f) << "padding element " << k;
    }
  }
  Tensor back = convert_format(b, Format::NCHW);
  ASSERT_EQ(back.nbytes(), x.nbytes());
  EXPECT_EQ(std::memcmp(back.data(), x.data(), x.nbytes()), 0);
}

TEST(WeightFormats, StorageDims) {
  // O = 20 -> O1 = 2; I = 18 -> I1 = 2.
  EXPECT_EQ(format_storage_dims({20, 18, 3, 2}, Format::OIhw16i16o), (std::vector<int64_t>{2, 2, 3, 2, 16, 16}));
  EXPECT_EQ(format_storage_numel({20, 18, 3, 2}, Format::OIhw16i16o), 2 * 2 * 3 * 2 * 256);
  EXPECT_EQ(format_storage_dims({20, 3, 7, 7}, Format::Ohwi16o), (std::vector<int64_t>{2, 7, 7, 3, 16}));
  EXPECT_EQ(format_storage_numel({20, 3, 7, 7}, Format::Ohwi16o), 2 * 49 * 3 * 16);
  EXPECT_EQ(format_storage_dims({20, 1, 3, 3}, Format::Goihw16g), (std::vector<int64_t>{2, 1, 3, 3, 16}));
  EXPECT_EQ(format_storage_numel({32, 1, 3, 3}, Format::Goihw16g), 32 * 9);
  EXPECT_EQ(Tensor::allocate(DataType::Float32, Shape{20, 18, 3, 2}, Format::OIhw16i16o).nbytes(), 2u * 2 * 6 * 256 * 4);
  for (Format f : {Format::OIhw16i16o, Format::Ohwi16o, Format::Goihw16g}) {
    EXPECT_TRUE(format_is_blocked(f));
    EXPECT_TRUE(format_is_weight(f));
    EXPECT_EQ(format_from_name(format_name(f)), f);
    EXPECT_TRUE(can_convert_format(Format::NCHW, f, 4));
    EXPECT_TRUE(can_convert_format(f, Format::ND, 4));
    EXPECT_FALSE(can_convert_format(Format::NCHW, f, 3));
    EXPECT_FALSE(can_convert_format(Format::NC1HWC0, f, 4));
  }
  EXPECT_FALSE(format_is_weight(Format::NC1HWC0));
}

TEST(WeightFormats, OIhw16i16oPlacesEveryElementAndZeroesThePadding) {
  const int64_t O = 20, I = 18, KH = 3, KW = 2;  // neither O nor I a multiple of 16
  expect_placement(iota(Shape{O, I, KH, KW}), Format::OIhw16i16o, [&](int64_t o, int64_t i, int64_t h, int64_t w) {
    // [O1=2][I1=2][KH][KW][16i][16o]
    return ((((o / 16) * 2 + i / 16) * KH + h) * KW + w) * 256 + (i % 16) * 16 + o % 16;
  });
}

TEST(WeightFormats, Ohwi16oPlacesEveryElementAndZeroesThePadding) {
  const int64_t O = 20, I = 3, KH = 7, KW = 5;
  expect_placement(iota(Shape{O, I, KH, KW}), Format::Ohwi16o, [&](int64_t o, int64_t i, int64_t h, int64_t w) {
    return ((((o / 16) * KH + h) * KW + w) * I + i) * 16 + o % 16;  // [O1][KH][KW][I][16o]
  });
}

TEST(WeightFormats, Goihw16gPlacesEveryElementAndZeroesThePadding) {
  for (int64_t I : {1, 2}) {
    const int64_t G = 20, KH = 3, KW = 3;
    expect_placement(iota(Shape{G, I, KH, KW}), Format::Goihw16g, [&](int64_t g, int64_t i, int64_t h, int64_t w) {
      return ((((g / 16) * I + i) * KH + h) * KW + w) * 16 + g % 16;  // [G1][I][KH][KW][16g]
    });
  }
}

/// GE's conversion equals oneDNN's reorder from oihw (goihw for grouped) into the oneDNN tag
/// the GE format names — the layouts oneDNN's convolutions read.
void expect_equals_onednn(const Shape& s, int64_t groups, Format f, dnnl::memory::format_tag t) {
  using dnnl::memory;
  Tensor x = iota(s);
  Tensor ge_bytes = convert_format(x, f);
  memory::dims d = groups > 1 ? memory::dims{groups, s[0] / groups, s[1]} : memory::dims{s[0], s[1]};
  d.push_back(s[2]);
  d.push_back(s[3]);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream st(eng);
  memory src(memory::desc(d, memory::data_type::f32, groups > 1 ? memory::format_tag::goihw : memory::format_tag::oihw),
             eng, x.data());
  memory dst(memory::desc(d, memory::data_type::f32, t), eng);
  ASSERT_EQ(dst.get_desc().get_size(), ge_bytes.nbytes()) << format_name(f);
  dnnl::reorder(src, dst).execute(st, src, dst);
  st.wait();
  EXPECT_EQ(std::memcmp(dst.get_data_handle(), ge_bytes.data(), ge_bytes.nbytes()), 0) << format_name(f);
}

TEST(WeightFormats, EqualOneDnnsLayouts) {
  expect_equals_onednn(Shape{20, 18, 3, 2}, 1, Format::OIhw16i16o, dnnl::memory::format_tag::OIhw16i16o);
  expect_equals_onednn(Shape{64, 3, 7, 7}, 1, Format::Ohwi16o, dnnl::memory::format_tag::Ohwi16o);
  expect_equals_onednn(Shape{20, 3, 7, 7}, 1, Format::Ohwi16o, dnnl::memory::format_tag::Ohwi16o);
  expect_equals_onednn(Shape{40, 1, 3, 3}, 40, Format::Goihw16g, dnnl::memory::format_tag::Goihw16g);
}

TEST(WeightFormats, TextIrRoundTripsTheFormatName) {
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %x: f32[20,18,3,2]@OIhw16i16o
  %y: f32[20,18,3,2]@Goihw16g = Identity(%x)
  output %y
})");
  EXPECT_EQ(g->find_value("x")->format, Format::OIhw16i16o);
  EXPECT_EQ(g->find_value("y")->format, Format::Goihw16g);
  EXPECT_NE(print_graph(*g).find("f32[20,18,3,2]@OIhw16i16o"), std::string::npos) << print_graph(*g);
}

}  // namespace
}  // namespace ge
