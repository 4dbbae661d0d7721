// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/codec/twinagreement.h"

namespace ckpt {

namespace {
bool isInteger(Kind k)
{
    return k == Kind::UInt || k == Kind::Int;
}
bool isFloat(Kind k)
{
    return k == Kind::F32 || k == Kind::F64;
}
} // namespace

bool agreesWithTwin(const Tape& a, uint32_t na, const Tape& b, uint32_t nb)
{
    const Node& x = a[na];
    const Node& y = b[nb];
    if (isInteger(x.kind) && isInteger(y.kind))
        return x.payload == y.payload; // MessagePack writes a non-negative i64 like a u64: the value decides
    if (isFloat(x.kind) && isFloat(y.kind))
        return true;
    if (x.kind != y.kind)
        return false;
    switch (x.kind) {
    case Kind::Nil:
    case Kind::Bin: return true;
    case Kind::Bool: return x.payload == y.payload;
    case Kind::Str: return a.str(na) == b.str(nb);
    case Kind::Array:
    case Kind::Map: {
        if (x.count != y.count)
            return false;
        // Children in order (map keys and values interleaved), each checked by the same rules.
        for (uint32_t i = na + 1, j = nb + 1; i < x.end && j < y.end; i = a[i].end, j = b[j].end)
            if (!agreesWithTwin(a, i, b, j))
                return false;
        return true;
    }
    default: return false;
    }
}

} // namespace ckpt
