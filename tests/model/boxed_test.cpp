#include "model/boxed.hpp"

#include <string>
#include <utility>
#include <variant>

#include <catch2/catch.hpp>

#include "model/jobs.hpp"

using t9k::model::Boxed;

TEST_CASE("boxed: a value on the heap, copied deeply, compared by value") {
  Boxed<std::string> a;
  CHECK(a->empty());  // default-constructed, always present
  a = std::string("worker");
  CHECK(*a == "worker");

  Boxed<std::string> b = a;  // a copy holds its own value
  b->append("-2");
  CHECK(*a == "worker");
  CHECK(*b == "worker-2");
  CHECK_FALSE(a == b);
  b = a;
  CHECK(a == b);
  CHECK(a.get() != b.get());

  // Moving takes the value without allocating; the moved-from box reads as a default value and
  // takes a value again when written to.
  const std::string* held = a.get();
  Boxed<std::string> c = std::move(a);
  CHECK(c.get() == held);
  const Boxed<std::string>& moved = a;
  CHECK(moved->empty());
  CHECK(moved == Boxed<std::string>{});
  CHECK(Boxed<std::string>(moved)->empty());  // a copy of it too
  a->append("again");
  CHECK(*a == "again");
  CHECK(*c == "worker");
  Boxed<std::string> d;
  d = std::move(c);
  CHECK(d.get() == held);
  CHECK(sizeof(d) == sizeof(void*));
}

TEST_CASE("boxed: a DeepSpeedJob no longer sets the size of every job") {
  // The variant is as large as its largest alternative: with the worker's template inline, the
  // DeepSpeedJob was 416 bytes larger than a PyTorchTrainingJob (issue 49).
  using t9k::model::DeepSpeedJob;
  using t9k::model::PyTorchTrainingJob;
  CHECK(sizeof(DeepSpeedJob) < sizeof(PyTorchTrainingJob) + sizeof(t9k::model::PodTemplateSpec));
  DeepSpeedJob j;
  j.spec.worker.template_.edit().spec.containers.resize(1);
  const DeepSpeedJob copy = j;
  CHECK(copy == j);
  j.spec.worker.template_.edit().spec.containers.front().image = "deepspeed:latest";
  CHECK_FALSE(copy == j);
}
