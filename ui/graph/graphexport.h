// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QGraphicsScene;

namespace ckpt::ui {

/**
 * Writes everything in \a scene to \a path: an SVG (vector shapes and text) when the name ends in
 * .svg, else a PNG on white at most 8,000 pixels a side. Returns the error, empty on success.
 */
QString exportGraphImage(QGraphicsScene& scene, const QString& path);

} // namespace ckpt::ui
