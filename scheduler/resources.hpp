// Dense resource vectors for the scheduler's hot loops. model::ResourceList is an ordered map of
// name -> Quantity; here every resource name gets a small integer dimension (cpu 0, memory 1,
// nvidia.com/gpu 2, extended resources after them in order of first sight) and amounts are
// int64: milli-units, except byte resources (memory, ephemeral-storage, hugepages-*) in whole
// bytes rounded up, as kube-scheduler counts them (Quantity.Value()); in milli-bytes a
// 10,000-node cluster's memory overflowed int64. ResourceTable::amount and ::quantity convert.
// A vector shorter than the table reads as zero in the missing dimensions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/meta.hpp"

namespace t9k::scheduler {

using Dim = std::int32_t;
inline constexpr Dim kDimCpu = 0;
inline constexpr Dim kDimMemory = 1;
inline constexpr Dim kDimGpu = 2;

using DenseRes = std::vector<std::int64_t>;
// Non-zero entries only, sorted by dimension: what a pod requests.
using SparseRes = std::vector<std::pair<Dim, std::int64_t>>;

class ResourceTable {
 public:
  ResourceTable();
  Dim dim(const std::string& name);  // finds or adds
  std::optional<Dim> find(const std::string& name) const;
  const std::string& name(Dim d) const { return names_[static_cast<std::size_t>(d)]; }
  std::size_t size() const { return names_.size(); }

  // A quantity in dimension d's unit, and back.
  std::int64_t amount(Dim d, const model::Quantity& q) const {
    return in_bytes_[static_cast<std::size_t>(d)] ? q.units_ceil() : q.milli();
  }
  model::Quantity quantity(Dim d, std::int64_t amount) const {
    return in_bytes_[static_cast<std::size_t>(d)] ? model::Quantity::from_units(amount)
                                                  : model::Quantity::from_milli(amount);
  }

  DenseRes dense(const model::ResourceList& r);
  SparseRes sparse(const model::ResourceList& r);
  model::ResourceList to_list(const DenseRes& r) const;

 private:
  std::map<std::string, Dim> dims_;
  std::vector<std::string> names_;
  std::vector<bool> in_bytes_;  // by dimension: counted in bytes, not milli-units
};

inline std::int64_t at(const DenseRes& v, Dim d) {
  return static_cast<std::size_t>(d) < v.size() ? v[static_cast<std::size_t>(d)] : 0;
}
inline std::int64_t& slot(DenseRes& v, Dim d) {
  if (static_cast<std::size_t>(d) >= v.size()) v.resize(static_cast<std::size_t>(d) + 1, 0);
  return v[static_cast<std::size_t>(d)];
}
inline void add(DenseRes& v, const SparseRes& r, std::int64_t sign = 1) {
  for (const auto& [d, q] : r) slot(v, d) += sign * q;
}
inline void add(DenseRes& v, const DenseRes& r, std::int64_t sign = 1) {
  for (std::size_t d = 0; d < r.size(); ++d) slot(v, static_cast<Dim>(d)) += sign * r[d];
}
inline std::int64_t at(const SparseRes& r, Dim d) {
  for (const auto& [k, q] : r)
    if (k == d) return q;
  return 0;
}
// need <= have in every dimension.
inline bool dominates(const DenseRes& have, const DenseRes& need) {
  for (std::size_t d = 0; d < need.size(); ++d)
    if (need[d] > at(have, static_cast<Dim>(d))) return false;
  return true;
}
inline DenseRes to_dense(const SparseRes& r) {
  DenseRes v;
  add(v, r);
  return v;
}

}  // namespace t9k::scheduler
