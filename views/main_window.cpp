#include "views/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>

#include <algorithm>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/sweep_plan.h"
#include "core/common/versions.h"
#include "views/analysis_names.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "views/about_box.h"
#include "views/attention_colouring.h"
#include "views/comparison_panel.h"
#include "views/diagnostics_panel.h"
#include "views/dilution_panel.h"
#include "views/document_loader.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/figure_export.h"
#include "views/figure_view.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/runs_panel.h"
#include "views/runs_table_model.h"
#include "views/studio_session.h"

namespace studio::views {

namespace {

const char* kGeometryKey = "mainWindow/geometry";
const char* kStateKey = "mainWindow/state";

QDockWidget* makeDock(const QString& title, const QString& name, QWidget* content,
                      QWidget* parent) {
  auto* dock = new QDockWidget(title, parent);
  dock->setObjectName(name);  // saveState() identifies docks by object name
  dock->setWidget(content);
  dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable);
  return dock;
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), m_options(options) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("TTT Studio"));
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks |
                 QMainWindow::AllowTabbedDocks);

  const VersionInfo info = versionInfo();
  m_device = info.cuda_available ? QStringLiteral("cuda") : QStringLiteral("cpu");

  m_loader = new DocumentLoader(this);
  connect(m_loader, &DocumentLoader::loaded, this, &MainWindow::onLoaded);
  connect(m_loader, &DocumentLoader::failed, this, &MainWindow::onFailed);
  connect(m_loader, &DocumentLoader::progress, this, [this](quint64, double fraction) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(fraction * 1000));
  });

  buildDocks();
  buildMenus();
  buildStatusBar();

  if (m_options.restore_layout) {
    QSettings settings;
    m_recent.load(settings);
  }
  // Most of the screen, at most 1600 × 1000, until a saved geometry says otherwise.
  const QScreen* screen = QGuiApplication::primaryScreen();
  const QSize available = screen ? screen->availableSize() : QSize(1600, 1000);
  resize(std::min(1600, available.width() * 9 / 10), std::min(1000, available.height() * 9 / 10));
  resetLayout();
  if (m_options.restore_layout) restoreLayout();
}

MainWindow::~MainWindow() {
  // The engine thread (and any recorder it runs) stops before the session closes.
  delete m_runner;
  m_runner = nullptr;
}

