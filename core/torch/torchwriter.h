// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Writing torch.save's zip format (torch >= 1.6): `archive/data.pkl` a protocol-2 pickle of the
// object, `archive/data/N` each tensor's storage (64-byte aligned, as torch writes them),
// `archive/byteorder` and `archive/version`. The pickle names only what torch.load(weights_only=True)
// allows: OrderedDict, `torch._utils._rebuild_tensor_v2` and the typed storages, so the file loads
// in torch's safe mode, and in ours.

#include "core/tensor/dtype.h"
#include "core/util/error.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ckpt::torch {

/** A Python value to pickle: what state dicts, optimizer states and checkpoint dicts are made of. */
struct PyValue {
    enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, OrderedDict, Tensor };
    Kind kind = Kind::None;
    bool boolean = false;
    int64_t integer = 0;
    double real = 0;
    std::string text;
    std::vector<PyValue> items; ///< Tuple/List elements; Dict/OrderedDict: key, value, key, value, ...
    size_t tensor = 0;          ///< Tensor: index into the tensors written with it

    static PyValue none() { return {}; }
    static PyValue of(bool b) { return {.kind = Kind::Bool, .boolean = b}; }
    static PyValue of(int64_t i) { return {.kind = Kind::Int, .integer = i}; }
    static PyValue of(double d) { return {.kind = Kind::Float, .real = d}; }
    static PyValue of(std::string s) { return {.kind = Kind::Str, .text = std::move(s)}; }
    static PyValue container(Kind k) { return {.kind = k}; }
    static PyValue tensorAt(size_t i) { return {.kind = Kind::Tensor, .tensor = i}; }
    /** Dict/OrderedDict: appends one item. */
    PyValue& set(PyValue key, PyValue value)
    {
        items.push_back(std::move(key));
        items.push_back(std::move(value));
        return items.back();
    }
};

/** One tensor to write: row-major little-endian elements of \a dtype (a dtype torch has: torchDTypeOfBurn). */
struct TensorOut {
    DType dtype = DType::F32;
    std::vector<uint64_t> shape;
    std::span<const uint8_t> bytes;
};

/** The pickle of \a root (protocol 2); tensor i is storage "i". Unsupported for a dtype torch's storages lack. */
Result<std::vector<uint8_t>> picklePyValue(const PyValue& root, const std::vector<TensorOut>& tensors);

/** torch.save's zip format at \a path, atomically; errors name the path (or the tensor's dtype). */
Result<void> writeTorchFile(const std::string& path, const PyValue& root, const std::vector<TensorOut>& tensors);

} // namespace ckpt::torch
