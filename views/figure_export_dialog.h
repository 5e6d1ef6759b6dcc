#pragma once
// File → Export figure… and a chart's "Export figure…": where the figure goes and how a paper
// wants it, the same choices as `studio-cli export --figure`: the size (as on screen, one column
// of 3.25 in, a page width of 6.75 in, or width × height in inches or points), the font size in
// points, the title on or off, the caption in the figure or in a text file beside it, and the
// plotted data as CSV beside it. For token_heatmap, also the quantity the tokens are coloured by
// (`--quantity`).

#include <QDialog>

#include <functional>
#include <QString>
#include <QStringList>

#include "views/analysis_names.h"
#include "views/figure_export.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;

namespace studio::views {

class FigureExportDialog : public QDialog {
  Q_OBJECT
 public:
  // `name`: the figure's export name, the file name suggested.
  explicit FigureExportDialog(const QString& name, QWidget* parent = nullptr);

  QString path() const;
  void setPath(const QString& path);
  // The size preset's index: 0 as on screen, 1 column, 2 page, 3 custom.
  void setSizePreset(int preset);
  void setCustomSize(double width, double height, analysis::FigureUnit unit);
  void setFontPoints(double points);  // 0: scaled with the figure
  void setTitleShown(bool shown);
  void setCaptionBeside(bool beside);
  void setDataBeside(bool beside);
  // The "Colour tokens by" row, shown once quantities are offered (token_heatmap's); the first is
  // chosen until setQuantity.
  void setQuantities(const QStringList& names);
  void setQuantity(const QString& name);
  // The chosen quantity, empty when none were offered.
  QString quantity() const;

  FigureExportOptions options() const;
  // "<stem>.csv" beside the figure when the data is asked for, else empty.
  QString dataPath() const;

 private:
  void browse();
  void showCustomSize();
  void convertCustomSize();

  QLineEdit* m_path = nullptr;
  QComboBox* m_preset = nullptr;
  QDoubleSpinBox* m_width = nullptr;
  QDoubleSpinBox* m_height = nullptr;
  QComboBox* m_unit = nullptr;
  analysis::FigureUnit m_shown_unit = analysis::FigureUnit::Inch;
  QCheckBox* m_font_on = nullptr;
  QDoubleSpinBox* m_font = nullptr;
  QCheckBox* m_title = nullptr;
  QCheckBox* m_caption_beside = nullptr;
  QCheckBox* m_data_beside = nullptr;
  QComboBox* m_quantity = nullptr;
  QLabel* m_quantity_label = nullptr;
};

// Writes `figure` as the dialog says (and its caption and data files beside it). Returns the files
// written. Throws studio::Error when a file cannot be written.
QStringList exportFigureAs(const Figure& figure, const FigureExportDialog& dialog);

// Asks with the dialog and writes the figure; errors go to a message box. Returns the files
// written (none when cancelled or failed).
QStringList exportFigureWithDialog(const Figure& figure, QWidget* parent);
// The same for a figure drawn from the dialog's quantity (offered: `quantities`): token_heatmap.
// `beside` (optional) writes files next to the figure's path and returns them (an attention
// window's safetensors).
QStringList exportFigureWithDialog(
    const QString& name, const QStringList& quantities,
    const std::function<Figure(const QString& quantity)>& make, QWidget* parent,
    const std::function<QStringList(const QString& figure_path)>& beside = {});

}  // namespace studio::views
