#include "views/figure_view.h"

#include <QContextMenuEvent>
#include <QMouseEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>

#include "core/common/error.h"
#include "views/figure_export.h"
#include "views/figure_painter.h"

namespace studio::views {

FigureView::FigureView(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMouseTracking(true);
}

void FigureView::setFigure(Figure figure) {
  m_figure = std::move(figure);
  setToolTip(QString::fromStdString(m_figure.caption));
  update();
}

void FigureView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  m_area = paintFigure(painter, QRectF(rect()), m_figure);
}

void FigureView::mousePressEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  if (event->button() == Qt::LeftButton && m_area.valid() && m_area.plot.contains(at)) {
    emit clickedAt(m_area.xAt(at.x()));
    return;
  }
  QWidget::mousePressEvent(event);
}

void FigureView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  if (m_area.valid() && m_area.plot.contains(at)) {
    emit hoveredAt(m_area.xAt(at.x()), event->globalPosition().toPoint());
  }
  QWidget::mouseMoveEvent(event);
}

void FigureView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Export figure…"), this, &FigureView::exportWithDialog);
  menu.exec(event->globalPos());
}

void FigureView::exportWithDialog() {
  const QString name = QString::fromStdString(m_figure.name.empty() ? "figure" : m_figure.name);
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export figure"), name + QStringLiteral(".svg"),
                                   tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png)"));
  if (path.isEmpty()) return;
  try {
    exportFigure(m_figure, path, figureFormatFromPath(path));
  } catch (const Error& error) {
    QMessageBox::warning(this, tr("Cannot export the figure"), QString::fromUtf8(error.what()));
  }
}

}  // namespace studio::views
