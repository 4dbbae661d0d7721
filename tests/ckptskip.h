// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTest>
#include <QtGlobal>

/**
 * A Qt test that cannot run here says so and why, and is never counted as passed: ctest shows it
 * as Not Run (every ckpt_add_test sets SKIP_REGULAR_EXPRESSION to QtTest's "SKIP   : " line), and
 * under CI=true, where everything the suite needs is installed, a skip is a failure.
 */
#define CKPT_SKIP(reason)                                                                          \
    do {                                                                                           \
        if (qEnvironmentVariable("CI") == QLatin1String("true"))                                   \
            QFAIL(qPrintable(QStringLiteral("cannot run under CI: ") + (reason)));                 \
        QSKIP(qPrintable(reason));                                                                 \
    } while (false)
