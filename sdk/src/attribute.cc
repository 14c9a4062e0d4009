#include "ge/sdk/attribute.h"

#include "ge/sdk/error.h"
#include "text_ir_syntax.h"

namespace ge {

std::string_view attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Int: return "int";
    case AttrType::Float: return "float";
    case AttrType::String: return "string";
    case AttrType::Ints: return "ints";
    case AttrType::Floats: return "floats";
    case AttrType::Strings: return "strings";
    case AttrType::Tensor: return "tensor";
  }
  return "?";
}

AttrType attr_type_of(const AttrValue& v) { return static_cast<AttrType>(v.index()); }

namespace {
// Shortest exact text, with ".0" added to integral values so that a float attribute never
// reads back as an int (the text IR parser tells the kinds apart by that).
std::string fmt_float(float f) {
  std::string s = text_ir::shortest(f);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
using text_ir::quote;
}  // namespace

std::string attr_to_string(const AttrValue& v) {
  return std::visit(
      [](auto&& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<T, float>) return fmt_float(x);
        else if constexpr (std::is_same_v<T, std::string>) return quote(x);
        else if constexpr (std::is_same_v<T, Tensor>)
          return "tensor<" + std::string(dtype_name(x.dtype())) + x.shape().str() + ">";
        else {
          std::string s = "[";
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) s += ",";
            using E = typename T::value_type;
            if constexpr (std::is_same_v<E, int64_t>) s += std::to_string(x[i]);
            else if constexpr (std::is_same_v<E, float>) s += fmt_float(x[i]);
            else s += quote(x[i]);
          }
          return s + "]";
        }
      },
      v);
}

namespace {
template <class T>
const T* get_as(const Attributes& a, const std::string& name, AttrType want) {
  const AttrValue* v = a.find(name);
  if (!v) return nullptr;
  if (const T* p = std::get_if<T>(v)) return p;
  throw InvalidGraphError(a.owner + ": attribute '" + name + "' is " + std::string(attr_type_name(attr_type_of(*v))) +
                          ", expected " + std::string(attr_type_name(want)));
}
}  // namespace

const AttrValue* Attributes::find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t Attributes::get_int(const std::string& name, int64_t dflt) const {
  auto* p = get_as<int64_t>(*this, name, AttrType::Int);
  return p ? *p : dflt;
}
float Attributes::get_float(const std::string& name, float dflt) const {
  const AttrValue* v = find(name);
  if (v && std::holds_alternative<int64_t>(*v)) return static_cast<float>(std::get<int64_t>(*v));
  auto* p = get_as<float>(*this, name, AttrType::Float);
  return p ? *p : dflt;
}
std::string Attributes::get_string(const std::string& name, const std::string& dflt) const {
  auto* p = get_as<std::string>(*this, name, AttrType::String);
  return p ? *p : dflt;
}
std::vector<int64_t> Attributes::get_ints(const std::string& name, std::vector<int64_t> dflt) const {
  auto* p = get_as<std::vector<int64_t>>(*this, name, AttrType::Ints);
  return p ? *p : dflt;
}
std::vector<float> Attributes::get_floats(const std::string& name, std::vector<float> dflt) const {
  auto* p = get_as<std::vector<float>>(*this, name, AttrType::Floats);
  return p ? *p : dflt;
}
const Tensor& Attributes::get_tensor(const std::string& name) const {
  auto* p = get_as<Tensor>(*this, name, AttrType::Tensor);
  if (!p) throw InvalidGraphError(owner + ": missing tensor attribute '" + name + "'");
  return *p;
}

}  // namespace ge
