// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/bytes.h"
#include "core/util/lastresort.h"
#include "ui/launcher.h"

#include <ckpt_version.h>

#include <QApplication>
#include <QIcon>

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
    return ckpt::runWithLastResort("checkpoint-inspector", [&] { return ckpt::ui::runInspector(app); });
}
