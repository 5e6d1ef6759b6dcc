// A run's spec as a session stores it (`runs.spec_json`), hand-edited or written by another
// version: read back as the session reader does, it is refused naming its field or it prints
// back into a spec that reads the same. (The `session` harness reaches this reader only through
// a valid SQLite file, so mutations of the spec's JSON are its own harness.)

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/engine/run_spec.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const nlohmann::json json = nlohmann::json::parse(fuzz::asText(data, size), nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const nlohmann::json printed = engine::RunSpec::fromJson(json).toJson();
    if (engine::RunSpec::fromJson(printed).toJson() != printed) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
