// model::LabelKey (model/label_key.hpp): label keys kept once per process, ordered by their
// characters, so that a label map behaves as it did with std::string keys.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "model/cluster.hpp"
#include "model/meta.hpp"

namespace label_key_test {  // named: the suite builds as one unit

using t9k::model::LabelKey;
using t9k::model::Labels;

TEST_CASE("LabelKey: equal keys share their characters, wherever they come from",
          "[model][labels]") {
  const std::string built = std::string("scheduler.tensorstack.dev/") + "queue";
  const LabelKey a = t9k::model::kLabelQueue;
  const LabelKey b = built;
  const LabelKey c = std::string_view(built);
  CHECK(a == b);
  CHECK(a.data() == b.data());  // one copy of the characters
  CHECK(b.data() == c.data());
  CHECK(a == "scheduler.tensorstack.dev/queue");
  CHECK(a == built);
  CHECK(a != LabelKey("scheduler.tensorstack.dev/role"));
  CHECK(LabelKey().empty());
  CHECK(LabelKey("") == LabelKey());
  CHECK(fmt::format("{}", a) == built);
  std::ostringstream os;
  os << a;
  CHECK(os.str() == built);
  const std::string& s = a;  // reads as the std::string it was
  CHECK(s.size() == built.size());
}

TEST_CASE("LabelKey: a label map orders, finds and compares as with std::string keys",
          "[model][labels]") {
  Labels l;
  // Inserted out of order; kept in the order of the keys' characters, not of their interning.
  // Bytes compare unsigned, as std::string's: a UTF-8 key ("\u00e9t\u00e9") comes after "zeta".
  for (const char* k :
       {"zeta", "\xc3\xa9t\xc3\xa9", "tensorstack.dev/owner-name", "a", "genericjob", "b/c", "B"})
    l[k] = std::string(k) + "-value";
  std::vector<std::string> order;
  for (const auto& [k, v] : l) order.push_back(k);
  CHECK(order == std::vector<std::string>{"B", "a", "b/c", "genericjob",
                                          "tensorstack.dev/owner-name", "zeta",
                                          "\xc3\xa9t\xc3\xa9"});
  std::vector<std::string> as_strings = order;  // the order std::string keys would have
  std::sort(as_strings.begin(), as_strings.end());
  CHECK(order == as_strings);
  // Found by any string without being interned, and by key.
  CHECK(l.find("genericjob") != l.end());
  CHECK(l.find(std::string("b/c"))->second == "b/c-value");
  CHECK(l.find(std::string_view("never-a-key")) == l.end());
  CHECK(l.count(LabelKey("a")) == 1);
  CHECK(l.at("zeta") == "zeta-value");
  // Maps compare by content.
  Labels m{{"a", "a-value"}, {"B", "B-value"}};
  Labels n{{"B", "B-value"}, {"a", "a-value"}};
  CHECK(m == n);
  n["a"] = "other";
  CHECK(m != n);
}

TEST_CASE("LabelKey: keys interned from several threads at once are one key each",
          "[model][labels]") {
  std::vector<const char*> data(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &data] {
      const char* first = nullptr;
      for (int i = 0; i < 2000; ++i) {
        const LabelKey k = fmt::format("threads.t9ksim.io/key-{}", i % 50);
        if (i == 0) first = k.data();
      }
      data[static_cast<std::size_t>(t)] = first;
    });
  for (auto& th : threads) th.join();
  for (const char* d : data) CHECK(d == data[0]);
  CHECK(LabelKey("threads.t9ksim.io/key-0").data() == data[0]);
}

}  // namespace label_key_test
