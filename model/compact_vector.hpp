// CompactVector<T>: a vector that is one pointer, and no block at all while empty. For lists that
// every stored object has a place for and few fill: a pod's command and args are empty for every
// trace-replayed job, and two std::vectors were 48 bytes of each of the backlog's 20,000 pods
// (issue 49). Reads as a std::vector; copies copy the elements.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace t9k::model {

template <class T>
class CompactVector {
 public:
  CompactVector() = default;
  CompactVector(std::vector<T> v) { assign(std::move(v)); }  // NOLINT: implicit, as a vector
  CompactVector(std::initializer_list<T> v) : CompactVector(std::vector<T>(v)) {}
  CompactVector(const CompactVector& o)
      : p_(o.p_ ? std::make_unique<std::vector<T>>(*o.p_) : nullptr) {}
  CompactVector(CompactVector&&) noexcept = default;
  CompactVector& operator=(const CompactVector& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<std::vector<T>>(*o.p_) : nullptr;
    return *this;
  }
  CompactVector& operator=(CompactVector&&) noexcept = default;
  CompactVector& operator=(std::vector<T> v) {
    assign(std::move(v));
    return *this;
  }
  CompactVector& operator=(std::initializer_list<T> v) { return *this = std::vector<T>(v); }

  // The elements as a vector (empty: a shared empty one).
  const std::vector<T>& vector() const { return p_ ? *p_ : empty_vector(); }
  operator const std::vector<T>&() const { return vector(); }  // NOLINT: reads as a vector

  bool empty() const { return !p_ || p_->empty(); }
  std::size_t size() const { return p_ ? p_->size() : 0; }
  auto begin() const { return vector().begin(); }
  auto end() const { return vector().end(); }
  const T& front() const { return p_->front(); }
  const T& back() const { return p_->back(); }
  const T& operator[](std::size_t i) const { return (*p_)[i]; }

  // The elements, to change in place (made, empty, when there is none).
  std::vector<T>& edit() {
    if (!p_) p_ = std::make_unique<std::vector<T>>();
    return *p_;
  }
  void clear() { p_.reset(); }
  void push_back(T v) { edit().push_back(std::move(v)); }

  bool operator==(const CompactVector& o) const { return vector() == o.vector(); }
  bool operator==(const std::vector<T>& o) const { return vector() == o; }

 private:
  void assign(std::vector<T> v) {
    if (v.empty()) {
      p_.reset();
    } else {
      p_ = std::make_unique<std::vector<T>>(std::move(v));
    }
  }
  static const std::vector<T>& empty_vector() {
    static const std::vector<T> none;
    return none;
  }
  std::unique_ptr<std::vector<T>> p_;  // null: empty
};

}  // namespace t9k::model
