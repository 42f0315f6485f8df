#pragma once

#include <QComboBox>
#include <QString>
#include <QStyleOptionComboBox>

namespace trainmem {

/// A combo box that, narrower than its current item (the controls dock at 1024×768), shows the item cut with an
/// ellipsis and the whole of it as a tooltip, where QComboBox cuts it off mid-letter with nothing to say so.
class ElidingComboBox : public QComboBox
{
    Q_OBJECT
public:
    explicit ElidingComboBox(QWidget* parent = nullptr);

    /// The current item's text (or the placeholder, with no current item) as it is painted: whole when it fits
    /// the edit field, else cut with "…".
    QString shownText() const;
    /// The same, uncut.
    QString wholeText() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    /// The style option QComboBox paints its label from, the placeholder in when there is no current item.
    QStyleOptionComboBox labelOption() const;
    /// That option's text, elided to its edit field.
    QString elided(const QStyleOptionComboBox& opt) const;
};

} // namespace trainmem
