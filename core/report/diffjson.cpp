// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/diffjson.h"

#include "core/report/document.h"
#include "core/report/graphdiffjson.h"

#include <optional>

namespace ckpt {

namespace {
void deltaHistogramJson(TapeBuilder& b, const DeltaHistogram& h)
{
    // Non-empty bins only, from the most negative to the most positive; the zero bin is [0, 0].
    auto bin = [&](double lo, double hi, uint64_t count) {
        b.beginMap();
        putF(b, "lo", lo);
        putF(b, "hi", hi);
        putU(b, "count", count);
        b.end();
    };
    b.beginArray();
    for (size_t k = DeltaHistogram::bins; k-- > 0;)
        if (h.negative[k])
            bin(-DeltaHistogram::binHigh(k), -DeltaHistogram::binLow(k), h.negative[k]);
    if (h.zero) {
        b.beginMap();
        putU(b, "lo", 0);
        putU(b, "hi", 0);
        putU(b, "count", h.zero);
        b.end();
    }
    for (size_t k = 0; k < DeltaHistogram::bins; ++k)
        if (h.positive[k])
            bin(DeltaHistogram::binLow(k), DeltaHistogram::binHigh(k), h.positive[k]);
    b.end();
}

/** A state value's JSON text as a value of the document (text that is not JSON stays a string). */
void stateValueJson(TapeBuilder& b, const std::optional<std::string>& v)
{
    if (!v) {
        b.nil();
        return;
    }
    JsonReadOptions options;
    options.packByteArrays = false;
    options.maxDepth = UINT32_MAX; // the text is core's own writing of a decoded value: any depth it has is valid
    auto parsed = readJson(makeBytes(*v), options);
    if (parsed)
        copyJsonValue(b, *parsed, parsed->root());
    else
        b.str(*v);
}
} // namespace

void beginDiffSummary(TapeBuilder& b, const DiffCounts& d)
{
    putStr(b, "a", d.a);
    putStr(b, "b", d.b);
    b.key("summary");
    b.beginMap();
    putU(b, "added", d.added);
    putU(b, "removed", d.removed);
    putU(b, "changed", d.changed);
    putU(b, "unchanged", d.unchanged);
}

std::string diffJson(const RecordDiff& d, const Record& a, const Record& b)
{
    TapeBuilder j;
    j.beginMap();
    beginDiffSummary(j, d);
    putU(j, "renamed", d.renamed);
    j.end();
    if (d.precision) {
        j.key("precision");
        j.beginMap();
        putStr(j, "a", precisionName(d.precision->a));
        putStr(j, "b", precisionName(d.precision->b));
        putBool(j, "rounding_only", d.precision->roundingOnly);
        j.end();
    } else {
        putNil(j, "precision");
    }
    putBool(j, "across_frameworks", d.acrossFrameworks);
    j.key("notes");
    j.beginArray();
    for (const auto& n : d.notes)
        j.str(n);
    j.end();
    j.key("entries");
    j.beginArray();
    for (const auto& e : d.entries) {
        j.beginMap();
        putStr(j, "path", e.path);
        putStr(j, "status", diffStatusName(e.status));
        tensorNumbersMembers(j, e);
        putOptStr(j, "match", matchKindName(e.match));
        putOptStr(j, "path_b", e.pathB);
        putBool(j, "renamed", e.renamed());
        putBool(j, "reinitialised", e.reinitialised());
        putStr(j, "role", tensorRoleName(e.role));
        putOptStr(j, "param_id", e.paramId);
        putOptStr(j, "param_id_b", e.paramIdB);
        putOptStr(j, "dtype_a", e.a ? a.tensors[*e.a].dtypeLabel() : std::string());
        putOptStr(j, "dtype_b", e.b ? b.tensors[*e.b].dtypeLabel() : std::string());
        putBool(j, "byte_equal", e.byteEqual);
        putBool(j, "precision_change", e.precisionChange);
        if (d.acrossFrameworks) { // only across frameworks, where a layout can differ
            if (e.layout)
                putStr(j, "layout", crossLayoutName(*e.layout));
            else
                putNil(j, "layout");
        }
        j.key("histogram");
        if (e.a && e.b && e.maxAbs)
            deltaHistogramJson(j, e.histogram);
        else
            j.nil();
        j.end();
    }
    j.end();
    j.key("state");
    j.beginArray();
    for (const auto& s : d.state) {
        j.beginMap();
        putStr(j, "path", s.path);
        j.key("a");
        stateValueJson(j, s.a);
        j.key("b");
        stateValueJson(j, s.b);
        putStr(j, "section", stateSectionName(s.section));
        putOptStr(j, "path_b", s.pathB);
        j.end();
    }
    j.end();
    return reportDocument(std::move(j));
}

} // namespace ckpt
