#pragma once
// What the Ranks, Fit map and One training step docks share: a sentence over a chart, computed only while the
// dock is shown (an edit to a hidden dock only marks it stale), recoloured on palette changes, and scaled for
// projectors. Each panel says what it computes (recompute) and how its chart takes a theme (applyTheme).

#include <QWidget>

class QLabel;

namespace trainmem {

class LivePlot;
struct ChartTheme;

class ChartPanel : public QWidget
{
    Q_OBJECT
public:
    QLabel* summary() const { return m_summary; }
    /// Times the panel computed its chart (a hidden panel computes none).
    int recomputeCount() const { return m_recomputes; }
    /// Large fonts for projectors (presentation mode).
    void setFontScale(double scale);

protected:
    /// `objectName` names the panel, `summaryName` its sentence (tests and style sheets find them by these).
    ChartPanel(const QString& objectName, const QString& summaryName, QWidget* parent);
    /// Puts `chart` under the sentence, at least `minimumHeight` px high.
    void setChart(LivePlot* chart, int minimumHeight);
    /// The inputs changed: computes now when shown, else when next shown.
    void invalidate();
    /// Fills the chart and the sentence from the inputs.
    virtual void recompute() = 0;
    /// Gives the chart a theme.
    virtual void applyTheme(const ChartTheme& theme) = 0;

    void showEvent(QShowEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    void compute();
    void retheme();

    QLabel* m_summary = nullptr;
    LivePlot* m_chart = nullptr;
    bool m_dirty = true;
    int m_recomputes = 0;
    double m_fontScale = 1.0;
};

} // namespace trainmem
