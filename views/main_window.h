#pragma once
// The studio's window (RenderDoc-style): every panel is a dock (document, runs, diagnostics) that
// can be moved, floated or hidden; the layout and the window geometry are saved with QSettings
// on close and restored on the next start. Documents load off the UI thread through a
// DocumentLoader, with progress and a Cancel button in the status bar.

#include <QMainWindow>

#include <memory>

#include "core/document/document.h"
#include "views/recent_files.h"

class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;

namespace studio::views {

class DiagnosticsPanel;
class DocumentLoader;
class DocumentPanel;
class RunsPanel;

struct MainWindowOptions {
  bool restore_layout = true;  // read geometry and dock layout from QSettings
  bool save_layout = true;     // write them on close
  bool error_dialogs = true;   // show errors in a message box besides the status bar
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Bump when the docks change so that an old saved layout is not applied to new panels.
  static constexpr int kLayoutVersion = 1;

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Start loading and return at once; documentLoaded or documentFailed follows.
  void openDocument(const QString& path);
  void openRepository(const QString& folder);
  // A folder opens as a repository, anything else as a text document.
  void openPath(const QString& path);
  // Checks that `path` is an SQLite file and makes it the current session; false (and an error
  // shown) otherwise.
  bool openSession(const QString& path);
  // Shows the model folder in the status bar; false (and an error shown) when it is not a folder.
  // An empty path means no model.
  bool setModelPath(const QString& path);

  bool isLoading() const;
  std::shared_ptr<const document::Document> currentDocument() const { return m_document; }
  QString modelPath() const { return m_model_path; }
  QString sessionPath() const { return m_session_path; }
  const RecentFiles& recentFiles() const { return m_recent; }

  DocumentPanel* documentPanel() const { return m_document_panel; }
  RunsPanel* runsPanel() const { return m_runs_panel; }
  DiagnosticsPanel* diagnosticsPanel() const { return m_diagnostics_panel; }
  QDockWidget* documentDock() const { return m_document_dock; }
  QDockWidget* runsDock() const { return m_runs_dock; }
  QDockWidget* diagnosticsDock() const { return m_diagnostics_dock; }
  QString deviceText() const;
  QString modelText() const;

  void resetLayout();
  void saveLayout();

 signals:
  void documentLoaded(const QString& path);
  void documentFailed(const QString& message);
  void sessionOpened(const QString& path);
  void modelChanged(const QString& path);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void restoreLayout();
  void startLoad(const QString& path, bool repository);
  void onLoaded(quint64 job, std::shared_ptr<const document::Document> document);
  void onFailed(quint64 job, const QString& message);
  void showError(const QString& title, const QString& message);
  void rebuildRecentMenu();
  void openRecent(const RecentEntry& entry);
  void chooseDocument();
  void chooseRepository();
  void chooseSession();
  void chooseModel();

  MainWindowOptions m_options;
  DocumentLoader* m_loader = nullptr;
  DocumentPanel* m_document_panel = nullptr;
  RunsPanel* m_runs_panel = nullptr;
  DiagnosticsPanel* m_diagnostics_panel = nullptr;
  // Owns the diagnostics panel when it cannot be shown (no OpenGL): it keeps its state for
  // whoever asks, and the dock explains why it is empty.
  std::unique_ptr<DiagnosticsPanel> m_detached_diagnostics;
  QDockWidget* m_document_dock = nullptr;
  QDockWidget* m_runs_dock = nullptr;
  QDockWidget* m_diagnostics_dock = nullptr;
  QMenu* m_recent_menu = nullptr;
  QLabel* m_loading_label = nullptr;
  QProgressBar* m_progress = nullptr;
  QToolButton* m_cancel = nullptr;
  QLabel* m_session_label = nullptr;
  QLabel* m_device_label = nullptr;
  QLabel* m_model_label = nullptr;

  std::shared_ptr<const document::Document> m_document;
  QString m_loading_path;
  bool m_loading_repository = false;
  QString m_model_path;
  QString m_session_path;
  QString m_device;
  RecentFiles m_recent;
};

}  // namespace studio::views
