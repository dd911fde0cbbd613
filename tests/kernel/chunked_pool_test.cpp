#include "kernel/chunked_pool.hpp"

#include <string>

#include <catch2/catch.hpp>

using t9k::kernel::ChunkedPool;

namespace {

// Counts its live instances; can be neither copied nor moved.
struct Counted {
  static inline int live = 0;
  std::string value = "default";
  Counted() { ++live; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --live; }
};

}  // namespace

TEST_CASE("chunked pool: records never move as it grows, and a released slot is reused reset") {
  ChunkedPool<std::string, 4> pool;
  const auto first = pool.acquire();
  pool[first] = "first";
  const std::string* where = &pool[first];
  for (int i = 0; i < 100; ++i) pool[pool.acquire()] = std::to_string(i);
  CHECK(&pool[first] == where);  // a std::vector would have moved it
  CHECK(pool[first] == "first");
  CHECK(pool.live() == 101);
  CHECK(pool.size() == 101);

  pool.release(first);
  CHECK(pool[first].empty());  // what it held is released at once
  CHECK(pool.live() == 100);
  CHECK(pool.acquire() == first);
  CHECK(pool.size() == 101);     // the bound of ids handed out, released ones included
  CHECK(pool.acquire() == 101);  // then fresh slots, in order
  CHECK(pool.size() == 102);
}

TEST_CASE("chunked pool: a released record is ended and begun again in place") {
  {
    ChunkedPool<Counted, 4> pool;
    const auto a = pool.acquire();
    pool[a].value = "held";
    const Counted* where = &pool[a];
    CHECK(Counted::live == 4);  // a chunk's records are built with it
    pool.release(a);
    CHECK(&pool[a] == where);
    CHECK(pool[a].value == "default");
    CHECK(Counted::live == 4);  // no record built aside: it needs no copy or move
  }
  CHECK(Counted::live == 0);
}
