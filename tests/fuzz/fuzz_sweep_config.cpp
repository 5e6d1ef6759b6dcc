// A sweep config (`studio-cli sweep --config FILE`): parsed against the registered tasks and
// methods, expanded into its grid and sharded.

#include "core/common/error.h"
#include "core/engine/method.h"
#include "core/engine/sweep_plan.h"
#include "core/common/bounded_json.h"
#include "fuzz_support.h"
#include "fuzz_registries.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  studio::fuzz::registerTasksAndMethods();
  try {
    const nlohmann::json json =
        parseBoundedJson(std::string(fuzz::asText(data, size)), "sweep.json");
    const engine::SweepConfig config = engine::SweepConfig::fromJson(json);
    std::size_t cells = 1;
    for (const auto& task : config.tasks) cells *= task.lengths.size() + 1;
    cells *= config.methods.size() + 1;
    cells *= config.seeds.size() + 1;
    if (cells > 100000) return 0;  // a grid that large is valid, only slow to expand here
    const auto grid = engine::expandSweep(config);
    engine::shardOf(grid, "1/3");
  } catch (const Error&) {
  }
  return 0;
}
