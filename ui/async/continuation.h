// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QFuture>
#include <QMetaObject>
#include <QPointer>

#include <utility>

namespace ckpt::ui {

/**
 * Runs \a onResult(result) on the GUI thread when \a future finishes, unless \a context is gone by
 * then (a panel closed or a window destroyed while its worker ran). Qt 6.4's future.then(context, f)
 * asserts that the context is alive when the worker finishes (qfuture_impl.h) and otherwise hands a
 * null receiver to invokeMethod from the worker thread; here the liveness check runs on the GUI thread,
 * where the context can be destroyed, so a late result is dropped instead.
 */
template<typename T, typename F>
void whenReady(QFuture<T> future, QObject* context, F onResult)
{
    future.then([guard = QPointer<QObject>(context), onResult = std::move(onResult)](T result) mutable {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, onResult = std::move(onResult), result = std::move(result)]() mutable {
                if (guard)
                    onResult(std::move(result));
            },
            Qt::QueuedConnection);
    });
}

} // namespace ckpt::ui
