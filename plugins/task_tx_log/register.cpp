// Registers the tx_log generator (plugins/builtin_plugins.cpp calls this).

#include <memory>

#include "core/task/task.h"
#include "plugins/task_tx_log/tx_log_generator.h"

namespace studio::plugins {

void registerTxLogTask() {
  task::TaskRegistry::instance().addGenerator(std::make_unique<TxLogGenerator>());
}

}  // namespace studio::plugins
