// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A pickle machine that never executes: it knows the opcodes of protocols 0-5 and, of all Python's
// globals, only those torch.load(weights_only=True) allows (OrderedDict, the tensor and parameter
// rebuild functions, the typed storages, torch.Size, dtypes, set, ...). Every call the pickle asks for
// is one of a fixed list of constructions done here, on data; anything else is refused by name with
// its offset and is never imported, looked up or called. Objects live in one arena and refer to each
// other by index (the memo may share them, and a pickle can even make a list contain itself).

#include "core/util/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::torch {

enum class PyKind : uint8_t { None, Bool, Int, BigInt, Float, Str, Bytes, List, Tuple, Dict, Set, Global, Tensor, Storage, Object };

/** One Python object the pickle built. */
struct PyObject {
    PyKind kind = PyKind::None;
    bool flag = false;          ///< Bool: its value; Dict: an OrderedDict
    int64_t i = 0;              ///< Int
    double f = 0;               ///< Float
    std::string s;              ///< Str (UTF-8), Bytes, Global and Object ("module.name"), BigInt (little-endian two's complement)
    std::vector<uint32_t> items;///< List, Tuple, Set: elements; Dict: key, value, key, value, ...; Object: its BUILD state
    uint32_t ref = 0;           ///< Tensor: index into Pickled::tensors; Storage: into Pickled::storages
    uint64_t offset = 0;        ///< where in the pickle it was made (for messages)
};

/** A storage as the persistent id names it: ('storage', torch.FloatStorage, key, location, numel[, view]). */
struct PickledStorage {
    std::string type;           ///< "FloatStorage", "BFloat16Storage", ...
    std::string key;            ///< data/KEY in the zip, the storage key in the legacy format
    std::string location;       ///< "cpu", "cuda:0"
    uint64_t numel = 0;         ///< elements of the storage
    /** Legacy format only: a view of another storage (key, offset, numel in elements). */
    std::string viewOf;
    uint64_t viewOffset = 0;
    uint64_t offset = 0;        ///< the persistent id's offset in the pickle
};

/** A tensor as a rebuild function describes it: a strided view of one storage. */
struct PickledTensor {
    uint32_t storage = 0;       ///< index into Pickled::storages
    uint64_t storageOffset = 0; ///< in elements
    std::vector<uint64_t> shape;
    std::vector<int64_t> stride;
    bool requiresGrad = false;
    bool parameter = false;     ///< rebuilt as torch.nn.Parameter
    bool quantized = false;     ///< _rebuild_qtensor: listed, no statistics
    uint64_t offset = 0;        ///< the rebuild call's offset in the pickle
};

/** What one pickle made. */
struct Pickled {
    std::vector<PyObject> objects;
    uint32_t root = 0;
    std::vector<PickledStorage> storages;
    std::vector<PickledTensor> tensors;
    uint64_t end = 0;           ///< the offset after its STOP (the legacy format puts pickles one after another)
    uint8_t protocol = 0;
};

/** What a pickle may build beyond what torch.load(weights_only=True) allows. */
struct PickleOptions {
    /**
     * A Distributed Checkpoint's .metadata: its dataclasses (Metadata, TensorStorageMetadata,
     * ChunkStorageMetadata, MetadataIndex, _StorageInfo, TensorProperties, ...) become Objects, a
     * record of the class name and its BUILD state (never instantiated), and getattr is allowed on
     * the MEM_FORMAT_ENCODING enum only, giving "MEM_FORMAT_ENCODING.NAME".
     */
    bool dcpMetadata = false;
};

/** Unpickles the pickle at the start of \a bytes. Errors name the opcode or global and the offset. */
Result<Pickled> unpickle(std::span<const uint8_t> bytes, const PickleOptions& options = {});

/** The element type of a typed storage class ("FloatStorage") as torch names it ("float32"), and its size in bytes; empty if unknown. */
struct StorageType {
    std::string_view torchName;
    uint32_t elementSize = 0;
};
StorageType storageType(std::string_view storageClass);
/** The typed storage class of a torch dtype name ("float32" -> "FloatStorage"), as torch.save names it in a persistent id. */
std::optional<std::string_view> storageClassOf(std::string_view torchName);

} // namespace ckpt::torch
