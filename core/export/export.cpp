// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/export.h"

#include "core/codec/json.h"
#include "core/util/text.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace ckpt {


std::optional<ExportFormat> exportFormatFromPath(std::string_view path)
{
    const std::string p = asciiLower(path);
    if (p.ends_with(".safetensors"))
        return ExportFormat::Safetensors;
    if (p.ends_with(".npz"))
        return ExportFormat::Npz;
    if (p.ends_with(".pt") || p.ends_with(".pth"))
        return ExportFormat::PyTorch;
    return std::nullopt;
}

bool ExportSelection::includes(TensorRole role) const
{
    switch (role) {
    case TensorRole::Param: return params;
    case TensorRole::Optimizer: return optimizer;
    case TensorRole::Gradient: return gradients;
    case TensorRole::Other: return other;
    }
    return false;
}

Result<ExportSelection> parseExportSelection(std::string_view list)
{
    ExportSelection s{false, false, false, false};
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string_view item = list.substr(start, comma - start);
        if (item == "params" || item == "param")
            s.params = true;
        else if (item == "optimizer")
            s.optimizer = true;
        else if (item == "gradients" || item == "gradient")
            s.gradients = true;
        else if (item == "other")
            s.other = true;
        else
            return fail(ErrorCode::Usage, "--what takes a comma-separated list of params, optimizer, gradients, other; got '" + std::string(item) + "'");
        start = comma + 1;
    }
    return s;
}

Result<std::string> safetensorsDtypeFor(const TensorEntry& t)
{
    switch (t.dtype) {
    case DType::F64: return std::string("F64");
    case DType::F32:
    case DType::Flex32: return std::string("F32");
    case DType::F16: return std::string("F16");
    case DType::BF16: return std::string("BF16");
    case DType::I64: return std::string("I64");
    case DType::I32: return std::string("I32");
    case DType::I16: return std::string("I16");
    case DType::I8: return std::string("I8");
    case DType::U64: return std::string("U64");
    case DType::U32: return std::string("U32");
    case DType::U16: return std::string("U16");
    case DType::U8: return std::string("U8");
    case DType::Bool: return std::string(t.boolStore == BoolStore::U32 ? "U32" : "BOOL");
    case DType::QFloat: break;
    }
    Error e{ErrorCode::Unsupported, "a QFloat tensor (packed quantized layout) has no safetensors or numpy dtype"};
    e.recordPath = t.path;
    e.offset = t.offset;
    return std::unexpected(std::move(e));
}

std::string npyDescrFor(const TensorEntry& t)
{
    auto dtype = safetensorsDtypeFor(t);
    if (!dtype)
        return {};
    const std::string& d = *dtype;
    if (d == "BOOL")
        return "|b1";
    if (d == "BF16")
        return "<f4"; // widened: numpy has no bfloat16
    const char kind = d[0] == 'F' ? 'f' : d[0] == 'I' ? 'i' : 'u';
    int bits = 0;
    std::from_chars(d.data() + 1, d.data() + d.size(), bits); // "F32" -> 32
    return bits == 8 ? std::string("|") + kind + "1" : std::string("<") + kind + std::to_string(bits / 8);
}

std::string exportMetadataJson(const Record& r, const ExportSelection& what)
{
    std::string j = "{\"format\":\"checkpoint-inspector export 1\",\"source\":";
    appendJsonQuoted(j, r.file);
    j += ",\"kind\":";
    appendJsonQuoted(j, recordKindName(r.kind));
    j += ",\"recorder\":";
    appendJsonQuoted(j, recorderName(r.recorder));
    j += ",\"precision\":";
    appendJsonQuoted(j, r.precisionText());
    j += ",\"metadata\":";
    if (r.parts.empty()) {
        j += "{";
        const std::pair<const char*, const std::string*> meta[] = {{"float", &r.metadata.floatType}, {"int", &r.metadata.intType},
            {"format", &r.metadata.format}, {"version", &r.metadata.version}, {"settings", &r.metadata.settings}};
        for (size_t i = 0; i < std::size(meta); ++i) {
            j += i ? ",\"" : "\"";
            j += meta[i].first;
            j += "\":";
            appendJsonQuoted(j, *meta[i].second);
        }
        j += "}";
    } else {
        j += "null"; // Burn >= 0.22 writes no recorder metadata (as `info --json` says)
    }
    j += ",\"scheduler\":";
    if (r.scheduler && r.schedulerNode) {
        j += "{\"kind\":";
        appendJsonQuoted(j, r.scheduler->kind);
        j += ",\"description\":";
        appendJsonQuoted(j, r.scheduler->description);
        j += ",\"value\":" + jsonText(r.tape, *r.schedulerNode, JsonStyle::Compact) + "}";
    } else {
        j += "null";
    }
    // The state as JSON, unless tensors in it would make the metadata as large as the tensors
    // themselves (a Bin is written as an array of numbers): those are exported as tensors anyway.
    uint64_t stateBinBytes = 0;
    if (r.stateNode)
        for (uint32_t n = *r.stateNode; n < r.tape[*r.stateNode].end; ++n)
            stateBinBytes += r.tape[n].kind == Kind::Bin ? r.tape[n].count : 0;
    constexpr uint64_t kStateBinLimit = 64 << 10;
    j += ",\"state\":" + (r.stateNode && stateBinBytes <= kStateBinLimit ? jsonText(r.tape, *r.stateNode, JsonStyle::Compact) : std::string("null"));
    if (stateBinBytes > kStateBinLimit)
        j.append(",\"state_omitted\":\"the continuation state holds ").append(std::to_string(stateBinBytes)).append(" payload bytes (its tensors are exported as tensors)\"");
    j += ",\"what\":[";
    bool first = true;
    for (auto [on, name] : {std::pair{what.params, "params"}, {what.optimizer, "optimizer"}, {what.gradients, "gradients"}, {what.other, "other"}})
        if (on) {
            j += first ? "\"" : ",\"";
            j += name;
            j += "\"";
            first = false;
        }
    j += "],\"tensors\":{";
    first = true;
    for (const auto& t : r.tensors) {
        if (!what.includes(t.role))
            continue;
        if (!first)
            j += ",";
        first = false;
        appendJsonQuoted(j, t.path);
        j += ":{\"role\":";
        appendJsonQuoted(j, tensorRoleName(t.role));
        j += ",\"param_id\":";
        if (t.paramId.empty())
            j += "null";
        else
            appendJsonQuoted(j, t.paramId);
        if (!t.stateName.empty()) {
            j += ",\"state\":";
            appendJsonQuoted(j, t.stateName);
        }
        j += ",\"dtype\":";
        appendJsonQuoted(j, dtypeName(t.dtype));
        j += "}";
    }
    return j + "}}";
}

} // namespace ckpt