void MainWindow::buildDocks() {
  m_traces = new RunTraces(this);
  m_session = new StudioSession(this);
  connect(m_session, &StudioSession::changed, this, &MainWindow::onSessionChanged);
  m_runner = new RunController(m_traces, m_session, this);
  m_document_panel = new DocumentPanel(this);
  m_runs_panel = new RunsPanel(this);
  m_runs_panel->setTraces(m_traces);
  m_comparison_panel = new ComparisonPanel(m_traces, this);
  m_dilution_panel = new DilutionPanel(m_traces, this);
  QWidget* diagnostics = nullptr;
  if (ImGuiWidget::openGlAvailable()) {
    m_diagnostics_panel = new DiagnosticsPanel(this);
    diagnostics = m_diagnostics_panel;
  } else {
    m_detached_diagnostics = std::make_unique<DiagnosticsPanel>();
    m_diagnostics_panel = m_detached_diagnostics.get();
    auto* label = new QLabel(tr("The diagnostics panel draws with OpenGL, and no OpenGL context "
                                "can be created here (Qt platform \"%1\").")
                                 .arg(QGuiApplication::platformName()),
                             this);
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignCenter);
    label->setMargin(16);
    diagnostics = label;
  }
  m_document_dock =
      makeDock(tr("Document"), QStringLiteral("documentDock"), m_document_panel, this);
  m_runs_dock = makeDock(tr("Runs"), QStringLiteral("runsDock"), m_runs_panel, this);
  m_diagnostics_dock =
      makeDock(tr("Diagnostics"), QStringLiteral("diagnosticsDock"), diagnostics, this);
  m_comparison_dock =
      makeDock(tr("Comparison"), QStringLiteral("comparisonDock"), m_comparison_panel, this);
  m_dilution_dock =
      makeDock(tr("Dilution"), QStringLiteral("dilutionDock"), m_dilution_panel, this);
  connect(m_runs_panel, &RunsPanel::openModelRequested, this, &MainWindow::chooseModel);
  connect(m_runs_panel, &RunsPanel::runRequested, this, &MainWindow::runCheckedMethods);
  connect(m_runs_panel, &RunsPanel::cancelRequested, m_runner, &RunController::cancelAll);
  connect(m_runner, &RunController::pendingChanged, m_runs_panel, &RunsPanel::setPending);
  connect(m_traces, &RunTraces::changed, this, &MainWindow::showLatestHeadGrid);
  connect(m_diagnostics_panel, &DiagnosticsPanel::headClicked, this, &MainWindow::inspectHead);
  connect(m_diagnostics_panel, &DiagnosticsPanel::queryKeyWindowRequested, this,
          &MainWindow::requestWindow);
  connect(m_diagnostics_panel, &DiagnosticsPanel::queryKeyWindowExportRequested, this,
          [this] { exportFigure(m_diagnostics_panel->queryKeyWindow().figure()); });

  m_colouring = new AttentionColouring(m_traces, m_document_panel->view(), m_document_panel);
  m_document_panel->addBar(m_colouring);
  // A run that finishes on the open document colours it; the choice stays the person's after.
  connect(m_runner, &RunController::runFinished, this, [this](qint64 id) {
    m_colouring->refresh();
    m_colouring->selectRun(id);
  });
  connect(m_runs_panel->table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) m_colouring->selectRun(m_runs_panel->model()->idAt(current.row()));
          });
}

void MainWindow::resetLayout() {
  // No central widget: the document is a dock like the others, so any panel can take any place.
  const auto docks = {m_document_dock, m_runs_dock, m_diagnostics_dock, m_comparison_dock,
                      m_dilution_dock};
  for (QDockWidget* dock : docks) {
    dock->setFloating(false);
    removeDockWidget(dock);
  }
  addDockWidget(Qt::LeftDockWidgetArea, m_document_dock);
  addDockWidget(Qt::RightDockWidgetArea, m_runs_dock);
  splitDockWidget(m_runs_dock, m_diagnostics_dock, Qt::Vertical);
  // Comparison and dilution under the document, as two tabs.
  splitDockWidget(m_document_dock, m_comparison_dock, Qt::Vertical);
  tabifyDockWidget(m_comparison_dock, m_dilution_dock);
  for (QDockWidget* dock : docks) dock->show();
  m_comparison_dock->raise();

  const QSize size = this->size();
  resizeDocks({m_document_dock, m_runs_dock}, {size.width() * 55 / 100, size.width() * 45 / 100},
              Qt::Horizontal);
  resizeDocks({m_runs_dock, m_diagnostics_dock},
              {size.height() * 55 / 100, size.height() * 45 / 100}, Qt::Vertical);
  resizeDocks({m_document_dock, m_comparison_dock},
              {size.height() * 45 / 100, size.height() * 55 / 100}, Qt::Vertical);
}

void MainWindow::restoreLayout() {
  QSettings settings;
  const QByteArray geometry = settings.value(QLatin1String(kGeometryKey)).toByteArray();
  if (!geometry.isEmpty()) restoreGeometry(geometry);
  const QByteArray state = settings.value(QLatin1String(kStateKey)).toByteArray();
  if (!state.isEmpty() && !restoreState(state, kLayoutVersion)) resetLayout();
}

