// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Optimizer-state forensics (issue 33 part 1, core/optim/forensics.h) on a real ckpt-train
// record with a symptom planted in each of five parameters by rewriting payload bytes in place: a NaN
// moment, all-zero moments, a saturated effective step, a pending gradient far below √v̂, and a step
// counter that disagrees. Expected figures are recomputed here with plain loops over the planted values.
// Exploded but finite state: moments scaled up together (the steps unchanged) and moments that no
// gradient history gives (an effective step above Adam's bound, recomputed here as a plain sum), in
// another copy of that record; and a real blow-up, ckpt-train --diverge-at, against a healthy run.
#include "core/optim/forensics.h"
#include "core/pack/migrate.h"
#include "core/open/formats.h"
#include "core/run/migratesources.h"
#include "core/report/optimizerjson.h"
#include "tests/common/trainer.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

using namespace ckpt;

namespace {

std::vector<uint8_t> readAll(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void putF32(std::vector<uint8_t>& bytes, const TensorEntry& t, uint64_t i, float v)
{
    std::memcpy(bytes.data() + *t.offset + i * sizeof(float), &v, sizeof v);
}

const TensorEntry& stateOf(const Record& r, const OptimizerEntry& oe, std::string_view name)
{
    for (size_t i : oe.tensors)
        if (r.tensors[i].stateName == name)
            return r.tensors[i];
    qFatal("no %s", std::string(name).c_str());
}

const TensorEntry& parameterOf(const Record& r, std::string_view id)
{
    const auto i = r.findParam(id);
    if (!i)
        qFatal("no parameter");
    return r.tensors[r.params[*i].tensor];
}

/** √(Σx²/n) over all the tensor's elements, in a plain loop. */
double rmsOf(const Record& r, const TensorEntry& t)
{
    const std::vector<double> x = r.values(t, 0, t.numel);
    double sum = 0;
    for (double v : x)
        sum += v * v;
    return std::sqrt(sum / double(x.size()));
}

bool near(double a, double b, double rel = 1e-12) { return std::abs(a - b) <= rel * std::abs(b); }

const TensorEntry& gradientOf(const Record& r, std::string_view id)
{
    for (const auto& g : r.gradients)
        if (g.paramId == id)
            return r.tensors[g.tensor];
    qFatal("no gradient");
}

} // namespace

class TestOptimizerForensics : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<const Record> m_clean;
    std::shared_ptr<const Record> m_planted;
    // ckpt-train records its betas and epsilon as f32 (Burn's AdamConfig fields): the analysis uses them widened.
    const double m_beta1 = double(0.9f), m_beta2 = double(0.999f), m_eps = double(1e-5f);
    uint64_t m_time = 0;

