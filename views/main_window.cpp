#include "views/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>

#include <algorithm>

#include "analysis/token_heatmap_figure.h"
#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/common/versions.h"
#include "core/engine/prepared_prompt.h"
#include "core/engine/sweep_plan.h"
#include "sessions/readable_runs.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "views/about_box.h"
#include "views/analysis_names.h"
#include "views/causality_status.h"
#include "views/comparison_panel.h"
#include "views/diagnostics_panel.h"
#include "views/document_colouring.h"
#include "views/document_loader.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/figure_export_dialog.h"
#include "views/figure_view.h"
#include "views/head_inspector_panel.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/runs_panel.h"
#include "views/runs_table_model.h"
#include "views/studio_context.h"
#include "views/studio_panels.h"
#include "views/studio_session.h"

namespace studio::views {

namespace {

// Layouts are kept per available screen size: a layout made on a laptop's screen is not applied
// to a desktop monitor's, and the other way round.
QString layoutKey(const QWidget* window, const char* what) {
  const QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  const QSize size = screen ? screen->availableSize() : QSize();
  return QStringLiteral("mainWindow/%1x%2/%3")
      .arg(size.width())
      .arg(size.height())
      .arg(QLatin1String(what));
}

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
  // The whole available screen, until a layout saved for a screen of its size says otherwise.
  const QScreen* screen = QGuiApplication::primaryScreen();
  const QRect available = screen ? screen->availableGeometry() : QRect(0, 0, 1600, 1000);
  setGeometry(available);
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
  m_context = new StudioContext(m_traces, m_runner, m_session, this);
  for (const StudioPanel& panel : studioPanels()) {
    QWidget* content = panel.create(*m_context, this);
    m_docks.push_back(
        makeDock(panelTitle(panel), QString::fromLatin1(panel.object_name), content, this));
  }
  // The window's own inputs: the run form asks it for a model and for runs.
  connect(runsPanel(), &RunsPanel::openModelRequested, this, &MainWindow::chooseModel);
  connect(runsPanel(), &RunsPanel::modelChosen, this, &MainWindow::setModelPath);
  connect(runsPanel(), &RunsPanel::runRequested, this, &MainWindow::runCheckedMethods);
  // A run that finishes is selected: the document's colouring and the diagnostics follow it.
  connect(m_runner, &RunController::runFinished, m_context, &StudioContext::selectRun);
  // An inspected head comes forward in its dock, where it has room.
  connect(m_context, &StudioContext::headInspectionRequested, this, [this] {
    QDockWidget* inspector = dock(QStringLiteral("inspectorDock"));
    inspector->show();
    inspector->raise();
  });
}

QDockWidget* MainWindow::dock(const QString& object_name) const {
  for (QDockWidget* dock : m_docks) {
    if (dock->objectName() == object_name) return dock;
  }
  return nullptr;
}

DocumentPanel* MainWindow::documentPanel() const {
  return findChild<DocumentPanel*>();
}
DocumentColouring* MainWindow::documentColouring() const {
  return findChild<DocumentColouring*>();
}
RunsPanel* MainWindow::runsPanel() const {
  return findChild<RunsPanel*>();
}
DiagnosticsPanel* MainWindow::diagnosticsPanel() const {
  if (auto* shown = findChild<DiagnosticsPanel*>()) return shown;
  return qobject_cast<DiagnosticsPanel*>(
      detachedPanel(dock(QStringLiteral("diagnosticsDock"))->widget()));
}
HeadInspectorPanel* MainWindow::headInspector() const {
  if (auto* shown = findChild<HeadInspectorPanel*>()) return shown;
  return qobject_cast<HeadInspectorPanel*>(
      detachedPanel(dock(QStringLiteral("inspectorDock"))->widget()));
}
ComparisonPanel* MainWindow::comparisonPanel() const {
  return findChild<ComparisonPanel*>();
}

std::shared_ptr<const document::Document> MainWindow::currentDocument() const {
  return m_context->document();
}

std::shared_ptr<const task::TaskItem> MainWindow::currentItem() const {
  return m_context->item();
}

QString MainWindow::modelPath() const {
  return m_context->modelPath();
}

void MainWindow::resetLayout() {
  // No central widget: the document is a dock like the others, so any panel can take any place.
  for (QDockWidget* dock : m_docks) {
    dock->setFloating(false);
    removeDockWidget(dock);
  }
  const QSize size = this->size();
  QList<QDockWidget*> columns;
  QList<int> widths;
  std::vector<std::pair<QDockWidget*, QDockWidget*>> stacked;  // (anchor, below it)
  std::vector<int> stacked_shares;
  const std::vector<StudioPanel>& panels = studioPanels();
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const PanelPlace& place = panels[i].place;
    QDockWidget* own = m_docks[i];
    QDockWidget* anchor = place.anchor ? dock(QString::fromLatin1(place.anchor)) : nullptr;
    switch (place.relation) {
      case PanelPlace::Relation::Area:
        addDockWidget(place.area, own);
        columns.push_back(own);
        widths.push_back(size.width() * place.share / 100);
        break;
      case PanelPlace::Relation::Below:
        splitDockWidget(anchor, own, Qt::Vertical);
        stacked.emplace_back(anchor, own);
        stacked_shares.push_back(place.share);
        break;
      case PanelPlace::Relation::TabWith:
        tabifyDockWidget(anchor, own);
        break;
    }
  }
  for (QDockWidget* dock : m_docks) dock->show();
  for (std::size_t i = 0; i < panels.size(); ++i) {
    if (panels[i].raised) m_docks[i]->raise();
  }
  resizeDocks(columns, widths, Qt::Horizontal);
  for (std::size_t i = 0; i < stacked.size(); ++i) {
    resizeDocks({stacked[i].first, stacked[i].second},
                {size.height() * (100 - stacked_shares[i]) / 100,
                 size.height() * stacked_shares[i] / 100},
                Qt::Vertical);
  }
}

