// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphexport.h"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QScopeGuard>
#include <QSvgGenerator>

#include <algorithm>
#include <utility>
#include <vector>

namespace ckpt::ui {

QString exportGraphImage(QGraphicsScene& scene, const QString& path)
{
    const QRectF bounds = scene.itemsBoundingRect().adjusted(-10, -10, 10, 10);
    // Boxes keep a pixmap cache for panning; an export paints them anew, so an SVG gets vector
    // shapes and text (not embedded bitmaps) and a PNG is drawn at its own resolution.
    std::vector<std::pair<QGraphicsItem*, QGraphicsItem::CacheMode>> cached;
    for (QGraphicsItem* item : scene.items())
        if (item->cacheMode() != QGraphicsItem::NoCache) {
            cached.emplace_back(item, item->cacheMode());
            item->setCacheMode(QGraphicsItem::NoCache);
        }
    const auto restoreCache = qScopeGuard([&] {
        for (const auto& [item, mode] : cached)
            item->setCacheMode(mode);
    });
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(bounds.size().toSize());
        gen.setViewBox(QRectF(QPointF(0, 0), bounds.size()));
        QPainter p(&gen);
        scene.render(&p, QRectF(QPointF(0, 0), bounds.size()), bounds);
        return p.end() ? QString() : QObject::tr("could not write %1").arg(path);
    }
    const double scale = std::min(1.0, 8000.0 / std::max(bounds.width(), bounds.height()));
    QImage image((bounds.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    scene.render(&p, QRectF(image.rect()), bounds);
    p.end();
    return image.save(path) ? QString() : QObject::tr("could not write %1").arg(path);
}


} // namespace ckpt::ui
