// Chunked<T>: an indexed sequence that grows a chunk at a time and never moves its elements.
// std::vector doubles: it holds up to twice what it needs, and while it grows it holds the old
// block and the new one at once. For the snapshot's groups and pods that was 5 MB of the
// backlog's peak (issue 49). An index costs one more load than a vector's.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace t9k::scheduler {

template <class T, unsigned kBits = 10>
class Chunked {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << kBits;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  void push_back(T value) {
    if ((size_ >> kBits) == chunks_.size()) chunks_.push_back(std::make_unique<T[]>(kChunk));
    (*this)[size_++] = std::move(value);
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;  // chunks_.size() * kChunk >= size_
  std::size_t size_ = 0;
};

}  // namespace t9k::scheduler
