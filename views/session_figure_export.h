#pragma once
// Headless figure export from a session file: what `studio-cli export --figure NAME --run ID
// --session FILE --format svg|png|pdf --out PATH` does, with the same figures as the window:
// runFigureNames(), and "attention_window", a head's query × key window, which replays the run
// (head_inspection.h) on the model the session names and writes the window's numbers as
// safetensors beside the picture. The figure's size, fonts, title and caption as a paper asks
// (figure_export.h); its plotted data as CSV on request (analysis/figure_data_csv.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sessions/readable_runs.h"
#include "views/figure_export.h"

namespace studio::views {

struct SessionFigureRequest {
  std::string session;  // the session file, opened read-only
  std::int64_t run_id = 0;
  std::string figure;  // a runFigureNames() entry
  FigureFormat format = FigureFormat::Svg;
  std::string out;
  FigureExportOptions options;
  std::string data_out;  // non-empty: the plotted data as CSV there
  // "attention_window": the layer (unset: 0) and head (unset: 0), the document tokens the keys
  // cover, the queries (the question's and answer's, or the keys' own), the phase drawn
  // ("prefill", "qttt" or "difference") and the scale. "fast_weight_loss": the TTT layer (unset:
  // their mean). "token_heatmap": the quantity, layer and head (unset: their means), the document
  // tokens drawn and the scale.
  std::optional<int> layer;
  std::optional<int> head;
  std::string quantity = "attention";
  std::int64_t first_key = 0;
  std::int64_t end_key = INT64_MAX;
  bool document_queries = false;
  std::string window_phase = "prefill";
  bool log_scale = false;
};

// The name of the replayed query × key window figure.
inline constexpr const char* kAttentionWindowFigure = "attention_window";

// The runs a figure of `run_id` draws: the run itself; for the dilution and accuracy figures every
// run of the session on the same model (a sweep over context lengths, one series per method), and
// for train_loss every run on the same output folder (a training resumed in several pieces).
std::vector<std::int64_t> figureRunIds(const std::string& figure, std::int64_t run_id,
                                       const std::vector<std::int64_t>& session_runs_same_model);

struct SessionFigureExport {
  std::string title;
  std::vector<std::string> files;  // every file written: the figure first
  std::vector<sessions::UnreadableRun> unreadable;  // other runs it would draw, left out
};

// Creates a QGuiApplication on the offscreen platform when none exists (fonts need one), builds
// the figure from the session and writes it. Throws studio::Error: Session for a missing run, a
// run that cannot be read or a file that is no session, Argument for an unknown figure, Io when
// `out` cannot be written. A figure over several runs leaves out another run that cannot be read
// and lists it in `unreadable`.
SessionFigureExport exportSessionFigure(const SessionFigureRequest& request);

}  // namespace studio::views