void MainWindow::restoreLayout() {
  QSettings settings;
  const QByteArray geometry = settings.value(layoutKey(this, "geometry")).toByteArray();
  if (!geometry.isEmpty()) restoreGeometry(geometry);
  const QByteArray state = settings.value(layoutKey(this, "state")).toByteArray();
  if (!state.isEmpty() && !restoreState(state, kLayoutVersion)) resetLayout();
}

void MainWindow::saveLayout() {
  QSettings settings;
  settings.setValue(layoutKey(this, "geometry"), saveGeometry());
  settings.setValue(layoutKey(this, "state"), saveState(kLayoutVersion));
  m_recent.save(settings);
}

void MainWindow::zoomText(int step) {
  m_text_zoom = step == 0 ? 0 : std::clamp(m_text_zoom + step, -3, 8);
  const double scale = 1.0 + 0.15 * m_text_zoom;
  QFont text = QApplication::font();
  text.setPointSizeF(text.pointSizeF() * scale);
  for (QDockWidget* dock : m_docks) dock->widget()->setFont(text);
  // The document keeps its fixed-width face.
  QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  fixed.setStyleHint(QFont::Monospace);
  fixed.setPointSizeF(fixed.pointSizeF() * scale);
  documentPanel()->view()->setFont(fixed);
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
  for (QDockWidget* dock : m_docks) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  QAction* zoom_in = view->addAction(tr("Zoom &in"), this, [this] { zoomText(1); });
  zoom_in->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  QAction* zoom_out = view->addAction(tr("Zoom &out"), this, [this] { zoomText(-1); });
  zoom_out->setShortcut(QKeySequence::ZoomOut);
  QAction* actual = view->addAction(tr("&Actual size"), this, [this] { zoomText(0); });
  actual->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  view->addSeparator();
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* mark = run->addAction(tr("&Mark selection as target"), this,
                                 [this] { addTarget(documentPanel()->view()->selection()); });
  mark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  run->addAction(tr("&Clear targets"), this, &MainWindow::clearTargets);
  run->addSeparator();
  QAction* start = run->addAction(tr("&Run ticked methods"), this, &MainWindow::runCheckedMethods);
  start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  QAction* cancel = run->addAction(tr("C&ancel runs"), m_runner, &RunController::cancelAll);
  cancel->setShortcut(QKeySequence(Qt::Key_Escape));

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
  if (m_options.check_causality) {
    const QString cache =
        m_options.causality_cache.isEmpty()
            ? QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
                  .filePath(QStringLiteral("causality.json"))
            : m_options.causality_cache;
    m_causality = new CausalityStatus(cache, this);
    connect(m_causality, &CausalityStatus::checked, this, &MainWindow::showCausality);
  }
}

