#include "ge/sdk/kernel.h"

#include <algorithm>

#include "ge/sdk/kernel_delegate.h"

#include "ge/sdk/error.h"

namespace ge {

const Shape& KernelBuildContext::input_shape(size_t i) const {
  static const Shape empty;
  return node.input(i) ? node.input(i)->shape : empty;
}

namespace {

const KernelDef* find_in(const std::vector<std::unique_ptr<KernelDef>>& defs, const std::string& backend,
                         const std::string& domain, const std::string& op_type) {
  for (auto& d : defs)
    if (d->backend == backend && d->domain == domain && d->op_type == op_type) return d.get();
  return nullptr;
}

const KernelDef* delegate_declaration(const std::vector<std::unique_ptr<KernelDef>>& defs, const std::string& backend) {
  for (auto& d : defs)
    if (d->backend == backend && d->domain == kKernelDelegateDomain) return d.get();
  return nullptr;
}

thread_local const DelegatedKernels* t_delegated = nullptr;

}  // namespace

KernelDef kernel_delegate_def(const std::string& backend, const std::string& delegate, KernelFactory factory) {
  return KernelDef{backend, kKernelDelegateDomain, delegate, std::move(factory), ""};
}

const DelegatedKernels* delegated_kernels() { return t_delegated; }

std::string kernel_delegate_of(const KernelRegistry& reg, const std::string& backend) {
  for (const KernelDef* d : reg.all())
    if (d->backend == backend && d->domain == kKernelDelegateDomain) return d->op_type;
  return "";
}

std::string kernel_backends_searched(const KernelRegistry& reg, const std::string& backend) {
  const std::string d = kernel_delegate_of(reg, backend);
  return d.empty() ? backend : backend + ", " + d;
}

void KernelRegistry::add(KernelDef def) {
  if (def.domain == kKernelDelegateDomain) {
    if (def.op_type == def.backend)
      throw Error("kernel delegate of backend '" + def.backend + "' (by '" + def.source + "') names the backend itself");
    if (const KernelDef* old = delegate_declaration(defs_, def.backend))
      throw Error("kernel delegate of backend '" + def.backend + "' registered twice: by '" + old->source + "' and by '" +
                  def.source + "'");
    // The declaration's factory sees the node's two candidate kernels (kernel_delegate.h). The
    // registry owns the definition, so `this` outlives it.
    def.factory = [inner = std::move(def.factory), this, backend = def.backend,
                   delegate = def.op_type](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
      const std::string &d = ctx.node.domain(), &op = ctx.node.op_type();
      const DelegatedKernels k{find_in(defs_, backend, d, op), find_in(defs_, delegate, d, op)};
      if (!k.delegate) throw Error("kernel delegate of backend '" + backend + "': backend '" + delegate + "' has no kernel for " + op);
      const DelegatedKernels* outer = t_delegated;
      t_delegated = &k;
      try {
        std::unique_ptr<Kernel> r = inner(ctx);
        t_delegated = outer;
        return r;
      } catch (...) {
        t_delegated = outer;
        throw;
      }
    };
  } else if (const KernelDef* old = find_in(defs_, def.backend, def.domain, def.op_type)) {
    throw Error("kernel for " + def.op_type + " on backend '" + def.backend + "' registered twice: by '" + old->source +
                "' and by '" + def.source + "'");
  }
  defs_.push_back(std::make_unique<KernelDef>(std::move(def)));
}

const KernelDef* KernelRegistry::find(const std::string& backend, const std::string& domain,
                                      const std::string& op_type) const {
  if (domain != kKernelDelegateDomain)
    if (const KernelDef* decl = delegate_declaration(defs_, backend))
      if (find_in(defs_, decl->op_type, domain, op_type)) return decl;  // one level: the delegate's own kernels
  return find_in(defs_, backend, domain, op_type);
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
