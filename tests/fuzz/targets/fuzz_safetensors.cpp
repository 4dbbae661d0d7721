// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors files (core/export): the header reader and its layout checks, then import of what it
// accepts into a small record whose tensor names the corpus uses (item.a.param F32 [2, 2], item.b.param U8 [3]).
#include "core/export/export.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

std::shared_ptr<const ckpt::Record> target()
{
    using namespace ckpt;
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full));
    b.beginMap();
    auto param = [&](const char* name, const char* dtype, std::vector<uint64_t> shape, std::vector<uint8_t> bytes, uint64_t id) {
        b.key(name);
        b.beginMap();
        b.key("id");
        b.str(paramIdFromU64(id));
        b.key("param");
        ckpt::writeTensorData(b, dtype, shape, bytes);
        b.end();
    };
    param("a", "F32", {2, 2}, std::vector<uint8_t>(16, 0), 1);
    param("b", "U8", {3}, {1, 2, 3}, 2);
    b.end();
    endEnvelope(b);
    auto r = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "target.mpk");
    return r ? *r : nullptr;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const auto record = target();
    auto file = ckpt::readSafetensors(ckpt::makeBytes(std::vector<uint8_t>(data, data + size)), "fuzz.safetensors");
    if (!file)
        return 0;
    // Every view must lie inside the input: read each byte (ASan reports one that does not).
    volatile uint64_t sum = 0;
    for (const auto& t : file->tensors)
        for (uint8_t byte : t.data)
            sum = sum + byte;
    ckpt::ImportSummary summary;
    if (record)
        (void)ckpt::importedEnvelope(*record, *file, summary);
    return 0;
}
