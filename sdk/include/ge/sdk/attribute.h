// ge/sdk/attribute.h — operator attributes (ONNX AttributeProto's value kinds).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ge/sdk/tensor.h"

namespace ge {

enum class AttrType { Int, Float, String, Ints, Floats, Strings, Tensor };
std::string_view attr_type_name(AttrType t);  ///< "int", "float", "string", "ints", ...

/// One attribute value. ONNX INT → int64_t, FLOAT → float, STRING → std::string, INTS, FLOATS,
/// STRINGS → vectors, TENSOR → Tensor. Graph attributes (control flow) are not represented.
using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, Tensor>;
AttrType attr_type_of(const AttrValue& v);
/// Text form used by the text IR: 3, 1.5, "s", [1,2], [0.5,1.0], ["a"], tensor<f32[2]>.
std::string attr_to_string(const AttrValue& v);

/// Named attributes of a node, ordered by name (stable printing).
/// Getters throw ge::InvalidGraphError when the attribute exists with another type; the
/// message names the attribute and the node (`owner`, set by Node).
class Attributes {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  void erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, AttrValue>& all() const { return values_; }
  size_t size() const { return values_.size(); }

  int64_t get_int(const std::string& name, int64_t dflt) const;
  float get_float(const std::string& name, float dflt) const;
  std::string get_string(const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> get_ints(const std::string& name, std::vector<int64_t> dflt = {}) const;
  std::vector<float> get_floats(const std::string& name, std::vector<float> dflt = {}) const;
  /// Throws ge::InvalidGraphError when missing.
  const Tensor& get_tensor(const std::string& name) const;
  const AttrValue* find(const std::string& name) const;

  /// Name used in error messages ("node 'conv1' (Conv)").
  std::string owner;

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace ge
