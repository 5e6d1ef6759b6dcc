#include "views/studio_panels.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "views/document_colouring.h"
#include "views/comparison_panel.h"
#include "views/diagnostics_panel.h"
#include "views/dilution_panel.h"
#include "views/document_panel.h"
#include "views/document_view.h"
#include "views/fast_weight_panel.h"
#include "views/head_inspector_panel.h"
#include "views/imgui_widget.h"
#include "views/refine_panel.h"
#include "views/routing_panel.h"
#include "views/run_controller.h"
#include "views/run_traces.h"
#include "views/runs_panel.h"
#include "views/runs_table_model.h"
#include "views/studio_context.h"

namespace studio::views {

namespace {

using Relation = PanelPlace::Relation;

const char* const kDetachedPanel = "studioDetachedPanel";

// The document with the attention-colouring bar under it; it scrolls to what panels reveal.
QWidget* makeDocumentPanel(StudioContext& context, QWidget* parent) {
  auto* panel = new DocumentPanel(parent);
  auto* colouring = new DocumentColouring(context.traces(), panel->view(), panel);
  panel->addBar(colouring);
  QObject::connect(&context, &StudioContext::documentChanged, panel, [&context, panel, colouring] {
    panel->setDocument(context.document());
    colouring->setDocument(context.document());
  });
  QObject::connect(context.traces(), &RunTraces::runUpdated, colouring,
                   [colouring] { colouring->refresh(); });
  QObject::connect(context.traces(), &RunTraces::cleared, colouring,
                   [colouring] { colouring->refresh(); });
  // A run selected (or just finished) colours the document; the choice stays the person's after.
  QObject::connect(&context, &StudioContext::selectedRunChanged, colouring,
                   [colouring](qint64 id) { colouring->selectRun(id); });
  QObject::connect(&context, &StudioContext::revealRequested, panel,
                   [panel](Span bytes) { panel->view()->reveal(bytes); });
  return panel;
}

QWidget* makeRunsPanel(StudioContext& context, QWidget* parent) {
  auto* panel = new RunsPanel(parent);
  panel->setTraces(context.traces());
  QObject::connect(&context, &StudioContext::modelChanged, panel,
                   [&context, panel] { panel->setModelPath(context.modelPath()); });
  QObject::connect(panel, &RunsPanel::cancelRequested, context.runner(), &RunController::cancelAll);
  QObject::connect(context.runner(), &RunController::pendingChanged, panel, &RunsPanel::setPending);
  QObject::connect(panel->table()->selectionModel(), &QItemSelectionModel::currentRowChanged,
                   &context, [&context, panel](const QModelIndex& current) {
                     if (current.isValid()) context.selectRun(panel->model()->idAt(current.row()));
                   });
  return panel;
}

// Dear ImGui needs OpenGL; without it the dock says why, and the panel (never shown) still keeps
// its state for whoever asks.
template <typename Panel>
QWidget* makeImGuiPanel(StudioContext& context, QWidget* parent, const QString& what) {
  if (ImGuiWidget::openGlAvailable()) {
    auto* panel = new Panel(parent);
    panel->attach(context);
    return panel;
  }
  auto* label = new QLabel(QCoreApplication::translate(
                               "StudioPanels",
                               "The %1 draws with OpenGL, and no OpenGL context can be created "
                               "here (Qt platform \"%2\").")
                               .arg(what, QGuiApplication::platformName()),
                           parent);
  label->setWordWrap(true);
  label->setAlignment(Qt::AlignCenter);
  label->setMargin(16);
  // Parentless: a QOpenGLWidget anywhere under the window makes Qt composite the window with
  // OpenGL, which is what cannot be had here. Deleted with the label.
  auto* detached = new Panel();
  detached->attach(context);
  label->setProperty(kDetachedPanel, QVariant::fromValue<QObject*>(detached));
  QObject::connect(label, &QObject::destroyed, [detached] { delete detached; });
  return label;
}

QWidget* makeDiagnosticsPanel(StudioContext& context, QWidget* parent) {
  return makeImGuiPanel<DiagnosticsPanel>(
      context, parent, QCoreApplication::translate("StudioPanels", "diagnostics panel"));
}

QWidget* makeHeadInspector(StudioContext& context, QWidget* parent) {
  return makeImGuiPanel<HeadInspectorPanel>(
      context, parent, QCoreApplication::translate("StudioPanels", "head inspector"));
}

}  // namespace

const std::vector<StudioPanel>& studioPanels() {
  static const std::vector<StudioPanel> panels = {
      {"documentDock", QT_TRANSLATE_NOOP("StudioPanels", "Document"),
       {Relation::Area, Qt::LeftDockWidgetArea, nullptr, 55}, false, makeDocumentPanel},
      {"runsDock", QT_TRANSLATE_NOOP("StudioPanels", "Runs"),
       {Relation::Area, Qt::RightDockWidgetArea, nullptr, 45}, false, makeRunsPanel},
      {"diagnosticsDock", QT_TRANSLATE_NOOP("StudioPanels", "Diagnostics"),
       {Relation::Below, Qt::RightDockWidgetArea, "runsDock", 45}, false, makeDiagnosticsPanel},
      {"comparisonDock", QT_TRANSLATE_NOOP("StudioPanels", "Comparison"),
       {Relation::Below, Qt::LeftDockWidgetArea, "documentDock", 64}, true,
       [](StudioContext& context, QWidget* parent) -> QWidget* {
         return new ComparisonPanel(context.traces(), parent);
       }},
      {"dilutionDock", QT_TRANSLATE_NOOP("StudioPanels", "Dilution"),
       {Relation::TabWith, Qt::LeftDockWidgetArea, "comparisonDock", 0}, false,
       [](StudioContext& context, QWidget* parent) -> QWidget* {
         return new DilutionPanel(context.traces(), parent);
       }},
      {"fastWeightDock", QT_TRANSLATE_NOOP("StudioPanels", "Fast weights"),
       {Relation::TabWith, Qt::LeftDockWidgetArea, "dilutionDock", 0}, false,
       [](StudioContext& context, QWidget* parent) -> QWidget* {
         return new FastWeightPanel(context, parent);
       }},
      {"refineDock", QT_TRANSLATE_NOOP("StudioPanels", "ReFINE"),
       {Relation::TabWith, Qt::LeftDockWidgetArea, "fastWeightDock", 0}, false,
       [](StudioContext& context, QWidget* parent) -> QWidget* {
         return new RefinePanel(context, parent);
       }},
      {"routingDock", QT_TRANSLATE_NOOP("StudioPanels", "Routing"),
       {Relation::TabWith, Qt::LeftDockWidgetArea, "refineDock", 0}, false,
       [](StudioContext& context, QWidget* parent) -> QWidget* {
         return new RoutingPanel(context, parent);
       }},
      // Beside the comparison, where a head has the most room; brought forward when one is
      // inspected.
      {"inspectorDock", QT_TRANSLATE_NOOP("StudioPanels", "Head inspector"),
       {Relation::TabWith, Qt::LeftDockWidgetArea, "routingDock", 0}, false, makeHeadInspector},
  };
  return panels;
}

QObject* detachedPanel(const QWidget* content) {
  return content ? content->property(kDetachedPanel).value<QObject*>() : nullptr;
}

QString panelTitle(const StudioPanel& panel) {
  return QCoreApplication::translate("StudioPanels", panel.title);
}

}  // namespace studio::views
