// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/launcher.h"

#include <ckpt_version.h>

#include <QApplication>
#include <QIcon>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("CheckpointInspector"));
    QApplication::setApplicationName(QStringLiteral("checkpoint-inspector"));
    QApplication::setApplicationVersion(QStringLiteral(CKPT_VERSION));
    // the icon lives in ckpt_ui's resources (a static library needs the explicit init)
    Q_INIT_RESOURCE(resources);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/checkpoint-inspector.svg")));
    return ckpt::ui::runInspector(app);
}
