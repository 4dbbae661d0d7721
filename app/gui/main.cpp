// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/bytes.h"
#include "ui/launcher.h"

#include <ckpt_version.h>

#include <QApplication>
#include <QIcon>

#include <cstdio>
#include <exception>
#include <new>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    // An open record truncated on disk (a run rewriting its checkpoint) must not kill the app: the
    // pages past the new end read as zeros and the window says the file changed.
    ckpt::guardMappedFiles();
    QApplication::setOrganizationName(QStringLiteral("CheckpointInspector"));
    QApplication::setApplicationName(QStringLiteral("checkpoint-inspector"));
    QApplication::setApplicationVersion(QStringLiteral(CKPT_VERSION));
    // the icon lives in ckpt_ui's resources (a static library needs the explicit init)
    Q_INIT_RESOURCE(resources);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/checkpoint-inspector.svg")));
    // The last resort, not the error handling (core returns errors as values and never throws): an
    // exception that still reaches here (an allocation the machine cannot make, a bug) ends as one
    // line and exit 1 instead of std::terminate's abort.
    try {
        return ckpt::ui::runInspector(app);
    } catch (const std::bad_alloc&) {
        std::fputs("checkpoint-inspector: out of memory\n", stderr);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "checkpoint-inspector: internal error: %s\n", e.what());
    } catch (...) {
        std::fputs("checkpoint-inspector: internal error: unknown exception\n", stderr);
    }
    return 1;
}
