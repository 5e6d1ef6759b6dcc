#pragma once
// The window's panels, listed once (ImHex's content/views.cpp): each has the object name its dock
// is saved under, its title, where Reset layout puts it, and how it is made from the shared
// StudioContext. MainWindow builds the docks, the View menu and the default layout from this list
// alone; a new view is one entry here and the panel's own files.

#include <QString>
#include <Qt>

#include <functional>
#include <vector>

class QObject;
class QWidget;

namespace studio::views {

class StudioContext;

// Where Reset layout puts a panel, relative to one listed before it.
struct PanelPlace {
  enum class Relation {
    Area,     // its own column in `area`; `share` is its percentage of the window's width
    Below,    // under `anchor`; `share` is its percentage of their height together
    TabWith,  // a tab beside `anchor`
  };
  Relation relation = Relation::Area;
  Qt::DockWidgetArea area = Qt::LeftDockWidgetArea;
  const char* anchor = nullptr;  // another panel's object name
  int share = 50;
};

struct StudioPanel {
  const char* object_name;  // the dock's, as QMainWindow::saveState() identifies it
  const char* title;        // translated in the "StudioPanels" context
  PanelPlace place;
  // Shown first among its tabs after Reset layout.
  bool raised = false;
  std::function<QWidget*(StudioContext& context, QWidget* parent)> create;
};

// In layout order: a panel's anchor comes before it.
const std::vector<StudioPanel>& studioPanels();
QString panelTitle(const StudioPanel& panel);
// The panel a dock's content stands in for when it cannot be shown (an ImGui panel without
// OpenGL: the dock explains why, the panel keeps its state for whoever asks), or null.
QObject* detachedPanel(const QWidget* content);

}  // namespace studio::views
