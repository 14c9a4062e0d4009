// plugins/cpu_backend/nonmax_suppression.cc — NonMaxSuppression-10/11 (onnx/docs/Operators.md),
// following ORT's cpu/object_detection/non_max_suppression.cc where the spec leaves freedom:
//  - per (batch, class), candidates are the boxes whose score is strictly above
//    score_threshold (all boxes when it is omitted), taken by descending score, ties by the
//    lower box index;
//  - a candidate is kept unless its IoU with an already kept box of that class is strictly
//    above iou_threshold; at most max_output_boxes_per_class are kept (0 or omitted: none);
//  - boxes are [y1, x1, y2, x2] with either corner pair (center_point_box=0) or
//    [x_center, y_center, width, height] (center_point_box=1); a degenerate box suppresses
//    nothing.
// Output: int64 [num_selected, 3] rows (batch, class, box) ordered by batch, class, then
// selection order. num_selected is only known at run time: it must equal the planned shape.
#include <algorithm>
#include <numeric>
#include <vector>

#include "dynamic_shape.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

struct Corners {
  float x_min, y_min, x_max, y_max;
};

Corners corners(const float* b, bool center) {
  if (center) {
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[0] - hw, b[1] - hh, b[0] + hw, b[1] + hh};
  }
  return {std::min(b[1], b[3]), std::min(b[0], b[2]), std::max(b[1], b[3]), std::max(b[0], b[2])};
}

/// True when IoU(a, b) > threshold (ORT's SuppressByIOU).
bool suppresses(const Corners& a, const Corners& b, float iou_threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
  if (ix_max <= ix_min) return false;
  const float iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
  if (iy_max <= iy_min) return false;
  const float inter = (ix_max - ix_min) * (iy_max - iy_min);
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float uni = area_a + area_b - inter;
  if (inter <= 0.f || area_a <= 0.f || area_b <= 0.f || uni <= 0.f) return false;
  return inter / uni > iou_threshold;
}

class NonMaxSuppressionKernel final : public Kernel {
 public:
  NonMaxSuppressionKernel(int64_t batches, int64_t classes, int64_t boxes, bool center, bool dynamic, std::string who)
      : batches_(batches), classes_(classes), boxes_(boxes), center_(center), dynamic_(dynamic), who_(std::move(who)) {}

  void run(KernelIO& io) override {
    const float* boxes = io.inputs[0].data_as<float>();
    const float* scores = io.inputs[1].data_as<float>();
    auto present = [&](size_t i) { return io.inputs.size() > i && io.inputs[i].data() && io.inputs[i].numel() > 0; };
    const int64_t max_out = present(2) ? std::max<int64_t>(io.inputs[2].to_int64_vector().at(0), 0) : 0;
    const float iou = present(3) ? io.inputs[3].data_as<float>()[0] : 0.f;
    if (!(iou >= 0.f && iou <= 1.f)) throw Error(who_ + ": iou_threshold " + std::to_string(iou) + " is outside [0, 1]");
    const bool has_score_threshold = present(4);
    const float score_threshold = has_score_threshold ? io.inputs[4].data_as<float>()[0] : 0.f;

    std::vector<int64_t> selected;  // (batch, class, box) triples
    std::vector<int64_t> cand;
    std::vector<Corners> kept;
    std::vector<Corners> all(static_cast<size_t>(boxes_));
    for (int64_t b = 0; b < batches_; ++b) {
      for (int64_t j = 0; j < boxes_; ++j) all[static_cast<size_t>(j)] = corners(boxes + (b * boxes_ + j) * 4, center_);
      for (int64_t c = 0; c < classes_; ++c) {
        const float* s = scores + (b * classes_ + c) * boxes_;
        cand.clear();
        for (int64_t j = 0; j < boxes_; ++j) {
          if (!has_score_threshold || s[j] > score_threshold) cand.push_back(j);
        }
        std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) { return s[p] > s[q]; });
        kept.clear();
        for (size_t t = 0; t < cand.size() && static_cast<int64_t>(kept.size()) < max_out; ++t) {
          const Corners& box = all[static_cast<size_t>(cand[t])];
          const bool keep = std::none_of(kept.begin(), kept.end(),
                                         [&](const Corners& k) { return suppresses(box, k, iou); });
          if (!keep) continue;
          kept.push_back(box);
          selected.insert(selected.end(), {b, c, cand[t]});
        }
      }
    }
    const auto n = static_cast<int64_t>(selected.size() / 3);
    Tensor& out = sized_output(io, 0, dynamic_, DataType::Int64, Shape{n, 3}, who_, "NonMaxSuppression selected_indices");
    std::copy(selected.begin(), selected.end(), out.data_as<int64_t>());
  }
  std::string impl_name() const override { return "cpu:NonMaxSuppression"; }

 private:
  int64_t batches_, classes_, boxes_;
  bool center_;
  bool dynamic_;
  std::string who_;
};

std::unique_ptr<Kernel> make_nms(const KernelBuildContext& ctx) {
  const Shape& b = ctx.input_shape(0);
  const Shape& s = ctx.input_shape(1);
  if (ctx.input_type(0) != DataType::Float32 || ctx.input_type(1) != DataType::Float32) {
    throw UnsupportedError(at_node(ctx) + "NonMaxSuppression boxes and scores must be float32");
  }
  if (b.rank() != 3 || b[2] != 4 || s.rank() != 3 || s[0] != b[0] || s[2] != b[1]) {
    throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression boxes " + b.str() + " and scores " + s.str() +
                            " are not [batches, boxes, 4] and [batches, classes, boxes]");
  }
  for (size_t i = 2; i < 5; ++i) {
    if (ctx.has_input(i) && ctx.input_shape(i).numel() != 1) {
      throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression input " + std::to_string(i) + " must hold one value");
    }
  }
  if (ctx.has_input(2) && ctx.input_type(2) != DataType::Int64) {
    throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression max_output_boxes_per_class must be int64");
  }
  for (size_t i = 3; i < 5; ++i) {
    if (ctx.has_input(i) && ctx.input_type(i) != DataType::Float32) {
      throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression input " + std::to_string(i) + " must be float32");
    }
  }
  const int64_t cpb = ctx.node.attrs.get_int("center_point_box", 0);
  if (cpb != 0 && cpb != 1) {
    throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression center_point_box " + std::to_string(cpb) + " is not 0 or 1");
  }
  if (!ctx.dynamic_outputs) {
    const Shape& out = ctx.output_shape(0);
    if (ctx.output_type(0) != DataType::Int64 || out.rank() != 2 || out[1] != 3) {
      throw InvalidGraphError(at_node(ctx) + "NonMaxSuppression output must be int64 [n, 3], not " + out.str());
    }
  }
  return std::make_unique<NonMaxSuppressionKernel>(b[0], s[1], b[1], cpb == 1, ctx.dynamic_outputs, ctx.node.describe());
}

}  // namespace

void register_nms_kernels(Registrar& r) { add_allocating_cpu_kernel(r, "NonMaxSuppression", make_nms); }

}  // namespace ge::cpu
