#include "apptheme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

#include <memory>

namespace trainmem {

namespace {

/// What the platform gave, captured before the first theme is applied.
struct SystemLook {
    QPalette palette;
    QString style;
};

const SystemLook& systemLook()
{
    static const SystemLook look{QApplication::palette(),
                                 QApplication::style() ? QApplication::style()->name() : QString()};
    return look;
}

QPalette darkPalette()
{
    // Greys and a blue chosen for contrast: text #e8e8e8 on #1e1e1e is 14:1, disabled text #8a8a8a on it 5:1.
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe8, 0xe8, 0xe8), mid(0x3c, 0x3c, 0x3c);
    const QColor disabled(0x8a, 0x8a, 0x8a), highlight(0x3d, 0x7f, 0xc1);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::ToolTipBase, QColor(0x33, 0x33, 0x33));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4a));
    p.setColor(QPalette::Midlight, mid);
    p.setColor(QPalette::Mid, QColor(0x2f, 0x2f, 0x2f));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x18));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xe8));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xe0));
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, disabled);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Button, window);
    return p;
}

} // namespace

QString themeName(ThemeChoice t)
{
    switch (t) {
    case ThemeChoice::Light:
        return QStringLiteral("light");
    case ThemeChoice::Dark:
        return QStringLiteral("dark");
    case ThemeChoice::System:
        break;
    }
    return QStringLiteral("system");
}

std::optional<ThemeChoice> parseThemeName(const QString& name)
{
    for (ThemeChoice t : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark})
        if (name == themeName(t))
            return t;
    return std::nullopt;
}

QPalette themePalette(ThemeChoice t)
{
    switch (t) {
    case ThemeChoice::Light: {
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        return fusion ? fusion->standardPalette() : systemLook().palette;
    }
    case ThemeChoice::Dark:
        return darkPalette();
    case ThemeChoice::System:
        break;
    }
    return systemLook().palette;
}

void applyTheme(ThemeChoice t)
{
    const SystemLook& system = systemLook(); // captured before anything changes
    const QString style = t == ThemeChoice::System ? system.style : QStringLiteral("Fusion");
    if (!style.isEmpty() && QApplication::style() && QApplication::style()->name().compare(style, Qt::CaseInsensitive))
        QApplication::setStyle(style);
    QApplication::setPalette(themePalette(t));
}

} // namespace trainmem
