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
  // Moving takes the value without allocating (a job moved into the store). The moved-from box
  // reads as a default T, as a moved-from member would read empty, and gets a value of its own
  // when written to: reading it is never undefined.
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

  T& operator*() { return *get(); }
  const T& operator*() const { return *get(); }
  T* operator->() { return get(); }
  const T* operator->() const { return get(); }
  T* get() {
    if (!p_) p_ = std::make_unique<T>();
    return p_.get();
  }
  const T* get() const { return p_ ? p_.get() : &empty(); }

  bool operator==(const Boxed& o) const { return **this == *o; }

 private:
  static const T& empty() {
    static const T value{};
    return value;
  }
  std::unique_ptr<T> p_;
};

}  // namespace t9k::model
