// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A file torch.save wrote, parsed without executing it: the zip format (torch >= 1.6:
// ARCHIVE/data.pkl, ARCHIVE/data/KEY, ARCHIVE/version, ARCHIVE/byteorder) or the legacy format
// (pickles of the magic number, the protocol version, the system info, the object and the storage
// keys, then each storage's element count and raw bytes). Each tensor becomes a checked view into the
// mapping (or, for a strided view, its logical elements copied once).

#include "core/io/bytes.h"
#include "core/io/zip.h"
#include "core/tensor/dtype.h"
#include "core/torch/pickle.h"
#include "core/util/error.h"

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ckpt::torch {

/** One tensor's logical elements, row-major, ready for the statistics. */
struct TensorBytes {
    std::span<const uint8_t> bytes;      ///< numel * element size
    std::optional<uint64_t> fileOffset;  ///< the first element's absolute offset in the file
    std::string_view torchDType;         ///< "float32", "bfloat16", "complex64", ...
    uint32_t elementSize = 0;
    uint32_t storageIdentity = 0;        ///< equal for tensors that share a storage
};

/** A parsed PyTorch file; its tensors' bytes stay valid as long as it lives. */
struct TorchFile {
    BytesPtr bytes;
    bool legacy = false;
    std::string pickleName;              ///< "ARCHIVE/data.pkl" or "the pickle" (for messages)
    Pickled pickled;
    std::vector<TensorBytes> tensors;    ///< one per Pickled::tensors
    std::deque<std::vector<uint8_t>> owned; ///< strided views gathered, deflated storages inflated
    std::vector<BytesPtr> inflated;
    uint32_t formatVersion = 0;          ///< ARCHIVE/version
};

/** torch's dtype names that are Burn's too ("float32" -> F32, "bool" -> Bool); nullopt for complex, quantized, float8, ... */
std::optional<DType> burnDTypeOfTorch(std::string_view torchName);
/** The other way: torch's name of a Burn dtype ("float32"); nullopt for those torch's typed storages lack (U16, U32, U64, Flex32, QFloat). */
std::optional<std::string_view> torchDTypeOfBurn(DType dtype);
/** The element size of a torch dtype name, 0 when unknown. */
uint32_t elementSizeOfTorch(std::string_view torchName);

/** True when \a data is a zip with an ARCHIVE/data.pkl, or starts with the legacy format's magic number. */
bool looksLikeTorch(std::span<const uint8_t> data);
/** True for the legacy format's opening pickle (protocol 2, the magic number 0x1950a86a20f9469cfc6c). */
bool isLegacyTorch(std::span<const uint8_t> data);

/** Reads \a bytes as a torch.save file; errors carry the offset and, for the pickle, which pickle. */
Result<std::shared_ptr<TorchFile>> readTorchFile(BytesPtr bytes);

} // namespace ckpt::torch