void MainWindow::saveLayout() {
  QSettings settings;
  settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
  settings.setValue(QLatin1String(kStateKey), saveState(kLayoutVersion));
  m_recent.save(settings);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  m_loader->cancel();
  if (m_options.save_layout) saveLayout();
  QMainWindow::closeEvent(event);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open_document =
      file->addAction(tr("Open &document…"), this, &MainWindow::chooseDocument);
  open_document->setShortcut(QKeySequence::Open);
  QAction* open_folder =
      file->addAction(tr("Open &folder as code repository…"), this, &MainWindow::chooseRepository);
  open_folder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  file->addAction(tr("Open &session…"), this, &MainWindow::chooseSession);
  file->addAction(tr("&New session…"), this, &MainWindow::chooseNewSession);
  file->addAction(tr("Save session &as…"), this, &MainWindow::chooseSaveSessionAs);
  file->addAction(tr("Open &model folder…"), this, &MainWindow::chooseModel);
  m_recent_menu = file->addMenu(tr("&Recent files"));
  connect(m_recent_menu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  file->addSeparator();
  QMenu* figures = file->addMenu(tr("&Export figure…"));
  for (const std::string& name : runFigureNames()) {
    figures->addAction(QString::fromStdString(name), this, [this, name] { exportFigure(name); });
  }
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock :
       {m_document_dock, m_runs_dock, m_comparison_dock, m_dilution_dock, m_diagnostics_dock}) {
    view->addAction(dock->toggleViewAction());
  }
  view->addSeparator();
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* mark = run->addAction(tr("&Mark selection as target"), this,
                                 [this] { addTarget(m_document_panel->view()->selection()); });
  mark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  run->addAction(tr("&Clear targets"), this, &MainWindow::clearTargets);
  run->addSeparator();
  QAction* start = run->addAction(tr("&Run ticked methods"), this, &MainWindow::runCheckedMethods);
  start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  run->addAction(tr("C&ancel runs"), m_runner, &RunController::cancelAll);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About TTT Studio"), this, [this] { showAboutBox(this); });
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::buildStatusBar() {
  m_loading_label = new QLabel(this);
  m_progress = new QProgressBar(this);
  m_progress->setMaximumWidth(180);
  m_progress->setTextVisible(true);
  m_cancel = new QToolButton(this);
  m_cancel->setText(tr("Cancel"));
  m_cancel->setAutoRaise(true);
  connect(m_cancel, &QToolButton::clicked, this, [this] {
    m_loader->cancel();
    for (QWidget* w : {static_cast<QWidget*>(m_loading_label), static_cast<QWidget*>(m_progress),
                       static_cast<QWidget*>(m_cancel)}) {
      w->hide();
    }
    statusBar()->showMessage(tr("Loading cancelled"), 4000);
  });
  m_session_label = new QLabel(this);
  m_device_label = new QLabel(this);
  m_model_label = new QLabel(this);
  statusBar()->addPermanentWidget(m_loading_label);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  statusBar()->addPermanentWidget(m_session_label);
  statusBar()->addPermanentWidget(m_device_label);
  statusBar()->addPermanentWidget(m_model_label);
  m_loading_label->hide();
  m_progress->hide();
  m_cancel->hide();
  m_session_label->hide();
  m_device_label->setText(deviceText());
  m_device_label->setToolTip(tr("Where runs execute"));
  m_model_label->setText(modelText());
}

QString MainWindow::deviceText() const {
  return tr("device: %1").arg(m_device);
}

QString MainWindow::modelText() const {
  return tr("model: %1")
      .arg(m_model_path.isEmpty() ? tr("none")
                                  : QFileInfo(QDir::cleanPath(m_model_path)).fileName());
}

void MainWindow::openDocument(const QString& path) {
  startLoad(path, false);
}

void MainWindow::openRepository(const QString& folder) {
  startLoad(folder, true);
}

void MainWindow::openPath(const QString& path) {
  startLoad(path, QFileInfo(path).isDir());
}

bool MainWindow::isLoading() const {
  return m_loader->busy();
}

void MainWindow::startLoad(const QString& path, bool repository) {
  m_loading_path = path;
  m_loading_repository = repository;
  m_loader->load(
      path, repository ? DocumentLoader::Source::Repository : DocumentLoader::Source::TextFile);
  m_loading_label->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  m_progress->setRange(0, 0);  // busy until the first progress report
  m_loading_label->show();
  m_progress->show();
  m_cancel->show();
}

void MainWindow::onLoaded(quint64, std::shared_ptr<const document::Document> document,
                          std::shared_ptr<const task::TaskItem> item) {
  m_loading_label->hide();
  m_progress->hide();
  m_cancel->hide();
  m_document = document;
  m_item = item;
  m_document_panel->setDocument(document);
  clearTargets();
  m_diagnostics_panel->setDocument(document);
  m_colouring->setDocument(document);
  if (m_item) {
    // The item's evidence becomes the targets (code points in the context, bytes in the view).
    m_runs_panel->questionEdit()->setText(QString::fromStdString(m_item->question));
    const utf8::OffsetMap offsets(m_document->text());
    for (const Span& chars : m_item->targets) {
      addTarget({static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.start))),
                 static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.end)))});
    }
  }
  const QString path = m_loading_path;
  setWindowTitle(tr("%1 — TTT Studio").arg(QFileInfo(path).fileName()));
  m_recent.add({m_loading_repository ? RecentEntry::Kind::Repository : RecentEntry::Kind::Document,
                QFileInfo(path).absoluteFilePath()});
  statusBar()->showMessage(
      m_item ? tr("Opened the %1 item %2: %3")
                   .arg(QString::fromStdString(m_item->task), QFileInfo(path).fileName(),
                        m_document_panel->summary())
             : tr("Opened %1").arg(m_document_panel->summary()),
      8000);
  emit documentLoaded(path);
}

