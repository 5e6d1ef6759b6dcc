#include "views/document_view.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextLayout>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

#include "core/common/utf8.h"
#include "core/document/repository_format.h"
#include "views/color_scale.h"

namespace studio::views {

namespace {

// Lines longer than this are laid out only around the visible columns.
constexpr std::int64_t kWindowBytes = 4096;
constexpr int kTabWidth = 4;
constexpr int kTextMargin = 6;
constexpr int kGutterPadding = 8;

bool isWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_';
}

QTextLayout::FormatRange formatRange(int start, int end, const QTextCharFormat& format) {
  QTextLayout::FormatRange range;
  range.start = start;
  range.length = end - start;
  range.format = format;
  return range;
}

}  // namespace

struct DocumentView::LineLayout {
  QTextLayout layout;
  std::vector<std::uint64_t> byte_of;  // UTF-16 index -> byte offset; one more for the end
  double x0 = 0;                       // x of the laid-out part within the whole line
  std::uint64_t first_byte = 0;
  std::uint64_t end_byte = 0;
  bool header = false;  // a repository "=== path ===" line
  int prefix_end = 0;   // UTF-16 end of a repository "L<n>: " prefix, 0 when none

  // The UTF-16 index of the first character at or after `byte`, clamped to the laid-out part.
  int indexOf(std::uint64_t byte) const {
    const auto it = std::lower_bound(byte_of.begin(), byte_of.end(), byte);
    return static_cast<int>(std::min<std::ptrdiff_t>(
        it - byte_of.begin(), static_cast<std::ptrdiff_t>(byte_of.size()) - 1));
  }
  double xOf(int index) const {
    const QTextLine line = layout.lineAt(0);
    return x0 + (line.isValid() ? line.cursorToX(index) : 0.0);
  }
};

DocumentView::DocumentView(QWidget* parent) : QAbstractScrollArea(parent) {
  qRegisterMetaType<Span>();
  QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  font.setStyleHint(QFont::Monospace);
  setFont(font);
  viewport()->setCursor(Qt::IBeamCursor);
  viewport()->setAutoFillBackground(false);
  setFocusPolicy(Qt::StrongFocus);
  updateMetrics();
}

DocumentView::~DocumentView() = default;

void DocumentView::updateMetrics() {
  const QFontMetricsF metrics(font());
  m_char_width = metrics.horizontalAdvance(QLatin1Char('0'));
  m_line_height = static_cast<int>(std::ceil(metrics.height())) + 2;
  verticalScrollBar()->setSingleStep(1);
  horizontalScrollBar()->setSingleStep(static_cast<int>(std::ceil(m_char_width)) * 4);
  updateScrollBars();
}

void DocumentView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange) updateMetrics();
  QAbstractScrollArea::changeEvent(event);
}

void DocumentView::setDocument(std::shared_ptr<const document::Document> document) {
  m_document = std::move(document);
  m_highlights.clear();
  m_tokens.clear();
  m_token_levels.clear();
  m_matches.clear();
  m_current_match = -1;
  m_lowered.clear();
  m_lowered_for = nullptr;
  m_anchor = m_caret = 0;
  m_selecting = false;
  verticalScrollBar()->setValue(0);
  horizontalScrollBar()->setValue(0);
  updateScrollBars();
  viewport()->update();
}

std::size_t DocumentView::lineCount() const {
  return m_document ? m_document->lineCount() : 0;
}

QString DocumentView::lineText(std::size_t line) const {
  if (line >= lineCount()) return {};
  return layoutLine(line)->layout.text();
}

void DocumentView::setShowLineNumbers(bool show) {
  if (show == m_show_line_numbers) return;
  m_show_line_numbers = show;
  updateScrollBars();
  viewport()->update();
}

int DocumentView::gutterWidth() const {
  if (!m_show_line_numbers) return 0;
  const int digits = std::max<int>(
      3, static_cast<int>(std::to_string(std::max<std::size_t>(lineCount(), 1)).size()));
  return static_cast<int>(std::ceil(digits * m_char_width)) + 2 * kGutterPadding;
}

int DocumentView::textLeft() const {
  return gutterWidth() + kTextMargin;
}

std::size_t DocumentView::visibleLineCount() const {
  return static_cast<std::size_t>(std::max(1, viewport()->height() / m_line_height));
}

std::size_t DocumentView::firstVisibleLine() const {
  return static_cast<std::size_t>(verticalScrollBar()->value());
}

