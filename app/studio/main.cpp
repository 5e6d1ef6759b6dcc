// studio: the desktop studio.

#include <QApplication>

#include "core/common/runtime.h"
#include "plugins/builtin_plugins.h"
#include "views/main_window.h"

int main(int argc, char** argv) {
  QApplication application(argc, argv);
  studio::initTorchRuntime();
  studio::plugins::registerBuiltinPlugins();
  studio::views::MainWindow window;
  window.show();
  return application.exec();
}
