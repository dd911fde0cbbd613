// A value kept on the heap, always present: a value type at the size of a pointer. For a large
// part that one alternative of model::Job holds inline (a DeepSpeedJob's worker template): a
// std::variant is as large as its largest alternative, so every stored job, whatever its kind,
// paid for it (issue 49: the store's job records at the backlog's peak).
#pragma once

#include <memory>
#include <utility>

namespace t9k::model {

template <class T>
class Boxed {
 public:
  Boxed() : p_(std::make_unique<T>()) {}
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit, as T
  Boxed(const Boxed& o) : p_(std::make_unique<T>(*o)) {}
  // A moved-from box holds nothing until it is assigned again (as a moved-from job is only
  // destroyed or assigned): moving a job into the store does not allocate.
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) *this = *o;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(T value) {
    if (p_)
      *p_ = std::move(value);
    else
      p_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T* get() { return p_.get(); }
  const T* get() const { return p_.get(); }

  bool operator==(const Boxed& o) const { return p_ && o.p_ ? *p_ == *o.p_ : p_ == o.p_; }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace t9k::model
