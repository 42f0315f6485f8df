#pragma once
// Export settings: which chart, the size and scale of the image, PNG or PDF.

#include "chartexport.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace trainmem {

class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(ChartKind kind, const ExportOptions& options, QWidget* parent = nullptr);

    ChartKind chart() const;
    /// "The chapter tour as slides" was picked: a folder of one PNG per step (exportTour), not one chart.
    bool tourSlides() const;
    ExportOptions options() const;

private:
    void updateSummary();

    QComboBox* m_chart = nullptr;
    QComboBox* m_sizePreset = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QDoubleSpinBox* m_scale = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace trainmem
