#include "views/figure_view.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScreen>
#include <QScrollArea>

#include "views/figure_export_dialog.h"
#include "views/figure_painter.h"

namespace studio::views {

FigureView::FigureView(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMouseTracking(true);
}

void FigureView::setFigure(Figure figure) {
  m_figure = std::move(figure);
  setToolTip(m_figure.caption.empty()
                 ? tr("Double-click to open large")
                 : QString::fromStdString(m_figure.caption) + tr("\n\nDouble-click to open large"));
  update();
}

FigureView* FigureView::openLarge() {
  auto* large = new FigureView();
  large->setAttribute(Qt::WA_DeleteOnClose);
  large->setWindowTitle(QString::fromStdString(m_figure.title));
  large->setFigure(m_figure);
  const QScreen* screen = this->screen();
  const QSize room = screen ? screen->availableSize() : QSize(1280, 800);
  large->resize(room.width() * 4 / 5, room.height() * 4 / 5);
  large->show();
  large->raise();
  return large;
}

void FigureView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_figure.hasData()) {
    openLarge();
    return;
  }
  QWidget::mouseDoubleClickEvent(event);
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
  menu.addAction(tr("Open large"), this, &FigureView::openLarge);
  menu.addAction(tr("Export figure…"), this, &FigureView::exportWithDialog);
  menu.exec(event->globalPos());
}

void FigureView::exportWithDialog() {
  exportFigureWithDialog(m_figure, this);
}

QWidget* scrollingCharts(QWidget* charts, QWidget* parent) {
  auto* scroll = new QScrollArea(parent);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidgetResizable(true);
  scroll->setWidget(charts);
  return scroll;
}

}  // namespace studio::views