void MainWindow::onFailed(quint64, const QString& message) {
  m_loading_label->hide();
  m_progress->hide();
  m_cancel->hide();
  showError(tr("Cannot open"), message);
  emit documentFailed(message);
}

void MainWindow::showError(const QString& title, const QString& message) {
  statusBar()->showMessage(message, 15000);
  if (!m_options.error_dialogs) return;
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

QString MainWindow::sessionPath() const {
  return m_session->isOpen() ? m_session->path() : QString();
}

bool MainWindow::sessionSwitchAllowed() {
  if (m_runner->pending() == 0) return true;
  showError(tr("Runs are going"),
            tr("%n run(s) are still recording into this session: wait for them or cancel them "
               "first.",
               nullptr, m_runner->pending()));
  return false;
}

bool MainWindow::openSession(const QString& path) {
  if (!sessionSwitchAllowed()) return false;
  try {
    m_session->open(path);
  } catch (const Error& error) {
    showError(tr("Cannot open session"), QString::fromUtf8(error.what()));
    return false;
  }
  return true;
}

bool MainWindow::openDefaultSession() {
  if (!sessionSwitchAllowed()) return false;
  try {
    m_session->openDefault();
  } catch (const Error& error) {
    showError(tr("Cannot open the day's session"), QString::fromUtf8(error.what()));
    return false;
  }
  return true;
}

bool MainWindow::newSession(const QString& path) {
  if (!sessionSwitchAllowed()) return false;
  try {
    m_session->create(path);
  } catch (const Error& error) {
    showError(tr("Cannot create the session"), QString::fromUtf8(error.what()));
    return false;
  }
  return true;
}

bool MainWindow::saveSessionAs(const QString& path) {
  if (!sessionSwitchAllowed()) return false;
  try {
    m_session->saveAs(path);
  } catch (const Error& error) {
    showError(tr("Cannot save the session"), QString::fromUtf8(error.what()));
    return false;
  }
  return true;
}

void MainWindow::onSessionChanged() {
  const QString path = m_session->path();
  const QString reason = m_session->readOnlyReason();
  m_session_label->setText(reason.isEmpty()
                               ? tr("session: %1").arg(QFileInfo(path).fileName())
                               : tr("session: %1 (%2)").arg(QFileInfo(path).fileName(), reason));
  m_session_label->setStyleSheet(reason.isEmpty() ? QString()
                                                  : QStringLiteral("color: #b35900;"));
  m_session_label->setToolTip(reason.isEmpty() ? path : path + QStringLiteral("\n") + reason);
  m_session_label->show();
  m_recent.add({RecentEntry::Kind::Session, path});
  m_traces->clear();
  loadSessionRuns();
  emit sessionOpened(path);
}

bool MainWindow::setModelPath(const QString& path) {
  if (!path.isEmpty() && !QFileInfo(path).isDir()) {
    showError(tr("Cannot open model"),
              tr("%1: no such folder (a model is a folder with config.json)").arg(path));
    return false;
  }
  m_model_path = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
  m_model_label->setText(modelText());
  m_model_label->setToolTip(m_model_path);
  m_runs_panel->setModelPath(m_model_path);
  if (!m_model_path.isEmpty()) m_recent.add({RecentEntry::Kind::Model, m_model_path});
  emit modelChanged(m_model_path);
  return true;
}

void MainWindow::rebuildRecentMenu() {
  m_recent_menu->clear();
  if (m_recent.entries().isEmpty()) {
    m_recent_menu->addAction(tr("(none)"))->setEnabled(false);
    return;
  }
  for (const RecentEntry& entry : m_recent.entries()) {
    QString kind;
    switch (entry.kind) {
      case RecentEntry::Kind::Document:
        kind = tr("document");
        break;
      case RecentEntry::Kind::Repository:
        kind = tr("repository");
        break;
      case RecentEntry::Kind::Session:
        kind = tr("session");
        break;
      case RecentEntry::Kind::Model:
        kind = tr("model");
        break;
    }
    QAction* action =
        m_recent_menu->addAction(tr("%1  (%2)").arg(QDir::toNativeSeparators(entry.path), kind),
                                 this, [this, entry] { openRecent(entry); });
    action->setToolTip(entry.path);
  }
  m_recent_menu->addSeparator();
  m_recent_menu->addAction(tr("Clear recent files"), this, [this] { m_recent.clear(); });
}

void MainWindow::openRecent(const RecentEntry& entry) {
  if (!QFileInfo::exists(entry.path)) {
    m_recent.remove(entry);
    showError(tr("Cannot open"), tr("%1: no longer exists").arg(entry.path));
    return;
  }
  switch (entry.kind) {
    case RecentEntry::Kind::Document:
      openDocument(entry.path);
      break;
    case RecentEntry::Kind::Repository:
      openRepository(entry.path);
      break;
    case RecentEntry::Kind::Session:
      openSession(entry.path);
      break;
    case RecentEntry::Kind::Model:
      setModelPath(entry.path);
      break;
  }
}

void MainWindow::chooseDocument() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open document"), QString(),
      tr("Text files (*.txt *.md *.log *.json *.jsonl *.py *.cpp *.h);;All files (*)"));
  if (!path.isEmpty()) openDocument(path);
}

