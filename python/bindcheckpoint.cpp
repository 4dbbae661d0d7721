// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt.GradientCheckpoint: the graph documents of the CLI, nodes and edges, and optimizer_state blobs
// and CAR blocks as read-only arrays.
#include "glue.h"

#include "core/graph/analysis.h"
#include "core/graph/blob.h"
#include "core/report/graphreport.h"

namespace ckpt::pyglue {

namespace {

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

} // namespace

void bindGradientCheckpoint(py::module_& m)
{
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
}

} // namespace ckpt::pyglue