    double c1() const { return 1.0 - std::pow(m_beta1, double(m_time)); }
    double c2() const { return 1.0 - std::pow(m_beta2, double(m_time)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // 25 micro-batches, 2 per optimizer step: time 12 and one micro-batch of pending gradients
        // (the default layout writes burn-train's model-1.mpk as well: a record without optimizer state).
        QVERIFY(testing::runTrainer({QStringLiteral("--out"), m_dir.path(), QStringLiteral("--steps"), QStringLiteral("25"), QStringLiteral("--checkpoint-every"), QStringLiteral("25"), QStringLiteral("--grad-accum"), QStringLiteral("2"), QStringLiteral("--optimizer"), QStringLiteral("adam")}));
        const QString file = m_dir.filePath(QStringLiteral("checkpoint/record-25.mpk"));
        auto clean = openRecord(file.toStdString());
        QVERIFY2(clean, clean ? "" : clean.error().message().c_str());
        m_clean = *clean;
        const Record& r = *m_clean;
        QCOMPARE(r.optimizer.size(), size_t(6));
        QCOMPARE(r.gradients.size(), size_t(6));
        m_time = *r.optimizer[0].time;
        QCOMPARE(m_time, uint64_t(12));

        std::vector<uint8_t> bytes = readAll(file);
        // 0: a NaN in moment_1.
        putF32(bytes, stateOf(r, r.optimizer[0], "moment_1"), 0, std::numeric_limits<float>::quiet_NaN());
        // 1: both moments zero.
        for (const char* s : {"moment_1", "moment_2"}) {
            const TensorEntry& t = stateOf(r, r.optimizer[1], s);
            for (uint64_t i = 0; i < t.numel; ++i)
                putF32(bytes, t, i, 0.0f);
        }
        // 2: m̂ = √v̂ everywhere, the step of a gradient constant in sign and size.
        {
            const TensorEntry& m = stateOf(r, r.optimizer[2], "moment_1");
            const std::vector<double> v = r.values(stateOf(r, r.optimizer[2], "moment_2"), 0, m.numel);
            for (uint64_t i = 0; i < m.numel; ++i)
                putF32(bytes, m, i, static_cast<float>(c1() * std::sqrt(v[i] / c2())));
        }
        // 3: a pending gradient a thousand times below the gradients Adam has seen.
        {
            const TensorEntry& g = gradientOf(r, r.optimizer[3].paramId);
            QCOMPARE(g.dtype, DType::F32);
            for (uint64_t i = 0; i < g.numel; ++i)
                putF32(bytes, g, i, 1e-6f);
        }
        // 4: time 12 -> 11 (a msgpack positive fixint: one byte).
        {
            const uint32_t timeNode = *r.tape.find(*r.tape.find(r.optimizer[4].stateNode, "momentum"), "time");
            const uint64_t at = r.tape[timeNode].srcOffset;
            QCOMPARE(bytes[at], uint8_t(12));
            bytes[at] = 11;
        }
        auto planted = openRecordBytes(makeBytes(std::move(bytes)), "planted.mpk");
        QVERIFY2(planted, planted ? "" : planted.error().message().c_str());
        m_planted = *planted;
    }

    void cleanRecordHasNoSuspect()
    {
        auto f = optimizerForensics(*m_clean);
        QVERIFY2(f, f ? "" : f.error().message().c_str());
        QCOMPARE(f->optimizer, std::string("adam"));
        QCOMPARE(f->hyper.beta1, m_beta1);
        QCOMPARE(f->hyper.beta2, m_beta2);
        QCOMPARE(f->hyper.epsilon, m_eps);
        QVERIFY(f->learningRate);
        QCOMPARE(*f->learningRate, 0.003);
        QVERIFY(f->suspects.empty());
        for (const auto& p : f->parameters) {
            QVERIFY(p.effectiveStep && p.g2OverV && p.vFloorFraction && p.deadFraction && p.mL2 && p.vL2);
            QCOMPARE(p.nonfinite, uint64_t(0));
        }
    }

    void eachPlantedSymptomIsFound()
    {
        auto f = optimizerForensics(*m_planted);
        QVERIFY2(f, f ? "" : f.error().message().c_str());
        const Record& r = *m_planted;
        const auto& ps = f->parameters;
        QCOMPARE(ps.size(), size_t(6));
        using Flags = std::vector<std::string>;

        // 0: one NaN; the step statistics cover the 255 other elements.
        QCOMPARE(ps[0].nonfinite, uint64_t(1));
        QCOMPARE(ps[0].flags, Flags({"nonfinite_moments"}));

        // 1: dead, and v̂ = 0 is below ε²; no g²/v̂ where v̂ ≤ ε².
        QCOMPARE(*ps[1].deadFraction, 1.0);
        QCOMPARE(*ps[1].vFloorFraction, 1.0);
        QCOMPARE(ps[1].effectiveStep->mean, 0.0);
        QVERIFY(!ps[1].g2OverV);
        QCOMPARE(ps[1].flags, Flags({"dead_moments", "v_floor"}));

        // 2: the effective step recomputed from the planted values.
        {
            const OptimizerEntry& oe = r.optimizer[2];
            const TensorEntry& mt = stateOf(r, oe, "moment_1");
            const std::vector<double> m = r.values(mt, 0, mt.numel);
            const std::vector<double> v = r.values(stateOf(r, oe, "moment_2"), 0, mt.numel);
            double sum = 0, max = 0;
            uint64_t saturated = 0;
            for (size_t i = 0; i < m.size(); ++i) {
                const double s = std::abs(m[i] / c1()) / (std::sqrt(v[i] / c2()) + m_eps);
                sum += s;
                max = std::max(max, s);
                saturated += s >= 0.99 ? 1 : 0;
            }
            const auto& e = *ps[2].effectiveStep;
            QVERIFY(std::abs(e.mean - sum / double(m.size())) < 1e-12);
            QCOMPARE(e.max, max);
            QCOMPARE(e.saturated, double(saturated) / double(m.size()));
            QVERIFY2(e.saturated >= 0.5, qPrintable(QString::number(e.saturated)));
            QCOMPARE(ps[2].flags, Flags({"saturated_step"}));
        }

        // 3: mean g²/v̂ over the elements with v̂ > ε².
        {
            const OptimizerEntry& oe = r.optimizer[3];
            const TensorEntry& vt = stateOf(r, oe, "moment_2");
            const std::vector<double> v = r.values(vt, 0, vt.numel);
            const std::vector<double> g = r.values(gradientOf(r, oe.paramId), 0, vt.numel);
            double sum = 0;
            uint64_t n = 0;
            for (size_t i = 0; i < v.size(); ++i) {
                const double vHat = v[i] / c2();
                if (vHat > m_eps * m_eps) {
                    sum += g[i] * g[i] / vHat;
                    ++n;
                }
            }
            QVERIFY(n > 0);
            QVERIFY(std::abs(*ps[3].g2OverV - sum / double(n)) <= 1e-12 * (sum / double(n)));
            QVERIFY(*ps[3].g2OverV < kG2FarBelowV);
            QCOMPARE(ps[3].flags, Flags({"g2_far_below_v"}));
        }

        // 4: the odd step counter out.
        QCOMPARE(*ps[4].time, uint64_t(11));
        QCOMPARE(ps[4].flags, Flags({"time_mismatch"}));
        QVERIFY(ps[5].flags.empty());

        // Worst first: non-finite before more flags, more flags before the saturated one.
        QCOMPARE(f->suspects.size(), size_t(5));
        QCOMPARE(f->suspects[0], size_t(0));
        QCOMPARE(f->suspects[1], size_t(1));
        QCOMPARE(f->suspects[2], size_t(2));

        // The document: every field of the contract, suspects by id in that order.
        const auto doc = nlohmann::json::parse(optimizerForensicsJson(r, *f));
        QCOMPARE(doc["optimizer"].get<std::string>(), std::string("adam"));
        QCOMPARE(doc["parameters"].size(), size_t(6));
        for (const auto& p : doc["parameters"])
            for (const char* k : {"param_id", "path", "time", "m_l2", "v_l2", "effective_step", "v_floor_fraction", "dead_fraction",
                     "nonfinite", "g2_over_v", "flags"})
                QVERIFY2(p.contains(k), k);
        QCOMPARE(doc["suspects"][0].get<std::string>(), r.optimizer[0].paramId);
        QCOMPARE(doc["suspects"].size(), size_t(5));
    }

    /**
     * Param 3: m × 1e6 and v × 1e12, the state a loss a million times larger gives: the same steps
     * (bar ε), a first moment 1e3 × its parameter. Param 4: m̂ = 3 B(t) √v̂, a step no gradient history
     * gives. Param 1: dead. Two flags each, ranked exploded, then inconsistent, then dead.
     */
    void explodedAndInconsistentMoments()
    {
        const Record& r = *m_clean;
        std::vector<uint8_t> bytes = readAll(QString::fromStdString(r.file));
        // B(t) by its definition: (1−β1)/(1−β1^t) · √((1−β2^t)/(1−β2)) · √(Σ_{j<t} (β1²/β2)^j)
        double sum = 0;
        for (uint64_t j = 0; j < m_time; ++j)
            sum += std::pow(m_beta1 * m_beta1 / m_beta2, double(j));
        const double bound = (1 - m_beta1) / c1() * std::sqrt(c2() / (1 - m_beta2)) * std::sqrt(sum);
        QVERIFY(bound > 1 && bound < 7.3);
        {
            const TensorEntry& m = stateOf(r, r.optimizer[3], "moment_1");
            const TensorEntry& v = stateOf(r, r.optimizer[3], "moment_2");
            const std::vector<double> mv = r.values(m, 0, m.numel), vv = r.values(v, 0, v.numel);
            for (uint64_t i = 0; i < m.numel; ++i) {
                putF32(bytes, m, i, static_cast<float>(mv[i] * 1e6));
                putF32(bytes, v, i, static_cast<float>(vv[i] * 1e12));
            }
        }
        {
            const TensorEntry& m = stateOf(r, r.optimizer[4], "moment_1");
            const std::vector<double> v = r.values(stateOf(r, r.optimizer[4], "moment_2"), 0, m.numel);
            for (uint64_t i = 0; i < m.numel; ++i)
                putF32(bytes, m, i, static_cast<float>(3 * bound * c1() * std::sqrt(v[i] / c2())));
        }
        for (const char* name : {"moment_1", "moment_2"}) {
            const TensorEntry& t = stateOf(r, r.optimizer[1], name);
            for (uint64_t i = 0; i < t.numel; ++i)
                putF32(bytes, t, i, 0.0f);
        }
        auto planted = openRecordBytes(makeBytes(std::move(bytes)), "exploded.mpk");
        QVERIFY2(planted, planted ? "" : planted.error().message().c_str());
        const Record& p = **planted;
        auto f = optimizerForensics(p);
        auto clean = optimizerForensics(r);
        QVERIFY(f && clean);
        const auto& ps = f->parameters;
        using Flags = std::vector<std::string>;

        for (const auto& q : ps) {
            QVERIFY(q.stepBound);
            QVERIFY2(near(*q.stepBound, bound), qPrintable(QString::number(*q.stepBound)));
        }
        // 3: the figures recomputed from the planted values; the steps are the clean record's.
        {
            const double w = rmsOf(p, parameterOf(p, r.optimizer[3].paramId));
            const double mHat = rmsOf(p, stateOf(p, p.optimizer[3], "moment_1")) / c1();
            QVERIFY(near(*ps[3].paramRms, w, 1e-9));
            QVERIFY(near(*ps[3].mHatRms, mHat, 1e-9));
            QVERIFY(w < kExplodedParameterRms);
            QVERIFY2(mHat >= kExplodedMomentRatio * std::max(w, 1.0), qPrintable(QString::number(mHat)));
            // the steps are the clean state's |m̂|/√v̂ (ε, not scaled with them, no longer counts)
            const TensorEntry& mt = stateOf(r, r.optimizer[3], "moment_1");
            const std::vector<double> m0 = r.values(mt, 0, mt.numel), v0 = r.values(stateOf(r, r.optimizer[3], "moment_2"), 0, mt.numel);
            double sum = 0;
            for (size_t i = 0; i < m0.size(); ++i)
                sum += std::abs(m0[i] / c1()) / std::sqrt(v0[i] / c2());
            QVERIFY2(near(ps[3].effectiveStep->mean, sum / double(m0.size()), 1e-4), qPrintable(QString::number(ps[3].effectiveStep->mean)));
            QVERIFY(ps[3].effectiveStep->max < bound);
            // and the pending gradient, not scaled, is now far below √v̂
            QCOMPARE(ps[3].flags, Flags({"exploded_moments", "g2_far_below_v"}));
            // the same parameter in the clean record: 1e6 times smaller, far from the threshold
            QVERIFY(*clean->parameters[3].mHatRms < 1e-2 * kExplodedMomentRatio * std::max(*clean->parameters[3].paramRms, 1.0));
        }
        // 4: every step ≈ 3B (ε is small beside √v̂ here).
        {
            const double max = ps[4].effectiveStep->max;
            QVERIFY2(max > 2.9 * bound && max <= 3 * bound * (1 + 1e-6), qPrintable(QString::number(max / bound)));
            QCOMPARE(ps[4].effectiveStep->maxVPositive, max);
            QCOMPARE(ps[4].flags, Flags({"inconsistent_moments", "saturated_step"}));
            QCOMPARE(worstFlag(ps[4]), std::string_view("inconsistent_moments"));
            QVERIFY(clean->parameters[4].effectiveStep->max < bound); // a real history stays under it
        }
        QCOMPARE(ps[1].flags, Flags({"dead_moments", "v_floor"}));
        QCOMPARE(worstFlag(ps[1]), std::string_view("dead_moments"));
        QCOMPARE(worstFlag(ps[0]), std::string_view());
        QCOMPARE(f->suspects, std::vector<size_t>({3, 4, 1}));
        QVERIFY(flagSeverity("nonfinite_moments") > flagSeverity("exploded_parameter"));
        QVERIFY(flagSeverity("exploded_moments") > flagSeverity("inconsistent_moments"));
        QVERIFY(flagSeverity("inconsistent_moments") > flagSeverity("time_mismatch"));
        QCOMPARE(flagSeverity("no_such_flag"), 0);

        const auto doc = nlohmann::json::parse(optimizerForensicsJson(p, *f));
        QVERIFY(doc["parameters"][3]["flags"] == nlohmann::json::array({"exploded_moments", "g2_far_below_v"}));
        QVERIFY(near(doc["parameters"][3]["m_hat_rms"].get<double>(), *ps[3].mHatRms));
        QVERIFY(near(doc["parameters"][3]["param_rms"].get<double>(), *ps[3].paramRms));
        QVERIFY(near(doc["parameters"][3]["step_bound"].get<double>(), bound));
    }

    /**
     * ckpt-train --diverge-at 45 (the lr × 1e6 from step 45 on): at step 60 everything is still
     * finite, the parameters are ~1e4 and the moments ~1e9; every parameter is flagged exploded, by
     * the rules applied here to figures recomputed from the record. Before the blow-up, and in the
     * same run without it, nothing is flagged at all.
     */
    void aDivergedRunIsExploded()
    {
        QTemporaryDir dir;
        const QString healthy = dir.filePath(QStringLiteral("healthy")), diverged = dir.filePath(QStringLiteral("diverged"));
        for (const QString& out : {healthy, diverged}) {
            QStringList args{QStringLiteral("--out"), out, QStringLiteral("--steps"), QStringLiteral("60"), QStringLiteral("--checkpoint-every"), QStringLiteral("20"),
                QStringLiteral("--layout"), QStringLiteral("training-record")};
            if (out == diverged)
                args << QStringLiteral("--diverge-at") << QStringLiteral("45");
            QVERIFY(testing::runTrainer(args));
        }
        for (const QString& run : {healthy, diverged})
            for (int step : {20, 40, 60}) {
                if (run == diverged && step == 60)
                    continue;
                auto r = openRecord(QDir(run).filePath(QStringLiteral("checkpoint/record-%1.mpk").arg(step)).toStdString());
                QVERIFY2(r, r ? "" : r.error().message().c_str());
                auto f = optimizerForensics(**r);
                QVERIFY(f);
                QVERIFY2(f->suspects.empty(), qPrintable(QStringLiteral("%1 step %2").arg(run).arg(step)));
                for (const auto& p : f->parameters) {
                    QVERIFY(p.paramRms && *p.paramRms < 10);
                    QVERIFY(*p.mHatRms < std::max(*p.paramRms, 1.0));
                    QVERIFY(p.effectiveStep->max < *p.stepBound);
                }
            }

        auto r = openRecord(QDir(diverged).filePath(QStringLiteral("checkpoint/record-60.mpk")).toStdString());
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        const Record& rec = **r;
        auto f = optimizerForensics(rec);
        QVERIFY2(f, f ? "" : f.error().message().c_str());
        QCOMPARE(f->parameters.size(), rec.optimizer.size());
        const double c1at60 = 1.0 - std::pow(m_beta1, 60.0);
        for (size_t i = 0; i < rec.optimizer.size(); ++i) {
            const OptimizerEntry& oe = rec.optimizer[i];
            const ParamForensics& p = f->parameters[i];
            QCOMPARE(*p.time, uint64_t(60));
            QCOMPARE(p.nonfinite, uint64_t(0)); // exploded, still finite: the existing flags said nothing
            const double w = rmsOf(rec, parameterOf(rec, oe.paramId));
            const double mHat = rmsOf(rec, stateOf(rec, oe, "moment_1")) / c1at60;
            QVERIFY(near(*p.paramRms, w, 1e-9));
            QVERIFY(near(*p.mHatRms, mHat, 1e-9));
            std::vector<std::string> expected;
            if (w >= 1e3)
                expected.emplace_back("exploded_parameter");
            if (mHat >= 1e3 * std::max(w, 1.0))
                expected.emplace_back("exploded_moments");
            QVERIFY2(!expected.empty(), oe.path.c_str());
            QCOMPARE(p.flags, expected);
            QCOMPARE(worstFlag(p), std::string_view(expected.front()));
            // Adam's state itself is consistent: m and v grew together
            QVERIFY(p.effectiveStep->max < *p.stepBound);
        }
        QCOMPARE(f->suspects.size(), rec.optimizer.size());
    }

    void hyperparametersFromTheCaller()
    {
        ForensicsOptions o;
        o.beta1 = 0.5;
        o.epsilon = 1e-3;
        auto f = optimizerForensics(*m_clean, o);
        QVERIFY(f);
        QCOMPARE(f->hyper.beta1, 0.5);
        QCOMPARE(f->hyper.beta2, m_beta2); // the recorded one where the caller gives none
        QCOMPARE(f->hyper.epsilon, 1e-3);
        o.beta1 = 1.0;
        auto bad = optimizerForensics(*m_clean, o);
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::Usage);
        ForensicsOptions e;
        e.epsilon = 0.0;
        QVERIFY(!optimizerForensics(*m_clean, e));
    }

