// Verifies the Tuner's number fields show a value at its own scale: no trailing zeros ("480",
// "0.25"), small values kept rather than rounded to three decimals (a refill of 0.0005/s), at
// most the decimals asked for, and typed text read back as the value.
#include "ui/tuner/value_spin_box.h"

#include <gtest/gtest.h>

#include <QTest>

#include "support/qt_app.h"
#include "ui/tuner/param_editor.h"

namespace limitscope::ui {
namespace {

TEST(ValueSpinBox, ShowsTheDecimalsTheValueHas) {
  test::ensure_qt_app();
  ValueSpinBox spin(6);
  spin.setLocale(QLocale::c());
  spin.setRange(0, 1e9);
  const std::pair<double, const char*> rows[] = {
      {480, "480"},   {0.25, "0.25"},          {0.0005, "0.0005"},
      {12.5, "12.5"}, {0.1234567, "0.123457"}, {0, "0"}};
  for (const auto& [value, text] : rows) {
    spin.setValue(value);
    EXPECT_EQ(spin.text(), QString::fromLatin1(text)) << value;
  }
  EXPECT_DOUBLE_EQ(spin.value(), 0);
  spin.selectAll();
  QTest::keyClicks(&spin, QStringLiteral("0.0025"));
  spin.interpretText();
  EXPECT_DOUBLE_EQ(spin.value(), 0.0025);
  ValueSpinBox percent(3);
  percent.setLocale(QLocale::c());
  percent.setSuffix(QStringLiteral(" %"));
  percent.setValue(0.1);
  EXPECT_EQ(percent.text(), QStringLiteral("0.1 %"));
}

TEST(ValueSpinBox, ARefillBelowAThousandthStaysItself) {
  test::ensure_qt_app();
  tuner::SettingForm form;
  ParamEditor editor(QStringLiteral("candidate"), form);
  LimitParams p;
  p.capacity = 2;
  p.refill = Rate::per_sec(0.0005);  // unit_for picks a longer unit: the value is exact there
  editor.setParams(p);
  EXPECT_DOUBLE_EQ(editor.params().refill.per_second(), 0.0005);
  editor.secondSpin()->setValue(0.0125);
  EXPECT_DOUBLE_EQ(editor.secondSpin()->value(), 0.0125);  // three decimals kept 0.013
}

}  // namespace
}  // namespace limitscope::ui
