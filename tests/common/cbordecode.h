// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reads the tests and the CBOR fuzz target drive core's cbor::Decoder with, so that a bomb meets the
// same loops in both.

#include "core/codec/cbor.h"

namespace ckpt::testing {

/** \a r's error, or success whatever value it held. */
inline Result<void> discardValue(auto r)
{
    if (!r)
        return std::unexpected(r.error());
    return {};
}

/** A map of text keys to values of any shape (burnpack's metadata and scalars are such maps). */
inline Result<void> readTextKeyedMap(cbor::Decoder& d)
{
    auto h = d.mapHead("", "a map");
    if (!h)
        return std::unexpected(h.error());
    return d.forEachEntry(*h, "", [&]() -> Result<void> {
        if (auto k = d.deString(""); !k)
            return std::unexpected(k.error());
        return d.deAny("");
    });
}

} // namespace ckpt::testing
