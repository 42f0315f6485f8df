#include "elidingcombobox.h"

#include <QEvent>
#include <QHelpEvent>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QToolTip>

namespace trainmem {

ElidingComboBox::ElidingComboBox(QWidget* parent) : QComboBox(parent) {}

QStyleOptionComboBox ElidingComboBox::labelOption() const
{
    // What QComboBox::paintEvent shows (Qt 6.4 qcombobox.cpp): the current item, or the placeholder in its own colour
    // when there is none.
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    if (currentIndex() < 0 && !placeholderText().isEmpty()) {
        opt.palette.setBrush(QPalette::ButtonText, opt.palette.placeholderText());
        opt.currentText = placeholderText();
    }
    return opt;
}

QString ElidingComboBox::elided(const QStyleOptionComboBox& opt) const
{
    const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
    return fontMetrics().elidedText(opt.currentText, Qt::ElideRight, field.width());
}

QString ElidingComboBox::shownText() const
{
    return elided(labelOption());
}

QString ElidingComboBox::wholeText() const
{
    return labelOption().currentText;
}

void ElidingComboBox::paintEvent(QPaintEvent*)
{
    QStylePainter painter(this);
    QStyleOptionComboBox opt = labelOption();
    painter.drawComplexControl(QStyle::CC_ComboBox, opt);
    opt.currentText = elided(opt);
    painter.drawControl(QStyle::CE_ComboBoxLabel, opt);
}

bool ElidingComboBox::event(QEvent* e)
{
    // Cut short, the item's whole text comes first in the tooltip, above what the control's own tooltip says.
    if (e->type() == QEvent::ToolTip) {
        const QStyleOptionComboBox opt = labelOption();
        if (elided(opt) != opt.currentText) {
            const auto* help = static_cast<QHelpEvent*>(e);
            QToolTip::showText(help->globalPos(),
                               toolTip().isEmpty() ? opt.currentText : opt.currentText + "\n\n" + toolTip(), this);
            return true;
        }
    }
    return QComboBox::event(e);
}

} // namespace trainmem
