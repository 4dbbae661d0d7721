// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Prints the MIME type a file manager (any QMimeDatabase / shared-mime-info reader) gives each file,
// by content only or by name and content: "FILE<TAB>content-type<TAB>name+content-type".
// tests/packaging/package_check.sh runs it with XDG_DATA_DIRS pointing into the unpacked package.
#include <QCoreApplication>
#include <QMimeDatabase>

#include <cstdio>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QMimeDatabase db;
    for (const QString& file : app.arguments().mid(1)) {
        const QString byContent = db.mimeTypeForFile(file, QMimeDatabase::MatchContent).name();
        const QString byBoth = db.mimeTypeForFile(file, QMimeDatabase::MatchDefault).name();
        std::printf("%s\t%s\t%s\n", qPrintable(file), qPrintable(byContent), qPrintable(byBoth));
    }
    return 0;
}
