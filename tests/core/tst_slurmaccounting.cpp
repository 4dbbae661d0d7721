// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// sacct's parsable output as the app's Resume panel and `ckpt timeline --slurm` read it. The lines are
// written here in the shape sacct(1) documents for --noheader --parsable2 (fields split by '|', states
// like "CANCELLED by 1000", exit codes "code:signal", array tasks "JOB_TASK" and pending ranges
// "JOB_[A-B]"), not captured from a cluster: the private test cluster has no accounting (slurmdbd), so
// there the callers' fallback to scontrol is what runs (tests/slurm).

#include "core/run/slurmaccounting.h"

#include <QTest>

using namespace ckpt;

class TestSlurmAccounting : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void arrayTasksAndTheirStates()
    {
        const auto records = parseSacct("4711_1|COMPLETED|0:0\n"
                                        "4711_2|CANCELLED by 1000|0:9\n"
                                        "4711_3|FAILED|2:0\n"
                                        "4711_[4-6]|PENDING|0:0\n"
                                        "4712|COMPLETED|0:0\n");
        QCOMPARE(records.size(), size_t(5));
        QCOMPARE(records[1].jobId, std::string("4711_2"));
        QCOMPARE(records[1].state, std::string("CANCELLED")); // the first word: "by 1000" is who
        QCOMPARE(records[1].exitCode, std::optional<int>(0)); // the signal after ':' is not the exit code
        QCOMPARE(records[2].exitCode, std::optional<int>(2));
        QCOMPARE(sacctArrayTask(records[0].jobId, "4711"), std::optional<unsigned>(1));
        QCOMPARE(sacctArrayTask(records[2].jobId, "4711"), std::optional<unsigned>(3));
        QCOMPARE(sacctArrayTask(records[3].jobId, "4711"), std::nullopt); // tasks not started: no one task
        QCOMPARE(sacctArrayTask(records[4].jobId, "4711"), std::nullopt); // another job
        QCOMPARE(sacctArrayTask("47111_1", "4711"), std::nullopt);        // a job whose id merely starts alike
        QCOMPARE(sacctArrayTask("4711_1.batch", "4711"), std::nullopt);   // a step, not the task
        QCOMPARE(sacctArrayTask("4711_", "4711"), std::nullopt);
        QCOMPARE(sacctArrayTask("4711_1", ""), std::nullopt);
    }

    void whatIsNotARecordIsSkipped()
    {
        // an error message, blank lines, a line without a state, Windows line ends, no exit code field
        const auto records = parseSacct("sacct: error: Slurm accounting storage is disabled\n\n|RUNNING|0:0\n4713||0:0\n4714|TIMEOUT|0:15\r\n4715|RUNNING\n");
        QCOMPARE(records.size(), size_t(2));
        QCOMPARE(records[0].jobId, std::string("4714"));
        QCOMPARE(records[0].state, std::string("TIMEOUT"));
        QCOMPARE(records[0].exitCode, std::optional<int>(0));
        QCOMPARE(records[1].state, std::string("RUNNING"));
        QCOMPARE(records[1].exitCode, std::nullopt);
        QVERIFY(parseSacct("").empty());
        QVERIFY(parseSacct("4716|COMPLETED|x:0").front().exitCode == std::nullopt); // not a number
    }
};

QTEST_GUILESS_MAIN(TestSlurmAccounting)
#include "tst_slurmaccounting.moc"
