#pragma once
// Help ▸ About: the same version rows as `studio-cli version` (core/common/versions.h) plus the
// Qt the program runs with and the Dear ImGui it was built with.

#include <QString>

class QWidget;

namespace studio::views {

// Rich text for the About box.
QString aboutText();
// Shows it without blocking (a window-modal box that deletes itself).
void showAboutBox(QWidget* parent);

}  // namespace studio::views
