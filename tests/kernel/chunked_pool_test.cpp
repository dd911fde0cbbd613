#include "kernel/chunked_pool.hpp"

#include <string>

#include <catch2/catch.hpp>

using t9k::kernel::ChunkedPool;

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

TEST_CASE("chunked pool: a chunk holds as many records as fit in 64 KiB with the array's cookie") {
  using t9k::kernel::kChunkBytes;
  using t9k::kernel::records_per_chunk;
  struct Job {
    char bytes[800];
  };
  struct Huge {
    char bytes[100'000];
  };
  STATIC_REQUIRE(records_per_chunk<Job>() == 81);  // 64,800 bytes: tcmalloc serves 65,536
  STATIC_REQUIRE(records_per_chunk<Job>() * sizeof(Job) + 16 <= kChunkBytes);
  STATIC_REQUIRE((records_per_chunk<Job>() + 1) * sizeof(Job) + 16 > kChunkBytes);
  STATIC_REQUIRE(records_per_chunk<Huge>() == 1);  // larger than a chunk: one a chunk
  ChunkedPool<Huge> pool;
  CHECK(pool.acquire() == 0);
  CHECK(pool.acquire() == 1);
}
