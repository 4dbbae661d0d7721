// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `import ckpt`: the core engine from Python. Thin glue like the CLI: every answer comes from the
// core function the CLI calls (the JSON documents of the CLI contract are parsed with Python's json,
// so integers stay exact), and tensors are numpy views of the mapped bytes.
#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/edit/edit.h"
#include "core/edit/patch.h"
#include "core/export/export.h"
#include "core/graph/analysis.h"
#include "core/graph/blob.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/graph/checkpointfiles.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/open/sniff.h"
#include "core/record/record.h"
#include "core/open/saveas.h"
#include "core/report/graphdiffjson.h"
#include "core/report/graphreport.h"
#include "core/report/report.h"
#include "core/run/run.h"
#include "core/run/timeline.h"
#include "workers/parallelfor.h"

#include <ckpt_version.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <filesystem>

namespace py = pybind11;
using namespace ckpt;

namespace {

PyObject* g_errorType = nullptr;

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

/// Raises ckpt.Error with the CLI's message (str(e) is what `ckpt` prints after "ckpt: ") and its parts as attributes.
[[noreturn]] void raise(const Error& e)
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

[[noreturn]] void raise(ErrorCode code, std::string what, const std::string& file = {})
{
    Error e{code, std::move(what), file};
    raise(e);
}

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

py::object parseJson(const std::string& s) { return py::module_::import("json").attr("loads")(s); }

std::string fspath(const py::object& p) { return py::str(py::module_::import("os").attr("fspath")(p)); }

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

/// A read-only array that owns converted values (bf16 widened, legacy numbers).
template<class T>
py::array ownedArray(const std::string& descr, const std::vector<uint64_t>& shape, std::vector<T> values)
{
    auto* heap = new std::vector<T>(std::move(values));
    py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return viewArray(descr, shape, heap->data(), owner);
}

std::string_view kindOf(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return "directory";
    return sniffFile(path) == FileFamily::GradientCheckpoint ? "gradient_checkpoint" : "record";
}

// ------------------------------------------------------------------------------------------------

struct PyRecord {
    std::shared_ptr<const Record> record;
    OpenOptions options;
    std::optional<std::string> run;   ///< the run directory it was picked from
    py::object buffer;                ///< the one Buffer every array of this record views

    const Record& r() const { return *record; }

    py::object bufferObject()
    {
        if (!buffer)
            buffer = makeBuffer(record, record->tape.source, isGzipped(record->recorder) ? "inflated" : "mapping");
        return buffer;
    }

    const TensorEntry& tensor(const std::string& path) const
    {
        auto i = record->findTensor(path);
        if (!i)
            raise(ErrorCode::Invalid, "no tensor at " + path + " (r.tensors() lists them)", record->file);
        return record->tensors[*i];
    }

