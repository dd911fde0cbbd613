#include "scheduler/resources.hpp"

#include <algorithm>

namespace t9k::scheduler {

ResourceTable::ResourceTable() {
  dim(model::kResourceCpu);
  dim(model::kResourceMemory);
  dim(model::kResourceGpu);
}

namespace {

// Resources Kubernetes measures in bytes (the kubelet's and kube-scheduler's byte resources).
bool byte_resource(const std::string& name) {
  return name == model::kResourceMemory || name == "ephemeral-storage" ||
         name.rfind("hugepages-", 0) == 0;
}

}  // namespace

Dim ResourceTable::dim(const std::string& name) {
  const auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  const Dim d = static_cast<Dim>(names_.size());
  dims_.emplace(name, d);
  names_.push_back(name);
  in_bytes_.push_back(byte_resource(name));
  return d;
}

std::optional<Dim> ResourceTable::find(const std::string& name) const {
  const auto it = dims_.find(name);
  if (it == dims_.end()) return std::nullopt;
  return it->second;
}

DenseRes ResourceTable::dense(const model::ResourceList& r) {
  DenseRes v;
  for (const auto& [name, q] : r) {
    const Dim d = dim(name);
    slot(v, d) += amount(d, q);
  }
  return v;
}

SparseRes ResourceTable::sparse(const model::ResourceList& r) {
  SparseRes s;
  for (const auto& [name, q] : r) {
    if (q.is_zero()) continue;
    const Dim d = dim(name);
    s.emplace_back(d, amount(d, q));
  }
  std::sort(s.begin(), s.end());
  return s;
}

model::ResourceList ResourceTable::to_list(const DenseRes& r) const {
  model::ResourceList out;
  for (std::size_t d = 0; d < r.size() && d < names_.size(); ++d)
    if (r[d] != 0) out[names_[d]] = quantity(static_cast<Dim>(d), r[d]);
  return out;
}

}  // namespace t9k::scheduler
