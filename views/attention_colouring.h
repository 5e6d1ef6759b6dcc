#pragma once
// The document panel's bar for colouring the text by the answer's attention (issue 8): which run
// (of the open document), which moment (the answer query after the prefill, or after qTTT), which
// layer and head (or the average), linear or log scale. It lists the runs that carry an
// answer_attention artifact and hands the chosen weights to the DocumentView.

#include <QWidget>

#include <cstdint>
#include <memory>

#include "core/document/document.h"

class QCheckBox;
class QComboBox;
class QLabel;

namespace studio::views {

class DocumentView;
class RunTraces;

class AttentionColouring : public QWidget {
  Q_OBJECT
 public:
  AttentionColouring(RunTraces* traces, DocumentView* view, QWidget* parent = nullptr);

  // The document the runs must have read for their weights to colour it.
  void setDocument(std::shared_ptr<const document::Document> document);
  // Re-reads the runs (traces changed) and keeps the choice when it is still there.
  void refresh();
  // Chooses a run (and the newest moment it has); false when it has no weights for this document.
  bool selectRun(std::int64_t id);
  // The run whose weights colour the document, 0 for none.
  std::int64_t selectedRun() const;

  QComboBox* runBox() const { return m_run; }
  QComboBox* phaseBox() const { return m_phase; }
  QComboBox* layerBox() const { return m_layer; }
  QComboBox* headBox() const { return m_head; }
  QCheckBox* logBox() const { return m_log; }

 private:
  void fillChoices();
  void apply();

  RunTraces* m_traces;
  DocumentView* m_view;
  std::shared_ptr<const document::Document> m_document;
  QComboBox* m_run = nullptr;
  QComboBox* m_phase = nullptr;
  QComboBox* m_layer = nullptr;
  QComboBox* m_head = nullptr;
  QCheckBox* m_log = nullptr;
  QLabel* m_note = nullptr;
  bool m_filling = false;
};

}  // namespace studio::views
