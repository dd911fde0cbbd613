// An optional value kept on the heap: the interface of std::optional that the model uses, at the
// size of a pointer. For rare, large parts of objects the store keeps by the thousand (a job's
// TensorBoard status, §9): a std::optional would hold their whole size inline in every job.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace t9k::model {

template <class T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}  // NOLINT: implicit, as std::optional's
  HeapOptional(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: as above
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& emplace() {
    p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

  // Equal when both are empty or both hold equal values.
  bool operator==(const HeapOptional& o) const { return p_ && o.p_ ? *p_ == *o.p_ : p_ == o.p_; }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace t9k::model
