#pragma once
// A form built from a method's declared parameters (ParamSpec): a spin box for numbers with the
// declared range, a check box, a line edit or a combo box; each field's tooltip gives the help
// text, the default and the range. values() returns what the form holds as the JSON a RunSpec
// takes.

#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

#include "core/common/param_spec.h"

namespace studio::views {

class ParamForm : public QWidget {
  Q_OBJECT
 public:
  explicit ParamForm(std::vector<ParamSpec> specs, QWidget* parent = nullptr);

  const std::vector<ParamSpec>& specs() const { return m_specs; }
  nlohmann::json values() const;
  // Sets the fields named in `values` (others keep theirs); throws studio::Error (Argument) for a
  // name the form does not have.
  void setValues(const nlohmann::json& values);
  void resetToDefaults();
  // The editor of parameter `name` (nullptr when unknown): tests drive the form through these.
  QWidget* editor(const std::string& name) const;

 private:
  std::vector<ParamSpec> m_specs;
  std::vector<QWidget*> m_editors;  // one per spec, same order
};

}  // namespace studio::views
