#include "drilldownpanel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace trainmem {
namespace {

// The picker's rows: every segment, then every curve.
// The rows follow CurveKind's order (rowOf).
constexpr int kCurveRows = 6;
constexpr CurveKind kCurves[kCurveRows] = {CurveKind::NoCheckpointing, CurveKind::Selective, CurveKind::Full,
                                           CurveKind::ModelStateFloor, CurveKind::Capacity,  CurveKind::PerOp};

int rowOf(const DrillDownPanel::Item& item)
{
    if (const auto* k = std::get_if<SegmentKind>(&item))
        return static_cast<int>(*k);
    return static_cast<int>(kAllSegmentKinds.size()) + static_cast<int>(std::get<CurveKind>(item));
}

QLabel* wrapped(QWidget* parent, bool mono = false)
{
    auto* l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextFormat(Qt::PlainText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (mono)
        l->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return l;
}

} // namespace

DrillDownPanel::DrillDownPanel(QWidget* parent) : QWidget(parent)
{
    m_picker = new QComboBox(this);
    // Narrow enough to share the controls' column on a 1024 px projector (issue 31 §2); the list shows names whole.
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(16);
    for (SegmentKind k : kAllSegmentKinds)
        m_picker->addItem(tr("Segment: %1").arg(QString::fromStdString(segmentKindName(k))));
    const QString curveNames[kCurveRows] = {tr("Curve: no checkpointing"),   tr("Curve: selective checkpointing"),
                                            tr("Curve: full checkpointing"), tr("Curve: model-state floor"),
                                            tr("Line: GPU capacity"),        tr("Curve: per-op checkpointing")};
    for (const QString& n : curveNames)
        m_picker->addItem(n);

    m_title = wrapped(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_formula = wrapped(this, true);
    m_substituted = wrapped(this, true);
    m_result = wrapped(this);
    QFont big = m_result->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_result->setFont(big);
    m_assumptions = wrapped(this);
    m_source = wrapped(this);

    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Formula"), m_formula);
    form->addRow(tr("With the numbers"), m_substituted);
    form->addRow(tr("Result"), m_result);
    form->addRow(tr("Assumes"), m_assumptions);
    form->addRow(tr("Source"), m_source);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_picker);
    layout->addWidget(m_title);
    layout->addLayout(form);
    layout->addStretch(1);

    connect(m_picker, &QComboBox::currentIndexChanged, this, [this](int row) {
        if (row < 0)
            return;
        const int segments = static_cast<int>(kAllSegmentKinds.size());
        if (row < segments)
            show(kAllSegmentKinds[static_cast<size_t>(row)]);
        else
            show(kCurves[row - segments]);
    });
    refresh();
}

void DrillDownPanel::setScenario(const Scenario& s, const GpuSpec& gpu, const Breakdown& b)
{
    m_scenario = s;
    m_gpu = gpu;
    m_breakdown = b;
    m_hasScenario = true;
    refresh();
}

void DrillDownPanel::showSegment(SegmentKind k)
{
    show(k);
}

void DrillDownPanel::showCurve(CurveKind c)
{
    show(c);
}

void DrillDownPanel::show(const Item& item)
{
    m_item = item;
    {
        const QSignalBlocker block(m_picker);
        m_picker->setCurrentIndex(rowOf(item));
    }
    refresh();
}

QString DrillDownPanel::formulaText() const
{
    return m_formula->text();
}

QString DrillDownPanel::substitutedText() const
{
    return m_substituted->text();
}

QString DrillDownPanel::resultText() const
{
    return m_result->text();
}

void DrillDownPanel::refresh()
{
    if (!m_hasScenario) {
        m_explanation = {};
        m_title->setText(tr("Pick a segment or a curve to see its formula."));
        for (QLabel* l : {m_formula, m_substituted, m_result, m_assumptions, m_source})
            l->clear();
        return;
    }
    if (const auto* k = std::get_if<SegmentKind>(&m_item))
        m_explanation = explainSegment(*k, m_scenario, m_breakdown);
    else
        m_explanation = explainCurve(std::get<CurveKind>(m_item), m_scenario, m_gpu);
    m_title->setText(QString::fromStdString(m_explanation.title));
    m_formula->setText(QString::fromStdString(m_explanation.formula));
    m_substituted->setText(QString::fromStdString(m_explanation.substituted));
    m_result->setText(QString::fromStdString(m_explanation.result));
    m_assumptions->setText(QString::fromStdString(m_explanation.assumptions));
    m_source->setText(QString::fromStdString(m_explanation.source));
}

} // namespace trainmem
