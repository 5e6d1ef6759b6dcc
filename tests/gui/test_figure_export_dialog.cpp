// The Export figure dialog (views/figure_export_dialog.h) writes what `studio-cli export --figure`
// does with the same choices: a column-wide SVG without its title, the caption and the plotted
// data beside it, and a custom size in points.

#include <catch2/catch.hpp>

#include <QFile>

#include <fstream>
#include <iterator>
#include <string>

#include "gui/trace_helpers.h"
#include "analysis/token_heatmap_figure.h"
#include "views/figure_export_dialog.h"

using namespace studio;
using namespace studio::views;

namespace {

std::string readText(const QString& path) {
  std::ifstream in(path.toStdString());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE(
    "the export dialog writes the figure at the chosen size with its caption and data "
    "beside it",
    "[gui][figure]") {
  Figure figure;
  figure.name = "curve";
  figure.title = "A curve";
  figure.caption = "#1 in_context seed=0";
  FigureSeries series;
  series.name = "in_context";
  series.xs = {1, 2};
  series.ys = {0.5, 0.25};
  series.lows = {0.4, 0.1};
  series.highs = {0.6, 0.4};
  figure.series.push_back(series);

  const QString svg = QString::fromStdString(gui_test::tempPath("dialog-curve.svg"));
  FigureExportDialog dialog(QStringLiteral("curve"));
  dialog.setPath(svg);
  dialog.setSizePreset(1);  // one column
  dialog.setFontPoints(9);
  dialog.setTitleShown(false);
  dialog.setCaptionBeside(true);
  dialog.setDataBeside(true);
  const FigureExportOptions options = dialog.options();
  CHECK(options.size.width() == Approx(3.25 * 96));
  CHECK(options.unit == analysis::FigureUnit::Inch);
  CHECK(options.font_points == 9);
  CHECK_FALSE(options.title);

  const QStringList written = exportFigureAs(figure, dialog);
  QString stem = svg;
  stem.chop(4);  // ".svg"
  const QString caption = stem + QStringLiteral(".caption.txt");
  const QString data = stem + QStringLiteral(".csv");
  CHECK(written == QStringList({svg, caption, data}));
  const std::string text = readText(svg);
  CHECK(text.find("width=\"3.25in\"") != std::string::npos);
  CHECK(text.find("font-size=\"12\"") != std::string::npos);  // 9 pt at 96 per inch
  CHECK(readText(caption) == figure.caption + "\n");
  CHECK(readText(data).find("curve,in_context,1,0.5,0.40000000000000002,0.59999999999999998,") !=
        std::string::npos);

  // Width × height in points, no title change, the caption under the plot.
  dialog.setCustomSize(234, 144, analysis::FigureUnit::Point);
  dialog.setCaptionBeside(false);
  dialog.setDataBeside(false);
  const FigureExportOptions custom = dialog.options();
  CHECK(custom.size.width() == Approx(312));
  CHECK(custom.size.height() == Approx(192));
  CHECK(custom.unit == analysis::FigureUnit::Point);
  CHECK(custom.caption_path.isEmpty());
  CHECK(dialog.dataPath().isEmpty());
  for (const QString& path : {svg, caption, data}) QFile::remove(path);
}

TEST_CASE("the export dialog offers token_heatmap's quantities and none for other figures",
          "[gui][figure]") {
  FigureExportDialog plain(QStringLiteral("qttt_loss"));
  CHECK(plain.quantity().isEmpty());

  FigureExportDialog heatmap(QStringLiteral("token_heatmap"));
  QStringList quantities;
  for (const std::string& name : analysis::tokenQuantityNames()) {
    quantities << QString::fromStdString(name);
  }
  REQUIRE(quantities.size() == 3);
  heatmap.setQuantities(quantities);
  CHECK(heatmap.quantity() == QStringLiteral("attention"));  // the first until one is chosen
  heatmap.setQuantity(QStringLiteral("attention_change"));
  CHECK(heatmap.quantity() == QStringLiteral("attention_change"));
  heatmap.setQuantity(QStringLiteral("no_such_quantity"));  // ignored: the combo keeps its choice
  CHECK(heatmap.quantity() == QStringLiteral("attention_change"));
}
