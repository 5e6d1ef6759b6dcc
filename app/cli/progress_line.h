#pragma once
// The progress line on stderr of `run`, `sweep`, `train` and `generate`: the stage, done/total,
// the time left and tokens/s, from the events the engine already emits (ProgressEvent,
// TokenEvent). `--progress` picks the style:
//   line   one line redrawn in place ("\r" + erase to the end), at most ten times a second;
//   plain  whole lines for a log or a pipe: one when a stage ends, and one every ten seconds while
//          it goes;
//   off    nothing;
//   auto   (default) line when stderr is a terminal, plain otherwise.

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/engine/run_executor.h"

namespace studio::cli {

enum class ProgressStyle { Off, Plain, Line };

// Adds `--progress auto|line|plain|off` to `command`, stored in `spelling`.
void addProgressOption(CLI::App* command, std::string& spelling);
// `auto` becomes Line when stderr is a terminal, else Plain.
ProgressStyle progressStyleOf(const std::string& spelling);
// A time left as a person reads it: "7 s", "2m05s", "1h02m".
std::string etaText(double seconds);

class ProgressLine {
 public:
  explicit ProgressLine(ProgressStyle style);
  ProgressLine(ProgressStyle style, std::ostream& out);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Where the work is: `done` of `total` (total 0: not known) in `stage`; `eta_seconds` < 0: the
  // line estimates it from the stage's rate so far.
  void update(const std::string& stage, std::int64_t done, std::int64_t total,
              double eta_seconds = -1);
  // One generated token of `stage` ("think", "answer", "generate"): counted, and tokens/s shown.
  void token(const std::string& stage);
  // A line of its own (a sweep cell's result, a log message); the live line is cleared first and
  // drawn again after it.
  void note(const std::string& text);
  // Ends the live line (a newline on a terminal), leaving its last state shown; later updates
  // start a new one.
  void finish();
  // Erases the live line instead (a sweep's cell, whose result follows as a note).
  void clear();
  // Text put before the stage ("[3/12] tx_log|ops=25|seed=0|qttt"), as a sweep shows its cell.
  void setPrefix(const std::string& prefix) { m_prefix = prefix; }

 private:
  using Clock = std::chrono::steady_clock;
  void enterStage(const std::string& stage);
  // Whether an update must draw now because its stage is not on screen yet (the live line).
  bool startsLine() const;
  void draw(bool force);
  std::string text() const;

  ProgressStyle m_style;
  std::ostream& m_out;
  std::string m_prefix;
  std::string m_stage;
  std::int64_t m_done = 0;
  std::int64_t m_total = 0;
  double m_eta = -1;
  std::int64_t m_tokens = 0;
  Clock::time_point m_stage_start;
  Clock::time_point m_first_token;
  Clock::time_point m_last_draw;
  bool m_drawn = false;      // the stage has been shown since it started
  bool m_dirty = false;      // the stage has changed since it was last shown
  bool m_line_open = false;  // Line style: the cursor is on the live line
};

// Shows a run's ProgressEvents and TokenEvents on `line` and passes every event on to `next`
// (which may be null). When the run finishes the line is ended (AtEnd::Keep: its last state stays
// on the terminal) or erased (AtEnd::Erase).
class ProgressEvents : public engine::EventSink {
 public:
  enum class AtEnd { Keep, Erase };
  ProgressEvents(ProgressLine& line, engine::EventSink* next, AtEnd at_end = AtEnd::Keep)
      : m_line(line), m_next(next), m_at_end(at_end) {}
  void runStarted(const engine::RunSpec& spec) override;
  void event(const engine::Event& event) override;
  void runFinished(const engine::RunResult& result) override;
  void attentionState(const std::string& phase, model::CausalLMImpl& lm,
                      const model::ModelState& state,
                      const engine::PreparedPrompt& prompt) override;
  bool satisfied() const override;

 private:
  ProgressLine& m_line;
  engine::EventSink* m_next;
  AtEnd m_at_end;
};

}  // namespace studio::cli
