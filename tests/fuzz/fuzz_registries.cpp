#include "fuzz_registries.h"

#include <memory>
#include <mutex>

#include "core/engine/method.h"

#ifdef STUDIO_FUZZ_TORCH_FREE
namespace studio::plugins {
void registerTxLogTask();
void registerCodeBugTask();
void registerNiahTask();
void registerLongBenchTasks();
void registerRulerTask();
void registerZeroScrollsTask();
}  // namespace studio::plugins
#else
#include "plugins/builtin_plugins.h"
#endif

namespace studio::fuzz {

#ifdef STUDIO_FUZZ_TORCH_FREE
namespace {

class StandInMethod : public engine::Method {
 public:
  explicit StandInMethod(std::string name) : m_name(std::move(name)) {}
  std::string name() const override { return m_name; }
  std::string summary() const override { return "a stand-in for the fuzz build"; }
  std::vector<ParamSpec> params() const override { return {}; }
  double extraFlops(const engine::FlopShape&, double, const nlohmann::json&) const override {
    return 0;
  }
  engine::RunResult run(engine::RunContext&) const override { return {}; }

 private:
  std::string m_name;
};

}  // namespace
#endif

void registerTasksAndMethods() {
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef STUDIO_FUZZ_TORCH_FREE
    plugins::registerTxLogTask();
    plugins::registerCodeBugTask();
    plugins::registerNiahTask();
    plugins::registerLongBenchTasks();
    plugins::registerRulerTask();
    plugins::registerZeroScrollsTask();
    for (const char* name : {"in_context", "thinking", "best_of_n", "beam", "qttt", "full_ttt",
                             "refine", "refine_sft"}) {
      engine::MethodRegistry::instance().add(std::make_unique<StandInMethod>(name));
    }
#else
    plugins::registerBuiltinPlugins();
#endif
  });
}

}  // namespace studio::fuzz
