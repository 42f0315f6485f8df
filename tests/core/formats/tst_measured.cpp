// What the GPU showed (issue 32): real readouts from public threads and repositories (tests/data/readouts/, each
// with its source in SOURCES.md) read into the statistic they measure, the figure compared, and the comparison with
// the prediction of the same statistic; and bad input.
#include "cost.h"
#include "measured.h"
#include "report.h"
#include "testdata.h"

#include <QtTest>

#include <algorithm>

using namespace trainmem;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr double GiB = 1024.0 * MiB;
constexpr double KiB = 1024.0;

MeasuredMemory readout(const std::string& name)
{
    const std::string path = std::string(TRAINMEM_TEST_DATA) + "/readouts/" + name;
    const std::string text = testdata::readFile(path);
    if (text.empty())
        qFatal("missing test data %s", path.c_str());
    return parseMeasuredMemory(text, name);
}

std::vector<double> figuresOf(const MeasuredMemory& m, MemoryStatistic s)
{
    std::vector<double> out;
    for (const MeasuredReading& r : m.readings)
        if (r.statistic == s)
            out.push_back(r.bytes);
    return out;
}

bool hasNote(const MeasuredMemory& m, const std::string& part)
{
    return std::any_of(m.notes.begin(), m.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

} // namespace

class TestMeasured : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // torch.cuda.memory_summary(): the Peak Usage column of "Allocated memory" and "GPU reserved memory"; the
    // allocated peak is compared (the accounting predicts the tensors most directly).
    void memorySummaryPeaks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("allocated");
        QTest::addColumn<double>("reserved");
        // An L4 after InstructLab loaded its base model (the table's Peak Usage column, as printed).
        QTest::newRow("rhel-ai L4") << "memory_summary-rhel-ai-integrate-ai-into-app.txt" << 14324 * MiB << 14586 * MiB;
        // MiniCPM-2B loaded; its reserved row mixes MiB and KiB (Tot Freed 190464 KiB), the peak is in MiB.
        QTest::newRow("MiniCPM-2B") << "memory_summary-zerollama-openbmb-readme.txt" << 5673 * MiB << 5868 * MiB;
        // An SGLang leak hunt: small enough that _format_size prints KiB.
        QTest::newRow("KiB") << "memory_summary-Awesome-ML-SYS-Tutorial-mem-snapshot.txt" << 192833 * KiB
                             << 235520 * KiB;
    }
    void memorySummaryPeaks()
    {
        QFETCH(QString, file);
        QFETCH(double, allocated);
        QFETCH(double, reserved);
        const MeasuredMemory m = readout(file.toStdString());
        QVERIFY2(m.ok(), m.errors.empty() ? "no readings" : m.errors.front().toString().c_str());
        QCOMPARE(m.source, std::string("torch.cuda.memory_summary()"));
        QCOMPARE(figuresOf(m, MemoryStatistic::PeakAllocated), std::vector<double>{allocated});
        QCOMPARE(figuresOf(m, MemoryStatistic::PeakReserved), std::vector<double>{reserved});
        QVERIFY(figuresOf(m, MemoryStatistic::DeviceUsed).empty());
        QCOMPARE(m.primary.statistic, MemoryStatistic::PeakAllocated);
        QCOMPARE(m.primary.bytes, allocated);
        QCOMPARE(m.primary.device, 0); // "PyTorch CUDA memory summary, device ID 0"
    }

    // nvidia-smi's table: one "used / total" per GPU, the busiest compared; the processes table is not read.
    void nvidiaSmiTables()
    {
        // 8 × A100 80GB: GPUs 0–7 use 57828, 51826, 12916, 12472, 26140, 2, 2, 2 MiB of 81920 MiB.
        const MeasuredMemory a100 = readout("nvidia-smi-gpu-docker-api-readme-8xA100-80GB.txt");
        QVERIFY(a100.ok());
        QCOMPARE(a100.source, std::string("nvidia-smi"));
        const std::vector<double> used{57828 * MiB, 51826 * MiB, 12916 * MiB, 12472 * MiB,
                                       26140 * MiB, 2 * MiB,     2 * MiB,     2 * MiB};
        QCOMPARE(figuresOf(a100, MemoryStatistic::DeviceUsed), used);
        for (int i = 0; i < 8; ++i)
            QCOMPARE(a100.readings[static_cast<size_t>(i)].device, i);
        QCOMPARE(a100.primary.bytes, 57828 * MiB);
        QCOMPARE(a100.primary.device, 0);
        QVERIFY(hasNote(a100, "8 figures"));
        QVERIFY(hasNote(a100, "80.0 GiB")); // 81920 MiB

        // 8 × H100: GPU 0 at 74953 of 81559 MiB, the other seven at 4 MiB.
        const MeasuredMemory h100 = readout("nvidia-smi-ai-agent-book-projects-cursor-chat-8xH100.txt");
        QVERIFY(h100.ok());
        QCOMPARE(h100.readings.size(), size_t(8));
        QCOMPARE(h100.primary.bytes, 74953 * MiB);

        // One H100 serving vLLM: 70323 MiB on the GPU; its process line (70314MiB) is not a second GPU.
        const MeasuredMemory one = readout("nvidia-smi-nebius-demo-day-task-2-report-1xH100.txt");
        QVERIFY(one.ok());
        QCOMPARE(figuresOf(one, MemoryStatistic::DeviceUsed), std::vector<double>{70323 * MiB});

        // A 2019 driver's table (GRID K520): 46 MiB of 4037 MiB; the python process's 35MiB is not read.
        const MeasuredMemory k520 = readout("nvidia-smi-deepracer-for-dummies-58.txt");
        QVERIFY(k520.ok());
        QCOMPARE(figuresOf(k520, MemoryStatistic::DeviceUsed), std::vector<double>{46 * MiB});
    }

    // nvidia-smi --query-gpu=index,memory.used --format=csv, as its documentation lays it out; the figure is the
    // 8 × H100 table's GPU 0 (above) written in that form. No CSV output with a source to cite was found.
    void nvidiaSmiQueryCsv()
    {
        const MeasuredMemory m = parseMeasuredMemory("index, memory.used [MiB]\n0, 74953 MiB\n1, 4 MiB\n", "query.csv");
        QVERIFY(m.ok());
        QCOMPARE(m.source, std::string("nvidia-smi --query-gpu"));
        QCOMPARE(figuresOf(m, MemoryStatistic::DeviceUsed), (std::vector<double>{74953 * MiB, 4 * MiB}));
        QCOMPARE(m.primary.device, 0);
        // ,nounits: the unit is the header's.
        const MeasuredMemory bare = parseMeasuredMemory("memory.used [MiB]\n74953\n", "query.csv");
        QVERIFY(bare.ok());
        QCOMPARE(bare.primary.bytes, 74953 * MiB);
    }

    // torchtune's memory-stats log: allocation, reserved and active peaks in GiB (torch.cuda.max_memory_* / 1024³).
    void torchtuneMemoryStats_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("allocated");
        QTest::addColumn<double>("reserved");
        // torchtune#1398: Llama 3.1 8B QLoRA after model init, the default config and the one that grew to 15 GB.
        QTest::newRow("#1398 default") << "torchtune-memory-stats-1398-qlora-default.txt" << 6.19 * GiB << 6.27 * GiB;
        QTest::newRow("#1398 custom") << "torchtune-memory-stats-1398-qlora-custom-modules.txt" << 14.41 * GiB
                                      << 14.62 * GiB;
        // Kubeflow's trainer docs, with torchtune's own tab indentation.
        QTest::newRow("kubeflow") << "torchtune-memory-stats-kubeflow-website-torchtune-builtin-trainer.txt"
                                  << 2.33 * GiB << 2.34 * GiB;
    }
    void torchtuneMemoryStats()
    {
        QFETCH(QString, file);
        QFETCH(double, allocated);
        QFETCH(double, reserved);
        const MeasuredMemory m = readout(file.toStdString());
        QVERIFY(m.ok());
        QCOMPARE(m.source, std::string("torchtune's memory stats"));
        QCOMPARE(figuresOf(m, MemoryStatistic::PeakAllocated), std::vector<double>{allocated});
        QCOMPARE(figuresOf(m, MemoryStatistic::PeakReserved), std::vector<double>{reserved});
        QCOMPARE(m.primary.bytes, allocated);
        QVERIFY(hasNote(m, "active memory is not compared"));
    }

    // PyTorch's out-of-memory error, in both wordings.
    void outOfMemoryErrors()
    {
        // Since 2.1 (pytorch#16417): 23.60 GiB in use, 22.90 GiB allocated, 194.87 MiB reserved but unallocated.
        const MeasuredMemory now = readout("oom-pytorch-16417.txt");
        QVERIFY(now.ok());
        QCOMPARE(now.source, std::string("PyTorch's out-of-memory error"));
        QCOMPARE(figuresOf(now, MemoryStatistic::PeakAllocated), std::vector<double>{22.90 * GiB});
        QCOMPARE(figuresOf(now, MemoryStatistic::PeakReserved), std::vector<double>{22.90 * GiB + 194.87 * MiB});
        QCOMPARE(figuresOf(now, MemoryStatistic::DeviceUsed), std::vector<double>{23.60 * GiB});
        QCOMPARE(now.primary.device, 0);
        QVERIFY(hasNote(now, "asking for 23.1 MB more")); // 22.00 MiB
        // Before 2.1 (unilm#137): 10.85 GiB already allocated, 10.86 GiB reserved in total.
        const MeasuredMemory before = readout("oom-unilm-137.txt");
        QVERIFY(before.ok());
        QCOMPARE(figuresOf(before, MemoryStatistic::PeakAllocated), std::vector<double>{10.85 * GiB});
        QCOMPARE(figuresOf(before, MemoryStatistic::PeakReserved), std::vector<double>{10.86 * GiB});
        QVERIFY(figuresOf(before, MemoryStatistic::DeviceUsed).empty());
    }

    // A figure with its statistic, in the words people write it.
    void aFigureWithItsStatistic_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("statistic");
        QTest::addColumn<double>("bytes");
        QTest::newRow("peak allocated GiB")
            << "peak allocated 61.2 GiB" << int(MemoryStatistic::PeakAllocated) << 61.2 * GiB;
        QTest::newRow("figure first") << "61.2 GB allocated" << int(MemoryStatistic::PeakAllocated) << 61.2e9;
        QTest::newRow("reserved, colon") << "reserved: 70 GB" << int(MemoryStatistic::PeakReserved) << 70e9;
        QTest::newRow("max_memory_allocated bytes") << "torch.cuda.max_memory_allocated() = 22843617280"
                                                    << int(MemoryStatistic::PeakAllocated) << 22843617280.0;
        QTest::newRow("thousands") << "max_memory_reserved: 22,843,617,280 bytes" << int(MemoryStatistic::PeakReserved)
                                   << 22843617280.0;
        QTest::newRow("nvidia-smi") << "nvidia-smi 78519MiB" << int(MemoryStatistic::DeviceUsed) << 78519 * MiB;
        QTest::newRow("used") << "GPU 3 used 71 GB" << int(MemoryStatistic::DeviceUsed) << 71e9;
    }
    void aFigureWithItsStatistic()
    {
        QFETCH(QString, text);
        QFETCH(int, statistic);
        QFETCH(double, bytes);
        const MeasuredMemory m = parseMeasuredMemory(text.toStdString(), "pasted text");
        QVERIFY2(m.ok(), m.errors.empty() ? "no readings" : m.errors.front().toString().c_str());
        QCOMPARE(int(m.primary.statistic), statistic);
        QCOMPARE(m.primary.bytes, bytes);
    }

    // Several logs of one statistic: the highest is the peak.
    void theLargestOfSeveralIsCompared()
    {
        const MeasuredMemory m =
            parseMeasuredMemory("step 1: peak allocated 20.5 GiB\nstep 2: peak allocated 22.25 GiB\n", "log");
        QVERIFY(m.ok());
        QCOMPARE(m.readings.size(), size_t(2));
        QCOMPARE(m.primary.bytes, 22.25 * GiB);
        QCOMPARE(m.primary.line, 2);
        QVERIFY(hasNote(m, "the largest is compared"));
    }

    void badInputIsNamed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << "  \n\t\n"
                               << "is empty";
        QTest::newRow("no figure") << "hello world"
                                   << "has no memory figure";
        QTest::newRow("no statistic") << "61.2 GiB"
                                      << "has a figure but not its statistic";
        QTest::newRow("a number, no unit") << "peak allocated 5"
                                           << "has no memory figure";
        QTest::newRow("too large") << "\npeak allocated 2000 PB"
                                   << "line 2: 2.00 EB is more than any GPU holds";
        QTest::newRow("summary without peaks")
            << "|   PyTorch CUDA memory summary, device ID 0   |\n| Allocated memory | 3 MiB | lots | 4 MiB |"
            << "line 2: \"Allocated memory\" has no Peak Usage figure";
        QTest::newRow("csv without the column") << "index, memory.used [MiB]\n0\n"
                                                << "line 2: has no memory.used column";
    }
    void badInputIsNamed()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const MeasuredMemory m = parseMeasuredMemory(text.toStdString(), "pasted text");
        QVERIFY(!m.ok());
        QVERIFY(!m.errors.empty());
        const QString got = QString::fromStdString(m.errors.front().toString());
        QVERIFY2(got.startsWith(QLatin1String("pasted text")), qPrintable(got));
        QVERIFY2(got.contains(message), qPrintable(got));
    }

    // The statistics hold more and more of the terms: allocated, every term but the CUDA context and the allocator's
    // reserve; reserved adds the reserve; in use on the GPU adds the context.
    void predictionOfTheSameStatistic()
    {
        const Scenario s = testdata::preset("chapter-7b");
        const Breakdown b = account(s, testdata::gpu(s.hardware.gpu));
        const Segments& g = b.perGpu;
        QCOMPARE(g.weights + g.gradients + g.master + g.optimizer, 112e9); // the chapter's 16 B × 7B
        const double tensors = g.weights + g.gradients + g.master + g.optimizer + g.adapters + g.activations +
                               g.kvCache + g.logits + g.workspace;
        QCOMPARE(predictedFor(g, MemoryStatistic::PeakAllocated), tensors);
        QCOMPARE(predictedFor(g, MemoryStatistic::PeakReserved), tensors + g.fragmentation);
        QCOMPARE(predictedFor(g, MemoryStatistic::DeviceUsed), g.total());
        QVERIFY(g.framework > 0 && g.fragmentation > 0);
        // --json names the three (issue 30 §1); the device's view is the total the verdict checks.
        const nlohmann::json j = breakdownToJson(b, s, testdata::gpu(s.hardware.gpu),
                                                 computeCost(b.model, s, testdata::gpu(s.hardware.gpu)));
        QCOMPARE(j["peak_allocated_bytes"].get<double>(), tensors);
        QCOMPARE(j["peak_reserved_bytes"].get<double>(), tensors + g.fragmentation);
        QCOMPARE(j["device_bytes"].get<double>(), j["per_gpu_bytes"]["total"].get<double>());
    }

    // A readout far below the prediction: the 8 × A100 table's busiest GPU (57828 MiB) against the chapter's 7B on
    // one GPU. The terms listed are each at least half the gap, the optimizer state (made at the first step) first.
    void aGapNamesTheTermsThatCouldExplainIt()
    {
        const Scenario s = testdata::preset("chapter-7b");
        const Breakdown b = account(s, testdata::gpu(s.hardware.gpu));
        const MeasuredMemory m = readout("nvidia-smi-gpu-docker-api-readme-8xA100-80GB.txt");
        const MeasuredComparison c = compareMeasured(m, b, s);
        QCOMPARE(c.statistic, MemoryStatistic::DeviceUsed);
        QCOMPARE(c.measured, 57828 * MiB);
        QCOMPARE(c.predicted, b.perGpu.total());
        QCOMPARE(c.gap, c.measured - c.predicted);
        QCOMPARE(c.ratio, c.measured / c.predicted);
        QVERIFY(!c.agrees);
        QVERIFY(!c.likely.empty() && c.likely.size() <= 3);
        QCOMPARE(c.likely.front().kind, SegmentKind::Optimizer);
        QCOMPARE(c.likely.front().bytes, 56e9); // 8 B × 7B of Adam moments
        for (const GapTerm& t : c.likely)
            QVERIFY(t.bytes >= 0.5 * std::fabs(c.gap));
        QVERIFY2(c.summary.find("less than predicted") != std::string::npos, c.summary.c_str());
        QVERIFY(c.summary.find("GPU 0") != std::string::npos);

        // The same readout against a prediction of its own size agrees, and names no term.
        MeasuredMemory near = m;
        near.primary.bytes = b.perGpu.total() * 1.03;
        const MeasuredComparison close = compareMeasured(near, b, s);
        QVERIFY(close.agrees);
        QVERIFY(close.likely.empty());
        // Above the prediction, the activations come first: they vary most with how a run is set up.
        near.primary.bytes = b.perGpu.total() + b.perGpu.activations;
        const MeasuredComparison over = compareMeasured(near, b, s);
        QVERIFY(!over.agrees);
        QCOMPARE(over.likely.front().kind, SegmentKind::Activations);
        QVERIFY(over.summary.find("more than predicted") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestMeasured)
#include "tst_measured.moc"
