#include "views/document_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>

#include <functional>

#include "views/document_view.h"

namespace studio::views {

namespace {

// Enter and Shift+Enter in the search field step through the matches.
class SearchEdit : public QLineEdit {
 public:
  using QLineEdit::QLineEdit;
  std::function<void(bool backwards)> on_step;
  std::function<void()> on_escape;

 protected:
  void keyPressEvent(QKeyEvent* event) override {
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
      if (on_step) on_step(event->modifiers() & Qt::ShiftModifier);
      return;
    }
    if (event->key() == Qt::Key_Escape) {
      if (on_escape) on_escape();
      return;
    }
    QLineEdit::keyPressEvent(event);
  }
};

QString plural(std::size_t n, const QString& one, const QString& many) {
  return QLocale().toString(static_cast<qulonglong>(n)) + QLatin1Char(' ') + (n == 1 ? one : many);
}

}  // namespace

bool looksLikeCode(const QString& path) {
  static const QStringList kCode = {"c",   "cc",    "cpp",  "cxx",  "h",   "hh",    "hpp",  "cu",
                                    "cuh", "py",    "pyi",  "rs",   "go",  "java",  "kt",   "js",
                                    "ts",  "tsx",   "jsx",  "rb",   "php", "swift", "m",    "mm",
                                    "cs",  "scala", "sh",   "bash", "zsh", "lua",   "jl",   "r",
                                    "sql", "cmake", "toml", "yaml", "yml", "json",  "proto"};
  const QFileInfo info(path);
  return kCode.contains(info.suffix().toLower()) ||
         info.fileName() == QLatin1String("CMakeLists.txt") ||
         info.fileName() == QLatin1String("Makefile");
}

DocumentPanel::DocumentPanel(QWidget* parent) : QWidget(parent) {
  m_view = new DocumentView(this);

  m_search_bar = new QWidget(this);
  auto* search_edit = new SearchEdit(m_search_bar);
  m_search_edit = search_edit;
  m_search_edit->setPlaceholderText(tr("Find in document"));
  m_search_edit->setClearButtonEnabled(true);
  m_match_case = new QCheckBox(tr("Match case"), m_search_bar);
  auto* previous = new QToolButton(m_search_bar);
  previous->setArrowType(Qt::UpArrow);
  previous->setToolTip(tr("Previous match (Shift+Enter, Shift+F3)"));
  auto* next = new QToolButton(m_search_bar);
  next->setArrowType(Qt::DownArrow);
  next->setToolTip(tr("Next match (Enter, F3)"));
  m_search_label = new QLabel(m_search_bar);
  m_search_label->setMinimumWidth(90);
  auto* close = new QToolButton(m_search_bar);
  close->setText(QStringLiteral("✕"));
  close->setAutoRaise(true);
  close->setToolTip(tr("Close the search bar (Esc)"));
  auto* search_layout = new QHBoxLayout(m_search_bar);
  search_layout->setContentsMargins(4, 2, 4, 2);
  search_layout->addWidget(m_search_edit, 1);
  search_layout->addWidget(previous);
  search_layout->addWidget(next);
  search_layout->addWidget(m_match_case);
  search_layout->addWidget(m_search_label);
  search_layout->addWidget(close);
  m_search_bar->hide();

  m_summary =
      new QLabel(tr("No document. File ▸ Open document… or Open folder as code repository…"), this);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setContentsMargins(6, 2, 6, 2);
  m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // never widens the window
  m_line_numbers = new QToolButton(this);
  m_line_numbers->setText(tr("Line numbers"));
  m_line_numbers->setCheckable(true);
  m_line_numbers->setAutoRaise(true);
  auto* footer = new QHBoxLayout;
  footer->setContentsMargins(0, 0, 4, 0);
  footer->addWidget(m_summary, 1);
  footer->addWidget(m_line_numbers);

  m_layout = new QVBoxLayout(this);
  m_layout->setContentsMargins(0, 0, 0, 0);
  m_layout->setSpacing(0);
  m_layout->addWidget(m_search_bar);
  m_layout->addWidget(m_view, 1);
  m_layout->addLayout(footer);

  auto* find = new QAction(tr("Find…"), this);
  find->setShortcut(QKeySequence::Find);
  find->setShortcutContext(Qt::WindowShortcut);
  connect(find, &QAction::triggered, this, &DocumentPanel::showSearch);
  addAction(find);

  search_edit->on_step = [this](bool backwards) {
    if (backwards) {
      m_view->previousMatch();
    } else {
      m_view->nextMatch();
    }
  };
  search_edit->on_escape = [this] { hideSearch(); };
  connect(m_search_edit, &QLineEdit::textChanged, this, &DocumentPanel::runSearch);
  connect(m_match_case, &QCheckBox::toggled, this, &DocumentPanel::runSearch);
  connect(previous, &QToolButton::clicked, m_view, &DocumentView::previousMatch);
  connect(next, &QToolButton::clicked, m_view, &DocumentView::nextMatch);
  connect(close, &QToolButton::clicked, this, &DocumentPanel::hideSearch);
  connect(m_view, &DocumentView::searchResultChanged, this, &DocumentPanel::updateSearchLabel);
  connect(m_line_numbers, &QToolButton::toggled, m_view, &DocumentView::setShowLineNumbers);
}

