#pragma once
// Small helpers shared by the [gui] tests.

#include <catch2/catch.hpp>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSettings>
#include <QString>

#include <string>

#include "views/main_window.h"
#include "support/test_paths.h"

namespace studio::testing {

inline QString fixture(const char* relative) {
  return QString::fromUtf8(studio::test_paths::kFixturesDir) + QStringLiteral("/documents/") +
         QString::fromUtf8(relative);
}

// A window that neither reads nor writes the saved layout and shows no dialogs.
inline views::MainWindowOptions isolatedWindow() {
  views::MainWindowOptions options;
  options.restore_layout = false;
  options.save_layout = false;
  options.error_dialogs = false;
  options.check_causality = false;
  return options;
}

// Runs the event loop until `done` or `timeout_ms`; returns done().
template <typename Predicate>
bool waitUntil(Predicate done, int timeout_ms = 10000) {
  QElapsedTimer clock;
  clock.start();
  while (!done() && clock.elapsed() < timeout_ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  return done();
}

inline void clearSettings() {
  QSettings settings;
  settings.clear();
  settings.sync();
}

}  // namespace studio::testing

namespace Catch {
template <>
struct StringMaker<QString> {
  static std::string convert(const QString& value) { return '"' + value.toStdString() + '"'; }
};
}  // namespace Catch
