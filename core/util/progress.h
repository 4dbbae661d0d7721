// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

namespace ckpt {

/**
 * Progress report and cancel query for long synchronous work. The UI adapts it to a QPromise,
 * the CLI passes the default (no report, never cancelled). report() takes a fraction in [0, 1];
 * callers throttle themselves (at most every 0.1 %), so the callback may be cheap or expensive.
 */
struct Progress {
    std::function<void(double)> onProgress;
    std::function<bool()> isCancelled;

    void report(double fraction) const
    {
        if (onProgress)
            onProgress(fraction);
    }
    bool cancelled() const { return isCancelled && isCancelled(); }

    static const Progress& none()
    {
        static const Progress p;
        return p;
    }
};

} // namespace ckpt
