// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The pickle machine (core/torch/pickle): any byte string is unpickled; every rejection names an
// offset inside the input, and what is accepted is internally consistent (every object index, storage
// and tensor reference in range), so the record builder after it can trust the arena.
#include "core/torch/pickle.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace ckpt::torch;
    auto p = unpickle(std::span<const uint8_t>(data, size));
    if (!p) {
        if (!p.error().offset || *p.error().offset > size)
            std::abort();
        return 0;
    }
    if (p->end > size || p->root >= p->objects.size())
        std::abort();
    for (const PyObject& o : p->objects) {
        for (uint32_t i : o.items)
            if (i >= p->objects.size())
                std::abort();
        if ((o.kind == PyKind::Tensor && o.ref >= p->tensors.size()) || (o.kind == PyKind::Storage && o.ref >= p->storages.size()))
            std::abort();
    }
    for (const PickledTensor& t : p->tensors)
        if (t.storage >= p->storages.size() || t.shape.size() != t.stride.size())
            std::abort();
    return 0;
}
