// A task item file (`studio-cli task generate --json`, `studio --open ITEM.json`).

#include "core/common/error.h"
#include "core/task/task.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const fuzz::InputFile file(fuzz::asText(data, size), "item.json");
  try {
    const task::TaskItem item = task::loadTaskItem(file.path());
    // An item that loads prints back into one that loads the same.
    const task::TaskItem again = task::TaskItem::fromJson(item.toJson(), "item.json");
    if (again.context != item.context || again.question != item.question) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
