// KeyIndex (scheduler/key_index.hpp, the snapshot's key -> id tables that keep no keys) against
// a std::map: ids filed and unfiled at random, freed ids reused, the records' vector growing
// (each growth moves the keys the table reads), short keys (inline in std::string) and long ones;
// and Chunked (scheduler/chunked.hpp), the snapshot's sequence of groups and pods.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "kernel/chunked_pool.hpp"
#include "scheduler/key_index.hpp"

namespace key_index_test {

struct Record {
  std::string key;
};

std::string key_for(int n) {
  // Half short enough for std::string's inline buffer, half not.
  return n % 2 ? "ns/p" + std::to_string(n) : "default/a-rather-long-pod-name-" + std::to_string(n);
}

TEST_CASE("key index: finds what a map finds while records come, go and move", "[scheduler]") {
  t9k::scheduler::testing::Rand r{7};
  std::vector<Record> records;
  t9k::scheduler::KeyIndex<std::vector<Record>> index(records);
  std::map<std::string, std::int32_t> expect;
  std::vector<std::int32_t> free_ids;
  for (int step = 0; step < 20000; ++step) {
    const int n = r.uniform(0, 3000);
    const std::string key = key_for(n);
    const auto it = expect.find(key);
    if (it == expect.end() && r.chance(60)) {
      std::int32_t id;
      if (!free_ids.empty()) {
        id = free_ids.back();
        free_ids.pop_back();
      } else {
        id = static_cast<std::int32_t>(records.size());
        records.push_back({});  // may move every record
      }
      records[static_cast<std::size_t>(id)].key = key;
      REQUIRE(index.insert(id));
      expect.emplace(key, id);
    } else if (it != expect.end() && r.chance(40)) {
      index.erase(it->second);
      records[static_cast<std::size_t>(it->second)].key.clear();
      free_ids.push_back(it->second);
      expect.erase(it);
    }
    const auto found = index.find(key);
    const auto want = expect.find(key);
    REQUIRE(found.has_value() == (want != expect.end()));
    if (found) REQUIRE(*found == want->second);
    REQUIRE(index.size() == expect.size());
  }
  // A second id under a filed key is refused; every filed key is found.
  REQUIRE_FALSE(expect.empty());
  const auto& [key, id] = *expect.begin();
  records.push_back({key});
  REQUIRE_FALSE(index.insert(static_cast<std::int32_t>(records.size() - 1)));
  for (const auto& [k, i] : expect) REQUIRE(index.find(k) == i);
  REQUIRE(index.find(key) == id);
}

TEST_CASE("key index: reads keys from a chunked pool as from a vector, ids reused", "[scheduler]") {
  using Pool = t9k::kernel::ChunkedPool<Record, 8>;  // chunks of 8, so growth is frequent
  Pool pool;
  t9k::scheduler::KeyIndex<Pool> index(pool);
  for (int n = 0; n < 100; ++n) {
    const auto id = pool.acquire();
    REQUIRE(id == static_cast<std::uint32_t>(n));
    pool[id].key = key_for(n);
    REQUIRE(index.insert(static_cast<std::int32_t>(id)));
  }
  REQUIRE(pool.size() == 100);
  for (std::int32_t i = 0; i < 100; ++i) REQUIRE(index.find(key_for(i)) == i);
  // As the snapshot removes a record: out of the index while it holds its key, then released.
  index.erase(42);
  pool.release(42);
  REQUIRE_FALSE(index.find(key_for(42)));
  const auto reused = pool.acquire();
  REQUIRE(reused == 42);
  pool[reused].key = key_for(1000);
  REQUIRE(index.insert(static_cast<std::int32_t>(reused)));
  REQUIRE(index.find(key_for(1000)) == 42);
  REQUIRE(pool.size() == 100);  // no new slot
}

}  // namespace key_index_test
