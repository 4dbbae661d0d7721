// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/codec/twinagreement.h"

#include "core/codec/bincodewire.h"

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
/** An integer node, or 16 big-endian bytes, as 128 bits (two's complement). */
UInt128 as128(const Tape& t, uint32_t n)
{
    if (t[n].kind == Kind::Bin)
        return bincode_detail::get128BigEndian(t.bin(n).data());
    return t[n].kind == Kind::UInt ? t.u128(n) : static_cast<UInt128>(t.i128(n));
}
} // namespace

bool agreesWithTwin(const Tape& a, uint32_t na, const Tape& b, uint32_t nb)
{
    const Node& x = a[na];
    const Node& y = b[nb];
    // MessagePack writes a non-negative i64 like a u64: the value decides. A u128/i128 is 16 bytes in
    // MessagePack (and as bincode decodes it) and digits in JSON: compared as 128 bits.
    if (isInteger(x.kind) && isInteger(y.kind))
        return x.payload == y.payload && x.count == y.count && a.isWide(na) == b.isWide(nb);
    if ((isInteger(x.kind) && y.kind == Kind::Bin && y.count == 16) || (x.kind == Kind::Bin && x.count == 16 && isInteger(y.kind)))
        return as128(a, na) == as128(b, nb);
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
