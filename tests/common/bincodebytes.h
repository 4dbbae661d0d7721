// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the bincode tests (tst_bincode, tst_bincodetwin) write their expected bytes with: hex text,
// and core's encoder run on a tape (its error printed, an empty result on failure).

#include "core/codec/bincode.h"
#include "core/io/sink.h"

#include <QtGlobal>

#include <cstdint>
#include <string_view>
#include <vector>

namespace ckpt::test {

/** "03 fb2c01": hex digit pairs (lower case), spaces between them ignored. */
inline std::vector<uint8_t> hexBytes(std::string_view h)
{
    std::vector<uint8_t> out;
    auto nib = [](char c) {
        return c <= '9' ? c - '0' : c - 'a' + 10;
    };
    for (size_t i = 0; i + 1 < h.size();) {
        if (h[i] == ' ') {
            ++i;
            continue;
        }
        out.push_back(static_cast<uint8_t>(nib(h[i]) * 16 + nib(h[i + 1])));
        i += 2;
    }
    return out;
}

/** The tape \a t encoded as \a s's root type; empty (and the error printed) when it cannot be. */
inline std::vector<uint8_t> encode(const Tape& t, const BincodeSchema& s)
{
    Sink sink;
    auto r = writeBincode(t, t.root(), s, sink);
    if (!r)
        qWarning("%s", r.error().message().c_str());
    return r ? sink.buffer() : std::vector<uint8_t>{};
}

} // namespace ckpt::test