void MainWindow::chooseRepository() {
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Open folder as code repository"));
  if (!folder.isEmpty()) openRepository(folder);
}

void MainWindow::chooseSession() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open session"), StudioSession::defaultFolder(),
                                   tr("Studio sessions (*.sqlite *.db *.studio);;All files (*)"));
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::chooseNewSession() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("New session"), StudioSession::defaultFolder(), tr("Studio sessions (*.sqlite)"));
  if (!path.isEmpty()) newSession(path);
}

void MainWindow::chooseSaveSessionAs() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save session as"), StudioSession::defaultFolder(), tr("Studio sessions (*.sqlite)"));
  if (!path.isEmpty()) saveSessionAs(path);
}

void MainWindow::chooseModel() {
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
  if (!folder.isEmpty()) setModelPath(folder);
}

void MainWindow::addTarget(Span bytes) {
  if (!m_document || bytes.size() == 0) {
    statusBar()->showMessage(tr("Select the evidence in the document first"), 6000);
    return;
  }
  m_targets.push_back(bytes);
  std::sort(m_targets.begin(), m_targets.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  m_document_panel->view()->setHighlights(m_targets, QColor(230, 120, 0));
  statusBar()->showMessage(tr("%n target span(s)", nullptr, static_cast<int>(m_targets.size())),
                           6000);
}

void MainWindow::clearTargets() {
  m_targets.clear();
  m_document_panel->view()->setHighlights({}, QColor(230, 120, 0));
}

engine::RunSpec MainWindow::baseSpec(QString& missing) const {
  if (!m_document)
    missing = tr("open a document");
  else if (m_model_path.isEmpty())
    missing = tr("open a model folder");
  else if (m_runs_panel->questionEdit()->text().trimmed().isEmpty())
    missing = tr("ask a question");
  else if (m_session->isOpen() && !m_session->writable())
    missing = tr("open a session runs can be added to (this one is %1)")
                  .arg(m_session->readOnlyReason());
  if (!missing.isEmpty()) return {};
  // An item brings its task description, answers, scorer and answer length; what the window
  // shows (the document, the question as edited, the targets as marked) is what runs.
  engine::RunSpec base = m_item ? engine::specFromItem(*m_item) : engine::RunSpec();
  base.model_path = m_model_path.toStdString();
  base.device = m_device.toStdString();
  base.document_source = m_document->sourcePath();
  base.document_text = m_document->text();
  base.target_chars.clear();
  base.question = m_runs_panel->questionEdit()->text().trimmed().toStdString();
  // The document view selects bytes; a RunSpec's targets count code points.
  const utf8::OffsetMap offsets(m_document->text());
  for (const Span& bytes : m_targets) {
    base.target_chars.push_back({static_cast<std::int64_t>(offsets.charOf(bytes.start)),
                                 static_cast<std::int64_t>(offsets.charOf(bytes.end))});
  }
  return base;
}

int MainWindow::queueSpecs(std::vector<engine::RunSpec> specs) {
  int queued = 0;
  try {
    for (engine::RunSpec& spec : specs) {
      m_runner->submit(std::move(spec));
      ++queued;
    }
  } catch (const Error& error) {
    showError(tr("Cannot queue the run"), QString::fromUtf8(error.what()));
  }
  statusBar()->showMessage(tr("%n run(s) queued", nullptr, queued), 6000);
  return queued;
}

int MainWindow::runCheckedMethods() {
  QString missing;
  const engine::RunSpec base = baseSpec(missing);
  if (missing.isEmpty() && m_runs_panel->checkedMethods().empty()) missing = tr("tick a method");
  if (!missing.isEmpty()) {
    statusBar()->showMessage(tr("To run: %1").arg(missing), 8000);
    return 0;
  }
  return queueSpecs(m_runs_panel->buildSpecs(base));
}

int MainWindow::queueRuns(const std::vector<ScriptedRun>& runs) {
  QString missing;
  const engine::RunSpec base = baseSpec(missing);
  if (!missing.isEmpty()) {
    statusBar()->showMessage(tr("To run: %1").arg(missing), 8000);
    return 0;
  }
  std::vector<engine::RunSpec> specs;
  for (const ScriptedRun& run : runs) specs.push_back(m_runs_panel->buildSpec(base, run.method, run.params));
  return queueSpecs(std::move(specs));
}

int MainWindow::loadSessionRuns() {
  if (!m_session->isOpen()) return 0;
  try {
    const sessions::SessionReader reader(*m_session->store());
    int loaded = 0;
    for (const sessions::RunSummary& run : reader.listRuns()) {
      m_traces->setTrace(loadRunTrace(reader, run.id));
      ++loaded;
    }
    m_colouring->refresh();
    return loaded;
  } catch (const Error& error) {
    showError(tr("Cannot read the session"), QString::fromUtf8(error.what()));
    return 0;
  }
}

void MainWindow::exportFigure(const std::string& name) {
  const std::vector<const RunTrace*> runs =
      name.rfind("dilution_", 0) == 0 ? m_traces->all() : m_comparison_panel->chartedRuns();
  exportFigure(makeRunFigure(name, runs));
}

void MainWindow::exportFigure(const Figure& figure) {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export figure"), QString::fromStdString(figure.name) + QStringLiteral(".svg"),
      tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png)"));
  if (path.isEmpty()) return;
  try {
    views::exportFigure(figure, path, figureFormatFromPath(path));
    statusBar()->showMessage(tr("Exported %1").arg(path), 6000);
  } catch (const Error& error) {
    showError(tr("Cannot export the figure"), QString::fromUtf8(error.what()));
  }
}