void DocumentView::updateScrollBars() {
  const std::size_t lines = lineCount();
  const std::size_t visible = visibleLineCount();
  const int max_first =
      lines > visible ? static_cast<int>(std::min<std::size_t>(lines - visible, INT32_MAX)) : 0;
  verticalScrollBar()->setRange(0, max_first);
  verticalScrollBar()->setPageStep(static_cast<int>(visible));

  const double widest =
      m_document ? static_cast<double>(m_document->maxLineBytes()) * m_char_width : 0;
  const double room = std::max(0, viewport()->width() - textLeft() - kTextMargin);
  const double overflow = std::min(widest - room, static_cast<double>(INT32_MAX / 2));
  horizontalScrollBar()->setRange(0, overflow > 0 ? static_cast<int>(std::ceil(overflow)) : 0);
  horizontalScrollBar()->setPageStep(static_cast<int>(room));
}

void DocumentView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
}

std::unique_ptr<DocumentView::LineLayout> DocumentView::layoutLine(std::size_t line) const {
  auto result = std::make_unique<LineLayout>();
  const Span span = m_document->lineSpan(line);
  const std::string& text = m_document->text();
  result->first_byte = static_cast<std::uint64_t>(span.start);
  result->end_byte = static_cast<std::uint64_t>(span.end);

  const bool windowed = span.size() > kWindowBytes;
  std::int64_t first_col = 0;
  std::int64_t last_col = INT64_MAX;
  if (windowed) {
    // A few columns of slack either side, so partly visible characters are drawn too.
    first_col = std::max<std::int64_t>(
        0, static_cast<std::int64_t>(horizontalScrollBar()->value() / m_char_width) - 16);
    last_col = first_col + static_cast<std::int64_t>(viewport()->width() / m_char_width) + 32;
  }

  QString out;
  out.reserve(static_cast<int>(std::min<std::int64_t>(span.size(), 8192)));
  std::int64_t column = 0;
  bool started = !windowed;
  std::uint64_t i = static_cast<std::uint64_t>(span.start);
  const std::uint64_t end = static_cast<std::uint64_t>(span.end);
  const std::string_view shown(text.data(), end);
  while (i < end) {
    std::size_t next = i;
    const char32_t cp = utf8::decodeAt(shown, next);
    const std::size_t length = std::min<std::size_t>(next, end) - i;
    const int width = cp == U'\t' ? kTabWidth - static_cast<int>(column % kTabWidth) : 1;
    if (!started) {
      if (column + width <= first_col) {
        column += width;
        i += length;
        continue;
      }
      started = true;
      result->first_byte = i;
      result->x0 = static_cast<double>(column) * m_char_width;
    }
    if (column > last_col) break;
    if (cp == U'\t') {
      for (int k = 0; k < width; ++k) {
        out.append(QLatin1Char(' '));
        result->byte_of.push_back(i);
      }
    } else if (cp < 0x20 || cp == 0x7F) {
      // Control characters are shown as their Control Pictures symbol (U+2400 block).
      out.append(QChar(cp == 0x7F ? 0x2421 : 0x2400 + cp));
      result->byte_of.push_back(i);
    } else if (cp >= 0x10000) {
      out.append(QChar(QChar::highSurrogate(cp)));
      out.append(QChar(QChar::lowSurrogate(cp)));
      result->byte_of.push_back(i);
      result->byte_of.push_back(i);
    } else {
      out.append(QChar(static_cast<char16_t>(cp)));
      result->byte_of.push_back(i);
    }
    column += width;
    i += length;
  }
  if (!started) result->first_byte = end;
  result->end_byte = i;
  result->byte_of.push_back(i);

  if (m_document->kind() == document::DocumentKind::Repository && !windowed) {
    const std::string_view raw = m_document->line(line);
    if (document::parseRepositoryHeader(raw)) {
      result->header = true;
    } else {
      std::string_view rest;
      if (document::parseNumberedLine(raw, &rest)) {
        result->prefix_end = static_cast<int>(raw.size() - rest.size());
      }
    }
  }

  QTextOption option;
  option.setWrapMode(QTextOption::NoWrap);
  result->layout.setTextOption(option);
  QFont font = this->font();
  if (result->header) font.setBold(true);
  result->layout.setFont(font);
  result->layout.setText(out);
  result->layout.setCacheEnabled(true);
  result->layout.beginLayout();
  QTextLine text_line = result->layout.createLine();
  if (text_line.isValid()) {
    text_line.setNumColumns(std::max<int>(1, out.size()));
    text_line.setPosition(QPointF(0, 0));
  }
  result->layout.endLayout();
  return result;
}

