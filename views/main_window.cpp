#include "views/main_window.h"

#include <imgui.h>

namespace studio::views {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("TTT Studio %1").arg(QString::fromUtf8(ImGui::GetVersion())));
}

}  // namespace studio::views