// The diagnostics grid shows the newest run that has a probe of the answer query.
void MainWindow::showLatestHeadGrid() {
  const std::vector<const RunTrace*> runs = m_traces->all();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    const Figure figure = makeRunFigure("head_mass", {*it});
    if (!figure.isHeatmap()) continue;
    HeadGrid grid;
    grid.layers = figure.heatmap.rows;
    grid.heads = figure.heatmap.columns;
    grid.values = figure.heatmap.values;
    grid.title = "Target mass per head (answer query after the prefill), " + (*it)->label();
    m_diagnostics_panel->setHeadGrid(std::move(grid));
    if (m_grid_run != (*it)->id) m_diagnostics_panel->clearStrip();
    m_grid_run = (*it)->id;
    return;
  }
}

void MainWindow::inspectHead(int layer, int head) {
  const RunTrace* run = m_traces->find(m_grid_run);
  if (!run) return;
  AttentionStrip strip = answerAttentionStrip(*run, layer, head);
  if (strip.rows.empty()) {
    statusBar()->showMessage(tr("%1 kept no attention over the document")
                                 .arg(QString::fromStdString(run->label())), 6000);
    return;
  }
  const auto tokens = static_cast<qint64>(strip.tokens.size());
  m_diagnostics_panel->setStrip(std::move(strip));
  requestWindow(layer, head, 0, tokens, false);
}

