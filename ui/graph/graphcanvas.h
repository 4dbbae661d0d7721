// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsView>

namespace ckpt::ui {

/** The view: wheel zoom around the cursor, drag to pan, fit. Reports every change of the visible area. */
class GraphCanvas : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);
    void zoomBy(double factor);
    void fit();
    /** Keep fitting the whole graph on resizes until the user zooms. */
    void setAutoFit(bool on) { m_autoFit = on; }
    bool autoFit() const { return m_autoFit; }
    /** The scene rectangle currently visible. */
    QRectF visibleSceneRect() const;

Q_SIGNALS:
    void viewportChanged();
    void itemDoubleClicked(QGraphicsItem* item);
    void resized();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    bool m_autoFit = true;
};

} // namespace ckpt::ui
