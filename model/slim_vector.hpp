// SlimVector<T>: a vector that is one pointer. Its size and capacity sit in front of the elements
// in the one block it allocates, and an empty one that never held an element has no block.
//
// For the sequences inside the flat maps that every stored object has (model/meta.hpp: a job's,
// a PodGroup's and a pod's labels, a pod's node selector): most are empty, and a std::vector
// or boost::container::vector is 24 bytes of each object whether it holds anything or not
// (docs/performance.md "Labels in one pointer", issue 49). Unlike CompactVector, a filled one
// costs no second block. It is the sequence container boost::container::flat_map is given: the
// members that flat_map reads, with std::vector's meaning. Elements must move without throwing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <boost/container/detail/construct_in_place.hpp>

namespace t9k::model {

namespace detail {
// Whether T's moves cannot throw. A pair's, when its members' cannot: flat_map stores
// boost::container::dtl::pair, whose moves are not declared noexcept.
template <class T, class = void>
struct MovesWithoutThrowing : std::bool_constant<std::is_nothrow_move_constructible_v<T> &&
                                                 std::is_nothrow_move_assignable_v<T>> {};
template <class T>
struct MovesWithoutThrowing<T, std::void_t<typename T::first_type, typename T::second_type>>
    : std::bool_constant<MovesWithoutThrowing<typename T::first_type>::value &&
                         MovesWithoutThrowing<typename T::second_type>::value> {};
}  // namespace detail

template <class T>
class SlimVector {
  static_assert(detail::MovesWithoutThrowing<T>::value,
                "SlimVector moves elements while it grows or shifts them");
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  using value_type = T;
  using allocator_type = std::allocator<T>;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SlimVector() noexcept = default;
  explicit SlimVector(const allocator_type&) noexcept {}
  // These delegate to the default constructor, so that an element's constructor that throws
  // part way has the destructor free what was made.
  SlimVector(std::initializer_list<T> il) : SlimVector() { insert(end(), il.begin(), il.end()); }
  template <class It>
  SlimVector(It first, It last) : SlimVector() {
    insert(end(), first, last);
  }
  SlimVector(const SlimVector& o) : SlimVector() {
    if (o.empty()) return;
    reserve(o.size());
    std::uninitialized_copy(o.begin(), o.end(), data());
    h_->size = o.h_->size;
  }
  SlimVector(SlimVector&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  SlimVector& operator=(const SlimVector& o) {
    if (this == &o) return *this;
    if (o.size() > capacity()) {
      SlimVector(o).swap(*this);
      return *this;
    }
    // In the block it has, as std::vector does (a pod's labels are assigned as it is made).
    const size_type common = std::min(size(), o.size());
    std::copy(o.begin(), o.begin() + common, begin());
    if (o.size() > size()) {
      std::uninitialized_copy(o.begin() + common, o.end(), end());
    } else {
      std::destroy(begin() + common, end());
    }
    if (h_) h_->size = static_cast<std::uint32_t>(o.size());
    return *this;
  }
  SlimVector& operator=(SlimVector&& o) noexcept {
    SlimVector(std::move(o)).swap(*this);
    return *this;
  }
  ~SlimVector() { release(); }

  void swap(SlimVector& o) noexcept { std::swap(h_, o.h_); }
  friend void swap(SlimVector& a, SlimVector& b) noexcept { a.swap(b); }
  allocator_type get_allocator() const noexcept { return {}; }

  T* data() noexcept { return h_ ? elements(h_) : nullptr; }
  const T* data() const noexcept { return h_ ? elements(h_) : nullptr; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  size_type size() const noexcept { return h_ ? h_->size : 0; }
  size_type capacity() const noexcept { return h_ ? h_->capacity : 0; }
  bool empty() const noexcept { return size() == 0; }
  static constexpr size_type max_size() noexcept {
    return std::numeric_limits<std::uint32_t>::max();
  }
  T& operator[](size_type i) noexcept { return data()[i]; }
  const T& operator[](size_type i) const noexcept { return data()[i]; }
  T& front() noexcept { return *data(); }
  const T& front() const noexcept { return *data(); }
  T& back() noexcept { return end()[-1]; }
  const T& back() const noexcept { return end()[-1]; }

  void reserve(size_type n) {
    if (n > capacity()) regrow(n);
  }
  void shrink_to_fit() {
    if (empty()) {
      release();
    } else if (size() < capacity()) {
      regrow(size());
    }
  }
  void clear() noexcept {
    if (!h_) return;
    std::destroy(begin(), end());
    h_->size = 0;
  }

  template <class... A>
  iterator emplace(const_iterator pos, A&&... a) {
    return place(index(pos),
                 [&](T* at) { ::new (static_cast<void*>(at)) T(std::forward<A>(a)...); });
  }
  iterator insert(const_iterator pos, const T& v) { return emplace(pos, v); }
  iterator insert(const_iterator pos, T&& v) { return emplace(pos, std::move(v)); }
  // Each element is made as boost::container's vectors make it (construct_in_place): flat_map's
  // emplace passes an emplace_iterator, which constructs its value rather than being read.
  template <class It>
  iterator insert(const_iterator pos, It first, It last) {
    size_type i = index(pos);
    const size_type at = i;
    allocator_type a;
    for (; first != last; ++first)
      place(i++, [&](T* to) { boost::container::construct_in_place(a, to, first); });
    return begin() + at;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    return *emplace(end(), std::forward<A>(a)...);
  }
  void push_back(const T& v) { emplace(end(), v); }
  void push_back(T&& v) { emplace(end(), std::move(v)); }
  void pop_back() noexcept {
    std::destroy_at(end() - 1);
    --h_->size;
  }

  iterator erase(const_iterator pos) noexcept { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) noexcept {
    const size_type i = index(first), n = static_cast<size_type>(last - first);
    if (n == 0) return begin() + i;
    T* gone = std::move(begin() + i + n, end(), begin() + i);
    std::destroy(gone, end());
    h_->size -= static_cast<std::uint32_t>(n);
    return begin() + i;
  }

  friend bool operator==(const SlimVector& a, const SlimVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator<(const SlimVector& a, const SlimVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Header {
    std::uint32_t size = 0, capacity = 0;
  };
  // The elements start at the first multiple of their alignment past the header.
  static constexpr std::size_t kOffset =
      (sizeof(Header) + alignof(T) - 1) / alignof(T) * alignof(T);
  static T* elements(Header* h) noexcept {
    return reinterpret_cast<T*>(reinterpret_cast<std::byte*>(h) + kOffset);  // as an allocator's
  }
  size_type index(const_iterator pos) const noexcept {
    return static_cast<size_type>(pos - begin());
  }

  // A block for n elements, with its header (size 0).
  static Header* allocate(size_type n) {
    if (n > max_size()) throw std::length_error("SlimVector: too many elements");
    return ::new (::operator new(kOffset + n * sizeof(T))) Header{0, static_cast<std::uint32_t>(n)};
  }
  // A block of capacity n holding the elements, moved.
  void regrow(size_type n) {
    Header* h = allocate(n);
    if (h_) {
      std::uninitialized_move(begin(), end(), elements(h));
      h->size = h_->size;
      release();
    }
    h_ = h;
  }
  // Makes an element at index i with make(raw place), which may throw (nothing has changed
  // then) and may read the elements (they are where they were while it runs).
  template <class Make>
  iterator place(size_type i, Make&& make) {
    const size_type s = size();
    if (s < capacity() && i == s) {  // at the end, with room: in place
      make(end());
      ++h_->size;
      return begin() + i;
    }
    if (s == capacity()) {  // full: made in a new block, the others moved around it
      // Grows by half (boost::container::vector, which the flat maps used, by 60 %): labels
      // and selectors are built once and rarely grow after.
      Header* h = allocate(std::max<size_type>(s + 1, s + s / 2));
      T* to = elements(h);
      try {
        make(to + i);
      } catch (...) {
        ::operator delete(h);
        throw;
      }
      h->size = static_cast<std::uint32_t>(s + 1);
      if (h_) {
        std::uninitialized_move(begin(), begin() + i, to);
        std::uninitialized_move(begin() + i, end(), to + i + 1);
        release();
      }
      h_ = h;
      return begin() + i;
    }
    // Inside, with room: made aside first (make may read the element about to move), then the
    // later elements shift by one.
    alignas(T) std::byte raw[sizeof(T)];
    make(reinterpret_cast<T*>(raw));
    T* made = std::launder(reinterpret_cast<T*>(raw));
    T* b = begin();
    ::new (static_cast<void*>(b + s)) T(std::move(b[s - 1]));
    std::move_backward(b + i, b + s - 1, b + s);
    b[i] = std::move(*made);
    std::destroy_at(made);
    ++h_->size;
    return b + i;
  }
  void release() noexcept {
    if (!h_) return;
    std::destroy(begin(), end());
    ::operator delete(h_);
    h_ = nullptr;
  }

  Header* h_ = nullptr;
};

}  // namespace t9k::model
