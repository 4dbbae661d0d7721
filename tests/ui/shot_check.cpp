// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-shot-check: judges one screenshot of the app by its pixels, so that a panel that stayed empty,
// a blank or uniform grab, or a --panel that did not switch fails tests/ui/screenshots.cmake.
//
//   ckpt-shot-check SHOT.png --size WxH --empty EMPTY.png [--region-from EMPTY_OTHER.png]
//                   [--min-changed F] [--distinct-from OTHER.png ...]
//
// SHOT     the window with its input loaded and the panel in front
// EMPTY    the same panel in front with nothing loaded (the app's empty state)
// region   the pixels where EMPTY differs from EMPTY_OTHER (another panel in front, nothing loaded) are
//          where the panel itself is drawn; their bounding box is the panel's region. Without
//          --region-from the whole window is the region.
// Checks: the size; at least 64 colours and no colour on more than 90% of the pixels; at least F
// (default 0.02) of the region's pixels differ from EMPTY (the loaded data was drawn in the panel);
// SHOT differs from every OTHER in at least 0.5% of the pixels (each panel shows something of its own).
// Prints the figures on one line; exit 1 with the reason on the first failed check, 2 on usage errors.
#include <QCoreApplication>
#include <QHash>
#include <QImage>
#include <QRect>
#include <QStringList>

#include <cstdio>

namespace {

QImage load(const QString& path)
{
    QImage image(path);
    return image.isNull() ? image : image.convertToFormat(QImage::Format_RGB32);
}

/** Fraction of the pixels of \a region that differ between \a a and \a b (same size). */
double changedFraction(const QImage& a, const QImage& b, const QRect& region)
{
    uint64_t changed = 0;
    for (int y = region.top(); y <= region.bottom(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pb = reinterpret_cast<const QRgb*>(b.constScanLine(y));
        for (int x = region.left(); x <= region.right(); ++x)
            changed += pa[x] != pb[x];
    }
    return double(changed) / double(uint64_t(region.width()) * uint64_t(region.height()));
}

/** Bounding box of the pixels where \a a and \a b differ (empty when they are identical). */
QRect differenceBox(const QImage& a, const QImage& b)
{
    QRect box;
    for (int y = 0; y < a.height(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pb = reinterpret_cast<const QRgb*>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x)
            if (pa[x] != pb[x])
                box |= QRect(x, y, 1, 1);
    }
    return box;
}

int fail(const QString& shot, const QString& why)
{
    std::fprintf(stderr, "ckpt-shot-check: %s: %s\n", qPrintable(shot), qPrintable(why));
    return 1;
}

int usage(const char* why)
{
    std::fprintf(stderr, "ckpt-shot-check: %s\nusage: ckpt-shot-check SHOT.png --size WxH --empty EMPTY.png "
                         "[--region-from EMPTY_OTHER.png] [--min-changed F] [--distinct-from OTHER.png ...]\n", why);
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv); // QImage reads PNG without a platform plugin
    QStringList args = app.arguments().mid(1);
    QString shotPath, emptyPath, regionFrom;
    QStringList others;
    int width = 0, height = 0;
    double minChanged = 0.02;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == QLatin1String("--size") && hasValue) {
            const QStringList wh = args[++i].split(QLatin1Char('x'));
            width = wh.value(0).toInt();
            height = wh.value(1).toInt();
        } else if (a == QLatin1String("--empty") && hasValue) {
            emptyPath = args[++i];
        } else if (a == QLatin1String("--region-from") && hasValue) {
            regionFrom = args[++i];
        } else if (a == QLatin1String("--min-changed") && hasValue) {
            minChanged = args[++i].toDouble();
        } else if (a == QLatin1String("--distinct-from")) {
            while (i + 1 < args.size() && !args[i + 1].startsWith(QLatin1String("--")))
                others << args[++i];
        } else if (shotPath.isEmpty() && !a.startsWith(QLatin1String("--"))) {
            shotPath = a;
        } else {
            return usage(qPrintable(QStringLiteral("unexpected argument ") + a));
        }
    }
    if (shotPath.isEmpty() || emptyPath.isEmpty() || width <= 0 || height <= 0)
        return usage("SHOT, --size and --empty are required");

    const QImage shot = load(shotPath), empty = load(emptyPath);
    if (shot.isNull())
        return fail(shotPath, QStringLiteral("not a readable image"));
    if (shot.width() != width || shot.height() != height)
        return fail(shotPath, QStringLiteral("%1x%2 pixels, expected %3x%4").arg(shot.width()).arg(shot.height()).arg(width).arg(height));
    if (empty.size() != shot.size())
        return fail(emptyPath, QStringLiteral("not a readable image of the shot's size"));

    QHash<QRgb, uint64_t> colours;
    for (int y = 0; y < shot.height(); ++y) {
        const auto* p = reinterpret_cast<const QRgb*>(shot.constScanLine(y));
        for (int x = 0; x < shot.width(); ++x)
            ++colours[p[x]];
    }
    uint64_t commonest = 0;
    for (auto it = colours.cbegin(); it != colours.cend(); ++it)
        commonest = std::max(commonest, it.value());
    const double commonestShare = double(commonest) / double(uint64_t(width) * uint64_t(height));

    QRect region = shot.rect();
    if (!regionFrom.isEmpty()) {
        const QImage other = load(regionFrom);
        if (other.size() != shot.size())
            return fail(regionFrom, QStringLiteral("not a readable image of the shot's size"));
        region = differenceBox(empty, other);
        if (region.isEmpty())
            return fail(regionFrom, QStringLiteral("identical to %1: the panel's region cannot be told").arg(emptyPath));
    }
    const double changed = changedFraction(shot, empty, region);

    std::printf("%s: %dx%d, %lld colours, commonest on %.1f%%, region %dx%d+%d+%d, %.1f%% of it changed by loading\n",
        qPrintable(shotPath), width, height, static_cast<long long>(colours.size()), 100 * commonestShare, region.width(),
        region.height(), region.x(), region.y(), 100 * changed);
    if (colours.size() < 64)
        return fail(shotPath, QStringLiteral("only %1 colours: a blank or uniform grab").arg(colours.size()));
    if (commonestShare > 0.9)
        return fail(shotPath, QStringLiteral("one colour covers %1% of the window").arg(100 * commonestShare, 0, 'f', 1));
    if (changed < minChanged)
        return fail(shotPath, QStringLiteral("only %1% of the panel's region differs from the empty window (at least %2% expected): "
                                             "the loaded data was not drawn")
                                  .arg(100 * changed, 0, 'f', 2).arg(100 * minChanged, 0, 'f', 2));
    for (const QString& o : others) {
        const QImage other = load(o);
        if (other.size() != shot.size())
            return fail(o, QStringLiteral("not a readable image of the shot's size"));
        const double d = changedFraction(shot, other, shot.rect());
        if (d < 0.005)
            return fail(shotPath, QStringLiteral("differs from %1 in only %2% of the pixels: the panel did not come to the front")
                                      .arg(o).arg(100 * d, 0, 'f', 2));
    }
    return 0;
}
