#include "scheduler/resources.hpp"

#include <algorithm>

namespace t9k::scheduler {

ResourceTable::ResourceTable() {
  dim(model::kResourceCpu);
  dim(model::kResourceMemory);
  dim(model::kResourceGpu);
}

Dim ResourceTable::dim(const std::string& name) {
  const auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  const Dim d = static_cast<Dim>(names_.size());
  dims_.emplace(name, d);
  names_.push_back(name);
  return d;
}

std::optional<Dim> ResourceTable::find(const std::string& name) const {
  const auto it = dims_.find(name);
  if (it == dims_.end()) return std::nullopt;
  return it->second;
}

DenseRes ResourceTable::dense(const model::ResourceList& r) {
  DenseRes v;
  for (const auto& [name, q] : r) slot(v, dim(name)) += q.milli();
  return v;
}

SparseRes ResourceTable::sparse(const model::ResourceList& r) {
  SparseRes s;
  for (const auto& [name, q] : r)
    if (!q.is_zero()) s.emplace_back(dim(name), q.milli());
  std::sort(s.begin(), s.end());
  return s;
}

model::ResourceList ResourceTable::to_list(const DenseRes& r) const {
  model::ResourceList out;
  for (std::size_t d = 0; d < r.size() && d < names_.size(); ++d)
    if (r[d] != 0) out[names_[d]] = model::Quantity::from_milli(r[d]);
  return out;
}

}  // namespace t9k::scheduler
