// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt.Record: its properties, what reads it (the CLI's JSON documents, arrays, statistics) and what
// writes a new one (edits, surgery, import, save, export).
#include "glue.h"

#include "app/workers/parallelfor.h"
#include "core/edit/edit.h"
#include "core/export/export.h"
#include "core/open/formats.h"
#include "core/open/saveas.h"
#include "core/report/recordjson.h"

#include <cstring>

namespace ckpt::pyglue {

namespace {

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
        raise(ErrorCode::Invalid, std::to_string(bytes.size()) + " payload bytes do not hold shape " + shapeString(t.shape) + " of " + t.dtypeLabel(), r.file);
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

std::optional<Recorder> recorderArg(const std::optional<std::string>& name)
{
    if (!name)
        return std::nullopt;
    auto r = recorderFromName(*name);
    if (!r)
        raise(ErrorCode::Usage, "unknown recorder '" + *name + "' (NamedMpk, NamedMpkGz, PrettyJson, JsonGz, Bin, BinGz)");
    return r;
}

void bindRecordProperties(py::class_<PyRecord>& c)
{
    c
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
        .def_property_readonly("buffer", &PyRecord::bufferObject, "the Buffer every array of this record views");
}

void bindRecordReads(py::class_<PyRecord>& c)
{
    c
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
        }, "raises ckpt.Error where `ckpt validate` fails");
}

void bindRecordWrites(py::class_<PyRecord>& c)
{
    // clang-format off: one chain of .def()s, laid out one binding per paragraph by hand
    c
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
        .def("__repr__", [](const PyRecord& w) {
            return "<ckpt.Record " + std::string(recordKindName(w.r().kind)) + " " + std::string(recorderName(w.r().recorder)) + " " +
                std::to_string(w.r().tensors.size()) + " tensors: " + w.r().file + ">";
        });
    // clang-format on
}

/** Moving a record to other tools and frameworks: export, import from PyTorch, diff (across frameworks with map). */
void bindRecordExchange(py::class_<PyRecord>& c)
{
    c.def(
        "export",
        [](const PyRecord& w, const py::object& pathObj, const std::optional<std::string>& what, const std::vector<std::string>& map) {
            const std::string path = fspath(pathObj);
            const auto format = exportFormatFromPath(path);
            if (!format)
                raise(ErrorCode::Usage, "the output ends in .safetensors, .npz, .pt or .pth", path);
            Result<ExportSummary> s;
            if (*format == ExportFormat::PyTorch) {
                TorchExportOptions o;
                const auto torchWhat = parseTorchExportWhat(what.value_or("params"));
                if (!torchWhat)
                    raise(ErrorCode::Usage, "what is 'params' or 'all' for a .pt file", path);
                o.what = *torchWhat;
                o.rewrites = unwrap(parseNameRewrites(map));
                s = withoutGil([&] { return exportTorch(w.r(), o, path); });
            } else {
                if (!map.empty())
                    raise(ErrorCode::Usage, "map renames for PyTorch: it goes with a .pt file", path);
                const auto sel = unwrap(parseExportSelection(what.value_or("params,optimizer,gradients,other")));
                s = withoutGil([&] { return *format == ExportFormat::Safetensors ? exportSafetensors(w.r(), sel, path) : exportNpz(w.r(), sel, path); });
            }
            auto summary = unwrapIn(std::move(s), w.r().file);
            py::dict d;
            d["tensors"] = summary.tensors;
            d["bytes"] = summary.payloadBytes;
            d["notes"] = summary.notes;
            return d;
        },
        py::arg("path"), py::arg("what") = py::none(), py::arg("map") = std::vector<std::string>{},
        "`ckpt export`: what defaults to every role for .safetensors/.npz and to 'params' for .pt ('all': with the optimizer); "
        "map: --map FROM=TO rewrites of the PyTorch names");
    c.def(
        "import_torch",
        [](const PyRecord& w, const py::object& path, bool optimizer, const std::vector<std::string>& map) {
            CrossImportOptions o;
            o.optimizer = optimizer;
            o.rewrites = unwrap(parseNameRewrites(map));
            const std::string sourcePath = fspath(path); // with the GIL: it may call os.fspath
            auto source = unwrap(withoutGil([&] { return openRecord(sourcePath, OpenOptions{}); }));
            ImportSummary summary;
            auto record = unwrap(withoutGil([&] { return importedAcrossFrameworks(w.r(), *source, o, summary); }));
            for (const auto& warning : summary.warnings)
                if (PyErr_WarnEx(PyExc_UserWarning, (sourcePath + ": " + warning).c_str(), 1) < 0)
                    throw py::error_already_set(); // warnings turned into errors
            return PyRecord{std::move(record), w.options, w.run, py::object()};
        },
        py::arg("path"), py::arg("optimizer") = false, py::arg("map") = std::vector<std::string>{},
        "a new Record with a PyTorch or safetensors checkpoint's weights (optimizer=True: and its Adam state) put in by Burn's "
        "PyTorch rules, as `ckpt import --optimizer --map`");
    c.def(
        "diff",
        [](const PyRecord& w, const PyRecord& other, double tolerance, const std::vector<std::string>& map) {
            return recordDiff(w.r(), other.r(), tolerance, map);
        },
        py::arg("other"), py::arg("tolerance") = 0.0, py::arg("map") = std::vector<std::string>{},
        "`ckpt diff --json` of this record (a) and other (b); map: --map FROM=TO rewrites across frameworks");
}

} // namespace

void bindRecord(py::module_& m)
{
    py::class_<PyRecord> c(m, "Record", "A decoded and indexed Burn/Ruda record (payload bytes stay in the mapping).");
    bindRecordProperties(c);
    bindRecordReads(c);
    bindRecordWrites(c);
    bindRecordExchange(c);
}

} // namespace ckpt::pyglue
