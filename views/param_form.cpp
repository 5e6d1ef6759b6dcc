#include "views/param_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>

#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "core/common/json_exact.h"

namespace studio::views {

namespace {

QString jsonText(const nlohmann::json& value) {
  return QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump());
}

QString tooltipOf(const ParamSpec& spec) {
  QString tip = QString::fromStdString(spec.help);
  tip += QStringLiteral("\n\ndefault: %1").arg(jsonText(spec.default_value));
  if (spec.min || spec.max) {
    tip += QStringLiteral("\nrange: [%1, %2]")
               .arg(spec.min ? QString::number(*spec.min, 'g', 6) : QStringLiteral("−∞"),
                    spec.max ? QString::number(*spec.max, 'g', 6) : QStringLiteral("∞"));
  }
  if (!spec.suggestions.empty()) {
    QStringList values;
    for (double value : spec.suggestions) values << QString::number(value, 'g', 6);
    tip += QStringLiteral("\nsuggested: %1 (any value in range is accepted)").arg(values.join(", "));
  }
  return tip.trimmed();
}

// Enough decimals to show the default and the bounds of a float parameter (1e−5 learning rates).
int decimalsFor(const ParamSpec& spec) {
  double smallest = std::numeric_limits<double>::infinity();
  for (std::optional<double> v :
       {std::optional<double>(spec.default_value.get<double>()), spec.min, spec.max}) {
    if (v && *v != 0) smallest = std::min(smallest, std::abs(*v));
  }
  if (!std::isfinite(smallest)) return 3;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(smallest))) + 3, 3, 10);
}

}  // namespace

ParamForm::ParamForm(std::vector<ParamSpec> specs, QWidget* parent)
    : QWidget(parent), m_specs(std::move(specs)) {
  auto* layout = new QFormLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  for (const ParamSpec& spec : m_specs) {
    QWidget* editor = nullptr;
    switch (spec.type) {
      case ParamSpec::Type::Int: {
        auto* box = new QSpinBox(this);
        box->setRange(spec.min ? static_cast<int>(std::max(*spec.min, -2e9)) : -2000000000,
                      spec.max ? static_cast<int>(std::min(*spec.max, 2e9)) : 2000000000);
        editor = box;
        break;
      }
      case ParamSpec::Type::Float: {
        if (!spec.suggestions.empty()) {
          // Suggestions to pick from, and any other value in range typed in.
          auto* combo = new QComboBox(this);
          combo->setEditable(true);
          for (double value : spec.suggestions) combo->addItem(QString::number(value, 'g', 6));
          auto* validator = new QDoubleValidator(spec.min ? *spec.min : -1e12,
                                                 spec.max ? *spec.max : 1e12, 15, combo);
          validator->setNotation(QDoubleValidator::ScientificNotation);
          combo->setValidator(validator);
          editor = combo;
          break;
        }
        auto* box = new QDoubleSpinBox(this);
        box->setDecimals(decimalsFor(spec));
        box->setRange(spec.min ? *spec.min : -1e12, spec.max ? *spec.max : 1e12);
        box->setStepType(spec.log_scale ? QAbstractSpinBox::AdaptiveDecimalStepType
                                        : QAbstractSpinBox::DefaultStepType);
        editor = box;
        break;
      }
      case ParamSpec::Type::Bool:
        editor = new QCheckBox(this);
        break;
      case ParamSpec::Type::String:
        editor = new QLineEdit(this);
        break;
      case ParamSpec::Type::Choice: {
        auto* box = new QComboBox(this);
        for (const nlohmann::json& choice : spec.choices) box->addItem(jsonText(choice));
        editor = box;
        break;
      }
    }
    editor->setObjectName(QString::fromStdString(spec.name));
    editor->setToolTip(tooltipOf(spec));
    auto* label = new QLabel(QString::fromStdString(spec.name), this);
    label->setToolTip(editor->toolTip());
    layout->addRow(label, editor);
    m_editors.push_back(editor);
  }
  resetToDefaults();
}

QWidget* ParamForm::editor(const std::string& name) const {
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    if (m_specs[i].name == name) return m_editors[i];
  }
  return nullptr;
}

void ParamForm::resetToDefaults() {
  nlohmann::json defaults = nlohmann::json::object();
  for (const ParamSpec& spec : m_specs) defaults[spec.name] = spec.default_value;
  setValues(defaults);
}

void ParamForm::setValues(const nlohmann::json& values) {
  for (auto it = values.begin(); it != values.end(); ++it) {
    QWidget* widget = editor(it.key());
    if (!widget) throwArgument(it.key(), "the form has no such parameter");
    const nlohmann::json& value = it.value();
    if (auto* box = qobject_cast<QSpinBox*>(widget)) {
      // The box holds an int: a value it cannot show is refused, not truncated or clamped.
      if (!holdsExactly<std::int64_t>(value) || value.get<std::int64_t>() < box->minimum() ||
          value.get<std::int64_t>() > box->maximum()) {
        throwArgument(it.key(), "must be an integer in [" + std::to_string(box->minimum()) + ", " +
                                    std::to_string(box->maximum()) + "], got " + value.dump());
      }
      box->setValue(static_cast<int>(value.get<std::int64_t>()));
    } else if (auto* box = qobject_cast<QDoubleSpinBox*>(widget)) {
      box->setValue(value.get<double>());
    } else if (auto* box = qobject_cast<QCheckBox*>(widget)) {
      box->setChecked(value.get<bool>());
    } else if (auto* edit = qobject_cast<QLineEdit*>(widget)) {
      edit->setText(jsonText(value));
    } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
      if (combo->isEditable()) {
        combo->setCurrentText(QString::number(value.get<double>(), 'g', 15));
      } else {
        combo->setCurrentIndex(combo->findText(jsonText(value)));
      }
    }
  }
}

nlohmann::json ParamForm::values() const {
  nlohmann::json values = nlohmann::json::object();
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    const ParamSpec& spec = m_specs[i];
    QWidget* widget = m_editors[i];
    if (auto* box = qobject_cast<QSpinBox*>(widget)) {
      values[spec.name] = static_cast<std::int64_t>(box->value());
    } else if (auto* box = qobject_cast<QDoubleSpinBox*>(widget)) {
      values[spec.name] = box->value();
    } else if (auto* box = qobject_cast<QCheckBox*>(widget)) {
      values[spec.name] = box->isChecked();
    } else if (auto* edit = qobject_cast<QLineEdit*>(widget)) {
      values[spec.name] = edit->text().toStdString();
    } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
      if (combo->isEditable()) {  // a float with suggestions: whatever number is typed
        // Text that is no number goes on as text: resolveParams names the parameter it fails.
        bool ok = false;
        const double value = combo->currentText().toDouble(&ok);
        values[spec.name] = ok ? nlohmann::json(value) : nlohmann::json(combo->currentText().toStdString());
      } else {
        const int index = combo->currentIndex();
        values[spec.name] =
            index >= 0 ? spec.choices[static_cast<std::size_t>(index)] : spec.default_value;
      }
    }
  }
  return values;
}

}  // namespace studio::views
