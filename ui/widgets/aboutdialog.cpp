// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/aboutdialog.h"

#include <ckpt_version.h>

#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QIcon>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSysInfo>
#include <QVBoxLayout>

namespace ckpt::ui {

QString buildInformation()
{
    return QStringLiteral("Checkpoint Inspector %1\n"
                          "revision: %2\n"
                          "build: %3, %4\n"
                          "Qt: built with %5, running on %6\n"
                          "platform: %7 (%8), %9")
        .arg(QStringLiteral(CKPT_VERSION), QStringLiteral(CKPT_GIT_REVISION), QStringLiteral(CKPT_BUILD_TYPE),
             QStringLiteral(CKPT_COMPILER), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()),
             QSysInfo::prettyProductName(), QSysInfo::currentCpuArchitecture(), QGuiApplication::platformName());
}

void showAboutDialog(QWidget* parent)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("About Checkpoint Inspector"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* header = new QLabel(&dialog);
    header->setTextFormat(Qt::RichText);
    header->setWordWrap(true);
    header->setText(QObject::tr(
        "<h3>Checkpoint Inspector %1</h3>"
        "<p>Look inside neural-network training checkpoints, diff them, edit what must change and "
        "resume training from them.</p>"
        "<p>Reads Burn and Ruda records (NamedMpk, NamedMpkGz, PrettyJson, JsonGz, Bin, BinGz at full, "
        "half or double precision), burn-train run directories, and ipfrs GradientCheckpoints with "
        "their CAR files.</p>"
        "<p>License: GPL-3.0-or-later.</p>")
                        .arg(QStringLiteral(CKPT_VERSION)));
    layout->addWidget(header);
    auto* details = new QPlainTextEdit(buildInformation(), &dialog);
    details->setObjectName(QStringLiteral("buildInformation"));
    details->setReadOnly(true);
    details->setMaximumHeight(details->fontMetrics().lineSpacing() * 7);
    layout->addWidget(details);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QPushButton* copy = buttons->addButton(QObject::tr("Copy build information"), QDialogButtonBox::ActionRole);
    QObject::connect(copy, &QPushButton::clicked, &dialog, [] { QApplication::clipboard()->setText(buildInformation()); });
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(560, dialog.sizeHint().height());
    dialog.exec();
}

} // namespace ckpt::ui
