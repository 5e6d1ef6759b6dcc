#pragma once
// The document panel: the DocumentView, a search bar (Ctrl+F, Enter / Shift+Enter or F3 /
// Shift+F3 for next and previous) and a line saying what the document is and what loading left out.

#include <QWidget>

#include <memory>

#include "core/document/document.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QToolButton;
class QVBoxLayout;

namespace studio::views {

class DocumentView;

class DocumentPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DocumentPanel(QWidget* parent = nullptr);

  void setDocument(std::shared_ptr<const document::Document> document);
  DocumentView* view() const { return m_view; }
  // Adds a bar below the text, above the summary line (the window's attention colouring).
  void addBar(QWidget* bar);
  QString summary() const;

  void showSearch();
  void hideSearch();
  bool searchVisible() const;
  void setSearchText(const QString& text);

 private:
  void runSearch();
  void updateSearchLabel(qint64 current, qint64 total);

  DocumentView* m_view = nullptr;
  QWidget* m_search_bar = nullptr;
  QLineEdit* m_search_edit = nullptr;
  QCheckBox* m_match_case = nullptr;
  QLabel* m_search_label = nullptr;
  QLabel* m_summary = nullptr;
  QToolButton* m_line_numbers = nullptr;
  QVBoxLayout* m_layout = nullptr;
};

// Whether a file name looks like source code (for turning line numbers on by default).
bool looksLikeCode(const QString& path);

}  // namespace studio::views
