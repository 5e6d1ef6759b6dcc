// The QApplication every [gui] test needs, made before the first test and removed after the last
// (a Catch2 listener, since the shared catch_main.cpp knows nothing of Qt). Settings go to a
// temporary folder so that tests never touch a person's saved layout.

#define CATCH_CONFIG_EXTERNAL_INTERFACES  // for the listener
#include <catch2/catch.hpp>

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include <memory>

namespace {

std::unique_ptr<QTemporaryDir> g_settings_dir;
std::unique_ptr<QApplication> g_application;
int g_argc = 1;
char g_arg0[] = "test_gui";
char* g_argv[] = {g_arg0, nullptr};

struct GuiApplicationListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(const Catch::TestRunInfo& info) override {
    TestEventListenerBase::testRunStarting(info);
    // CTest sets the platform; a person running the executable by hand gets the same one.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    g_settings_dir = std::make_unique<QTemporaryDir>();
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, g_settings_dir->path());
    g_application = std::make_unique<QApplication>(g_argc, g_argv);
    QApplication::setOrganizationName(QStringLiteral("ttt-studio-tests"));
    QApplication::setApplicationName(QStringLiteral("test_gui"));
  }

  void testRunEnded(const Catch::TestRunStats& stats) override {
    g_application.reset();
    g_settings_dir.reset();
    TestEventListenerBase::testRunEnded(stats);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(GuiApplicationListener)