    void recordWithoutOptimizerState()
    {
        auto model = openRecord(m_dir.filePath(QStringLiteral("checkpoint/model-1.mpk")).toStdString());
        QVERIFY2(model, model ? "" : model.error().message().c_str());
        auto f = optimizerForensics(**model);
        QVERIFY(!f);
        QVERIFY(f.error().message().find("no optimizer state") != std::string::npos);
    }

    /** The same state as Burn 0.22's optim-N.bpk: the same moments, so the same figures (bar g²/v̂: migration drops pending gradients). */
    void burnpackOptimizerFile()
    {
        auto sources = migrateSourcesOf(m_clean->file, {});
        QVERIFY2(sources, sources ? "" : sources.error().message().c_str());
        const QString out = m_dir.filePath(QStringLiteral("migrated"));
        auto res = migrateToBurnpack(*sources, out.toStdString());
        QVERIFY2(res, res ? "" : res.error().message().c_str());
        auto optim = openRecord(QDir(out).filePath(QStringLiteral("optim-25.bpk")).toStdString());
        QVERIFY2(optim, optim ? "" : optim.error().message().c_str());
        // The burnpack file carries no caller state: give the hyperparameters ckpt-train recorded.
        auto f = optimizerForensics(**optim, {.beta1 = m_beta1, .beta2 = m_beta2, .epsilon = m_eps});
        auto g = optimizerForensics(*m_clean);
        QVERIFY(f && g);
        QCOMPARE(f->parameters.size(), g->parameters.size());
        for (const auto& p : f->parameters) {
            auto same = std::ranges::find(g->parameters, p.paramId, &ParamForensics::paramId);
            QVERIFY2(same != g->parameters.end(), p.paramId.c_str());
            QCOMPARE(p.time, same->time);
            QCOMPARE(*p.mL2, *same->mL2);
            QCOMPARE(*p.vL2, *same->vL2);
            QCOMPARE(p.effectiveStep->mean, same->effectiveStep->mean);
            QCOMPARE(p.effectiveStep->saturated, same->effectiveStep->saturated);
            QVERIFY(!p.g2OverV);
        }
    }

    void sgdHasOnlyTheMomentumNorm()
    {
        QTemporaryDir dir;
        QVERIFY(testing::runTrainer({QStringLiteral("--out"), dir.path(), QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"), QStringLiteral("0.9"),
            QStringLiteral("--layout"), QStringLiteral("training-record")}));
        auto r = openRecord(dir.filePath(QStringLiteral("checkpoint/record-3.mpk")).toStdString());
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        auto f = optimizerForensics(**r);
        QVERIFY2(f, f ? "" : f.error().message().c_str());
        QCOMPARE(f->optimizer, std::string("sgd"));
        for (const auto& p : f->parameters) {
            QVERIFY(p.mL2);
            QVERIFY(!p.vL2 && !p.effectiveStep && !p.vFloorFraction && !p.deadFraction && !p.g2OverV);
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimizerForensics)
#include "tst_optimizerforensics.moc"
