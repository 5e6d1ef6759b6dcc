// `studio-cli export`: writes what a session holds to files other tools read. One subcommand
// with one part per source: the session part (--session, --run/--all, --format json|csv, --out)
// and the figure part (--figure NAME with --session, --run, --format svg|png|pdf, --out; sized
// for a paper with --size, --font-size, --no-title, --caption-file; its data with --data), the
// same figures as the window's File → Export figure…, drawn by studio_views. Without Qt
// (STUDIO_GUI off) the figure part says so and exits with 2.

#include <iostream>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "app/cli/cli_command.h"
#include "core/common/error.h"
#include "sessions/readable_runs.h"
#include "sessions/sample_log.h"
#include "sessions/session_export.h"
#include "sessions/session_store.h"
#include "studio/build_info.h"
#if STUDIO_GUI_BUILT
#include "analysis/figure_size.h"
#include "analysis/run_figures.h"
#include "analysis/token_heatmap_figure.h"
#include "views/session_figure_export.h"
#endif

namespace studio::cli {

namespace {

struct SessionExportOptions {
  std::string session;
  std::int64_t run_id = 0;
  CLI::Option* run_option = nullptr;
  bool all = false;
  std::string format;  // json (default) or csv; svg, png and pdf belong to figures
  std::string out;
  bool samples = false;  // one JSON line per run instead (sessions/sample_log.h)
};

struct FigureCliOptions {
  std::string figure;
  int width = 960;
  int height = 600;
  CLI::Option* width_option = nullptr;
  CLI::Option* height_option = nullptr;
  std::string size;  // "3.25x2in", "234x144pt", "column", "page"
  double font_points = 0;
  CLI::Option* font_option = nullptr;
  bool no_title = false;
  std::string caption_file;
  std::string data;
  // attention_window and token_heatmap (and fast_weight_loss's layer; unset: layer 0 and head 0
  // for the window, the mean over layers or heads for token_heatmap, the mean over the TTT
  // layers for fast_weight_loss)
  std::optional<int> layer;
  std::optional<int> head;
  std::string quantity = "attention";
  std::string keys;  // "a:b" document tokens
  bool document_queries = false;
  std::string phase = "prefill";
  bool log_scale = false;
};

#if STUDIO_GUI_BUILT
// "a:b" → [a, b) with 0 ≤ a < b.
std::pair<std::int64_t, std::int64_t> parseKeyRange(const std::string& text) {
  const auto colon = text.find(':');
  try {
    if (colon != std::string::npos) {
      std::size_t used_a = 0, used_b = 0;
      const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
      const long long first = std::stoll(a, &used_a), end = std::stoll(b, &used_b);
      if (used_a == a.size() && used_b == b.size() && first >= 0 && end > first) {
        return {first, end};
      }
    }
  } catch (const std::exception&) {
  }
  throwArgument("--keys", "'" + text + "': expected FIRST:END document tokens, 0 ≤ FIRST < END");
}
#endif

void addSessionExportOptions(CLI::App* command, SessionExportOptions& options) {
  command->add_option("--session", options.session, "The session file (.sqlite) to export from");
  options.run_option = command->add_option("--run", options.run_id, "Export this run (its id)");
  auto* all = command->add_flag("--all", options.all, "Export every run of the session");
  options.run_option->excludes(all);
  command
      ->add_option("--format", options.format,
                   "Sessions: json (one document, the default) or csv (a runs table and one file "
                   "per event table beside it). Figures: svg (the default), png or pdf")
      ->check(CLI::IsMember({"json", "csv", "svg", "png", "pdf"}));
  command->add_option("--out", options.out,
                      "Output file; csv writes <stem>.<table>.csv files next to it");
  command->add_flag("--samples", options.samples,
                    "Sessions: one JSON line per run (task, item, seed, method, params, prompt "
                    "hash, output, answer, references, score, target mass), as "
                    "lm-evaluation-harness's --log_samples");
}

bool sessionExportRequested(const SessionExportOptions& options) {
  return !options.session.empty() || options.all || options.run_option->count() > 0;
}

void runSessionExport(const SessionExportOptions& options) {
  if (options.session.empty()) throwArgument("--session", "the session file is required");
  const std::string format = options.format.empty() ? "json" : options.format;
  if (format != "json" && format != "csv") {
    throwArgument("--format", format + " is a figure format: give --figure NAME, or json or csv");
  }
  if (!options.all && options.run_option->count() == 0) {
    throwArgument("--run/--all", "choose one run (--run ID) or every run (--all)");
  }
  if (options.out.empty()) throwArgument("--out", "the output file is required");
  sessions::OpenOptions open;
  open.access = sessions::OpenOptions::Access::ReadOnly;  // an export never changes the session
  const sessions::SessionStore store(options.session, open);
  const sessions::RunSelection runs =
      options.all ? sessions::RunSelection{} : sessions::RunSelection{options.run_id};
  if (options.samples && !options.format.empty()) {
    throwArgument("--format", "--samples writes JSON lines");
  }
  const sessions::ExportSummary summary =
      options.samples   ? sessions::writeSampleLog(store, runs, options.out)
      : format == "csv" ? sessions::exportSessionCsv(store, runs, options.out)
                        : sessions::exportSessionJson(store, runs, options.out);
  // A run that cannot be read is left out of an export of all, and said here (the JSON also
  // lists it under "unreadable_runs"); the rest is exported and the exit code is 0.
  std::cerr << sessions::unreadableRunsReport(summary.unreadable);
  std::cout << "exported " << summary.runs << " run(s)";
  if (!summary.unreadable.empty()) {
    std::cout << " (" << summary.unreadable.size() << " left out: cannot be read)";
  }
  if (options.samples) {
    std::cout << " of " << options.session << " as JSON lines:\n";
  } else {
    std::cout << " and " << summary.events << " event(s) of " << options.session << " as " << format
              << ":\n";
  }
  for (const std::string& file : summary.files) std::cout << "  " << file << "\n";
}

void addFigureExportOptions(CLI::App* command, FigureCliOptions& options) {
#if STUDIO_GUI_BUILT
  std::string names;
  for (const std::string& name : analysis::runFigureNames()) {
    names += (names.empty() ? "" : ", ") + name;
  }
  names += std::string(", ") + views::kAttentionWindowFigure +
           " (a head's query × key window, replayed: --layer, --head, --keys, --phase; its "
           "numbers as <out>.safetensors beside it)";
  std::string quantities;
  for (const std::string& name : analysis::tokenQuantityNames()) {
    quantities += (quantities.empty() ? "" : ", ") + name;
  }
#else
  const std::string quantities = "(none without Qt)";
  const std::string names = "(this studio-cli was built without Qt: none)";
#endif
  command->add_option("--figure", options.figure,
                      "Export this figure of --run from --session: " + names);
  options.width_option =
      command->add_option("--width", options.width, "Figure width in pixels (1/96 inch)")
          ->check(CLI::Range(64, 20000));
  options.height_option =
      command->add_option("--height", options.height, "Figure height in pixels (1/96 inch)")
          ->check(CLI::Range(64, 20000));
  command
      ->add_option("--size", options.size,
                   "Figure size for a paper: WIDTHxHEIGHT in inches or points (3.25x2in, "
                   "234x144pt), column (3.25 in wide) or page (6.75 in wide), their height at "
                   "the figures' 16:10; the SVG states it in that unit, the PDF page in points")
      ->excludes(options.width_option)
      ->excludes(options.height_option);
  options.font_option = command->add_option(
      "--font-size", options.font_points,
      "Axis titles' font size in points (ticks, legend and caption 10-15 % smaller, the title 20 % "
      "larger); default: scaled with the figure");
  command->add_flag("--no-title", options.no_title,
                    "Leave the title out (a paper's caption says what the figure is)");
  command->add_option("--caption-file", options.caption_file,
                      "Write the caption (the runs and their parameters) to this text file "
                      "instead of into the figure");
  command->add_option("--data", options.data,
                      "Also write the figure's plotted data as CSV here: figure,series,x,y,y_low,"
                      "y_high,token, one row per point (a heatmap's per cell, a token heatmap's "
                      "per token)");
  command
      ->add_option("--layer", options.layer,
                   "attention_window: the layer (default 0); token_heatmap: the layer "
                   "(default: the mean over layers); fast_weight_loss: one TTT layer (default: "
                   "the mean over them)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--head", options.head,
                   "attention_window: the query head (default 0); token_heatmap: the head "
                   "(default: the mean over heads)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--quantity", options.quantity,
                      "token_heatmap: what colours each document token: " + quantities +
                          " (default attention: the answer query's attention weight after the "
                          "prefill)");
  command->add_option("--keys", options.keys,
                      "attention_window: FIRST:END, the document tokens the keys cover (default: "
                      "all, at most 4096 around their middle); token_heatmap: the document "
                      "tokens drawn (default: all, at most 600 around the evidence)");
  command->add_flag("--document-queries", options.document_queries,
                    "attention_window: the keys' own queries (the last 512) instead of the "
                    "question's and answer's last 256");
  command->add_option("--phase", options.phase,
                      "attention_window: prefill (default), qttt, or difference (qttt − prefill)")
      ->check(CLI::IsMember({"prefill", "qttt", "difference"}));
  command->add_flag("--log", options.log_scale,
                    "attention_window, token_heatmap: colour on a log scale");
}

void runFigureExport(const FigureCliOptions& figure, const SessionExportOptions& session) {
#if STUDIO_GUI_BUILT
  if (session.all) throwArgument("--all", "a figure is of one run: give --run ID");
  if (session.run_option->count() == 0) throwArgument("--run", "the run to draw is required");
  views::SessionFigureRequest request;
  request.session = session.session;
  request.run_id = session.run_id;
  request.figure = figure.figure;
  const std::string format = session.format.empty() ? "svg" : session.format;
  request.format = views::figureFormatFromName(format);
  request.out = session.out;
  if (!figure.size.empty()) {
    request.options.setSize(analysis::parseFigureSize(figure.size, "--size"));
  } else {
    request.options.size = QSizeF(figure.width, figure.height);
  }
  if (figure.font_option->count() > 0) {
    analysis::checkFontSize(figure.font_points, "--font-size");
    request.options.font_points = figure.font_points;
  }
  request.options.title = !figure.no_title;
  request.options.caption_path = QString::fromStdString(figure.caption_file);
  request.data_out = figure.data;
  request.layer = figure.layer;
  request.head = figure.head;
  request.quantity = figure.quantity;
  if (!figure.keys.empty()) std::tie(request.first_key, request.end_key) = parseKeyRange(figure.keys);
  request.document_queries = figure.document_queries;
  request.window_phase = figure.phase;
  request.log_scale = figure.log_scale;
  const views::SessionFigureExport written = views::exportSessionFigure(request);
  std::cerr << sessions::unreadableRunsReport(written.unreadable);
  std::cout << "exported figure " << figure.figure << " (" << written.title << ") of run "
            << session.run_id << " as " << format << ":\n";
  for (const std::string& file : written.files) std::cout << "  " << file << "\n";
#else
  throwArgument("--figure",
                "this studio-cli was built without Qt (STUDIO_GUI=OFF), which draws the figures; "
                "rebuild with Qt 6 installed, or export the session as JSON/CSV");
#endif
}

void addExportCommand(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "export",
      "Export runs of a session (JSON or CSV) for analysis in other tools, or one of a run's "
      "figures (SVG, PNG or PDF)");
  auto session = std::make_shared<SessionExportOptions>();
  auto figure = std::make_shared<FigureCliOptions>();
  addSessionExportOptions(command, *session);
  addFigureExportOptions(command, *figure);
  setCommandAction(command, exit_code, [session, figure] {
    if (!figure->figure.empty()) {
      runFigureExport(*figure, *session);
      return;
    }
    if (!sessionExportRequested(*session)) {
      throwArgument("export", "nothing to export: give --session FILE with --run ID or --all");
    }
    runSessionExport(*session);
  });
}

}  // namespace

STUDIO_CLI_COMMAND(80, addExportCommand);

}  // namespace studio::cli
