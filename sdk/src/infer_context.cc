#include "ge/sdk/error.h"
#include "ge/sdk/op_registry.h"

namespace ge {

DataType InferContext::input_type(size_t i) const {
  Value* v = node_.input(i);
  return v ? v->dtype : DataType::Undefined;
}

const Shape& InferContext::input_shape(size_t i) const {
  Value* v = node_.input(i);
  if (!v) fail("input " + std::to_string(i) + " is omitted but its shape is needed");
  return v->shape;
}

const Tensor* InferContext::input_data(size_t i) const {
  Value* v = node_.input(i);
  return v ? v->data.get() : nullptr;
}

const Tensor& InferContext::require_input_data(size_t i) const {
  const Tensor* t = input_data(i);
  if (!t) {
    std::string nm = node_.input(i) ? "'" + node_.input(i)->name() + "'" : std::to_string(i);
    throw UnknownValueError(node_.describe() + ": input " + nm +
                            " must be known at compile time for a static output shape");
  }
  return *t;
}

void InferContext::set_output(size_t i, DataType t, Shape s) {
  Value* v = node_.output(i);
  if (!v) return;  // omitted optional output
  v->dtype = t;
  v->shape = std::move(s);
}

void InferContext::set_output_data(size_t i, Tensor t) {
  Value* v = node_.output(i);
  if (!v) return;
  v->dtype = t.dtype();
  v->shape = t.shape();
  v->data = std::make_shared<const Tensor>(std::move(t));
}

namespace {
const AttrValue* attr_or_default(const Node& n, const OpDef& d, const std::string& name) {
  if (const AttrValue* v = n.attrs.find(name)) return v;
  if (const AttrDef* a = d.find_attr(name); a && a->default_value) return &*a->default_value;
  return nullptr;
}
}  // namespace

int64_t InferContext::attr_int(const std::string& name) const {
  const AttrValue* v = attr_or_default(node_, def_, name);
  if (!v) fail("missing required attribute '" + name + "'");
  if (auto* p = std::get_if<int64_t>(v)) return *p;
  fail("attribute '" + name + "' must be an int");
}

float InferContext::attr_float(const std::string& name) const {
  const AttrValue* v = attr_or_default(node_, def_, name);
  if (!v) fail("missing required attribute '" + name + "'");
  if (auto* p = std::get_if<float>(v)) return *p;
  if (auto* p = std::get_if<int64_t>(v)) return static_cast<float>(*p);
  fail("attribute '" + name + "' must be a float");
}

std::string InferContext::attr_string(const std::string& name) const {
  const AttrValue* v = attr_or_default(node_, def_, name);
  if (!v) fail("missing required attribute '" + name + "'");
  if (auto* p = std::get_if<std::string>(v)) return *p;
  fail("attribute '" + name + "' must be a string");
}

std::vector<int64_t> InferContext::attr_ints(const std::string& name) const {
  const AttrValue* v = attr_or_default(node_, def_, name);
  if (!v) return {};
  if (auto* p = std::get_if<std::vector<int64_t>>(v)) return *p;
  fail("attribute '" + name + "' must be a list of ints");
}

void InferContext::fail(const std::string& msg) const { throw InvalidGraphError(node_.describe() + ": " + msg); }
void InferContext::unsupported(const std::string& msg) const { throw UnsupportedError(node_.describe() + ": " + msg); }

}  // namespace ge
