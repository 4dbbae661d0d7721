// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// What every binding file of `import ckpt` shares: ckpt.Error raised from core's errors, the GIL
// released around core work, JSON documents parsed by Python's json, the Buffer numpy arrays view,
// and the two opened-file types (Record, GradientCheckpoint).
#pragma once

#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/io/bytes.h"
#include "core/edit/patch.h"
#include "core/record/record.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

namespace ckpt::pyglue {

namespace py = pybind11;

/// ckpt.Error, created by the module's init before any binding raises it.
extern PyObject* g_errorType;

/// The tool string patch sidecars name when Python wrote them.
extern const std::string kPythonTool;

/// Raises ckpt.Error with the CLI's message (str(e) is what `ckpt` prints after "ckpt: ") and its parts as attributes.
[[noreturn]] void raise(const Error& e);
[[noreturn]] void raise(ErrorCode code, std::string what, const std::string& file = {});

template<class T>
T unwrap(Result<T> r)
{
    if (!r)
        raise(r.error());
    return std::move(*r);
}

/// unwrap, naming \a file in the message where the error does not name one yet (as the CLI does).
template<class T>
T unwrapIn(Result<T> r, const std::string& file)
{
    if (!r)
        raise(Error(r.error()).withFile(file));
    return std::move(*r);
}

/// Runs \a f with the GIL released (core work: decoding, statistics, writing) and returns its result.
template<class F>
auto withoutGil(F&& f)
{
    py::gil_scoped_release unlocked;
    return f();
}

py::object parseJson(const std::string& s);
std::string fspath(const py::object& p);

/**
 * What a numpy array views: the bytes of a file mapping (or of an inflated gzip stream) and whatever
 * owns them. Every array from one opened file has the same Buffer as its `base`, which keeps the
 * mapping alive after the Record is gone.
 */
struct Buffer {
    std::shared_ptr<const void> owner;
    const uint8_t* begin = nullptr;
    size_t size = 0;
    std::string kind;
};

/// \a kind: "mapping" (the file's pages), "inflated" (the decompressed stream of a .gz) or "memory".
py::object makeBuffer(std::shared_ptr<const void> owner, const BytesPtr& bytes, std::string kind);

/// A read-only array over \a data owned by \a base (no copy).
py::array viewArray(const std::string& descr, const std::vector<uint64_t>& shape, const void* data, py::object base);

/// A read-only array that owns converted values (bf16 widened, legacy numbers).
template<class T>
py::array ownedArray(const std::string& descr, const std::vector<uint64_t>& shape, std::vector<T> values)
{
    auto* heap = new std::vector<T>(std::move(values));
    py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return viewArray(descr, shape, heap->data(), owner);
}

/// A ckpt.Record: the record, how it was opened, and the Buffer its arrays view.
struct PyRecord {
    std::shared_ptr<const Record> record;
    OpenOptions options;
    std::optional<std::string> run;   ///< the run directory it was picked from
    py::object buffer;                ///< the one Buffer every array of this record views

    const Record& r() const { return *record; }
    py::object bufferObject();
    const TensorEntry& tensor(const std::string& path) const;
    static PyRecord derived(const PyRecord& from, Tape tape);
};

/// A ckpt.GradientCheckpoint: the checkpoint, the CAR store beside it, and the owners of their views.
struct PyGradientCheckpoint {
    std::shared_ptr<const GradientCheckpoint> checkpoint;
    std::string path;
    std::optional<std::string> carPath;
    std::shared_ptr<const CarStore> car;
    py::object buffer;    ///< owner of optimizer_state views
    py::object carBuffer; ///< owner of CAR block views

    py::object bufferObject();
};

/// ckpt.open: a record, a run directory's newest record, or a GradientCheckpoint with its CAR.
py::object openAny(const py::object& pathObj, const std::optional<std::string>& schemaFrom, const std::optional<std::string>& schema,
    const std::optional<std::string>& scheduler, bool lenient, const std::optional<std::string>& blocks);
/// `ckpt diff --json`; \a map: `--map FROM=TO` rewrites of the PyTorch side's names across frameworks.
py::object recordDiff(const Record& a, const Record& b, double tolerance, const std::vector<std::string>& map = {});
py::object graphDiff(const PyGradientCheckpoint& a, const PyGradientCheckpoint& b, double tolerance);
/// A list of operation dicts ({"op": "reset_optimizer", "glob": ...}, as the sidecar writes them) for core.
std::vector<PatchOp> patchOpsFrom(const py::object& operations);

// One function per class or area, called in this order by PYBIND11_MODULE.
void bindBuffer(py::module_& m);
void bindRecord(py::module_& m);
void bindGradientCheckpoint(py::module_& m);
void bindOpenAndDiff(py::module_& m);
void bindRunFunctions(py::module_& m);
void bindPatchFunctions(py::module_& m);

} // namespace ckpt::pyglue
