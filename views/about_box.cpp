#include "views/about_box.h"

#include <imgui.h>
#include <QMessageBox>
#include <QtGlobal>

#include "core/common/versions.h"

namespace studio::views {

QString aboutText() {
  QString rows;
  const auto add = [&rows](const QString& name, const QString& value) {
    rows += QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;</td><td><b>%2</b></td></tr>")
                .arg(name.toHtmlEscaped(), value.toHtmlEscaped());
  };
  for (const auto& [name, value] : versionRows(versionInfo())) {
    add(QString::fromStdString(name), QString::fromStdString(value));
  }
  add(QStringLiteral("Qt (runtime)"), QString::fromLatin1(qVersion()));
  add(QStringLiteral("Dear ImGui"), QString::fromLatin1(ImGui::GetVersion()));
  return QStringLiteral(
             "<h3>TTT Studio</h3>"
             "<p>Long-context analysis and test-time training of language models: open a document, "
             "run methods on it and see where their attention goes.</p>"
             "<table>%1</table>")
      .arg(rows);
}

void showAboutBox(QWidget* parent) {
  auto* box = new QMessageBox(QMessageBox::NoIcon, QObject::tr("About TTT Studio"), aboutText(),
                              QMessageBox::Close, parent);
  box->setTextFormat(Qt::RichText);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace studio::views
