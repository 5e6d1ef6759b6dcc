#pragma once
// The document panel's bar for colouring the text token by token (issues 8, 23): by the answer's
// attention (which run of the open document, which moment — after the prefill or after qTTT —,
// which layer and head or the average, linear or log scale), or, for a run through TTT layers, by
// what each token taught them: ℓ(W_{t′}; x_t) − ℓ(W_t; x_t) (W_{t′}: the mini-batch's start), per layer or averaged, or, for a run
// through SR-TTT layers, by each token's surprisal L_t with the tokens routed to the residual cache
// underlined and those evicted again struck through (issue 24). Switching the
// run switches between the two, so a TTT model's gap and a transformer's attention on the same
// evidence can be compared on one document.

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/document/document.h"
#include "views/analysis_names.h"

class QCheckBox;
class QComboBox;
class QLabel;

namespace studio::views {

class DocumentView;
class RunTraces;

class DocumentColouring : public QWidget {
  Q_OBJECT
 public:
  // What colours the document (the `quantity` box's data).
  static constexpr const char* kPrefillAttention = "prefill";
  static constexpr const char* kQtttAttention = "qttt";
  static constexpr const char* kFastWeightGap = "fast_weight_gap";
  static constexpr const char* kSurprisal = "sr_ttt_surprisal";

  DocumentColouring(RunTraces* traces, DocumentView* view, QWidget* parent = nullptr);

  // The document the runs must have read for their values to colour it.
  void setDocument(std::shared_ptr<const document::Document> document);
  // Re-reads the runs (traces changed) and keeps the choice when it is still there.
  void refresh();
  // Chooses a run (and the newest quantity it has); false when it has nothing for this document.
  bool selectRun(std::int64_t id);
  // The run whose values colour the document, 0 for none.
  std::int64_t selectedRun() const;
  // Chooses what colours the document (kPrefillAttention, ...); false when the run lacks it.
  bool selectQuantity(const QString& quantity);

  QComboBox* runBox() const { return m_run; }
  QComboBox* quantityBox() const { return m_quantity; }
  QComboBox* layerBox() const { return m_layer; }
  QComboBox* headBox() const { return m_head; }
  QCheckBox* logBox() const { return m_log; }
  QLabel* noteLabel() const { return m_note; }

 private:
  void fillChoices();
  // The choices `run` offers, keeping the given ones where it has them; throws studio::Error when
  // its artifacts are damaged.
  void fillChoicesFor(const RunTrace& run, const QString& quantity, const QVariant& layer,
                      const QVariant& head);
  void apply();
  void applyAttention();
  void applyFastWeightGap();
  void applySurprisal();
  void showNothing(const QString& note);  // no colours, and why
  // Colours the tokens by their values on the chosen scale.
  void colourTokens(std::vector<Span> token_bytes, std::vector<float> values);

  RunTraces* m_traces;
  DocumentView* m_view;
  std::shared_ptr<const document::Document> m_document;
  QComboBox* m_run = nullptr;
  QComboBox* m_quantity = nullptr;
  QComboBox* m_layer = nullptr;
  QComboBox* m_head = nullptr;
  QCheckBox* m_log = nullptr;
  QLabel* m_note = nullptr;
  bool m_filling = false;
  QString m_problem;  // why the selected run's artifacts cannot be read (a damaged session), or empty
};

}  // namespace studio::views
