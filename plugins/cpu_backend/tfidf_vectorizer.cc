// plugins/cpu_backend/tfidf_vectorizer.cc — TfIdfVectorizer-9 (onnx/docs/Operators.md) over int32
// and int64 tokens (pool_strings is not handled: GE tensors hold no strings).
//
// The pool holds the n-grams by length: the (k)-grams run from ngram_counts[k-1] to
// ngram_counts[k] (or the pool's end), k items each; the i-th n-gram of the pool counts into
// Y[ngram_indexes[i]] and weighs weights[i] ("the i-th element in weights is the weight of
// the i-th n-gram in pool"). For every skip distance d = 1 .. max_skip_count + 1 and every
// start position, the n-grams x[s], x[s+d], ..., of min_gram_length..max_gram_length items
// found in the pool are counted; unigrams are counted once, not once per skip distance (ORT's
// tfidfvectorizer.cc). Mode TF gives the count, IDF the weight (or 1) where the count is
// nonzero, TFIDF count * weight (weight 1 without weights).
#include <map>
#include <vector>

#include "kernels.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

enum class TfIdfMode { TF, IDF, TFIDF };

struct TfIdfSpec {
  std::map<std::vector<int64_t>, size_t> ngram_id;  // pool n-gram -> its pool index i
  std::vector<int64_t> ngram_indexes;
  std::vector<float> weights;
  int64_t min_n = 1, max_n = 1, max_skip = 0, out_size = 0;
  TfIdfMode mode = TfIdfMode::TF;
};

template <class T>
class TfIdfVectorizerKernel final : public Kernel {
 public:
  TfIdfVectorizerKernel(TfIdfSpec spec, int64_t rows, int64_t cols) : s_(std::move(spec)), rows_(rows), cols_(cols) {}
  void run(KernelIO& io) override {
    const T* x = io.inputs[0].data_as<T>();
    float* y = io.outputs[0].data_as<float>();
    std::vector<int64_t> counts(s_.ngram_indexes.size());
    std::vector<int64_t> key;
    for (int64_t r = 0; r < rows_; ++r) {
      const T* row = x + r * cols_;
      std::fill(counts.begin(), counts.end(), 0);
      int64_t start_n = s_.min_n;
      for (int64_t d = 1; d <= s_.max_skip + 1 && start_n <= s_.max_n; ++d) {
        for (int64_t st = 0; st + d * (start_n - 1) < cols_; ++st) {
          key.clear();
          for (int64_t n = 1; n <= s_.max_n && st + (n - 1) * d < cols_; ++n) {
            key.push_back(static_cast<int64_t>(row[st + (n - 1) * d]));
            if (n < start_n) continue;
            if (auto hit = s_.ngram_id.find(key); hit != s_.ngram_id.end()) ++counts[hit->second];
          }
        }
        if (start_n == 1) start_n = 2;  // unigrams do not depend on the skip distance
      }
      float* yr = y + r * s_.out_size;
      std::fill(yr, yr + s_.out_size, 0.f);
      for (size_t i = 0; i < counts.size(); ++i) {
        const float w = s_.weights.empty() ? 1.f : s_.weights[i];
        const auto c = static_cast<float>(counts[i]);
        float v = c;
        if (s_.mode == TfIdfMode::IDF) v = counts[i] > 0 ? w : 0.f;
        else if (s_.mode == TfIdfMode::TFIDF) v = c * w;
        yr[s_.ngram_indexes[i]] += v;
      }
    }
  }
  std::string impl_name() const override { return "cpu:TfIdfVectorizer"; }

 private:
  TfIdfSpec s_;
  int64_t rows_, cols_;
};

std::unique_ptr<Kernel> make_tfidf(const KernelBuildContext& ctx) {
  const auto& a = ctx.node.attrs;
  if (a.has("pool_strings")) throw UnsupportedError(at_node(ctx) + "TfIdfVectorizer pool_strings (string tokens) not supported");
  const DataType t = ctx.input_type(0);
  if (t != DataType::Int32 && t != DataType::Int64) {
    throw UnsupportedError(at_node(ctx) + "TfIdfVectorizer input dtype " + std::string(dtype_name(t)) + " not supported");
  }
  TfIdfSpec s;
  s.min_n = a.get_int("min_gram_length", 1);
  s.max_n = a.get_int("max_gram_length", 1);
  s.max_skip = a.get_int("max_skip_count", 0);
  const std::string mode = a.get_string("mode", "TF");
  s.mode = mode == "IDF" ? TfIdfMode::IDF : mode == "TFIDF" ? TfIdfMode::TFIDF : TfIdfMode::TF;
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer mode " + mode);
  if (s.min_n < 1 || s.max_n < s.min_n || s.max_skip < 0) {
    throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
  }
  const std::vector<int64_t> pool = a.get_ints("pool_int64s");
  const std::vector<int64_t> starts = a.get_ints("ngram_counts");
  s.ngram_indexes = a.get_ints("ngram_indexes");
  s.weights = a.get_floats("weights");
  size_t i = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto b = static_cast<size_t>(starts[k]);
    const size_t e = k + 1 < starts.size() ? static_cast<size_t>(starts[k + 1]) : pool.size();
    const size_t n = k + 1;
    if (starts[k] < 0 || b > e || e > pool.size() || (e - b) % n != 0) {
      throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer ngram_counts do not split pool_int64s into " +
                              std::to_string(n) + "-grams");
    }
    for (size_t p = b; p < e; p += n) {
      s.ngram_id.emplace(std::vector<int64_t>(pool.begin() + static_cast<std::ptrdiff_t>(p),
                                              pool.begin() + static_cast<std::ptrdiff_t>(p + n)),
                         i++);
    }
  }
  if (s.ngram_indexes.size() != i || (!s.weights.empty() && s.weights.size() != i)) {
    throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer pool has " + std::to_string(i) +
                            " n-grams but ngram_indexes (or weights) another count");
  }
  for (int64_t v : s.ngram_indexes) {
    if (v < 0) throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer negative ngram_indexes entry");
    s.out_size = std::max(s.out_size, v + 1);
  }
  const Shape& x = ctx.input_shape(0);
  if (x.rank() != 1 && x.rank() != 2) throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer input must be [C] or [N, C]");
  const int64_t rows = x.rank() == 2 ? x[0] : 1, cols = x[x.rank() - 1];
  expect_output_shape(ctx, x.rank() == 2 ? Shape{rows, s.out_size} : Shape{s.out_size});
  if (ctx.output_type(0) != DataType::Float32) throw InvalidGraphError(at_node(ctx) + "TfIdfVectorizer output must be float32");
  if (t == DataType::Int32) return std::make_unique<TfIdfVectorizerKernel<int32_t>>(std::move(s), rows, cols);
  return std::make_unique<TfIdfVectorizerKernel<int64_t>>(std::move(s), rows, cols);
}

}  // namespace

void register_tfidf_kernels(Registrar& r) { add_cpu_kernel(r, "TfIdfVectorizer", make_tfidf); }

}  // namespace ge::cpu
