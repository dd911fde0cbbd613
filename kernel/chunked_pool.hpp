// A pool of records addressed by a dense index, for the world's per-job records and the scheduler
// snapshot's groups and pods. Records live in
// fixed-size chunks: growth never moves or copies them (a std::vector's doubling held the old and
// the new array at once, and up to twice the live records), so memory stays within one chunk of
// the most records ever live at once (chunks are kept for reuse, not freed). Released slots are
// reset and reused first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace t9k::kernel {

// Records per chunk: a power of two, so that finding a record is a shift and a mask (chunks
// sized to 64 KiB, 81 stored jobs each, cost philly-20k 0.15 % more instructions in the
// division alone; issue 49).
template <class T, std::size_t kChunk = 256>
class ChunkedPool {
  static_assert((kChunk & (kChunk - 1)) == 0, "records per chunk: a power of two");

 public:
  // The index of a default-constructed record.
  std::uint32_t acquire() {
    if (!free_.empty()) {
      const auto i = free_.back();
      free_.pop_back();
      return i;
    }
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
    return static_cast<std::uint32_t>(size_++);
  }
  // Resets the record (releasing what it holds) and makes its slot the next one acquired.
  void release(std::uint32_t i) {
    // Ended and begun again in place: no default record built aside and moved over (a stored
    // job is 800 bytes).
    T& record = (*this)[i];
    std::destroy_at(&record);
    std::construct_at(&record);
    free_.push_back(i);
  }
  T& operator[](std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](std::size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  std::size_t live() const { return size_ - free_.size(); }
  // Slots ever handed out: every index acquired is below it (released ones included).
  std::size_t size() const { return size_; }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;  // slots ever handed out
  // Released slots, last in first out; in blocks, as a vector doubling late in a run (when most
  // records are released) took fresh pages while freed memory lay scattered (issue 49).
  std::deque<std::uint32_t> free_;
};

}  // namespace t9k::kernel
