// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The run loop: one micro-batch after another, a checkpoint every --checkpoint-every steps, a clean stop
// on SIGTERM/SIGINT. Resuming is in resume.cpp, the checkpoint's files in recordwriter.cpp.
#include "app/train/trainer.h"

#include "app/train/format.h"
#include "app/train/trainer_detail.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>

namespace ckpt::train {

namespace {

volatile std::sig_atomic_t g_stopRequested = 0;
extern "C" void onStopSignal(int) { g_stopRequested = 1; }

constexpr size_t kLossTail = 8;

} // namespace

namespace detail {

template<class T>
Trainer<T>::Trainer(const TrainConfig& c, std::string outDir)
    : m_c(c)
    , m_out(std::move(outDir))
    , m_model(Mlp<T>::create(c))
    , m_optim(c)
    , m_sched(c)
    , m_data(Dataset::generate(c))
    , m_logs(m_out)
    , m_accum(m_model.params.size())
{
    for (size_t i = 0; i < m_accum.size(); ++i)
        m_accum[i].setZero(m_model.params[i].value.rows(), m_model.params[i].value.cols());
}

template<class T>
void Trainer<T>::startFresh()
{
    m_p = TrainProgress{};
    m_p.stopStep = m_c.steps;
}

template<class T>
int Trainer<T>::run(uint64_t target, bool continuation)
{
    std::error_code ec;
    fs::create_directories(fs::path(m_out) / "checkpoint", ec);
    if (ec) {
        std::fprintf(stderr, "ckpt-train: %s: %s\n", m_out.c_str(), ec.message().c_str());
        return ExitFailed;
    }
    if (m_c.layout & LayoutBurnRun) {
        if (continuation)
            m_logs.prepareContinuation(m_p.epoch, m_p.dataCursor / m_c.batchSize);
    }
    uint64_t lastCheckpoint = continuation ? m_p.step : UINT64_MAX;
    Batch<T> batch;
    std::string line;
    while (m_p.step < target) {
        if (g_stopRequested)
            break;
        if (m_p.pendingMicroBatches == 0)
            m_p.lastLr = m_sched.step(); // one scheduler step per optimizer step, at its first micro-batch
        sampleBatch(batch);
        const T loss = m_model.forwardBackward(batch);
        if (m_c.layout & LayoutGradientCheckpoint)
            m_graph.capture(m_model, batch, loss);
        for (size_t i = 0; i < m_accum.size(); ++i) {
            if (m_p.pendingMicroBatches == 0)
                m_accum[i] = m_model.params[i].grad;
            else
                m_accum[i] += m_model.params[i].grad; // Burn's GradientsAccumulator sums
        }
        ++m_p.pendingMicroBatches;
        if (m_p.pendingMicroBatches == m_c.gradAccum) {
            // --diverge-at: the update made at micro-batch divergeAt or later applies lr x 10^6 (the
            // scheduler and the logged lr stay as scheduled; a resumed run decides from the same step count).
            const bool diverging = m_c.divergeAt && m_p.step + 1 >= *m_c.divergeAt;
            const double lr = diverging ? m_p.lastLr * TrainConfig::kDivergeFactor : m_p.lastLr;
            for (size_t i = 0; i < m_accum.size(); ++i)
                m_optim.step(lr, m_model.params[i], m_accum[i], m_optim.state[i]);
            ++m_p.optimizerSteps;
            m_p.pendingMicroBatches = 0;
        }
        ++m_p.step;
        m_p.samplesSeen += m_c.batchSize;
        m_p.dataCursor += m_c.batchSize;
        const double lossD = static_cast<double>(loss);
        // A diverged run's loss is inf or NaN: logged as Rust prints it, kept in the tail as None.
        m_p.lossTail.push_back(std::isfinite(lossD) ? std::optional<double>(lossD) : std::nullopt);
        if (m_p.lossTail.size() > kLossTail)
            m_p.lossTail.erase(m_p.lossTail.begin());
        line = "step=" + std::to_string(m_p.step) + " loss=" + rustDisplayF64(lossD) + " lr=" + rustDisplayF64(m_p.lastLr) + "\n";
        std::fputs(line.c_str(), stdout);
        std::fflush(stdout);
        if (m_c.layout & LayoutBurnRun)
            m_logs.trainLine(m_p.epoch, lossD, m_p.lastLr);
        if (m_p.dataCursor >= m_c.datasetSize)
            endEpoch();
        if ((m_c.checkpointEvery && m_p.step % m_c.checkpointEvery == 0) || m_p.step == target) {
            if (auto r = checkpoint(); !r)
                return reportError(r.error());
            lastCheckpoint = m_p.step;
        }
    }
    if (g_stopRequested) {
        if (lastCheckpoint != m_p.step)
            if (auto r = checkpoint(); !r)
                return reportError(r.error());
        std::fprintf(stderr, "ckpt-train: stopped by signal at step %llu; checkpoint written\n",
            static_cast<unsigned long long>(m_p.step));
    }
    m_logs.flush();
    return ExitOk;
}

template<class T>
void Trainer<T>::sampleBatch(Batch<T>& b)
{
    const auto n = static_cast<Eigen::Index>(m_c.batchSize);
    const Eigen::Index in = m_data.trainX.cols();
    b.x.resize(n, in);
    if (m_c.task == Task::Regression)
        b.y.resize(n, m_data.trainY.cols());
    b.label.resize(static_cast<size_t>(n));
    for (Eigen::Index r = 0; r < n; ++r) {
        const auto idx = static_cast<Eigen::Index>(counterRandom(m_c.seed, stream::Batches, m_p.rngCounter++) % m_c.datasetSize);
        for (Eigen::Index j = 0; j < in; ++j)
            b.x(r, j) = static_cast<T>(m_data.trainX(idx, j));
        if (m_c.task == Task::Regression)
            for (Eigen::Index j = 0; j < b.y.cols(); ++j)
                b.y(r, j) = static_cast<T>(m_data.trainY(idx, j));
        else
            b.label[static_cast<size_t>(r)] = m_data.trainLabel[static_cast<size_t>(idx)];
    }
}

template<class T>
void Trainer<T>::endEpoch()
{
    if (m_c.layout & LayoutBurnRun) {
        std::vector<double> losses;
        Mlp<T> scratch = m_model; // validation must not disturb the captured activations
        Batch<T> b;
        const Eigen::Index in = m_data.validX.cols();
        for (uint64_t start = 0; start < m_c.validSize; start += m_c.batchSize) {
            const auto n = static_cast<Eigen::Index>(std::min(m_c.batchSize, m_c.validSize - start));
            b.x = m_data.validX.block(static_cast<Eigen::Index>(start), 0, n, in).template cast<T>();
            if (m_c.task == Task::Regression)
                b.y = m_data.validY.block(static_cast<Eigen::Index>(start), 0, n, m_data.validY.cols()).template cast<T>();
            else
                b.label.assign(m_data.validLabel.begin() + static_cast<long>(start), m_data.validLabel.begin() + static_cast<long>(start) + n);
            losses.push_back(static_cast<double>(scratch.evaluate(b)));
        }
        m_logs.validLines(m_p.epoch, losses);
    }
    ++m_p.epoch;
    m_p.dataCursor = 0;
}

template<class T>
int Trainer<T>::reportError(const Error& e)
{
    std::fprintf(stderr, "ckpt-train: %s\n", e.message().c_str());
    return ExitFailed;
}

} // namespace detail

namespace {

template<class T>
int runTyped(const RunRequest& req)
{
    detail::Trainer<T> trainer(req.config, req.outDir);
    uint64_t target = req.config.steps;
    if (req.record || req.graph) {
        std::vector<std::string> notes;
        auto restored = req.record ? trainer.restore(*req.record, req.recordedProgress, notes)
                                   : trainer.restoreGraph(*req.graph, req.recordedProgress, notes);
        if (!restored) {
            std::fprintf(stderr, "ckpt-train: %s\n", std::move(restored.error()).withFile(req.recordPath).message().c_str());
            return ExitFailed;
        }
        TrainProgress& p = trainer.progress();
        target = req.stepsFlag ? *req.stepsFlag : p.stopStep;
        if (!req.stepsFlag && p.stopStep != req.config.steps)
            notes.push_back("stop_step edited to " + std::to_string(p.stopStep) + " (config.steps " + std::to_string(req.config.steps) + "): honoured");
        if (target < p.step) {
            std::fprintf(stderr, "ckpt-train: %s: the record is at step %llu, beyond the requested %llu steps\n", req.recordPath.c_str(),
                static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(target));
            return ExitUsage;
        }
        p.stopStep = target;
        std::string line = "resumed from " + req.recordPath + " at step " + std::to_string(p.step) + " (epoch " + std::to_string(p.epoch)
            + ", optimizer step " + std::to_string(p.optimizerSteps) + ", " + std::to_string(p.pendingMicroBatches)
            + " pending micro-batches, "
            + (req.record ? std::string(precisionName(req.record->precision)) + " precision " + std::string(recorderName(req.record->recorder))
                          : "GradientCheckpoint with " + std::to_string(req.graph->car.blocks().size()) + " blocks from " + req.graph->carPath)
            + "); target step " + std::to_string(target) + "; overridden: ";
        if (req.overrides.empty())
            line += "none";
        for (size_t i = 0; i < req.overrides.size(); ++i)
            line += (i ? ", " : "") + req.overrides[i];
        for (const auto& n : notes)
            line += "; " + n;
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    } else {
        trainer.startFresh();
    }
    return trainer.run(target, req.record || req.graph);
}

} // namespace

void installStopHandler()
{
    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
}

int runTraining(const RunRequest& request)
{
    // Single-threaded on purpose: a fixed operation order is what makes resumption bit-exact.
    Eigen::setNbThreads(1);
    return request.config.dtype == TrainDType::F64 ? runTyped<double>(request) : runTyped<float>(request);
}

} // namespace ckpt::train
