// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The module's functions: ckpt.open and ckpt.diff of any input, the run documents (run, loss,
// timeline, bisect) and surgery on files (patch, replay_patch).
#include "glue.h"

#include "app/workers/parallelfor.h"
#include "core/report/timelinejson.h"
#include "core/report/runjson.h"
#include "core/run/run.h"
#include "core/run/timeline.h"

#include <cmath>

namespace ckpt::pyglue {

namespace {

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

py::object diffAny(py::object a, py::object b, double tolerance, const std::vector<std::string>& map)
{
    auto asOpened = [](py::object x) {
        if (py::isinstance<PyRecord>(x) || py::isinstance<PyGradientCheckpoint>(x))
            return x;
        return openAny(x, std::nullopt, std::nullopt, std::nullopt, false, std::nullopt);
    };
    a = asOpened(a);
    b = asOpened(b);
    if (py::isinstance<PyRecord>(a) && py::isinstance<PyRecord>(b))
        return recordDiff(a.cast<PyRecord&>().r(), b.cast<PyRecord&>().r(), tolerance, map);
    if (py::isinstance<PyGradientCheckpoint>(a) && py::isinstance<PyGradientCheckpoint>(b))
        return graphDiff(a.cast<PyGradientCheckpoint&>(), b.cast<PyGradientCheckpoint&>(), tolerance);
    raise(ErrorCode::Usage, "diff compares two records or two GradientCheckpoints, not one of each");
}

} // namespace

void bindOpenAndDiff(py::module_& m)
{
    m.def("open", &openAny, py::arg("path"), py::kw_only(), py::arg("schema_from") = py::none(), py::arg("schema") = py::none(),
        py::arg("scheduler") = py::none(), py::arg("lenient") = false, py::arg("blocks") = py::none(),
        "Opens a record (any recorder, sniffed from content), a run directory (its newest record-STEP, else model-EPOCH) or a "
        "GradientCheckpoint (with the .car beside it, or blocks=). Bincode records take schema_from= / schema= / scheduler= as the "
        "CLI's --schema-from / --schema / --scheduler; lenient=True is --lenient. Tensor payloads are not read.");
    m.def("diff", &diffAny, py::arg("a"), py::arg("b"), py::arg("tolerance") = 0.0, py::arg("map") = std::vector<std::string>{},
        "`ckpt diff --json` of two records or two GradientCheckpoints (paths or opened objects); map: --map FROM=TO rewrites across frameworks");
}

void bindRunFunctions(py::module_& m)
{
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

void bindPatchFunctions(py::module_& m)
{
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
}

} // namespace ckpt::pyglue
