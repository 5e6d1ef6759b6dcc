#include "views/session_figure_export.h"

#include <QGuiApplication>

#include <algorithm>
#include <memory>

#include "analysis/attention_window_tensors.h"
#include "analysis/fast_weight_figures.h"
#include "analysis/figure_data_csv.h"
#include "analysis/token_heatmap_figure.h"
#include "core/common/error.h"
#include "sessions/readable_runs.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"
#include "views/analysis_names.h"
#include "views/attention_window_view.h"

namespace studio::views {

namespace {

void ensureGuiApplication() {
  if (QGuiApplication::instance()) return;
  // No display is needed to draw into an image, an SVG or a PDF.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "studio-cli";
  static char* argv[] = {name, nullptr};
  static std::unique_ptr<QGuiApplication> app = std::make_unique<QGuiApplication>(argc, argv);
}

// Figures over context length draw every run of the session on the model, not one run; so does
// the training curve, whose resumed pieces are runs on the same output folder.
bool acrossRuns(const std::string& figure) {
  return figure.rfind("dilution_", 0) == 0 || figure == "accuracy" || figure == "train_loss";
}

// The window's figure, and its numbers as safetensors beside the picture (added to `files`).
Figure attentionWindowFigure(const SessionFigureRequest& request, const RunTrace& run,
                             std::vector<std::string>& files) {
  const WindowScope scope{request.layer.value_or(0), request.head.value_or(0), request.first_key,
                          request.end_key, request.document_queries};
  const engine::AttentionWindowRequest window = attentionWindowRequest(run, scope);
  const bool difference = request.window_phase == "difference";
  const auto phase = std::find(window.phases.begin(), window.phases.end(), request.window_phase);
  if (!difference && phase == window.phases.end()) {
    throwArgument("--phase", request.window_phase + " is not a phase of " + run.label() +
                                 " (prefill" + (window.phases.size() > 1 ? ", qttt or difference)" : ")"));
  }
  if (difference && window.phases.size() < 2) {
    throwArgument("--phase", "difference needs a qTTT run; " + run.label() + " has only prefill");
  }
  engine::ModelCache models;
  AttentionWindowView view;
  view.setWindow(attentionWindowData(run, scope, engine::replayAttentionWindows(run.spec, window, models)));
  view.setLogScale(request.log_scale);
  const auto phase_index = static_cast<std::size_t>(phase - window.phases.begin());
  if (difference) {
    view.setDifferenceMode(true);
  } else {
    view.setPhase(static_cast<int>(phase_index));
  }
  const std::string tensors = analysis::attentionWindowTensorsPath(request.out);
  analysis::writeAttentionWindowTensors(view.window(), phase_index, difference, tensors);
  files.push_back(tensors);
  return view.figure();
}

Figure tokenHeatmap(const SessionFigureRequest& request, const std::vector<const RunTrace*>& runs) {
  analysis::TokenHeatmapScope scope;
  scope.quantity = request.quantity;
  scope.layer = request.layer.value_or(-1);
  scope.head = request.head.value_or(-1);
  scope.first_token = request.first_key;
  scope.end_token = request.end_key;
  scope.log_scale = request.log_scale;
  return analysis::withRunsCaption(request.figure, analysis::tokenHeatmapFigure(runs, scope), runs);
}

// fast_weight_loss's layer: −1 (the mean) unless one is asked for, which the run must have.
int fastWeightLayer(const SessionFigureRequest& request, const RunTrace& run) {
  if (!request.layer) return -1;
  const std::vector<int> layers = analysis::fastWeightLayers(run);
  if (std::find(layers.begin(), layers.end(), *request.layer) != layers.end()) return *request.layer;
  std::string have;
  for (int l : layers) have += (have.empty() ? "" : ", ") + std::to_string(l);
  throwArgument("--layer", "run " + std::to_string(run.id) + " reported no fast-weight losses of layer " +
                               std::to_string(*request.layer) +
                               (have.empty() ? " (it has none)" : " (its TTT layers: " + have + ")"));
}

}  // namespace

std::vector<std::int64_t> figureRunIds(const std::string& figure, std::int64_t run_id,
                                       const std::vector<std::int64_t>& session_runs_same_model) {
  if (!acrossRuns(figure)) return {run_id};
  return session_runs_same_model;
}


SessionFigureExport exportSessionFigure(const SessionFigureRequest& request) {
  if (request.session.empty()) throwArgument("--session", "the session file is required");
  if (request.out.empty()) throwArgument("--out", "the output file is required");
  const bool window = request.figure == kAttentionWindowFigure;
  bool known = window;
  for (const std::string& name : runFigureNames()) known = known || name == request.figure;
  if (!known) makeRunFigure(request.figure, {});  // throws, listing the figures

  sessions::OpenOptions open;
  open.access = sessions::OpenOptions::Access::ReadOnly;
  const sessions::SessionStore store(request.session, open);
  const sessions::SessionReader reader(store);
  const sessions::RunSummary run = reader.run(request.run_id);  // throws for a missing run

  const std::vector<sessions::RunSummary> session_runs = reader.listRuns();
  std::vector<std::int64_t> same_model;
  for (const sessions::RunSummary& other : session_runs) {
    if (other.model_path == run.model_path) same_model.push_back(other.id);
  }
  const std::vector<std::int64_t> drawn = figureRunIds(request.figure, request.run_id, same_model);
  // The run asked for must be read (its error is the export's); of the others a figure draws, one
  // that cannot be read is left out and listed, as the window leaves it out of its run list.
  std::vector<RunTrace> traces;
  traces.push_back(loadRunTrace(reader, request.run_id));
  std::vector<sessions::RunSummary> others;
  for (const sessions::RunSummary& other : session_runs) {
    if (other.id != request.run_id && std::count(drawn.begin(), drawn.end(), other.id)) {
      others.push_back(other);
    }
  }
  SessionFigureExport written;
  written.unreadable = sessions::readEachRun(
      others, [&](const sessions::RunSummary& other) { return loadRunTrace(reader, other.id); },
      [&](const sessions::RunSummary&, RunTrace trace) { traces.push_back(std::move(trace)); });
  // Ascending id, as the session lists them: the order of a figure's series.
  std::sort(traces.begin(), traces.end(),
            [](const RunTrace& a, const RunTrace& b) { return a.id < b.id; });
  std::vector<const RunTrace*> runs;
  for (const RunTrace& trace : traces) runs.push_back(&trace);

  ensureGuiApplication();
  written.files.push_back(request.out);
  Figure figure;
  if (window) {
    figure = attentionWindowFigure(request, traces.front(), written.files);
  } else if (request.figure == "fast_weight_loss") {
    figure = analysis::fastWeightLossFigure(runs, fastWeightLayer(request, traces.front()));
  } else if (request.figure == "token_heatmap") {
    figure = tokenHeatmap(request, runs);
  } else {
    figure = makeRunFigure(request.figure, runs);
  }
  exportFigure(figure, QString::fromStdString(request.out), request.format, request.options);
  if (!request.options.caption_path.isEmpty()) {
    written.files.push_back(request.options.caption_path.toStdString());
  }
  if (!request.data_out.empty()) {
    analysis::writeFigureDataCsv({&figure}, request.data_out);
    written.files.push_back(request.data_out);
  }
  written.title = figure.title;
  return written;
}

}  // namespace studio::views
