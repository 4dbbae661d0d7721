// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// sacct's parsable output and scontrol's one-line job records as the app's Resume panel and `ckpt
// timeline --slurm` read them. The sacct lines are written here in the shape sacct(1) documents for
// --noheader --parsable2 (fields split by '|', states like "CANCELLED by 1000", exit codes
// "code:signal", array tasks "JOB_TASK" and pending ranges "JOB_[A-B]"), not captured from a cluster:
// the private test cluster has no accounting (slurmdbd), so there the callers' fallback to scontrol is
// what runs (tests/slurm: tst_cluster_timeline and tst_slurmresume read that cluster's real scontrol
// output through parseScontrolJobs). The scontrol lines below are likewise written in the shape of
// `scontrol --oneliner show job` (KEY=VALUE words, one line a job or array task), shortened.

#include "core/run/slurmaccounting.h"
#include "core/run/slurmjob.h"

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

    void scontrolJobsAndArrayTasks()
    {
        const auto jobs = parseScontrolJobs(
            "JobId=41 JobName=ckpt-timeline-merge UserId=root(0) JobState=COMPLETED Reason=None Dependency=(null) ExitCode=0:0 NodeList=n1\n"
            "JobId=43 ArrayJobId=42 ArrayTaskId=2 JobName=ckpt-timeline JobState=CANCELLED Reason=None ExitCode=0:9\n"
            "JobId=42 ArrayJobId=42 ArrayTaskId=3-5 JobState=PENDING Reason=Dependency ExitCode=0:0\n"
            "JobId=44 ArrayJobId=42 ArrayTaskId=1 JobState=FAILED ExitCode=2:0 Command=/a\tJobState=RUNNING\r\n"
            "\n"
            "slurm_load_jobs error: Invalid job id specified\n");
        QCOMPARE(jobs.size(), size_t(4));
        QCOMPARE(jobs[0].arrayTask, std::nullopt); // a job of its own
        QCOMPARE(jobs[0].state, std::string("COMPLETED"));
        QCOMPARE(jobs[0].exitCode, std::optional<int>(0));
        QCOMPARE(jobs[1].arrayTask, std::optional<unsigned>(2));
        QCOMPARE(jobs[1].state, std::string("CANCELLED"));
        QCOMPARE(jobs[2].arrayTask, std::nullopt); // the tasks not started: a range, no one task
        QCOMPARE(jobs[2].state, std::string("PENDING"));
        QCOMPARE(jobs[3].arrayTask, std::optional<unsigned>(1));
        QCOMPARE(jobs[3].state, std::string("FAILED")); // the first JobState= of the line counts
        QCOMPARE(jobs[3].exitCode, std::optional<int>(2));
        QVERIFY(parseScontrolJobs("").empty());
        QCOMPARE(parseScontrolJobs("JobId=45 ArrayTaskId=99999999999999999999 JobState=RUNNING").front().arrayTask, std::nullopt);
    }

    /** Following a job (core/run/slurmjob.h): the id sbatch printed, squeue's lines, how the job ended. */
    void followingAJob()
    {
        QCOMPARE(sbatchJobId("4711\n"), std::optional<std::string>("4711"));
        QCOMPARE(sbatchJobId("4711;cluster-a\n"), std::optional<std::string>("4711"));
        QCOMPARE(sbatchJobId("sbatch: error: invalid partition\n"), std::nullopt);
        QCOMPARE(sbatchJobId(""), std::nullopt);

        SlurmQueueState q = parseSqueue(true, "4711 RUNNING None\n");
        QVERIFY(q.queued && !q.neverRuns);
        QCOMPARE(q.state, std::string("RUNNING"));
        q = parseSqueue(true, "4712 PENDING DependencyNeverSatisfied\n");
        QVERIFY(q.queued && q.neverRuns);
        QCOMPARE(q.state, std::string("PENDING"));
        QVERIFY(!parseSqueue(true, "\n").queued);                  // listed no more
        QVERIFY(!parseSqueue(false, "4711 RUNNING None\n").queued); // squeue failed: an id it forgot
        QCOMPARE(squeueArguments("4711").back(), std::string("--format=%i %T %r"));

        const auto sacct = jobEndFromSacct("4711|FAILED|2:0\n4711.batch|FAILED|2:0\n", "4711");
        QVERIFY(sacct && sacct->state == "FAILED" && sacct->exitCode == 2);
        QVERIFY(!jobEndFromSacct("4710|COMPLETED|0:0\n", "4711"));
        const auto controller = jobEndFromScontrol("JobId=4711 JobName=x JobState=COMPLETED Reason=None ExitCode=0:0\n");
        QVERIFY(controller && controller->state == "COMPLETED" && controller->exitCode == 0);
        QVERIFY(!jobEndFromScontrol(""));
        QVERIFY(slurmJobSucceeded("COMPLETED", 0));
        QVERIFY(!slurmJobSucceeded("COMPLETED", 1));
        QVERIFY(!slurmJobSucceeded("COMPLETED", std::nullopt));
        QVERIFY(!slurmJobSucceeded("TIMEOUT", 0));

        // Accounting first; the controller for the tasks it does not list.
        const auto tasks = arrayTaskStates("4711_1|COMPLETED|0:0\n4711_2|FAILED|1:0\n",
            "JobId=4713 ArrayJobId=4711 ArrayTaskId=2 JobState=COMPLETED\nJobId=4714 ArrayJobId=4711 ArrayTaskId=3 JobState=TIMEOUT\n", "4711");
        QCOMPARE(tasks.size(), size_t(3));
        QCOMPARE(tasks.at(2), std::string("FAILED"));
        QCOMPARE(tasks.at(3), std::string("TIMEOUT"));
    }
};

QTEST_GUILESS_MAIN(TestSlurmAccounting)
#include "tst_slurmaccounting.moc"
