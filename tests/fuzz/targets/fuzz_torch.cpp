// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Whole torch.save files through the registry (core/torch: the zip container, the legacy format, the
// pickle machine, the record builder): every rejection is one error with an offset in the input, and
// every tensor of an accepted file is read byte for byte (ASan reports a view outside its storage)
// and its statistics computed.
#include "core/open/formats.h"
#include "core/torch/torchformat.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    ckpt::OpenOptions options;
    options.assumeRecorder = ckpt::Recorder::PyTorch;
    auto r = ckpt::openRecordBytes(bytes, "fuzz.pt", options, {});
    if (!r)
        return 0; // the message is checked by tests/torch's hostile corpus; here: no crash, no leak
    volatile uint64_t sum = 0;
    for (const auto& t : (*r)->tensors) {
        for (uint8_t byte : (*r)->payload(t))
            sum = sum + byte;
        (void)(*r)->stats(t);
    }
    (void)ckpt::torchFormat().infoText(**r);
    return 0;
}
