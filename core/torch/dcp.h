// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// PyTorch Distributed Checkpoint directories (what FSDP and torchtitan write when a run outgrows one
// machine): `.metadata`, a pickle of dataclasses that PyTorch itself reads with plain pickle.load,
// read here by the same safe machine (PickleOptions::dcpMetadata); and `*.distcp` shards, where
// FileSystemWriter stores every chunk of a tensor as a torch.save stream at an offset. Tensors are
// listed with their global shape, dtype and chunks; their values are the chunks put together where
// every chunk's stream is readable and the chunks cover the tensor exactly.

#include "core/model/record.h"
#include "core/torch/torchfile.h"

#include <memory>
#include <string>
#include <vector>

namespace ckpt::torch {

/** One chunk of a tensor: where it sits in the global tensor, and where its bytes are. */
struct DcpChunk {
    std::vector<uint64_t> offsets, sizes;
    std::string file;            ///< relative to the directory
    uint64_t offset = 0, length = 0;
};

/** One entry of the checkpoint's state dict. */
struct DcpEntry {
    std::string fqn;
    bool tensor = true;          ///< false: a BytesStorageMetadata (a pickled value, not read)
    std::string torchDType;      ///< "float32", ...
    std::vector<uint64_t> shape;
    std::vector<DcpChunk> chunks;
    std::string unread;          ///< why the values are not read ("" when they are)
};

/** A parsed directory; tensors' bytes stay valid as long as it lives. */
struct DcpCheckpoint {
    std::string dir;
    std::vector<DcpEntry> entries;
    std::vector<BytesPtr> files;                   ///< the mapped shards
    std::vector<std::shared_ptr<TorchFile>> streams; ///< each chunk's torch.save stream
    std::vector<std::vector<uint8_t>> assembled;   ///< a tensor's chunks put together (one per entry; empty when unread)
};

/** True when \a path is a directory holding a `.metadata` file. */
bool isDcpDirectory(const std::string& path);

/** Opens a Distributed Checkpoint directory as a record (kind torch_dcp, recorder DCP). */
Result<std::shared_ptr<const Record>> openDcpDirectory(const std::string& path);

/** The checkpoint behind a record openDcpDirectory made. */
const DcpCheckpoint& dcpCheckpointOf(const Record& record);

} // namespace ckpt::torch
