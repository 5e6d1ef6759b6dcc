#pragma once
// The text of a document, drawn line by line: only the lines in the viewport are laid out
// (QTextLayout per visible line, and only a window of columns for very long lines), so a 50 MB
// document scrolls as smoothly as a short one. On top of the text it draws, for the visible part
// only: token colours by a weight (attention from the answer), framed target spans, search
// matches and the mouse selection.

#include <QAbstractScrollArea>
#include <QColor>
#include <QString>

#include <memory>
#include <string>
#include <vector>

#include "core/common/span.h"
#include "core/document/document.h"

class QTextLayout;

namespace studio::views {

class DocumentView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  enum class WeightScale { Linear, Log };

  explicit DocumentView(QWidget* parent = nullptr);
  ~DocumentView() override;

  void setDocument(std::shared_ptr<const document::Document> document);
  const std::shared_ptr<const document::Document>& document() const { return m_document; }
  std::size_t lineCount() const;
  // The text of a line as the view shows it (tabs expanded).
  QString lineText(std::size_t line) const;

  void setShowLineNumbers(bool show);
  bool showLineNumbers() const { return m_show_line_numbers; }

  // Target spans (byte ranges in the document text), framed in `color`.
  void setHighlights(std::vector<Span> byte_spans, QColor color);
  const std::vector<Span>& highlights() const { return m_highlights; }
  // Tokens (byte ranges) coloured behind the text by their weight, normalised by the largest
  // weight (Log: on a log scale spanning four decades below it). Sizes must match.
  void setTokenWeights(std::vector<Span> token_byte_spans, std::vector<float> weights,
                       WeightScale scale = WeightScale::Linear);
  // Clears the token weights and marks.
  void clearTokenWeights();
  std::size_t tokenCount() const { return m_tokens.size(); }
  // Byte ranges marked over whatever colours them: underlined (SR-TTT: routed to the cache) and
  // struck through (evicted from it again). Cleared with the token weights.
  void setTokenMarks(std::vector<Span> underlined, std::vector<Span> struck);
  const std::vector<Span>& underlinedSpans() const { return m_underlined; }
  const std::vector<Span>& struckSpans() const { return m_struck; }

  // Search: every occurrence of `pattern` (case-insensitive for ASCII unless `match_case`),
  // the one at or after the top of the view becomes current and is scrolled to. Returns the
  // number of matches (at most kMaxMatches).
  static constexpr std::size_t kMaxMatches = 100000;
  std::size_t search(const QString& pattern, bool match_case);
  void nextMatch();
  void previousMatch();
  std::size_t matchCount() const { return m_matches.size(); }
  // Index of the current match, or -1.
  std::int64_t currentMatch() const { return m_current_match; }
  Span currentMatchSpan() const;

  Span selection() const;
  void setSelection(Span bytes);
  // Selects `bytes` and scrolls so that their start is in view.
  void reveal(Span bytes);
  QString selectedText() const;

  void scrollToLine(std::size_t line);
  std::size_t firstVisibleLine() const;
  std::size_t visibleLineCount() const;
  // The byte offset under a viewport position (for tests and tooltips).
  std::uint64_t byteAt(const QPoint& viewport_pos) const;

 signals:
  void selectionChanged(studio::Span bytes);
  void searchResultChanged(qint64 current, qint64 total);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  struct LineLayout;
  std::unique_ptr<LineLayout> layoutLine(std::size_t line) const;
  void updateMetrics();
  void updateScrollBars();
  int gutterWidth() const;
  int textLeft() const;
  void scrollToByte(std::uint64_t byte);
  void setCurrentMatch(std::int64_t index);
  void emitSelection();

  std::shared_ptr<const document::Document> m_document;
  bool m_show_line_numbers = false;
  int m_line_height = 16;
  double m_char_width = 8;

  std::vector<Span> m_highlights;  // sorted by start
  QColor m_highlight_color;
  std::vector<Span> m_tokens;         // sorted by start
  std::vector<float> m_token_levels;  // in [0, 1], for the colour scale
  std::vector<Span> m_underlined;     // sorted by start
  std::vector<Span> m_struck;         // sorted by start

  std::vector<Span> m_matches;  // sorted, non-overlapping
  std::int64_t m_current_match = -1;
  std::string m_lowered;  // ASCII-lowercased text for case-insensitive search, built lazily
  const document::Document* m_lowered_for = nullptr;

  std::uint64_t m_anchor = 0;  // selection: where the drag started
  std::uint64_t m_caret = 0;   // and where it is now
  bool m_selecting = false;
};

}  // namespace studio::views

Q_DECLARE_METATYPE(studio::Span)
