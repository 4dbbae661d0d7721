// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/checkpointfiles.h"

#include "core/graph/locate.h"
#include "core/io/bytes.h"

#include <cstring>

namespace ckpt {

Result<std::shared_ptr<const CarStore>> openCarFile(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto store = CarStore::open(*bytes);
    if (!store)
        return std::unexpected(std::move(store.error()).withFile(path));
    return std::make_shared<const CarStore>(std::move(*store));
}

Result<GradientCheckpointFiles> openGradientCheckpointFiles(const std::string& path, const std::optional<std::string>& carPath)
{
    GradientCheckpointFiles out;
    out.path = path;
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto checkpoint = loadGradientCheckpoint(*bytes, true);
    if (!checkpoint)
        return std::unexpected(std::move(checkpoint.error()).withFile(path));
    out.checkpoint = std::move(*checkpoint);
    out.carPath = carPath ? carPath : carBeside(path);
    if (out.carPath) {
        auto car = openCarFile(*out.carPath);
        if (car)
            out.car = std::move(*car);
        else if (carPath)
            return std::unexpected(std::move(car.error()));
        else
            out.carError = std::move(car.error());
    }
    return out;
}

std::optional<double> lossValueOf(const CarStore* car, const std::optional<std::string>& lossCid)
{
    if (!car || !lossCid)
        return std::nullopt;
    auto block = car->resolve(*lossCid);
    if (!block || block->size() != 4)
        return std::nullopt;
    float f;
    std::memcpy(&f, block->data(), 4);
    return double(f);
}

} // namespace ckpt
