// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The CBOR codec (core/codec/cbor) on its own: heads, and the ciborium-exact Decoder reading items
// one after the other with the reader the first byte picks (any item, string, sequence of u64, map
// entries, integer, enum), so depth and length bombs reach every loop without a container format
// around them. Every error names an offset inside the input (or its end); what the writer writes
// from the input's first bytes reads back to the same value.
#include "core/codec/cbor.h"
#include "tests/common/cbordecode.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace ckpt;
using namespace ckpt::cbor;

constexpr uint64_t kBase = 1; // the mode byte precedes the blob: offsets are in the whole input

Result<void> readOne(Decoder& d, uint8_t mode)
{
    switch (mode % 6) {
    case 0: return d.deAny("");
    case 1: return testing::discardValue(d.deString(""));
    case 2: return testing::discardValue(d.deSeqU64("", (mode & 8) ? std::optional<size_t>(2) : std::nullopt));
    case 3: return testing::readTextKeyedMap(d);
    case 4: return testing::discardValue(d.deInteger(""));
    default:
        return d.deEnum("", "an enum",
            [&](const std::string&, bool asMap, uint64_t, const Head&) -> Result<void> { return asMap ? d.deAny("") : Result<void>(); });
    }
}

void decodeAll(std::span<const uint8_t> blob, uint8_t mode, size_t size)
{
    Decoder d(blob, kBase, "fuzz: ", 128);
    while (d.consumed() < blob.size()) {
        const size_t before = d.consumed();
        auto r = readOne(d, mode);
        if (!r) {
            if (!r.error().offset || *r.error().offset < kBase || *r.error().offset > size)
                std::abort();
            break;
        }
        if (d.consumed() > blob.size())
            std::abort();
        if (d.consumed() == before)
            break; // an enum's pushed-back head, read by nobody
    }
    for (const auto& w : d.warnings())
        if (w.offset > size)
            std::abort();
}

void heads(std::span<const uint8_t> blob)
{
    size_t pos = 0;
    while (pos < blob.size()) {
        const size_t before = pos;
        auto h = readHead(blob, pos);
        if (!h) {
            if (pos != before)
                std::abort(); // an error leaves pos on the offending byte
            return;
        }
        if (pos <= before || pos > blob.size())
            std::abort();
    }
}

// The writer's integers, floats and texts read back as they were.
void roundTrips(std::span<const uint8_t> blob)
{
    if (blob.size() < 8)
        return;
    uint64_t v = 0;
    std::memcpy(&v, blob.data(), 8);
    std::vector<uint8_t> out;
    appendUnsigned(out, v);
    appendInt(out, std::bit_cast<int64_t>(v));
    appendFloat(out, std::bit_cast<double>(v));
    const std::string text(reinterpret_cast<const char*>(blob.data()), blob.size());
    appendText(out, text);
    Decoder d(out, 0, "round trip: ", 128);
    auto u = d.deU64("");
    auto i = d.deI64("");
    auto f = d.deF64("");
    if (!u || *u != v || !i || *i != std::bit_cast<int64_t>(v) || !f)
        std::abort();
    const double want = std::bit_cast<double>(v);
    if (std::isnan(want) ? !std::isnan(*f) : std::bit_cast<uint64_t>(*f) != v)
        std::abort();
    auto s = d.deString("");
    if (s && *s != text)
        std::abort(); // invalid UTF-8 is refused; anything else comes back as it went
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    // a copy of exactly the input's length, so that ASan sees a read past its end
    const std::vector<uint8_t> bytes(data + 1, data + size);
    const std::span<const uint8_t> blob(bytes);
    decodeAll(blob, data[0], size);
    heads(blob);
    roundTrips(blob);
    return 0;
}
