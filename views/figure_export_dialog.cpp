#include "views/figure_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>

#include "analysis/figure_data_csv.h"
#include "core/common/error.h"

namespace studio::views {

namespace {

enum SizePreset { kScreen = 0, kColumn = 1, kPage = 2, kCustom = 3 };

// "out/fig.svg" -> "out/fig<suffix>".
QString besideFigure(const QString& path, const QString& suffix) {
  const QFileInfo info(path);
  return info.dir().filePath(info.completeBaseName() + suffix);
}

}  // namespace

FigureExportDialog::FigureExportDialog(const QString& name, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export figure"));
  auto* form = new QFormLayout;

  m_path = new QLineEdit(name + QStringLiteral(".svg"), this);
  auto* browse_button = new QPushButton(tr("Browse…"), this);
  connect(browse_button, &QPushButton::clicked, this, &FigureExportDialog::browse);
  auto* path_row = new QHBoxLayout;
  path_row->addWidget(m_path, 1);
  path_row->addWidget(browse_button);
  form->addRow(tr("File (SVG, PDF or PNG):"), path_row);

  m_preset = new QComboBox(this);
  m_preset->addItems({tr("As on screen (960 × 600 px)"), tr("One column (3.25 in wide)"),
                      tr("Page width (6.75 in wide)"), tr("Width × height")});
  form->addRow(tr("Size:"), m_preset);
  m_width = new QDoubleSpinBox(this);
  m_height = new QDoubleSpinBox(this);
  m_unit = new QComboBox(this);
  m_unit->addItems({QStringLiteral("in"), QStringLiteral("pt")});
  auto* size_row = new QHBoxLayout;
  size_row->addWidget(m_width);
  size_row->addWidget(new QLabel(QStringLiteral("×"), this));
  size_row->addWidget(m_height);
  size_row->addWidget(m_unit);
  form->addRow(QString(), size_row);
  showCustomSize();
  m_width->setValue(3.25);
  m_height->setValue(2);
  connect(m_preset, &QComboBox::currentIndexChanged, this, &FigureExportDialog::showCustomSize);
  connect(m_unit, &QComboBox::currentIndexChanged, this, &FigureExportDialog::convertCustomSize);

  m_font_on = new QCheckBox(tr("Font size (pt):"), this);
  m_font = new QDoubleSpinBox(this);
  m_font->setRange(analysis::kMinFontPt, analysis::kMaxFontPt);
  m_font->setDecimals(1);
  m_font->setValue(8);
  m_font->setEnabled(false);
  connect(m_font_on, &QCheckBox::toggled, m_font, &QWidget::setEnabled);
  form->addRow(m_font_on, m_font);

  m_title = new QCheckBox(tr("Draw the title"), this);
  m_title->setChecked(true);
  form->addRow(QString(), m_title);
  m_caption_beside = new QCheckBox(tr("Caption in a text file beside it (.caption.txt)"), this);
  form->addRow(QString(), m_caption_beside);
  m_data_beside = new QCheckBox(tr("Plotted data as CSV beside it (.csv)"), this);
  form->addRow(QString(), m_data_beside);
  m_quantity_label = new QLabel(tr("Colour tokens by:"), this);
  m_quantity = new QComboBox(this);
  form->addRow(m_quantity_label, m_quantity);
  m_quantity_label->hide();
  m_quantity->hide();

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
  setLayout(form);
}

QString FigureExportDialog::path() const {
  return m_path->text();
}
void FigureExportDialog::setPath(const QString& path) {
  m_path->setText(path);
}
void FigureExportDialog::setSizePreset(int preset) {
  m_preset->setCurrentIndex(preset);
}

void FigureExportDialog::setCustomSize(double width, double height, analysis::FigureUnit unit) {
  m_preset->setCurrentIndex(kCustom);
  m_unit->setCurrentIndex(unit == analysis::FigureUnit::Inch ? 0 : 1);
  m_width->setValue(width);
  m_height->setValue(height);
}

void FigureExportDialog::setFontPoints(double points) {
  m_font_on->setChecked(points > 0);
  if (points > 0) m_font->setValue(points);
}

void FigureExportDialog::setTitleShown(bool shown) {
  m_title->setChecked(shown);
}
void FigureExportDialog::setCaptionBeside(bool beside) {
  m_caption_beside->setChecked(beside);
}
void FigureExportDialog::setDataBeside(bool beside) {
  m_data_beside->setChecked(beside);
}

void FigureExportDialog::setQuantities(const QStringList& names) {
  m_quantity->clear();
  m_quantity->addItems(names);
  m_quantity_label->setVisible(!names.isEmpty());
  m_quantity->setVisible(!names.isEmpty());
}

void FigureExportDialog::setQuantity(const QString& name) {
  const int index = m_quantity->findText(name);
  if (index >= 0) m_quantity->setCurrentIndex(index);
}

QString FigureExportDialog::quantity() const {
  return m_quantity->currentText();
}

void FigureExportDialog::browse() {
  const QString chosen = QFileDialog::getSaveFileName(this, tr("Export figure"), path(),
                                                      tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png)"));
  if (!chosen.isEmpty()) m_path->setText(chosen);
}

void FigureExportDialog::showCustomSize() {
  const bool custom = m_preset->currentIndex() == kCustom;
  for (QWidget* widget : {static_cast<QWidget*>(m_width), static_cast<QWidget*>(m_height),
                          static_cast<QWidget*>(m_unit)}) {
    widget->setEnabled(custom);
  }
  convertCustomSize();
}

// The spin boxes keep the size when the unit changes, and accept what parseFigureSize does.
void FigureExportDialog::convertCustomSize() {
  const auto unit =
      m_unit->currentIndex() == 0 ? analysis::FigureUnit::Inch : analysis::FigureUnit::Point;
  const bool inches = unit == analysis::FigureUnit::Inch;
  const double scale = inches ? 1.0 / 72 : 1;
  const double factor = unit == m_shown_unit ? 1 : (inches ? 1.0 / 72 : 72);
  for (QDoubleSpinBox* side : {m_width, m_height}) {
    const double value = side->value() * factor;
    side->setDecimals(inches ? 3 : 1);
    side->setRange(analysis::kMinFigurePt * scale, analysis::kMaxFigurePt * scale);
    side->setSingleStep(inches ? 0.25 : 6);
    side->setValue(value);
  }
  m_shown_unit = unit;
}

FigureExportOptions FigureExportDialog::options() const {
  FigureExportOptions options;
  switch (m_preset->currentIndex()) {
    case kColumn:
      options.setSize(analysis::parseFigureSize("column", tr("Size").toStdString()));
      break;
    case kPage:
      options.setSize(analysis::parseFigureSize("page", tr("Size").toStdString()));
      break;
    case kCustom: {
      analysis::FigureSize size;
      size.unit = m_shown_unit;
      const double scale = size.unit == analysis::FigureUnit::Inch ? 72 : 1;
      size.width_pt = m_width->value() * scale;
      size.height_pt = m_height->value() * scale;
      options.setSize(size);
      break;
    }
    default:
      break;
  }
  options.font_points = m_font_on->isChecked() ? m_font->value() : 0;
  options.title = m_title->isChecked();
  if (m_caption_beside->isChecked()) {
    options.caption_path = besideFigure(path(), QStringLiteral(".caption.txt"));
  }
  return options;
}

QString FigureExportDialog::dataPath() const {
  return m_data_beside->isChecked() ? besideFigure(path(), QStringLiteral(".csv")) : QString();
}

QStringList exportFigureAs(const Figure& figure, const FigureExportDialog& dialog) {
  const FigureExportOptions options = dialog.options();
  exportFigure(figure, dialog.path(), figureFormatFromPath(dialog.path()), options);
  QStringList written{dialog.path()};
  if (!options.caption_path.isEmpty()) written << options.caption_path;
  if (!dialog.dataPath().isEmpty()) {
    analysis::writeFigureDataCsv({&figure}, dialog.dataPath().toStdString());
    written << dialog.dataPath();
  }
  return written;
}

QStringList exportFigureWithDialog(const Figure& figure, QWidget* parent) {
  return exportFigureWithDialog(
      QString::fromStdString(figure.name.empty() ? "figure" : figure.name), {},
      [&figure](const QString&) { return figure; }, parent);
}

QStringList exportFigureWithDialog(
    const QString& name, const QStringList& quantities,
    const std::function<Figure(const QString& quantity)>& make, QWidget* parent,
    const std::function<QStringList(const QString& figure_path)>& beside) {
  FigureExportDialog dialog(name, parent);
  dialog.setQuantities(quantities);
  if (dialog.exec() != QDialog::Accepted) return {};
  try {
    QStringList written = exportFigureAs(make(dialog.quantity()), dialog);
    if (beside) written << beside(dialog.path());
    return written;
  } catch (const Error& error) {
    QMessageBox::warning(parent, FigureExportDialog::tr("Cannot export the figure"),
                         QString::fromUtf8(error.what()));
    return {};
  }
}

}  // namespace studio::views
