// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "partialmodel.h"

#include "core/open/formats.h"
#include "core/pack/burnpack.h"
#include "core/pack/burnpackrecord.h"

namespace testing {

QString writeModelWithoutLastParameter(const QString& whole, const QString& out)
{
    auto model = ckpt::openRecord(whole.toStdString());
    if (!model || (*model)->parts.empty())
        return {};
    auto group = ckpt::pack::contentOf(ckpt::burnpackFileOf((*model)->parts.front()));
    if (group.tensors.empty())
        return {};
    const QString lacking = QString::fromStdString(group.tensors.back().name);
    group.tensors.pop_back();
    return ckpt::pack::writeBurnpack(out.toStdString(), group) ? lacking : QString();
}

} // namespace testing
