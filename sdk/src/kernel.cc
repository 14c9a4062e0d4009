#include "ge/sdk/kernel.h"

#include <algorithm>

#include "ge/sdk/error.h"

namespace ge {

const Shape& KernelBuildContext::input_shape(size_t i) const {
  static const Shape empty;
  return node.input(i) ? node.input(i)->shape : empty;
}

void KernelRegistry::add(KernelDef def) {
  if (const KernelDef* old = find(def.backend, def.domain, def.op_type))
    throw Error("kernel for " + def.op_type + " on backend '" + def.backend + "' registered twice: by '" + old->source +
                "' and by '" + def.source + "'");
  defs_.push_back(std::make_unique<KernelDef>(std::move(def)));
}

const KernelDef* KernelRegistry::find(const std::string& backend, const std::string& domain,
                                      const std::string& op_type) const {
  for (auto& d : defs_)
    if (d->backend == backend && d->domain == domain && d->op_type == op_type) return d.get();
  return nullptr;
}

std::vector<const KernelDef*> KernelRegistry::all() const {
  std::vector<const KernelDef*> out;
  for (auto& d : defs_) out.push_back(d.get());
  return out;
}

void KernelRegistry::remove_source(const std::string& source) {
  defs_.erase(std::remove_if(defs_.begin(), defs_.end(), [&](auto& d) { return d->source == source; }), defs_.end());
}

}  // namespace ge