void MainWindow::requestWindow(int layer, int head, qint64 first_key, qint64 end_key,
                               bool document_queries) {
  const RunTrace* run = m_traces->find(m_grid_run);
  if (!run) return;
  const WindowScope scope{layer, head, first_key, end_key, document_queries};
  engine::AttentionWindowRequest request;
  try {
    request = attentionWindowRequest(*run, scope);
  } catch (const Error& error) {
    m_diagnostics_panel->setQueryKeyWindowMessage(std::string("No query × key window: ") +
                                                  error.what());
    return;
  }
  m_diagnostics_panel->setQueryKeyWindowMessage(
      "Computing the query × key window of layer " + std::to_string(layer) + " · head " +
      std::to_string(head) + ": replaying " + run->label() +
      (request.phases.size() > 1 ? " (its prefill and qTTT steps)" : " (its prefill)") +
      " after the runs queued before it…");
  const std::int64_t run_id = run->id;
  m_runner->replayWindow(run->spec, request,
                         [this, run_id, scope](const engine::AttentionWindows& windows,
                                               const std::string& error) {
                           const RunTrace* replayed = m_traces->find(run_id);
                           if (!error.empty() || !replayed) {
                             m_diagnostics_panel->setQueryKeyWindowMessage(
                                 "No query × key window: " + (error.empty() ? "the run is gone" : error));
                             return;
                           }
                           m_diagnostics_panel->setQueryKeyWindow(
                               attentionWindowData(*replayed, scope, windows));
                         });
}

}  // namespace studio::views
