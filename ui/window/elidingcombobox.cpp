#include "elidingcombobox.h"

#include <QEvent>
#include <QHelpEvent>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QToolTip>

namespace trainmem {

ElidingComboBox::ElidingComboBox(QWidget* parent) : QComboBox(parent) {}

namespace {

// What QComboBox::paintEvent shows (Qt 6.4 qcombobox.cpp): the current item, or the placeholder in its own colour
// when there is none.
QString labelText(const QComboBox& box, QStyleOptionComboBox& opt)
{
    if (box.currentIndex() < 0 && !box.placeholderText().isEmpty()) {
        opt.palette.setBrush(QPalette::ButtonText, opt.palette.placeholderText());
        opt.currentText = box.placeholderText();
    }
    return opt.currentText;
}

} // namespace

QString ElidingComboBox::shownText() const
{
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    const QString text = labelText(*this, opt);
    const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
    return fontMetrics().elidedText(text, Qt::ElideRight, field.width());
}

QString ElidingComboBox::wholeText() const
{
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    return labelText(*this, opt);
}

void ElidingComboBox::paintEvent(QPaintEvent*)
{
    QStylePainter painter(this);
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    labelText(*this, opt);
    painter.drawComplexControl(QStyle::CC_ComboBox, opt);
    opt.currentText = shownText();
    painter.drawControl(QStyle::CE_ComboBoxLabel, opt);
}

bool ElidingComboBox::event(QEvent* e)
{
    // Cut short, the item's whole text comes first in the tooltip, above what the control's own tooltip says.
    if (e->type() == QEvent::ToolTip && shownText() != wholeText()) {
        const auto* help = static_cast<QHelpEvent*>(e);
        const QString whole = wholeText();
        QToolTip::showText(help->globalPos(), toolTip().isEmpty() ? whole : whole + "\n\n" + toolTip(), this);
        return true;
    }
    return QComboBox::event(e);
}

} // namespace trainmem
