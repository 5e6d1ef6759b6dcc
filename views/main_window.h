#pragma once

#include <QMainWindow>

namespace studio::views {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace studio::views