    static PyRecord derived(const PyRecord& from, Tape tape)
    {
        return PyRecord{unwrap(recordFromTape(from.r(), std::move(tape))), from.options, from.run, py::object()};
    }
};

py::array recordArray(py::object self, const std::string& path)
{
    auto& w = self.cast<PyRecord&>();
    const TensorEntry& t = w.tensor(path);
    const Record& r = w.r();
    const std::string descr = npyDescrFor(t);
    if (descr.empty())
        raise(Error(safetensorsDtypeFor(t).error()).withFile(r.file)); // QFloat: no numpy dtype
    if (t.legacy) {
        auto values = r.values(t, 0, t.numel);
        // Legacy payloads are numbers on the tape: converted (a copy) into the dtype numpy shows
        // (exact: the numbers are the dtype's values widened).
        auto as = [&]<class T>(T) {
            return ownedArray<T>(descr, t.shape, std::vector<T>(values.begin(), values.end()));
        };
        if (descr == "<f2") {
            std::vector<uint16_t> h(values.size());
            for (size_t i = 0; i < h.size(); ++i)
                h[i] = doubleToHalf(values[i]);
            return ownedArray<uint16_t>(descr, t.shape, std::move(h));
        }
        if (descr == "<f8")
            return as(double{});
        if (descr == "<f4")
            return as(float{});
        if (descr == "<i8")
            return as(int64_t{});
        if (descr == "<i4")
            return as(int32_t{});
        if (descr == "<i2")
            return as(int16_t{});
        return ownedArray<double>("<f8", t.shape, std::move(values));
    }
    const auto bytes = r.payload(t);
    if (bytes.size() != t.numel * (t.dtype == DType::BF16 ? 2 : py::dtype(descr).itemsize()))
        raise(ErrorCode::Invalid, std::to_string(bytes.size()) + " payload bytes do not hold shape " + shapeString(t.shape) + " of " +
                std::string(dtypeName(t.dtype)), r.file);
    if (t.dtype == DType::BF16) {
        // numpy has no bfloat16: widened to float32 (exact, but a copy).
        std::vector<float> wide(t.numel);
        for (size_t i = 0; i < wide.size(); ++i)
            wide[i] = bf16ToFloat(uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
        return ownedArray<float>(descr, t.shape, std::move(wide));
    }
    return viewArray(descr, t.shape, bytes.data(), w.bufferObject());
}

py::dict statsDict(const TensorStats& s)
{
    py::dict d;
    d["count"] = s.count;
    d["finite"] = s.finite;
    d["nan"] = s.nan;
    d["inf"] = s.inf;
    d["zeros"] = s.zeros;
    d["sum"] = s.sum;
    d["l2"] = s.l2;
    d["min"] = s.min;
    d["max"] = s.max;
    d["mean"] = s.mean;
    d["std"] = s.std;
    if (!s.histogram.empty()) {
        d["histogram"] = py::array_t<uint64_t>(py::ssize_t(s.histogram.size()), s.histogram.data());
        d["histogram_range"] = py::make_tuple(s.histLo, s.histHi);
    }
    return d;
}

std::vector<Edit> editsFrom(const py::object& changes)
{
    py::object dumps = py::module_::import("json").attr("dumps");
    std::vector<Edit> edits;
    py::iterable items = py::isinstance<py::dict>(changes) ? py::iterable(changes.attr("items")()) : py::iterable(changes);
    for (py::handle item : items) {
        auto pair = py::reinterpret_borrow<py::tuple>(item);
        if (pair.size() != 2)
            raise(ErrorCode::Usage, "edit takes {path: value} or [(path, value), ...]");
        py::kwargs kw;
        kw["allow_nan"] = false;
        edits.push_back({py::str(pair[0]), py::str(dumps(pair[1], **kw))});
    }
    return edits;
}

/// A list of operation dicts ({"op": "reset_optimizer", "glob": ...}, as the sidecar writes them) for core.
std::vector<PatchOp> patchOpsFrom(const py::object& operations)
{
    py::kwargs kw;
    kw["allow_nan"] = false;
    const std::string json = py::str(py::module_::import("json").attr("dumps")(py::list(operations), **kw));
    return unwrap(parsePatchOperations(json));
}

py::dict patchResultDict(const PatchFileResult& r, const std::string& output)
{
    py::dict d;
    d["output"] = r.provenance.output;
    d["sidecar"] = patchSidecarPath(output);
    d["readiness"] = r.provenance.readiness;
    py::list done;
    for (const auto& rep : r.reports)
        done.append(rep.summary);
    d["operations"] = done;
    py::list checks;
    for (const auto& c : r.checks) {
        py::dict cd;
        cd["name"] = c.name;
        cd["status"] = std::string(resumeStatusName(c.status));
        cd["detail"] = c.detail;
        checks.append(cd);
    }
    d["checks"] = checks;
    return d;
}

const std::string kPythonTool = "import ckpt " CKPT_VERSION " (" CKPT_GIT_REVISION ")";

// ------------------------------------------------------------------------------------------------

struct PyGradientCheckpoint {
    std::shared_ptr<const GradientCheckpoint> checkpoint;
    std::string path;
    std::optional<std::string> carPath;
    std::shared_ptr<const CarStore> car;
    py::object buffer;    ///< owner of optimizer_state views
    py::object carBuffer; ///< owner of CAR block views

    py::object bufferObject()
    {
        if (!buffer)
            buffer = makeBuffer(checkpoint, nullptr, "memory"); // optimizer_state blobs are decoded from JSON arrays
        return buffer;
    }
};

py::array blobArray(const std::span<const uint8_t> bytes, BlobView view, py::object base)
{
    static const std::pair<BlobView, const char*> descrs[] = {{BlobView::U8, "|u1"}, {BlobView::F32, "<f4"}, {BlobView::F64, "<f8"},
        {BlobView::F16, "<f2"}, {BlobView::BF16, "<u2"}, {BlobView::U64, "<u8"}, {BlobView::I64, "<i8"}, {BlobView::U32, "<u4"}, {BlobView::I32, "<i4"}};
    const uint32_t width = blobViewWidth(view);
    if (bytes.size() % width)
        raise(ErrorCode::Invalid, std::to_string(bytes.size()) + " bytes are not a whole number of " + blobViewName(view) + " values");
    if (view == BlobView::BF16) {
        std::vector<float> wide(bytes.size() / 2);
        for (size_t i = 0; i < wide.size(); ++i)
            wide[i] = bf16ToFloat(uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
        return ownedArray<float>("<f4", {wide.size()}, std::move(wide));
    }
    for (const auto& [v, d] : descrs)
        if (v == view)
            return viewArray(d, {bytes.size() / width}, bytes.data(), base);
    raise(ErrorCode::Unsupported, "no numpy view for this blob");
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
        o.wholeCheckpoint = true; // a burn-train 0.22 epoch: model, optimizer and scheduler as one record
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

std::optional<Recorder> recorderArg(const std::optional<std::string>& name)
{
    if (!name)
        return std::nullopt;
    auto r = recorderFromName(*name);
    if (!r)
        raise(ErrorCode::Usage, "unknown recorder '" + *name + "' (NamedMpk, NamedMpkGz, PrettyJson, JsonGz, Bin, BinGz)");
    return r;
}

py::object recordDiff(const Record& a, const Record& b, double tolerance)
{
    DiffOptions o;
    o.tolerance = tolerance;
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

py::object diffAny(py::object a, py::object b, double tolerance)
{
    auto asOpened = [](py::object x) {
        if (py::isinstance<PyRecord>(x) || py::isinstance<PyGradientCheckpoint>(x))
            return x;
        return openAny(x, std::nullopt, std::nullopt, std::nullopt, false, std::nullopt);
    };
    a = asOpened(a);
    b = asOpened(b);
    if (py::isinstance<PyRecord>(a) && py::isinstance<PyRecord>(b))
        return recordDiff(a.cast<PyRecord&>().r(), b.cast<PyRecord&>().r(), tolerance);
    if (py::isinstance<PyGradientCheckpoint>(a) && py::isinstance<PyGradientCheckpoint>(b))
        return graphDiff(a.cast<PyGradientCheckpoint&>(), b.cast<PyGradientCheckpoint&>(), tolerance);
    raise(ErrorCode::Usage, "diff compares two records or two GradientCheckpoints, not one of each");
}

} // namespace

PYBIND11_MODULE(ckpt, m)
{
    m.doc() = "Checkpoint Inspector: Burn/Ruda records and ipfrs GradientCheckpoints from Python, tensors as zero-copy numpy views";
    m.attr("__version__") = CKPT_VERSION;
    // numpy views into a mapping outlive any check: a record truncated on disk reads as zeros instead
    // of killing the interpreter (a SIGBUS elsewhere still goes to the handler that was there before).
    ckpt::guardMappedFiles();
    g_errorType = PyErr_NewExceptionWithDoc("ckpt.Error",
        "An invalid input or a failed operation. str(e) is the message `ckpt` prints (FILE: offset N: at PATH: what); "
        "the parts are attributes: code, file, offset, line, column, path, what.",
        PyExc_Exception, nullptr);
    m.attr("Error") = py::reinterpret_borrow<py::object>(g_errorType);

    py::class_<Buffer>(m, "Buffer", "The bytes numpy arrays view (a file mapping or an inflated stream); kept alive by every array's .base.")
        .def_property_readonly("address", [](const Buffer& b) { return reinterpret_cast<uintptr_t>(b.begin); })
        .def_property_readonly("size", [](const Buffer& b) { return b.size; })
        .def_property_readonly("kind", [](const Buffer& b) { return b.kind; })
        .def("__repr__", [](const Buffer& b) { return "<ckpt.Buffer " + b.kind + ", " + std::to_string(b.size) + " bytes>"; });

    py::class_<PyRecord>(m, "Record", "A decoded and indexed Burn/Ruda record (payload bytes stay in the mapping).")
        .def_property_readonly("file", [](const PyRecord& w) { return w.r().file; })
        .def_property_readonly("run", [](const PyRecord& w) { return w.run; }, "the run directory the record was picked from, or None")
        .def_property_readonly("kind", [](const PyRecord& w) { return std::string(recordKindName(w.r().kind)); })
        .def_property_readonly("recorder", [](const PyRecord& w) { return std::string(recorderName(w.r().recorder)); })
        .def_property_readonly("precision", [](const PyRecord& w) { return std::string(precisionName(w.r().precision)); })
        .def_property_readonly("partial", [](const PyRecord& w) { return w.r().partial; })
        .def_property_readonly("damage", [](const PyRecord& w) { return w.r().damage; })
        .def_property_readonly("warnings", [](const PyRecord& w) { return w.r().warnings; })
        .def_property_readonly("metadata", [](const PyRecord& w) {
            const auto& m = w.r().metadata;
            py::dict d;
            d["float"] = m.floatType;
            d["int"] = m.intType;
            d["format"] = m.format;
            d["version"] = m.version;
            d["settings"] = m.settings;
            return d;
        })
        .def_property_readonly("buffer", &PyRecord::bufferObject, "the Buffer every array of this record views")
        .def("paths", [](const PyRecord& w) {
            std::vector<std::string> p;
            for (const auto& t : w.r().tensors)
                p.push_back(t.path);
            return p;
        }, "tensor paths in file order")
        .def("info", [](const PyRecord& w) { return parseJson(infoJson(w.r())); }, "`ckpt info --json`")
        .def("tree", [](const PyRecord& w, int depth) { return parseJson(treeJson(w.r(), depth)); }, py::arg("depth") = -1, "`ckpt tree --json`")
        .def("tensors", [](const PyRecord& w, const std::string& filter) {
            // Statistics on every hardware thread, as `ckpt tensors`.
            return parseJson(withoutGil([&] { return tensorsJson(w.r(), tensorRows(w.r(), filter, Progress::none(), workers::threadedFor())); }));
        }, py::arg("filter") = "", "one dict per tensor in file order, with exactly the fields of `ckpt tensors --json`")
        .def("array", &recordArray, py::arg("path"),
            "a read-only numpy array viewing the tensor's bytes in the mapping (no copy; .base is the Buffer); "
            "BF16 is widened to float32 and legacy {value, shape} tensors are converted (both copies)")
        .def("stats", [](const PyRecord& w, const std::string& path, uint32_t bins, bool logHistogram) {
            StatsOptions o;
            o.histogramBins = bins;
            o.logHistogram = logHistogram;
            const TensorEntry& t = w.tensor(path);
            return statsDict(withoutGil([&] { return w.r().stats(t, o); }));
        }, py::arg("path"), py::arg("bins") = 0, py::arg("log") = false,
            "statistics of one tensor (float nan where undefined); bins > 0 adds a histogram")
        .def("show", [](const PyRecord& w, const std::string& path, uint64_t limit) {
            return parseJson(unwrapIn(showJson(w.r(), path, limit), w.r().file));
        }, py::arg("path"), py::arg("limit") = 16, "`ckpt show --json`")
        .def("state", [](const PyRecord& w) {
            return parseJson(unwrapIn(stateJson(w.r()), w.r().file));
        }, "the continuation state (item[4]) as Python objects; integers exact")
        .def("check_resume", [](const PyRecord& w) { return parseJson(checkResumeJson(w.r(), checkResume(w.r()))); }, "`ckpt check-resume --json`")
        .def("validate", [](const PyRecord& w) {
            if (auto v = validateRecord(w.r()); !v)
                raise(Error(v.error()).withFile(w.r().file));
        }, "raises ckpt.Error where `ckpt validate` fails")
        .def("edit", [](const PyRecord& w, const py::object& changes) {
            auto tape = applyEdits(w.r(), editsFrom(changes));
            if (!tape)
                raise(Error(tape.error()).withFile(w.r().file));
            return PyRecord::derived(w, std::move(*tape));
        }, py::arg("changes"),
            "a new Record with typed edits of continuation state, scheduler state or metadata ({path: value}), checked as `ckpt edit` checks them")
        .def("patch", [](const PyRecord& w, const py::object& operations) {
            const auto ops = patchOpsFrom(operations);
            const OpenOptions options = w.options;
            const PatchRecordSource donors = [options](const std::string& file) { return openRecord(file, options); };
            auto patched = withoutGil([&] { return applyPatch(w.r(), ops, donors); });
            return PyRecord{unwrap(std::move(patched)), w.options, w.run, py::object()};
        }, py::arg("operations"),
            "a new Record with checkpoint surgery applied in order (`ckpt patch`'s operations as the sidecar writes them: "
            "{'op': 'reset_optimizer', 'glob': ...}, {'op': 'zero_nonfinite'}, {'op': 'scheduler_step', 'step': n}, "
            "{'op': 'transplant', 'from': path, 'glob': ...}, {'op': 'set', 'path': ..., 'value': ...}); ckpt.patch writes it with provenance")
        .def("import_safetensors", [](const PyRecord& w, const py::object& path) {
            auto file = unwrap(openSafetensors(fspath(path)));
            ImportSummary summary;
            auto record = unwrap(importedRecord(w.r(), file, summary));
            for (const auto& warning : summary.warnings)
                if (PyErr_WarnEx(PyExc_UserWarning, (file.name + ": " + warning).c_str(), 1) < 0)
                    throw py::error_already_set(); // warnings turned into errors
            return PyRecord{std::move(record), w.options, w.run, py::object()};
        }, py::arg("path"), "a new Record with the tensors of a safetensors file put in (as `ckpt import`)")
        .def("save", [](const PyRecord& w, const py::object& pathObj, const std::optional<std::string>& recorder,
                         const std::optional<std::string>& precision) {
            const std::string path = fspath(pathObj);
            Recorder rec = recorderArg(recorder).value_or(recorderFromPath(path).value_or(w.r().recorder));
            Precision prec = w.r().precision;
            if (precision) {
                auto p = precisionFromName(*precision);
                if (!p)
                    raise(ErrorCode::Usage, "unknown precision '" + *precision + "' (full, half, double)");
                prec = *p;
            }
            std::vector<std::string> messages;
            if (rec == w.r().recorder && prec == w.r().precision) {
                auto s = withoutGil([&] { return resaveRecord(w.r(), path); });
                if (!s)
                    raise(Error(s.error()).withFile(path));
                return messages;
            }
            auto s = withoutGil([&] { return saveRecordAs(w.r(), rec, prec, path, w.options); });
            auto result = unwrap(std::move(s));
            messages = result.notes;
            messages.insert(messages.end(), result.warnings.begin(), result.warnings.end());
            return messages;
        }, py::arg("path"), py::arg("recorder") = py::none(), py::arg("precision") = py::none(),
            "writes atomically: the same recorder and precision re-save (byte-identical for files real recorders wrote), "
            "others convert as `ckpt convert` (recorder from the name or the extension); returns the warnings")
        .def("export", [](const PyRecord& w, const py::object& pathObj, const std::string& what) {
            const std::string path = fspath(pathObj);
            auto format = exportFormatFromPath(path);
            if (!format)
                raise(ErrorCode::Usage, "the output ends in .safetensors or .npz", path);
            auto sel = unwrap(parseExportSelection(what));
            auto s = withoutGil([&] { return *format == ExportFormat::Safetensors ? exportSafetensors(w.r(), sel, path) : exportNpz(w.r(), sel, path); });
            auto summary = unwrapIn(std::move(s), w.r().file);
            py::dict d;
            d["tensors"] = summary.tensors;
            d["bytes"] = summary.payloadBytes;
            d["notes"] = summary.notes;
            return d;
        }, py::arg("path"), py::arg("what") = "params,optimizer,gradients,other", "`ckpt export`")
        .def("diff", [](const PyRecord& w, const PyRecord& other, double tolerance) { return recordDiff(w.r(), other.r(), tolerance); },
            py::arg("other"), py::arg("tolerance") = 0.0, "`ckpt diff --json` of this record (a) and other (b)")
        .def("__repr__", [](const PyRecord& w) {
            return "<ckpt.Record " + std::string(recordKindName(w.r().kind)) + " " + std::string(recorderName(w.r().recorder)) + " " +
                std::to_string(w.r().tensors.size()) + " tensors: " + w.r().file + ">";
        });

    py::class_<PyGradientCheckpoint>(m, "GradientCheckpoint", "An ipfrs GradientCheckpoint, with the CAR block store found beside it")
        .def_property_readonly("file", [](const PyGradientCheckpoint& g) { return g.path; })
        .def_property_readonly("kind", [](const PyGradientCheckpoint&) { return std::string("gradient_checkpoint"); })
        .def_property_readonly("car", [](const PyGradientCheckpoint& g) { return g.carPath; })
        .def_property_readonly("step", [](const PyGradientCheckpoint& g) { return g.checkpoint->step; })
        .def_property_readonly("timestamp", [](const PyGradientCheckpoint& g) { return g.checkpoint->timestamp; })
        .def_property_readonly("loss_cid", [](const PyGradientCheckpoint& g) { return g.checkpoint->lossCid; })
        .def("info", [](const PyGradientCheckpoint& g) { return parseJson(checkpointInfoJson(*g.checkpoint, analyzeGraph(*g.checkpoint))); })
        .def("graph", [](const PyGradientCheckpoint& g) { return parseJson(graphJson(*g.checkpoint, analyzeGraph(*g.checkpoint))); },
            "`ckpt graph --json`")
        .def("nodes", [](const PyGradientCheckpoint& g) {
            py::list out;
            for (const auto& [key, n] : g.checkpoint->graph.nodes) {
                py::dict d;
                d["key"] = key;
                d["id"] = n.id;
                d["op"] = n.op;
                d["input_cids"] = n.inputCids;
                d["output_cid"] = n.outputCid;
                d["gradient_cid"] = n.gradientCid;
                py::dict meta;
                for (const auto& [k, v] : n.metadata)
                    meta[py::str(k)] = v;
                d["metadata"] = meta;
                out.append(d);
            }
            return out;
        }, "the nodes in file order")
        .def("edges", [](const PyGradientCheckpoint& g) { return g.checkpoint->graph.edges; })
        .def("optimizer_state", [](py::object self) {
            auto& g = self.cast<PyGradientCheckpoint&>();
            py::dict d;
            for (const auto& blob : g.checkpoint->optimizerState)
                d[py::str(blob.key)] = blobArray(blob.bytes, inferBlobView(blob.key, blob.bytes.size()), g.bufferObject());
            return d;
        }, "optimizer_state blobs as read-only arrays in the view `ckpt show` infers (u64 step counters, f32 moments, ...)")
        .def("array", [](py::object self, const std::string& what, const std::optional<std::string>& view) {
            auto& g = self.cast<PyGradientCheckpoint&>();
            std::optional<BlobView> v;
            if (view) {
                v = blobViewFromName(*view);
                if (!v)
                    raise(ErrorCode::Usage, "view takes u8, f32, f64, f16, bf16, u64, i64, u32 or i32");
            }
            for (const auto& blob : g.checkpoint->optimizerState)
                if (blob.key == what || "optimizer_state." + blob.key == what)
                    return blobArray(blob.bytes, v.value_or(inferBlobView(blob.key, blob.bytes.size())), g.bufferObject());
            if (!g.car)
                raise(ErrorCode::Invalid, what + " is not an optimizer_state key, and there is no CAR file beside the checkpoint to resolve a CID in", g.path);
            auto data = g.car->resolve(what);
            if (!data)
                raise(Error(data.error()).withFile(*g.carPath));
            if (!g.carBuffer)
                g.carBuffer = makeBuffer(g.car, g.car->bytes(), "mapping");
            return blobArray(*data, v.value_or(inferBlobView("", data->size())), g.carBuffer);
        }, py::arg("what"), py::arg("view") = py::none(),
            "an optimizer_state blob by key, or a CAR block by CID (zero-copy view of the CAR mapping), as a read-only array")
        .def("diff", [](const PyGradientCheckpoint& g, const PyGradientCheckpoint& other, double tolerance) { return graphDiff(g, other, tolerance); },
            py::arg("other"), py::arg("tolerance") = 0.0)
        .def("__repr__", [](const PyGradientCheckpoint& g) {
            return "<ckpt.GradientCheckpoint step " + std::to_string(g.checkpoint->step) + ", " + std::to_string(g.checkpoint->graph.nodes.size()) +
                " nodes: " + g.path + ">";
        });

    m.def("open", &openAny, py::arg("path"), py::kw_only(), py::arg("schema_from") = py::none(), py::arg("schema") = py::none(),
        py::arg("scheduler") = py::none(), py::arg("lenient") = false, py::arg("blocks") = py::none(),
        "Opens a record (any recorder, sniffed from content), a run directory (its newest record-STEP, else model-EPOCH) or a "
        "GradientCheckpoint (with the .car beside it, or blocks=). Bincode records take schema_from= / schema= / scheduler= as the "
        "CLI's --schema-from / --schema / --scheduler; lenient=True is --lenient. Tensor payloads are not read.");
    m.def("diff", &diffAny, py::arg("a"), py::arg("b"), py::arg("tolerance") = 0.0,
        "`ckpt diff --json` of two records or two GradientCheckpoints (paths or opened objects)");
    m.def("run", [](const py::object& path) { return parseJson(runInfoJson(unwrap(openRunDirectory(fspath(path))))); },
        py::arg("path"), "`ckpt info --json` of a run directory");
    m.def("loss", [](const py::object& path) { return parseJson(lossJson(unwrap(openRunDirectory(fspath(path))))); },
        py::arg("path"), "`ckpt loss --json`");
    m.def("timeline", [](const py::object& path, const std::string& filter, bool cache, double spikeThreshold) {
            if (!(spikeThreshold > 0) || !std::isfinite(spikeThreshold))
                throw py::value_error("spike_threshold takes a positive number of robust standard deviations");
            TimelineOptions o;
            o.filter = filter;
            o.useCache = cache;
            o.spikeThreshold = spikeThreshold;
            const std::string dir = fspath(path);
            auto t = withoutGil([&]() -> Result<Timeline> {
                auto run = listRunCheckpoints(dir);
                if (!run)
                    return std::unexpected(run.error());
                return computeTimeline(*run, o, Progress::none(), workers::threadedFor());
            });
            return parseJson(timelineJson(unwrap(std::move(t))));
        },
        py::arg("run"), py::kw_only(), py::arg("filter") = "", py::arg("cache") = true, py::arg("spike_threshold") = 6.0,
        "`ckpt timeline RUN --json` (cache=False is --no-cache): per-checkpoint statistics of every tensor of a run, updates and events");
    m.def("patch", [](const py::object& input, const py::object& output, const py::object& operations, const std::optional<std::string>& schemaFrom,
                        const std::optional<std::string>& schema, const std::optional<std::string>& scheduler) {
            OpenOptions o;
            o.schemaFrom = schemaFrom.value_or("");
            o.schemaFile = schema.value_or("");
            o.scheduler = scheduler.value_or("");
            const std::string in = fspath(input), out = fspath(output);
            auto ops = patchOpsFrom(operations);
            auto r = withoutGil([&] { return patchFile(in, out, std::move(ops), o, kPythonTool); });
            return patchResultDict(unwrap(std::move(r)), out);
        },
        py::arg("input"), py::arg("output"), py::arg("operations"), py::kw_only(), py::arg("schema_from") = py::none(),
        py::arg("schema") = py::none(), py::arg("scheduler") = py::none(),
        "`ckpt patch IN -o OUT OP...`: OUT written atomically with OUT.patch.json (source and SHA-256, operations, tool); returns "
        "{'output', 'sidecar', 'readiness', 'operations': [what each did], 'checks': [...]}");
    m.def("replay_patch", [](const py::object& sidecar, const py::object& output) {
            const std::string in = fspath(sidecar), out = fspath(output);
            auto r = withoutGil([&] { return replayPatch(in, out, kPythonTool); });
            return patchResultDict(unwrap(std::move(r)), out);
        },
        py::arg("sidecar"), py::arg("output"), "`ckpt patch --replay SIDECAR -o OUT`: the same bytes, or ckpt.Error when the source changed");
    m.def("bisect", [](const py::object& path, const std::string& until, const std::string& filter, bool scan) {
            auto predicate = parseBisectPredicate(until);
            if (!predicate)
                throw py::value_error(predicate.error().what);
            BisectOptions o;
            o.filter = filter;
            o.scan = scan;
            const std::string dir = fspath(path);
            auto r = withoutGil([&]() -> Result<BisectResult> {
                auto run = listRunCheckpoints(dir);
                if (!run)
                    return std::unexpected(run.error());
                return bisectRun(*run, *predicate, o, Progress::none(), workers::threadedFor());
            });
            return parseJson(bisectJson(unwrap(std::move(r))));
        },
        py::arg("run"), py::kw_only(), py::arg("until"), py::arg("filter") = "", py::arg("scan") = false,
        "`ckpt bisect RUN --until PRED --json`: the first checkpoint where PRED (nan, inf, nonfinite, max_abs>X, update_ratio>X) holds");
}