void DocumentView::paintEvent(QPaintEvent*) {
  QPainter painter(viewport());
  const QPalette& pal = palette();
  painter.fillRect(viewport()->rect(), pal.base());
  if (!m_document) return;

  const std::size_t first = firstVisibleLine();
  const std::size_t last = std::min(lineCount(), first + visibleLineCount() + 1);
  const int gutter = gutterWidth();
  const double origin = textLeft() - horizontalScrollBar()->value();
  const QRect text_area(gutter, 0, viewport()->width() - gutter, viewport()->height());
  const Span selection = this->selection();
  const Span current = currentMatchSpan();
  const ColorScale& heat = ColorScale::heat();

  QTextCharFormat dim;
  dim.setForeground(pal.color(QPalette::Disabled, QPalette::Text));
  QTextCharFormat match_format;
  match_format.setBackground(QColor(255, 235, 90));
  match_format.setForeground(Qt::black);
  QTextCharFormat current_format;
  current_format.setBackground(QColor(255, 150, 30));
  current_format.setForeground(Qt::black);
  QTextCharFormat selection_format;
  selection_format.setBackground(pal.highlight());
  selection_format.setForeground(pal.highlightedText());
  QTextCharFormat underline_format;
  underline_format.setFontUnderline(true);
  underline_format.setUnderlineStyle(QTextCharFormat::SingleUnderline);
  QTextCharFormat strike_format;
  strike_format.setFontStrikeOut(true);
  QColor header_band = pal.color(QPalette::AlternateBase);
  if (header_band == pal.color(QPalette::Base)) header_band = pal.color(QPalette::Base).darker(108);

  for (std::size_t line = first; line < last; ++line) {
    const int y = static_cast<int>(line - first) * m_line_height;
    const auto layout = layoutLine(line);
    const std::uint64_t a = layout->first_byte;
    const std::uint64_t b = layout->end_byte;
    // Overlap of [start, end) with the laid-out bytes, as UTF-16 indexes; false when none.
    const auto clip = [&](std::int64_t start, std::int64_t end, int& from, int& to) {
      const std::uint64_t s =
          std::max<std::uint64_t>(static_cast<std::uint64_t>(std::max<std::int64_t>(start, 0)), a);
      const std::uint64_t e =
          std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max<std::int64_t>(end, 0)), b);
      if (s >= e) return false;
      from = layout->indexOf(s);
      to = layout->indexOf(e);
      return to > from;
    };

    if (layout->header)
      painter.fillRect(QRect(gutter, y, viewport()->width() - gutter, m_line_height), header_band);

    QList<QTextLayout::FormatRange> formats;
    if (layout->prefix_end > 0) formats.append(formatRange(0, layout->prefix_end, dim));
    int from = 0, to = 0;
    // Tokens are sorted and do not overlap, so their ends are sorted too.
    auto token = std::partition_point(m_tokens.begin(), m_tokens.end(), [a](const Span& s) {
      return static_cast<std::uint64_t>(s.end) <= a;
    });
    for (; token != m_tokens.end() && static_cast<std::uint64_t>(token->start) < b; ++token) {
      const float level = m_token_levels[static_cast<std::size_t>(token - m_tokens.begin())];
      if (level <= 0.f || !clip(token->start, token->end, from, to)) continue;
      QTextCharFormat format;
      format.setBackground(heat.at(level));
      format.setForeground(heat.textOn(level));
      formats.append(formatRange(from, to, format));
    }
    // Marks: the spans overlapping this line (sorted and disjoint, so their ends are too).
    const auto mark = [&](const std::vector<Span>& spans, const QTextCharFormat& format) {
      auto span = std::partition_point(spans.begin(), spans.end(), [a](const Span& s) {
        return static_cast<std::uint64_t>(s.end) <= a;
      });
      for (; span != spans.end() && static_cast<std::uint64_t>(span->start) < b; ++span) {
        if (clip(span->start, span->end, from, to)) formats.append(formatRange(from, to, format));
      }
    };
    mark(m_underlined, underline_format);
    mark(m_struck, strike_format);
    if (m_tokens.empty()) {
      QColor fill = m_highlight_color;
      fill.setAlpha(60);
      QTextCharFormat format;
      format.setBackground(fill);
      for (const Span& span : m_highlights) {
        if (clip(span.start, span.end, from, to)) formats.append(formatRange(from, to, format));
      }
    }
    auto match = std::partition_point(m_matches.begin(), m_matches.end(), [a](const Span& s) {
      return static_cast<std::uint64_t>(s.end) <= a;
    });
    for (; match != m_matches.end() && static_cast<std::uint64_t>(match->start) < b; ++match) {
      if (clip(match->start, match->end, from, to)) {
        formats.append(formatRange(from, to, *match == current ? current_format : match_format));
      }
    }
    if (clip(selection.start, selection.end, from, to)) {
      formats.append(formatRange(from, to, selection_format));
    }

    painter.setClipRect(text_area);
    painter.setPen(pal.color(QPalette::Text));
    const QPointF position(origin + layout->x0,
                           y + (m_line_height - layout->layout.lineAt(0).height()) / 2.0);
    layout->layout.draw(&painter, position, formats);

    // Targets are framed rather than filled so that token colours stay visible under them.
    if (!m_highlights.empty()) {
      painter.setPen(QPen(m_highlight_color, 2));
      painter.setBrush(Qt::NoBrush);
      for (const Span& span : m_highlights) {
        if (!clip(span.start, span.end, from, to)) continue;
        const double x1 = origin + layout->xOf(from);
        const double x2 = origin + layout->xOf(to);
        painter.drawRoundedRect(QRectF(x1 - 1, y + 1, x2 - x1 + 2, m_line_height - 2), 3, 3);
      }
    }
    painter.setClipping(false);
  }

  if (gutter > 0) {
    painter.fillRect(QRect(0, 0, gutter, viewport()->height()), pal.color(QPalette::Window));
    painter.setPen(pal.color(QPalette::Disabled, QPalette::Text));
    for (std::size_t line = first; line < last; ++line) {
      const int y = static_cast<int>(line - first) * m_line_height;
      painter.drawText(QRect(0, y, gutter - kGutterPadding, m_line_height),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(line + 1));
    }
    painter.setPen(pal.color(QPalette::Mid));
    painter.drawLine(gutter - 1, 0, gutter - 1, viewport()->height());
  }
}

