#include "app/cli/progress_line.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "core/common/error.h"

namespace studio::cli {

namespace {

constexpr double kLineRedrawSeconds = 0.1;
constexpr double kPlainLineSeconds = 10.0;
constexpr const char* kEraseToEnd = "\033[K";

double secondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

std::string etaText(double seconds) {
  const auto whole = static_cast<long long>(std::llround(seconds));
  char text[32];
  if (whole < 60) {
    std::snprintf(text, sizeof text, "%lld s", whole);
  } else if (whole < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", whole / 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", whole / 3600, whole % 3600 / 60);
  }
  return text;
}

void addProgressOption(CLI::App* command, std::string& spelling) {
  command
      ->add_option("--progress", spelling,
                   "Progress on stderr: line (redrawn in place), plain (whole lines, for logs), "
                   "off, or auto (line on a terminal, plain otherwise)")
      ->check(CLI::IsMember({"auto", "line", "plain", "off"}))
      ->capture_default_str();
}

ProgressStyle progressStyleOf(const std::string& spelling) {
  if (spelling == "line") return ProgressStyle::Line;
  if (spelling == "plain") return ProgressStyle::Plain;
  if (spelling == "off") return ProgressStyle::Off;
  if (spelling != "auto") throwArgument("--progress", "must be auto, line, plain or off");
  return ::isatty(STDERR_FILENO) ? ProgressStyle::Line : ProgressStyle::Plain;
}

ProgressLine::ProgressLine(ProgressStyle style) : ProgressLine(style, std::cerr) {}

ProgressLine::ProgressLine(ProgressStyle style, std::ostream& out)
    : m_style(style), m_out(out), m_stage_start(Clock::now()) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::enterStage(const std::string& stage) {
  // A plain log keeps each stage's last state, even one that came between two timed lines.
  if (m_style == ProgressStyle::Plain && m_dirty) draw(true);
  m_stage = stage;
  m_done = 0;
  m_total = 0;
  m_eta = -1;
  m_tokens = 0;
  m_stage_start = Clock::now();
  m_drawn = false;
}

void ProgressLine::update(const std::string& stage, std::int64_t done, std::int64_t total,
                          double eta_seconds) {
  if (stage != m_stage) enterStage(stage);
  m_done = done;
  m_total = total;
  m_eta = eta_seconds;
  m_dirty = true;
  draw(startsLine() || (total > 0 && done >= total));
}

void ProgressLine::token(const std::string& stage) {
  if (stage != m_stage) enterStage(stage);
  if (m_tokens == 0) m_first_token = Clock::now();
  ++m_tokens;
  m_done = m_tokens;
  m_dirty = true;
  draw(startsLine());
}

void ProgressLine::note(const std::string& text) {
  const bool redraw = m_line_open;
  if (m_line_open) m_out << '\r' << kEraseToEnd;
  m_line_open = false;
  m_out << text << '\n' << std::flush;
  if (redraw) draw(true);
}

void ProgressLine::finish() {
  if (m_style == ProgressStyle::Plain && m_dirty) draw(true);
  if (m_line_open) m_out << '\n' << std::flush;
  m_line_open = false;
  m_stage.clear();
  m_drawn = false;
}

void ProgressLine::clear() {
  if (m_line_open) m_out << '\r' << kEraseToEnd << std::flush;
  m_line_open = false;
  m_dirty = false;
  m_stage.clear();
  m_drawn = false;
}

bool ProgressLine::startsLine() const {
  return m_style == ProgressStyle::Line && !m_drawn;
}

void ProgressLine::draw(bool force) {
  if (m_style == ProgressStyle::Off || m_stage.empty()) return;
  const Clock::time_point now = Clock::now();
  const double interval =
      m_style == ProgressStyle::Line ? kLineRedrawSeconds : kPlainLineSeconds;
  // A stage not yet shown counts from its start: a plain log shows a short stage once, when it
  // ends, and a long one every `interval` until then.
  const double since = secondsBetween(m_drawn ? m_last_draw : m_stage_start, now);
  if (!force && since < interval) return;
  if (m_style == ProgressStyle::Line) {
    m_out << '\r' << text() << kEraseToEnd << std::flush;
    m_line_open = true;
  } else {
    m_out << text() << '\n' << std::flush;
  }
  m_last_draw = now;
  m_drawn = true;
  m_dirty = false;
}

std::string ProgressLine::text() const {
  const Clock::time_point now = Clock::now();
  std::ostringstream out;
  if (!m_prefix.empty()) out << m_prefix << " · ";
  out << m_stage;
  if (m_total > 0) {
    out << ' ' << m_done << '/' << m_total << " ("
        << static_cast<int>(100.0 * static_cast<double>(m_done) / static_cast<double>(m_total))
        << "%)";
  } else if (m_tokens > 0) {
    out << ' ' << m_tokens << (m_tokens == 1 ? " token" : " tokens");
  }
  if (m_total > 0 && m_done < m_total) {
    double eta = m_eta;
    if (eta < 0 && m_done > 0) {
      eta = secondsBetween(m_stage_start, now) / static_cast<double>(m_done) *
            static_cast<double>(m_total - m_done);
    }
    if (eta >= 0) out << " · ETA " << etaText(eta);
  }
  // The rate between the first token and now: the first token's own latency is left out.
  const double token_seconds = secondsBetween(m_first_token, now);
  if (m_tokens >= 2 && token_seconds > 0) {
    out << " · " << std::fixed << std::setprecision(1)
        << static_cast<double>(m_tokens - 1) / token_seconds << " tokens/s";
  }
  return out.str();
}

void ProgressEvents::runStarted(const engine::RunSpec& spec) {
  if (m_next) m_next->runStarted(spec);
}

void ProgressEvents::event(const engine::Event& event) {
  if (const auto* progress = std::get_if<engine::ProgressEvent>(&event)) {
    m_line.update(progress->stage, progress->done, progress->total, progress->eta_seconds);
  } else if (const auto* token = std::get_if<engine::TokenEvent>(&event)) {
    m_line.token(engine::enumName(token->phase));
  }
  if (m_next) m_next->event(event);
}

void ProgressEvents::runFinished(const engine::RunResult& result) {
  if (m_at_end == AtEnd::Keep) {
    m_line.finish();
  } else {
    m_line.clear();
  }
  if (m_next) m_next->runFinished(result);
}

void ProgressEvents::attentionState(const std::string& phase, model::CausalLMImpl& lm,
                                    const model::ModelState& state,
                                    const engine::PreparedPrompt& prompt) {
  if (m_next) m_next->attentionState(phase, lm, state, prompt);
}

bool ProgressEvents::satisfied() const { return m_next && m_next->satisfied(); }

}  // namespace studio::cli
