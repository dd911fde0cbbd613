// model::Text (model/text.hpp): condition reasons and messages that copy without allocating.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "model/jobs.hpp"
#include "model/meta.hpp"
#include "model/text.hpp"

using t9k::model::Text;

TEST_CASE("Text: fixed texts are views of static storage, owned ones are shared by their copies",
          "[model][text]") {
  static constexpr std::string_view kLiteral = "The job has finished successfully.";
  const Text fixed = Text::fixed(kLiteral);
  CHECK(fixed.view().data() == kLiteral.data());  // not copied
  const Text fixed_copy = fixed;
  CHECK(fixed_copy.view().data() == kLiteral.data());

  std::string dynamic = "Pod[job-worker-0] exited with error code 137";  // past 15 characters
  const Text owned = dynamic;
  CHECK(owned == dynamic);
  CHECK(owned.view().data() != dynamic.data());  // owned: a copy of the characters, once
  dynamic.assign("changed");
  CHECK(owned == "Pod[job-worker-0] exited with error code 137");  // independent of the source
  const Text owned_copy = owned;
  CHECK(owned_copy.view().data() == owned.view().data());  // shared, not copied again
}

TEST_CASE("Text: a moved-from text is empty, and a moved text keeps its characters",
          "[model][text]") {
  Text a = std::string("Pod[job-worker-0] exited with error code 137");
  const char* chars = a.view().data();
  Text b = std::move(a);
  CHECK(b == "Pod[job-worker-0] exited with error code 137");
  CHECK(b.view().data() == chars);
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move): what the test is about
  Text c;
  c = std::move(b);
  CHECK(c == "Pod[job-worker-0] exited with error code 137");
  CHECK(b.empty());  // NOLINT(bugprone-use-after-move)
  Text& self = c;
  c = std::move(self);
  CHECK(c == "Pod[job-worker-0] exited with error code 137");
}

TEST_CASE("Text: up to 16 characters are kept in place, longer ones in a shared block",
          "[model][text]") {
  const auto inside = [](const Text& t) {
    const auto* at = reinterpret_cast<const char*>(&t);
    return t.view().data() >= at && t.view().data() < at + sizeof(Text);
  };
  const std::string fifteen = "j000001-worker0";      // 15 characters
  const std::string sixteen = "j000001-worker-0";     // 16, the last printable
  const std::string seventeen = "j000001-worker-10";  // 17
  const std::string sixteen_control = std::string("j000001-worker-") + '\x0f';
  const std::string sixteen_utf8 = "j000001-worker\xc3\xa9";  // "é" last: 16 bytes
  const Text a = fifteen;
  const Text b = sixteen;
  const Text c = seventeen;
  CHECK(a == fifteen);
  CHECK(a.size() == 15);
  CHECK(inside(a));  // no allocation
  CHECK(b == sixteen);
  CHECK(b.size() == 16);
  CHECK(inside(b));
  CHECK(c == seventeen);
  CHECK(c.size() == 17);
  CHECK_FALSE(inside(c));
  const Text d = sixteen_control;  // its last byte would read as a length: kept in a block
  CHECK(d == sixteen_control);
  CHECK(d.size() == 16);
  CHECK_FALSE(inside(d));
  const Text e = sixteen_utf8;
  CHECK(e == sixteen_utf8);
  CHECK(inside(e));
  for (const Text& t : {a, b, c, d, e}) CHECK(Text(t) == t);

  const Text b_copy = b;
  CHECK(b_copy == sixteen);
  CHECK(inside(b_copy));  // its own characters
  const Text c_copy = c;
  CHECK(c_copy.view().data() == c.view().data());  // the same block

  Text f = b;
  Text g = std::move(f);
  CHECK(g == sixteen);
  CHECK(f.empty());  // NOLINT(bugprone-use-after-move): what the test is about
  g = Text("x");
  CHECK(g == "x");
  g = c;
  CHECK(g == seventeen);
  g = a;  // a long text replaced by a short one gives its block's count back
  CHECK(g == fifteen);
  CHECK(c == seventeen);
  CHECK(Text(std::string(1, '\0')).size() == 1);  // a NUL is a character like the others
  CHECK(Text("abc") < Text("abd"));
  CHECK(Text("k") > Text(sixteen));
}

TEST_CASE("Text: compares, converts and prints as the string it holds", "[model][text]") {
  const Text a = Text::fixed("Running");
  const Text b = std::string("Running");
  CHECK(a == b);
  CHECK(a == "Running");
  CHECK(a == std::string("Running"));
  CHECK(a == std::string_view("Running"));
  CHECK_FALSE(a == "Running ");
  CHECK(Text{} == Text::fixed(""));
  CHECK(Text{}.empty());
  CHECK(Text(std::string()).empty());
  CHECK(a.size() == 7);
  CHECK(a.str() == "Running");
  std::string s = "x";
  s = a;  // std::string's assignment from a string-view-like type
  CHECK(s == "Running");
  std::ostringstream os;
  os << a;
  CHECK(os.str() == "Running");
  CHECK(fmt::format("[{:>8}]", a) == "[ Running]");
}

TEST_CASE("Text: a condition's equality is its texts', wherever they are kept", "[model][text]") {
  t9k::model::JobCondition c1{t9k::model::JobConditionType::Running,
                              t9k::model::ConditionStatus::True,
                              {},
                              Text::fixed("Running"),
                              Text::fixed("All pods are running normally.")};
  t9k::model::JobCondition c2 = c1;
  c2.reason = std::string("Running");
  c2.message = std::string("All pods are running normally.");
  CHECK(c1 == c2);
  c2.message = Text::fixed("The job is paused.");
  CHECK_FALSE(c1 == c2);
}

TEST_CASE("Text: sixteen bytes, and copies shared across threads are counted exactly",
          "[model][text]") {
  STATIC_REQUIRE(sizeof(Text) == 16);
  const Text shared = std::string("Pod[job-worker-0] exited with error code 137");
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&shared] {
      for (int i = 0; i < 20000; ++i) {
        Text copy = shared;
        Text moved = std::move(copy);
        if (moved != shared) std::abort();
      }
    });
  }
  for (auto& t : threads) t.join();
  // Every copy gave its count back: the last owner still reads the characters.
  Text last = shared;
  CHECK(last == "Pod[job-worker-0] exited with error code 137");
  CHECK(last.view().data() == shared.view().data());
}