std::uint64_t DocumentView::byteAt(const QPoint& pos) const {
  if (!m_document || lineCount() == 0) return 0;
  const std::int64_t row = pos.y() < 0 ? -1 : pos.y() / m_line_height;
  const std::int64_t line = static_cast<std::int64_t>(firstVisibleLine()) + row;
  if (line < 0) return static_cast<std::uint64_t>(m_document->lineSpan(0).start);
  if (static_cast<std::size_t>(line) >= lineCount()) return m_document->sizeBytes();
  const auto layout = layoutLine(static_cast<std::size_t>(line));
  const double x = pos.x() - (textLeft() - horizontalScrollBar()->value()) - layout->x0;
  if (x <= 0) return layout->first_byte;
  const QTextLine text_line = layout->layout.lineAt(0);
  if (!text_line.isValid()) return layout->first_byte;
  const int index = text_line.xToCursor(x, QTextLine::CursorBetweenCharacters);
  return layout->byte_of[static_cast<std::size_t>(
      std::clamp<int>(index, 0, static_cast<int>(layout->byte_of.size()) - 1))];
}

void DocumentView::setHighlights(std::vector<Span> byte_spans, QColor color) {
  std::sort(byte_spans.begin(), byte_spans.end(),
            [](const Span& x, const Span& y) { return x.start < y.start; });
  m_highlights = std::move(byte_spans);
  m_highlight_color = color;
  viewport()->update();
}

void DocumentView::setTokenWeights(std::vector<Span> token_byte_spans, std::vector<float> weights,
                                   WeightScale scale) {
  const std::size_t n = std::min(token_byte_spans.size(), weights.size());
  token_byte_spans.resize(n);
  weights.resize(n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return token_byte_spans[x].start < token_byte_spans[y].start;
  });
  float largest = 0.f;
  for (float w : weights) {
    if (std::isfinite(w)) largest = std::max(largest, w);
  }
  m_tokens.clear();
  m_token_levels.clear();
  m_tokens.reserve(n);
  m_token_levels.reserve(n);
  for (std::size_t i : order) {
    const float w = weights[i];
    float level = 0.f;
    if (std::isfinite(w) && w > 0.f && largest > 0.f) {
      if (scale == WeightScale::Linear) {
        level = w / largest;
      } else {
        constexpr float kDecades = 4.f;
        level = std::max(0.f, 1.f + std::log10(w / largest) / kDecades);
      }
    }
    m_tokens.push_back(token_byte_spans[i]);
    m_token_levels.push_back(level);
  }
  viewport()->update();
}

