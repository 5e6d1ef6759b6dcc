#pragma once
// The studio's window (RenderDoc-style): every panel listed in studio_panels.cpp is a dock that can
// be moved, floated or hidden; the View menu and Reset layout come from that list. The window
// first opens over the whole available screen; the layout and the geometry are saved with
// QSettings on close, per screen size, and restored on the next start on a screen of that size. The
// panels observe one StudioContext (document, runs, selection); the window itself loads documents
// off the UI thread (DocumentLoader, with progress and a Cancel button in the status bar), keeps
// the session runs are recorded into, and queues runs from the runs panel's form.

#include <QMainWindow>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/document/document.h"
#include "core/engine/causality_verdict.h"
#include "core/engine/run_spec.h"
#include "core/task/task.h"
#include "views/recent_files.h"

class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;

#include "views/analysis_names.h"

namespace studio::views {

class CausalityStatus;

class DocumentColouring;
class ComparisonPanel;
class DiagnosticsPanel;
class HeadInspectorPanel;
class DocumentLoader;
class DocumentPanel;
class RunController;
class RunTraces;
class RunsPanel;
class StudioContext;
class StudioSession;

// A run asked for on the command line (`studio --run METHOD:k=v,...`).
struct ScriptedRun {
  std::string method;
  nlohmann::json params = nlohmann::json::object();  // values as text; resolved as the form's are
};

struct MainWindowOptions {
  bool restore_layout = true;  // read geometry and dock layout from QSettings
  bool save_layout = true;     // write them on close
  bool error_dialogs = true;   // show errors in a message box besides the status bar
  // Run the leak check on every model opened (causality_status.h), its verdicts cached in
  // `causality_cache` (empty: causality.json in the application's data folder).
  bool check_causality = true;
  QString causality_cache;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Bump when the docks change so that an old saved layout is not applied to new panels.
  static constexpr int kLayoutVersion = 4;

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Start loading and return at once; documentLoaded or documentFailed follows.
  void openDocument(const QString& path);
  void openRepository(const QString& folder);
  // A folder opens as a repository, anything else as a text document (a `.json` task item as the
  // item: its context, question, task description, targets and reference answers).
  void openPath(const QString& path);
  // Makes `path` the session runs are recorded into (created when missing; read-only when another
  // process is writing it) and shows its runs; false (and an error shown) for a file that is
  // refused, or while runs are still going.
  bool openSession(const QString& path);
  // The day's session in the per-user data folder (views/studio_session.h).
  bool openDefaultSession();
  // A new empty session at `path`, or the session as it is copied to `path`, then recorded into.
  bool newSession(const QString& path);
  bool saveSessionAs(const QString& path);
  StudioSession* session() const { return m_session; }
  // Shows the model folder in the status bar; false (and an error shown) when it is not a folder.
  // An empty path means no model.
  bool setModelPath(const QString& path);

  // The target spans of the next runs, as byte ranges of the document (framed in the document
  // view). Marking the current selection adds it; a new document clears them.
  void addTarget(Span bytes);
  void clearTargets();
  const std::vector<Span>& targets() const { return m_targets; }
  // Queues one run per method ticked in the runs panel on the open document; the number queued.
  // Says in the status bar (and returns 0) what is missing: a document, a model, a question, a
  // session that can take runs.
  int runCheckedMethods();
  // Queues `runs` on the open document as the Run button queues the ticked methods (the window's
  // question, targets, model and FLOP matching); the number queued, 0 with the reason shown.
  int queueRuns(const std::vector<ScriptedRun>& runs);
  // Reads every run of the open session into the comparison and dilution panels; the number read.
  int loadSessionRuns();

  bool isLoading() const;
  std::shared_ptr<const document::Document> currentDocument() const;
  // The task item the open document came from, or null.
  std::shared_ptr<const task::TaskItem> currentItem() const;
  QString modelPath() const;
  QString sessionPath() const;
  const RecentFiles& recentFiles() const { return m_recent; }

  // The panels the window works with (found among its children, made by studio_panels.cpp).
  DocumentPanel* documentPanel() const;
  DocumentColouring* documentColouring() const;
  RunsPanel* runsPanel() const;
  DiagnosticsPanel* diagnosticsPanel() const;
  HeadInspectorPanel* headInspector() const;
  ComparisonPanel* comparisonPanel() const;
  StudioContext* context() const { return m_context; }
  RunTraces* traces() const { return m_traces; }
  RunController* runController() const { return m_runner; }
  // The dock of a panel in studio_panels.cpp by its object name ("runsDock"), or null.
  QDockWidget* dock(const QString& object_name) const;
  QString deviceText() const;
  QString modelText() const;
  // The status bar's model label with the leak check's verdict (red when the model leaks).
  void showCausality(const QString& model, const engine::CausalityVerdict& verdict);

  void resetLayout();
  void saveLayout();
  // Text in the docks' Qt widgets (the document, tables, forms) `step` sizes larger (negative:
  // smaller; 0 resets), 15 % a step (View › Zoom in / out, Ctrl + / Ctrl −).
  void zoomText(int step);
  int textZoom() const { return m_text_zoom; }

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
  void onLoaded(quint64 job, std::shared_ptr<const document::Document> document,
                std::shared_ptr<const task::TaskItem> item);
  void onFailed(quint64 job, const QString& message);
  void showError(const QString& title, const QString& message);
  void rebuildRecentMenu();
  void openRecent(const RecentEntry& entry);
  void chooseDocument();
  void chooseRepository();
  void chooseSession();
  void chooseNewSession();
  void chooseSaveSessionAs();
  void onSessionChanged();
  // What every queued run shares (document, question, targets, model, device), or why there is
  // none (returned empty spec, `missing` set).
  engine::RunSpec baseSpec(QString& missing) const;
  int queueSpecs(std::vector<engine::RunSpec> specs);
  // False (with the reason shown) while runs are going: their recorder writes into the session.
  bool sessionSwitchAllowed();
  void chooseModel();
  // Asks where, then writes the figure (SVG, PDF or PNG by the file's suffix).
  void exportFigure(const std::string& name);

  MainWindowOptions m_options;
  DocumentLoader* m_loader = nullptr;
  std::vector<QDockWidget*> m_docks;  // in studioPanels() order
  RunTraces* m_traces = nullptr;
  StudioSession* m_session = nullptr;
  RunController* m_runner = nullptr;
  StudioContext* m_context = nullptr;
  std::vector<Span> m_targets;
  QMenu* m_recent_menu = nullptr;
  QLabel* m_loading_label = nullptr;
  QProgressBar* m_progress = nullptr;
  QToolButton* m_cancel = nullptr;
  QLabel* m_session_label = nullptr;
  QLabel* m_device_label = nullptr;
  QLabel* m_model_label = nullptr;
  CausalityStatus* m_causality = nullptr;

  QString m_loading_path;
  bool m_loading_repository = false;
  QString m_device;
  RecentFiles m_recent;
  int m_text_zoom = 0;
};

}  // namespace studio::views
