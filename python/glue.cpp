// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The shared glue of `import ckpt`: errors, buffers and arrays, opening any input, diffs.
#include "glue.h"

#include "app/workers/parallelfor.h"
#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/graph/checkpointfiles.h"
#include "core/open/formats.h"
#include "core/open/sniff.h"
#include "core/report/diffjson.h"
#include "core/report/graphdiffjson.h"
#include "core/run/run.h"

#include <ckpt_version.h>

#include <filesystem>

namespace ckpt::pyglue {

PyObject* g_errorType = nullptr;

const std::string kPythonTool = "import ckpt " CKPT_VERSION " (" CKPT_GIT_REVISION ")";

namespace {

std::string_view errorCodeName(ErrorCode c)
{
    switch (c) {
    case ErrorCode::Io: return "io";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::Malformed: return "malformed";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Invalid: return "invalid";
    case ErrorCode::Limit: return "limit";
    case ErrorCode::Usage: return "usage";
    case ErrorCode::Cancelled: return "cancelled";
    }
    return "error";
}

std::string_view kindOf(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) && !isRecordDirectory(path)) // a Distributed Checkpoint is one record
        return "directory";
    return sniffFile(path) == FileFamily::GradientCheckpoint ? "gradient_checkpoint" : "record";
}

} // namespace

void raise(const Error& e)
{
    py::object type = py::reinterpret_borrow<py::object>(g_errorType);
    py::object exc = type(e.message());
    exc.attr("code") = std::string(errorCodeName(e.code));
    exc.attr("file") = e.file.empty() ? py::object(py::none()) : py::object(py::str(e.file));
    exc.attr("offset") = e.offset ? py::object(py::int_(*e.offset)) : py::object(py::none());
    exc.attr("line") = e.line ? py::object(py::int_(*e.line)) : py::object(py::none());
    exc.attr("column") = e.column ? py::object(py::int_(*e.column)) : py::object(py::none());
    exc.attr("path") = e.recordPath.empty() ? py::object(py::none()) : py::object(py::str(e.recordPath));
    exc.attr("what") = e.what;
    PyErr_SetObject(g_errorType, exc.ptr());
    throw py::error_already_set();
}

void raise(ErrorCode code, std::string what, const std::string& file)
{
    Error e{code, std::move(what), file};
    raise(e);
}

py::object parseJson(const std::string& s) { return py::module_::import("json").attr("loads")(s); }

std::string fspath(const py::object& p) { return py::str(py::module_::import("os").attr("fspath")(p)); }

py::object makeBuffer(std::shared_ptr<const void> owner, const BytesPtr& bytes, std::string kind)
{
    Buffer b;
    b.owner = std::move(owner);
    if (bytes) {
        b.begin = bytes->data();
        b.size = bytes->size();
    }
    b.kind = std::move(kind);
    return py::cast(std::move(b));
}

/// A read-only array over \a data owned by \a base (no copy).
py::array viewArray(const std::string& descr, const std::vector<uint64_t>& shape, const void* data, py::object base)
{
    py::dtype dt(descr);
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    std::vector<py::ssize_t> strides(dims.size());
    py::ssize_t stride = dt.itemsize();
    for (size_t i = dims.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= dims[i];
    }
    static const uint8_t empty = 0;
    py::array a(dt, dims, strides, data ? data : &empty, base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

py::object PyRecord::bufferObject()
{
    if (!buffer)
        buffer = makeBuffer(record, record->tape.source, isGzipped(record->recorder) ? "inflated" : "mapping");
    return buffer;
}

const TensorEntry& PyRecord::tensor(const std::string& path) const
{
    auto i = record->findTensor(path);
    if (!i)
        raise(ErrorCode::Invalid, "no tensor at " + path + " (r.tensors() lists them)", record->file);
    return record->tensors[*i];
}

PyRecord PyRecord::derived(const PyRecord& from, Tape tape)
{
    return PyRecord{unwrap(recordFromTape(from.r(), std::move(tape))), from.options, from.run, py::object()};
}

py::object PyGradientCheckpoint::bufferObject()
{
    if (!buffer)
        buffer = makeBuffer(checkpoint, nullptr, "memory"); // optimizer_state blobs are decoded from JSON arrays
    return buffer;
}

std::vector<PatchOp> patchOpsFrom(const py::object& operations)
{
    py::kwargs kw;
    kw["allow_nan"] = false;
    const std::string json = py::str(py::module_::import("json").attr("dumps")(py::list(operations), **kw));
    return unwrap(parsePatchOperations(json));
}

py::object openAny(const py::object& pathObj, const std::optional<std::string>& schemaFrom, const std::optional<std::string>& schema,
    const std::optional<std::string>& scheduler, bool lenient, const std::optional<std::string>& blocks)
{
    std::string path = fspath(pathObj);
    OpenOptions o;
    o.schemaFrom = schemaFrom.value_or("");
    o.schemaFile = schema.value_or("");
    o.scheduler = scheduler.value_or("");
    o.lenient = lenient;
    std::optional<std::string> run;
    const auto kind = kindOf(path);
    if (kind == "directory") {
        const RunCheckpoint pick = unwrap(recordOfRunDirectory(path));
        run = path;
        path = pick.path;
        o.wholeCheckpoint = true; // a checkpoint written as several files (burn-train 0.22: model, optimizer, scheduler) as one record
    } else if (kind == "gradient_checkpoint") {
        auto files = unwrapIn(openGradientCheckpointFiles(path, blocks), path);
        if (files.carError) // as `ckpt`: a damaged CAR must not pass for a missing one
            raise(*files.carError);
        PyGradientCheckpoint g;
        g.path = path;
        g.checkpoint = std::make_shared<const GradientCheckpoint>(std::move(files.checkpoint));
        g.carPath = std::move(files.carPath);
        g.car = std::move(files.car);
        return py::cast(std::move(g));
    }
    auto r = withoutGil([&] { return openRecord(path, o); });
    auto record = unwrap(std::move(r));
    return py::cast(PyRecord{std::move(record), o, run, py::object()});
}

py::object recordDiff(const Record& a, const Record& b, double tolerance, const std::vector<std::string>& map)
{
    DiffOptions o;
    o.tolerance = tolerance;
    o.rewrites = unwrap(parseNameRewrites(map));
    auto d = withoutGil([&] { return diffRecords(a, b, o, Progress::none(), workers::threadedFor()); }); // on every hardware thread, as `ckpt diff`
    return parseJson(diffJson(unwrap(std::move(d)), a, b));
}

py::object graphDiff(const PyGradientCheckpoint& a, const PyGradientCheckpoint& b, double tolerance)
{
    DiffOptions o;
    o.tolerance = tolerance;
    GraphDiff d = diffGradientCheckpoints(*a.checkpoint, *b.checkpoint, a.car.get(), b.car.get(), o);
    d.a = a.path;
    d.b = b.path;
    return parseJson(graphDiffJson(d));
}

void bindBuffer(py::module_& m)
{
    py::class_<Buffer>(m, "Buffer", "The bytes numpy arrays view (a file mapping or an inflated stream); kept alive by every array's .base.")
        .def_property_readonly("address", [](const Buffer& b) { return reinterpret_cast<uintptr_t>(b.begin); })
        .def_property_readonly("size", [](const Buffer& b) { return b.size; })
        .def_property_readonly("kind", [](const Buffer& b) { return b.kind; })
        .def("__repr__", [](const Buffer& b) { return "<ckpt.Buffer " + b.kind + ", " + std::to_string(b.size) + " bytes>"; });
}

} // namespace ckpt::pyglue