void DocumentView::clearTokenWeights() {
  m_tokens.clear();
  m_token_levels.clear();
  m_underlined.clear();
  m_struck.clear();
  viewport()->update();
}

void DocumentView::setTokenMarks(std::vector<Span> underlined, std::vector<Span> struck) {
  const auto byStart = [](const Span& x, const Span& y) { return x.start < y.start; };
  std::sort(underlined.begin(), underlined.end(), byStart);
  std::sort(struck.begin(), struck.end(), byStart);
  m_underlined = std::move(underlined);
  m_struck = std::move(struck);
  viewport()->update();
}

std::size_t DocumentView::search(const QString& pattern, bool match_case) {
  m_matches.clear();
  m_current_match = -1;
  const QByteArray needle_bytes = pattern.toUtf8();
  if (!m_document || needle_bytes.isEmpty()) {
    viewport()->update();
    emit searchResultChanged(-1, 0);
    return 0;
  }
  std::string needle(needle_bytes.constData(), static_cast<std::size_t>(needle_bytes.size()));
  std::string_view haystack = m_document->text();
  if (!match_case) {
    // Lowering ASCII only keeps every byte offset where it is.
    if (m_lowered_for != m_document.get()) {
      m_lowered = m_document->text();
      for (char& c : m_lowered) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      m_lowered_for = m_document.get();
    }
    for (char& c : needle) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    haystack = m_lowered;
  }
  const std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
  auto it = haystack.begin();
  while (m_matches.size() < kMaxMatches) {
    const auto found = std::search(it, haystack.end(), searcher);
    if (found == haystack.end()) break;
    const auto start = static_cast<std::int64_t>(found - haystack.begin());
    m_matches.push_back(Span{start, start + static_cast<std::int64_t>(needle.size())});
    it = found + static_cast<std::ptrdiff_t>(needle.size());
  }
  if (m_matches.empty()) {
    viewport()->update();
    emit searchResultChanged(-1, 0);
    return 0;
  }
  const std::uint64_t top =
      lineCount() > 0 ? static_cast<std::uint64_t>(m_document->lineSpan(firstVisibleLine()).start)
                      : 0;
  const auto at_or_after = std::partition_point(
      m_matches.begin(), m_matches.end(),
      [top](const Span& s) { return static_cast<std::uint64_t>(s.start) < top; });
  setCurrentMatch(at_or_after == m_matches.end() ? 0 : at_or_after - m_matches.begin());
  return m_matches.size();
}

void DocumentView::nextMatch() {
  if (m_matches.empty()) return;
  setCurrentMatch((m_current_match + 1) % static_cast<std::int64_t>(m_matches.size()));
}

void DocumentView::previousMatch() {
  if (m_matches.empty()) return;
  const auto n = static_cast<std::int64_t>(m_matches.size());
  setCurrentMatch((m_current_match - 1 + n) % n);
}

Span DocumentView::currentMatchSpan() const {
  if (m_current_match < 0 || m_current_match >= static_cast<std::int64_t>(m_matches.size()))
    return Span{-1, -1};
  return m_matches[static_cast<std::size_t>(m_current_match)];
}

void DocumentView::setCurrentMatch(std::int64_t index) {
  m_current_match = index;
  scrollToByte(static_cast<std::uint64_t>(currentMatchSpan().start));
  viewport()->update();
  emit searchResultChanged(m_current_match, static_cast<qint64>(m_matches.size()));
}

void DocumentView::scrollToLine(std::size_t line) {
  verticalScrollBar()->setValue(static_cast<int>(std::min<std::size_t>(line, INT32_MAX)));
}

