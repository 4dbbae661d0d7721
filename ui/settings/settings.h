// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSettings>
#include <QString>
#include <QVariant>

namespace ckpt::ui {

/** A typed QSettings entry declared next to its use: `static Setting<int> s_bins{"stats/bins", 64};`. */
template<class T>
class Setting
{
public:
    Setting(const char* key, T defaultValue = T())
        : m_key(QString::fromLatin1(key))
        , m_default(std::move(defaultValue))
    {
    }
    T get() const { return QSettings().value(m_key, QVariant::fromValue(m_default)).template value<T>(); }
    operator T() const { return get(); }
    void set(const T& v) const { QSettings().setValue(m_key, QVariant::fromValue(v)); }

private:
    QString m_key;
    T m_default;
};

} // namespace ckpt::ui
