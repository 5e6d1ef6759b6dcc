// Resolving declared parameters: defaults, the command line's strings, and the values a spec
// refuses, each named owner.name.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "core/common/error.h"
#include "core/common/param_spec.h"

using namespace studio;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

ParamSpec intSpec(const char* name, std::optional<double> min, std::optional<double> max) {
  ParamSpec spec;
  spec.name = name;
  spec.type = ParamSpec::Type::Int;
  spec.default_value = 0;
  spec.min = min;
  spec.max = max;
  return spec;
}

std::int64_t resolvedSeed(const json& given) {
  const json resolved =
      resolveParams("qttt", {intSpec("seed", -1.0, std::nullopt)}, {{"seed", given}});
  REQUIRE(resolved.at("seed").is_number_integer());
  return resolved.at("seed").get<std::int64_t>();
}

}  // namespace

TEST_CASE("params: an integer is kept exactly, not rounded through a double", "[common]") {
  // 2^53 + 1 is the first integer a double cannot hold.
  CHECK(resolvedSeed(json(9007199254740993LL)) == 9007199254740993LL);
  CHECK(resolvedSeed(json("9007199254740993")) == 9007199254740993LL);
  CHECK(resolvedSeed(json(std::numeric_limits<std::int64_t>::max())) ==
        std::numeric_limits<std::int64_t>::max());
  CHECK(resolvedSeed(json("-1")) == -1);
  // Whole numbers written otherwise are still accepted, as before.
  CHECK(resolvedSeed(json("1e3")) == 1000);
  CHECK(resolvedSeed(json(4.0)) == 4);
  CHECK(resolvedSeed(json("+7")) == 7);
}

TEST_CASE("params: a whole number past 64 bits is refused, not cast", "[common]") {
  // Before, 1e300 was cast to int64_t: undefined behaviour (UBSan: "outside the range of
  // representable values"), whatever the spec's range, since the seed has no maximum.
  for (const json& given :
       {json(1e300), json("1e300"), json(-1e300), json("1e19"), json(9223372036854775808.0),
        json(std::numeric_limits<std::uint64_t>::max()), json("18446744073709551615")}) {
    INFO(given.dump());
    CHECK_THROWS_WITH(resolvedSeed(given),
                      Contains("qttt.seed") && Contains("expected a 64-bit integer, got"));
  }
  // The most negative int64 is a double exactly and is held; the minimum then refuses it.
  CHECK_THROWS_WITH(resolvedSeed(json(-9223372036854775808.0)), Contains("is outside"));
}

TEST_CASE("params: a value that is not a whole number is refused naming the field", "[common]") {
  for (const json& given : {json(2.5), json("2.5"), json("seven"), json(true), json("inf"),
                            json::array({1}), json("")}) {
    INFO(given.dump());
    CHECK_THROWS_WITH(resolvedSeed(given),
                      Contains("qttt.seed") && Contains("expected an integer, got"));
  }
  const std::vector<ParamSpec> specs = {intSpec("steps", 0.0, 100.0)};
  CHECK_THROWS_WITH(resolveParams("qttt", specs, {{"steps", 101}}),
                    Contains("qttt.steps") && Contains("is outside [0.000000, 100.000000]"));
  CHECK_THROWS_WITH(resolveParams("qttt", specs, {{"stepz", 1}}),
                    Contains("qttt.stepz") && Contains("unknown parameter (known: steps)"));
  CHECK(resolveParams("qttt", specs, json::object()).at("steps") == 0);
}

TEST_CASE("params: floats, booleans and choices from the command line", "[common]") {
  ParamSpec lr;
  lr.name = "lr";
  lr.type = ParamSpec::Type::Float;
  lr.default_value = 1e-5;
  lr.min = 0.0;
  ParamSpec save;
  save.name = "save";
  save.type = ParamSpec::Type::Bool;
  save.default_value = false;
  ParamSpec loss;
  loss.name = "loss";
  loss.type = ParamSpec::Type::Choice;
  loss.default_value = "sum";
  loss.choices = {"sum", "mean", 0.5};
  const std::vector<ParamSpec> specs = {lr, save, loss};
  const json resolved =
      resolveParams("m", specs, parseKeyValues({"lr=3e-4", "save=yes", "loss=0.5"}));
  CHECK(resolved.at("lr").get<double>() == Approx(3e-4));
  CHECK(resolved.at("save") == true);
  CHECK(resolved.at("loss") == 0.5);
  CHECK_THROWS_WITH(resolveParams("m", specs, {{"lr", "nan"}}),
                    Contains("m.lr") && Contains("expected a number"));
  CHECK_THROWS_WITH(resolveParams("m", specs, {{"save", "maybe"}}),
                    Contains("m.save") && Contains("expected true or false"));
  CHECK_THROWS_WITH(resolveParams("m", specs, {{"loss", "max"}}),
                    Contains("m.loss") && Contains("is not one of \"sum\", \"mean\", 0.5"));
  CHECK_THROWS_WITH(parseKeyValues({"=3"}), Contains("--set") && Contains("expected key=value"));
}