void DocumentView::scrollToByte(std::uint64_t byte) {
  if (!m_document || lineCount() == 0) return;
  const std::size_t line = m_document->lineOfByte(byte);
  const std::size_t first = firstVisibleLine();
  const std::size_t visible = visibleLineCount();
  if (line < first || line >= first + visible) {
    scrollToLine(line > visible / 2 ? line - visible / 2 : 0);
  }
  // Horizontally: bring the byte's x into the text area. A long line is laid out only around
  // the current columns, so its x comes from counting columns up to the byte.
  const Span span = m_document->lineSpan(line);
  double x = 0;
  if (span.size() > kWindowBytes) {
    const std::string& text = m_document->text();
    std::int64_t column = 0;
    for (std::uint64_t i = static_cast<std::uint64_t>(span.start);
         i < byte && i < static_cast<std::uint64_t>(span.end);) {
      column += text[i] == '\t' ? kTabWidth - column % kTabWidth : 1;
      i += utf8::sequenceLength(static_cast<unsigned char>(text[i]));
    }
    x = static_cast<double>(column) * m_char_width;
  } else {
    const auto layout = layoutLine(line);
    x = layout->xOf(layout->indexOf(byte));
  }
  const int room = viewport()->width() - textLeft() - kTextMargin;
  const int scroll = horizontalScrollBar()->value();
  if (x < scroll || x > scroll + room - 4 * m_char_width) {
    horizontalScrollBar()->setValue(static_cast<int>(std::max(0.0, x - room / 3.0)));
  }
}

Span DocumentView::selection() const {
  const auto start = static_cast<std::int64_t>(std::min(m_anchor, m_caret));
  const auto end = static_cast<std::int64_t>(std::max(m_anchor, m_caret));
  return Span{start, end};
}

void DocumentView::setSelection(Span bytes) {
  if (!m_document) return;
  const auto size = static_cast<std::int64_t>(m_document->sizeBytes());
  m_anchor = static_cast<std::uint64_t>(std::clamp<std::int64_t>(bytes.start, 0, size));
  m_caret = static_cast<std::uint64_t>(std::clamp<std::int64_t>(bytes.end, 0, size));
  viewport()->update();
  emitSelection();
}

void DocumentView::reveal(Span bytes) {
  setSelection(bytes);
  if (m_document) scrollToByte(static_cast<std::uint64_t>(std::max<std::int64_t>(0, bytes.start)));
}

QString DocumentView::selectedText() const {
  const Span s = selection();
  if (!m_document || s.size() == 0) return {};
  return QString::fromUtf8(m_document->text().data() + s.start, static_cast<qsizetype>(s.size()));
}

void DocumentView::emitSelection() {
  emit selectionChanged(selection());
}

void DocumentView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_document) {
    QAbstractScrollArea::mousePressEvent(event);
    return;
  }
  const std::uint64_t byte = byteAt(event->position().toPoint());
  if (!(event->modifiers() & Qt::ShiftModifier)) m_anchor = byte;
  m_caret = byte;
  m_selecting = true;
  viewport()->update();
}

void DocumentView::mouseMoveEvent(QMouseEvent* event) {
  if (!m_selecting) return;
  QPoint pos = event->position().toPoint();
  // Dragging past the top or bottom edge scrolls, so a selection can grow beyond the screen.
  if (pos.y() < 0) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - 1);
    pos.setY(0);
  } else if (pos.y() > viewport()->height()) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() + 1);
    pos.setY(viewport()->height() - 1);
  }
  m_caret = byteAt(pos);
  viewport()->update();
}

void DocumentView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_selecting) {
    m_selecting = false;
    emitSelection();
    return;
  }
  QAbstractScrollArea::mouseReleaseEvent(event);
}

void DocumentView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_document) return;
  const std::string& text = m_document->text();
  std::uint64_t start = byteAt(event->position().toPoint());
  std::uint64_t end = start;
  while (start > 0 && isWordByte(text[start - 1])) --start;
  while (end < text.size() && isWordByte(text[end])) ++end;
  m_anchor = start;
  m_caret = end;
  m_selecting = false;
  viewport()->update();
  emitSelection();
}

void DocumentView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    const QString text = selectedText();
    if (!text.isEmpty()) QApplication::clipboard()->setText(text);
    return;
  }
  if (event->matches(QKeySequence::SelectAll) && m_document) {
    setSelection(Span{0, static_cast<std::int64_t>(m_document->sizeBytes())});
    return;
  }
  if (event->matches(QKeySequence::MoveToStartOfDocument)) {
    verticalScrollBar()->setValue(0);
    return;
  }
  if (event->matches(QKeySequence::MoveToEndOfDocument)) {
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    return;
  }
  if (event->matches(QKeySequence::FindNext)) {
    nextMatch();
    return;
  }
  if (event->matches(QKeySequence::FindPrevious)) {
    previousMatch();
    return;
  }
  QAbstractScrollArea::keyPressEvent(event);
}

}  // namespace studio::views