void DocumentPanel::addBar(QWidget* bar) {
  m_layout->insertWidget(m_layout->count() - 1, bar);
}

void DocumentPanel::setDocument(std::shared_ptr<const document::Document> document) {
  const bool repository = document && document->kind() == document::DocumentKind::Repository;
  const bool numbers =
      document && (repository || looksLikeCode(QString::fromStdString(document->sourcePath())));
  m_view->setDocument(std::move(document));
  m_line_numbers->setChecked(numbers);
  m_view->setShowLineNumbers(numbers);
  m_summary->setText(summary());
  m_summary->setToolTip(
      m_view->document() ? QString::fromStdString(m_view->document()->sourcePath()) : QString());
  if (searchVisible() && !m_search_edit->text().isEmpty()) runSearch();
}

QString DocumentPanel::summary() const {
  const auto& doc = m_view->document();
  if (!doc) return m_summary->text();
  const document::DocumentStats& stats = doc->stats();
  QStringList parts;
  parts << QFileInfo(QString::fromStdString(doc->sourcePath())).fileName();
  if (doc->kind() == document::DocumentKind::Repository) {
    parts << plural(stats.files_included, tr("file"), tr("files"));
  }
  parts << plural(doc->lineCount(), tr("line"), tr("lines"));
  parts << QLocale().formattedDataSize(static_cast<qint64>(doc->sizeBytes()));
  if (doc->kind() == document::DocumentKind::Repository) {
    QStringList skipped;
    if (stats.binary_files_skipped) skipped << tr("%1 binary").arg(stats.binary_files_skipped);
    if (stats.ignored_files_skipped) skipped << tr("%1 ignored").arg(stats.ignored_files_skipped);
    if (stats.large_files_skipped) skipped << tr("%1 too large").arg(stats.large_files_skipped);
    if (stats.ignored_folders_skipped) {
      skipped << plural(stats.ignored_folders_skipped, tr("ignored folder"), tr("ignored folders"));
    }
    parts << (skipped.isEmpty() ? tr("nothing skipped")
                                : tr("skipped: %1").arg(skipped.join(QStringLiteral(", "))));
  }
  if (stats.invalid_utf8_replaced) {
    parts << tr("%1 invalid UTF-8 replaced by �")
                 .arg(QLocale().toString(static_cast<qulonglong>(stats.invalid_utf8_replaced)));
  }
  return parts.join(QStringLiteral(" · "));
}

void DocumentPanel::showSearch() {
  m_search_bar->show();
  m_search_edit->setFocus(Qt::ShortcutFocusReason);
  m_search_edit->selectAll();
}

void DocumentPanel::hideSearch() {
  m_search_bar->hide();
  m_view->search(QString(), false);
  m_view->setFocus();
}

bool DocumentPanel::searchVisible() const {
  return !m_search_bar->isHidden();
}

void DocumentPanel::setSearchText(const QString& text) {
  m_search_bar->show();
  m_search_edit->setText(text);
}

void DocumentPanel::runSearch() {
  m_view->search(m_search_edit->text(), m_match_case->isChecked());
}

void DocumentPanel::updateSearchLabel(qint64 current, qint64 total) {
  if (m_search_edit->text().isEmpty()) {
    m_search_label->clear();
  } else if (total == 0) {
    m_search_label->setText(tr("no matches"));
  } else {
    const QString count =
        QLocale().toString(total) + (static_cast<std::size_t>(total) >= DocumentView::kMaxMatches
                                         ? QStringLiteral("+")
                                         : QString());
    m_search_label->setText(tr("%1 of %2").arg(QLocale().toString(current + 1), count));
  }
}

}  // namespace studio::views