void MainWindow::showCausality(const QString& model, const engine::CausalityVerdict& verdict) {
  using State = engine::CausalityVerdict::State;
  const QString detail = QString::fromStdString(verdict.detail);
  if (model != modelPath()) return;
  QString mark, tip = model + QLatin1Char('\n');
  m_model_label->setStyleSheet(QString());
  switch (verdict.state) {
    case State::Passed:
      mark = tr("causal ✓");
      tip += tr("Leak check passed%1: %2").arg(verdict.cached ? tr(" (cached)") : QString(), detail);
      break;
    case State::Failed:
      mark = tr("LEAKS");
      m_model_label->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
      tip += tr("Leak check failed%1: %2").arg(verdict.cached ? tr(" (cached)") : QString(), detail);
      break;
    case State::NotChecked:
      mark = tr("causality not checked");
      tip += detail;
      break;
    case State::Error:
      mark = tr("causality check failed to run");
      tip += detail;
      break;
  }
  m_model_label->setText(tr("%1 · %2").arg(modelText(), mark));
  m_model_label->setToolTip(tip);
}

QString MainWindow::deviceText() const {
  return tr("device: %1").arg(m_device);
}

QString MainWindow::modelText() const {
  return tr("model: %1")
      .arg(modelPath().isEmpty() ? tr("none")
                                 : QFileInfo(QDir::cleanPath(modelPath())).fileName());
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
  m_context->setDocument(document, item);
  clearTargets();
  if (item) {
    // The item's evidence becomes the targets (code points in the context, bytes in the view).
    runsPanel()->questionEdit()->setText(QString::fromStdString(m_context->item()->question));
    const utf8::OffsetMap offsets(m_context->document()->text());
    for (const Span& chars : m_context->item()->targets) {
      addTarget({static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.start))),
                 static_cast<std::int64_t>(offsets.byteOf(static_cast<std::size_t>(chars.end)))});
    }
  }
  const QString path = m_loading_path;
  setWindowTitle(tr("%1 — TTT Studio").arg(QFileInfo(path).fileName()));
  m_recent.add({m_loading_repository ? RecentEntry::Kind::Repository : RecentEntry::Kind::Document,
                QFileInfo(path).absoluteFilePath()});
  statusBar()->showMessage(
      m_context->item() ? tr("Opened the %1 item %2: %3")
                   .arg(QString::fromStdString(m_context->item()->task), QFileInfo(path).fileName(),
                        documentPanel()->summary())
             : tr("Opened %1").arg(documentPanel()->summary()),
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
  const QString model = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
  m_context->setModelPath(model);
  m_model_label->setStyleSheet(QString());
  m_model_label->setText(m_causality && !model.isEmpty()
                             ? tr("%1 · checking causality…").arg(modelText())
                             : modelText());
  m_model_label->setToolTip(model);
  if (m_causality) m_causality->check(model);
  if (!model.isEmpty()) m_recent.add({RecentEntry::Kind::Model, model});
  emit modelChanged(model);
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
  if (!m_context->document() || bytes.size() == 0) {
    statusBar()->showMessage(tr("Select the evidence in the document first"), 6000);
    return;
  }
  m_targets.push_back(bytes);
  std::sort(m_targets.begin(), m_targets.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  documentPanel()->view()->setHighlights(m_targets, QColor(230, 120, 0));
  statusBar()->showMessage(tr("%n target span(s)", nullptr, static_cast<int>(m_targets.size())),
                           6000);
}

void MainWindow::clearTargets() {
  m_targets.clear();
  documentPanel()->view()->setHighlights({}, QColor(230, 120, 0));
}

engine::RunSpec MainWindow::baseSpec(QString& missing) const {
  if (!m_context->document())
    missing = tr("open a document");
  else if (modelPath().isEmpty())
    missing = tr("open a model folder");
  else if (runsPanel()->questionEdit()->text().trimmed().isEmpty())
    missing = tr("ask a question");
  else if (m_session->isOpen() && !m_session->writable())
    missing = tr("open a session runs can be added to (this one is %1)")
                  .arg(m_session->readOnlyReason());
  if (!missing.isEmpty()) return {};
  // An item brings its task description, answers, scorer and answer length; what the window
  // shows (the document, the question as edited, the targets as marked) is what runs.
  engine::RunSpec base = m_context->item() ? engine::specFromItem(*m_context->item()) : engine::RunSpec();
  base.model_path = modelPath().toStdString();
  base.device = m_device.toStdString();
  base.document_source = m_context->document()->sourcePath();
  base.document_text = m_context->document()->text();
  base.target_chars.clear();
  base.question = runsPanel()->questionEdit()->text().trimmed().toStdString();
  // The document view selects bytes; a RunSpec's targets count code points.
  const utf8::OffsetMap offsets(m_context->document()->text());
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
  if (missing.isEmpty() && runsPanel()->checkedMethods().empty()) missing = tr("tick a method");
  if (!missing.isEmpty()) {
    statusBar()->showMessage(tr("To run: %1").arg(missing), 8000);
    return 0;
  }
  return queueSpecs(runsPanel()->buildSpecs(base));
}

int MainWindow::queueRuns(const std::vector<ScriptedRun>& runs) {
  QString missing;
  const engine::RunSpec base = baseSpec(missing);
  if (!missing.isEmpty()) {
    statusBar()->showMessage(tr("To run: %1").arg(missing), 8000);
    return 0;
  }
  std::vector<engine::RunSpec> specs;
  for (const ScriptedRun& run : runs) specs.push_back(runsPanel()->buildSpec(base, run.method, run.params));
  return queueSpecs(std::move(specs));
}

int MainWindow::loadSessionRuns() {
  if (!m_session->isOpen()) return 0;
  int loaded = 0;
  try {
    const sessions::SessionReader reader(*m_session->store());
    const std::vector<sessions::RunSummary> runs = reader.listRuns();
    // One damaged run must not hide the others.
    const std::vector<sessions::UnreadableRun> unreadable = sessions::readEachRun(
        runs, [&](const sessions::RunSummary& run) { return loadRunTrace(reader, run.id); },
        [&](const sessions::RunSummary&, RunTrace trace) {
          m_traces->setTrace(std::move(trace));
          ++loaded;
        });
    if (!unreadable.empty()) {
      QStringList damaged;
      for (const sessions::UnreadableRun& run : unreadable) {
        damaged << QString::fromStdString(run.error);
      }
      showError(tr("Some runs cannot be read"),
                tr("%1 of %2 runs shown; cannot read: %3")
                    .arg(loaded)
                    .arg(runs.size())
                    .arg(damaged.join(QStringLiteral("; "))));
    }
  } catch (const Error& error) {
    showError(tr("Cannot read the session"), QString::fromUtf8(error.what()));
  }
  return loaded;
}

void MainWindow::exportFigure(const std::string& name) {
  const std::vector<const RunTrace*> runs =
      name.rfind("dilution_", 0) == 0 ? m_traces->all() : comparisonPanel()->chartedRuns();
  // token_heatmap colours the document by the quantity chosen in the dialog. Every figure is drawn
  // inside the dialog's call, which shows a damaged session's error instead of a figure.
  const bool heatmap = name == "token_heatmap";
  QStringList quantities;
  if (heatmap) {
    for (const std::string& quantity : analysis::tokenQuantityNames()) {
      quantities << QString::fromStdString(quantity);
    }
  }
  const QStringList written = exportFigureWithDialog(
      QString::fromStdString(name), quantities,
      [&](const QString& quantity) {
        if (!heatmap) return makeRunFigure(name, runs);
        analysis::TokenHeatmapScope scope;
        scope.quantity = quantity.toStdString();
        return analysis::withRunsCaption(name, analysis::tokenHeatmapFigure(runs, scope), runs);
      },
      this);
  if (!written.isEmpty()) statusBar()->showMessage(tr("Exported %1").arg(written.join(", ")), 6000);
}

}  // namespace studio::views
