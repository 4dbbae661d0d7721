// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The pure parts of `ckpt verify-resume`: the single-pass placeholder expansion (the app's resume
// profiles' behaviour, ui/process/resumeprofile.cpp) and the identical / within tolerance / diverged
// judgement of a diff under the three tolerances (core/run/resumeverify.h).
#include "core/run/placeholders.h"
#include "core/run/resumeverify.h"

#include <QTest>

#include <cmath>

using namespace ckpt;

namespace {

TensorDiff tensor(const std::string& path, double relL2, double maxAbs, bool byteEqual = false)
{
    TensorDiff e;
    e.path = path;
    e.byteEqual = byteEqual;
    e.status = DiffStatus::Unchanged; // the judgement's diff runs with tolerance DBL_MAX
    e.relL2 = relL2;
    e.maxAbs = maxAbs;
    return e;
}

StateDiff state(const std::string& path, StateSection section, std::string a, std::string b)
{
    StateDiff s;
    s.path = path;
    s.section = section;
    s.a = std::move(a);
    s.b = std::move(b);
    return s;
}

} // namespace

class TestResumeVerify : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void placeholdersInOnePass()
    {
        PlaceholderValues v{"/r/{out}.mpk", "/r", "8", "/tmp/o {dir}"};
        QCOMPARE(expandPlaceholders("--resume={record}", v), std::string("--resume=/r/{out}.mpk"));
        QCOMPARE(expandPlaceholders("{out}/{step}", v), std::string("/tmp/o {dir}/8"));
        QCOMPARE(expandPlaceholders("{dir}{dir}", v), std::string("/r/r"));
        QCOMPARE(expandPlaceholders("{unknown} {step", v), std::string("{unknown} {step"));
        QCOMPARE(expandPlaceholders("", v), std::string());
        QCOMPARE(expandPlaceholders("{{step}}", v), std::string("{8}"));
    }

    void tolerancesByName()
    {
        for (auto t : {ResumeTolerance::Exact, ResumeTolerance::Strict, ResumeTolerance::Relaxed})
            QCOMPARE(resumeToleranceFromName(resumeToleranceName(t)), std::optional(t));
        QVERIFY(!resumeToleranceFromName("loose"));
        QVERIFY(kStrictRelL2 < kRelaxedRelL2);
    }

    void identicalOnlyWhenEverythingIsByteEqual()
    {
        RecordDiff d;
        d.entries.push_back(tensor("a", 0, 0, true));
        for (auto t : {ResumeTolerance::Exact, ResumeTolerance::Strict, ResumeTolerance::Relaxed}) {
            const auto j = judgeResume(d, t);
            QCOMPARE(j.verdict, ResumeVerdict::Identical);
            QVERIFY(j.differences.empty());
        }
        // Equal values with different bytes (-0 against 0) are not exact.
        d.entries.push_back(tensor("b", 0, 0));
        QCOMPARE(judgeResume(d, ResumeTolerance::Exact).verdict, ResumeVerdict::Diverged);
        QCOMPARE(judgeResume(d, ResumeTolerance::Strict).verdict, ResumeVerdict::WithinTolerance);
    }

    void tolerancesBoundRelL2()
    {
        RecordDiff d;
        d.entries.push_back(tensor("small", 5e-7, 1e-7));
        d.entries.push_back(tensor("medium", 5e-4, 1e-4));
        auto j = judgeResume(d, ResumeTolerance::Strict);
        QCOMPARE(j.verdict, ResumeVerdict::Diverged);
        QCOMPARE(j.differences.size(), size_t(2));
        QCOMPARE(j.differences[0].path, std::string("medium")); // largest first
        QVERIFY(j.differences[0].aboveTolerance);
        QVERIFY(!j.differences[1].aboveTolerance);
        QCOMPARE(j.differences[0].status, std::string("changed"));
        j = judgeResume(d, ResumeTolerance::Relaxed);
        QCOMPARE(j.verdict, ResumeVerdict::WithinTolerance);
        QCOMPARE(j.differences.size(), size_t(2)); // listed, though within tolerance
        // A NaN against a number (counted in `differing` by a DBL_MAX diff) is never within tolerance.
        d.entries[0].differing = 1;
        QCOMPARE(judgeResume(d, ResumeTolerance::Relaxed).verdict, ResumeVerdict::Diverged);
        // A missing tensor sorts first.
        d.entries[0].differing = 0;
        TensorDiff removed;
        removed.path = "gone";
        removed.status = DiffStatus::Removed;
        d.entries.push_back(removed);
        j = judgeResume(d, ResumeTolerance::Relaxed);
        QCOMPARE(j.verdict, ResumeVerdict::Diverged);
        QCOMPARE(j.differences[0].path, std::string("gone"));
        QVERIFY(!j.differences[0].relL2);
    }

    void stateFieldsPerTolerance()
    {
        RecordDiff d;
        d.state.push_back(state("metadata.time", StateSection::Metadata, "\"10:00\"", "\"10:05\""));
        d.state.push_back(state("item[4].progress.last_loss", StateSection::CallerState, "0.5", "0.5000001"));
        QCOMPARE(judgeResume(d, ResumeTolerance::Exact).verdict, ResumeVerdict::Diverged);
        QCOMPARE(judgeResume(d, ResumeTolerance::Strict).verdict, ResumeVerdict::Diverged);
        auto j = judgeResume(d, ResumeTolerance::Relaxed);
        QCOMPARE(j.verdict, ResumeVerdict::WithinTolerance);
        QVERIFY(j.differences[0].isState);
        d.state.push_back(state("item[4].config.seed", StateSection::CallerState, "42", "99"));
        j = judgeResume(d, ResumeTolerance::Relaxed);
        QCOMPARE(j.verdict, ResumeVerdict::Diverged);
        QVERIFY(j.differences[2].aboveTolerance);
    }
};

QTEST_GUILESS_MAIN(TestResumeVerify)
#include "tst_resumeverify.moc"
