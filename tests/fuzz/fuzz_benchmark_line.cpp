// A line (or file) of the benchmarks the studio loads: LongBench v1 JSON lines, LongBench-v2's
// JSON array, RULER and ZeroSCROLLS JSON lines. Malformed lines become load issues; nothing else
// may escape.

#include "core/common/error.h"
#include "fuzz_support.h"
#include "plugins/task_longbench/longbench_loader.h"
#include "plugins/task_ruler/ruler_loader.h"
#include "plugins/task_zeroscrolls/zeroscrolls_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const std::string_view text = fuzz::asText(data, size);
  auto load = [&](const task::TaskLoader& loader, const std::string& name) {
    const fuzz::InputFile file(text, name);
    try {
      for (const task::TaskItem& item : loader.load(file.path()).items) {
        for (const Span& target : item.targets) {
          if (target.start < 0 || target.end > static_cast<std::int64_t>(item.context.size())) {
            __builtin_trap();
          }
        }
      }
    } catch (const Error&) {
    }
  };
  load(plugins::LongBenchLoader(), "hotpotqa.jsonl");
  load(plugins::LongBenchV2Loader(), "data.json");
  load(plugins::RulerLoader(), "niah_single_1.jsonl");
  load(plugins::ZeroScrollsLoader(), "qasper.jsonl");
  return 0;
}
