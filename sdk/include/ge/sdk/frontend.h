// ge/sdk/frontend.h — model formats enter GE through a Frontend.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge {

struct FrontendOptions {
  /// Older ONNX IR versions list initializers as graph inputs too. By default such inputs are
  /// constants; true keeps them as graph inputs that a caller may override.
  bool keep_initializer_inputs = false;
  /// Overrides of graph input shapes (name → dims), e.g. a batch size.
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

class Frontend {
 public:
  virtual ~Frontend() = default;
  virtual std::string name() const = 0;
  /// True when this frontend reads the file (by extension or by its first bytes).
  virtual bool accepts(const std::string& path, const std::string& head) const = 0;
  /// Reads the model into a graph: nodes, values with dtype (and shape where the file has it),
  /// initializers as constants. Shape propagation is the host's job. Throws ge::Error naming
  /// the file on failure.
  virtual std::unique_ptr<Graph> load(const std::string& path, const FrontendOptions& opts) const = 0;
};

}  // namespace ge
