// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/recorder.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace ckpt {

namespace {
struct RecorderInfo {
    Recorder r;
    std::string_view name;
    std::string_view ext;
    std::string_view typeName; // the file recorder's type name without the module prefix
};
// clang-format off: one recorder per line
constexpr std::array<RecorderInfo, 11> kRecorders = {{
    {Recorder::NamedMpk, "NamedMpk", "mpk", "NamedMpkFileRecorder"},
    {Recorder::NamedMpkGz, "NamedMpkGz", "mpk.gz", "NamedMpkGzFileRecorder"},
    {Recorder::PrettyJson, "PrettyJson", "json", "PrettyJsonFileRecorder"},
    {Recorder::JsonGz, "JsonGz", "json.gz", "JsonGzFileRecorder"},
    {Recorder::Bin, "Bin", "bin", "BinFileRecorder"},
    {Recorder::BinGz, "BinGz", "bin.gz", "BinGzFileRecorder"},
    {Recorder::Burnpack, "Burnpack", "bpk", "burn_pack::Writer"}, // not a Recorder: Burn >= 0.22 has none
    // PyTorch's files are sniffed by content; .pt and .pth are both names research code gives either format
    {Recorder::PyTorch, "PyTorch", "pt", "torch.save"},
    {Recorder::PyTorchLegacy, "PyTorchLegacy", "pth", "torch.save(_use_new_zipfile_serialization=False)"},
    {Recorder::Safetensors, "Safetensors", "safetensors", "safetensors"},
    {Recorder::DCP, "DCP", "", "torch.distributed.checkpoint"}, // a directory: no file extension
}};
// clang-format on

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}
} // namespace

std::string_view recorderName(Recorder r) { return kRecorders[static_cast<size_t>(r)].name; }
std::string_view recorderExtension(Recorder r) { return kRecorders[static_cast<size_t>(r)].ext; }
bool isGzipped(Recorder r) { return r == Recorder::NamedMpkGz || r == Recorder::JsonGz || r == Recorder::BinGz; }

std::optional<Recorder> recorderFromName(std::string_view name)
{
    const std::string n = lower(name);
    for (const auto& i : kRecorders)
        if (lower(i.name) == n || (!i.ext.empty() && i.ext == n))
            return i.r;
    if (n == "json" || n == "prettyjson" || n == "pretty-json")
        return Recorder::PrettyJson;
    return std::nullopt;
}

const std::vector<std::string_view>& recordExtensions()
{
    static const std::vector<std::string_view> extensions = [] {
        std::vector<std::string_view> out;
        out.reserve(kRecorders.size());
        for (const auto& i : kRecorders)
            if (!i.ext.empty())
                out.push_back(i.ext);
        // longest first, so that "mpk.gz" is not taken for "gz"
        std::stable_sort(out.begin(), out.end(), [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
        return out;
    }();
    return extensions;
}

namespace {
/** The record extension \a name ends with after a dot (compared without case), if any. */
std::optional<std::string_view> recordExtensionOf(std::string_view name)
{
    const std::string n = lower(name);
    for (std::string_view ext : recordExtensions())
        if (n.size() > ext.size() + 1 && n.ends_with(ext) && n[n.size() - ext.size() - 1] == '.')
            return ext;
    return std::nullopt;
}
} // namespace

std::string_view withoutRecordExtension(std::string_view name)
{
    const auto ext = recordExtensionOf(name);
    return ext ? name.substr(0, name.size() - ext->size() - 1) : name;
}

std::optional<Recorder> recorderFromPath(std::string_view path)
{
    const auto ext = recordExtensionOf(path);
    return ext ? recorderFromName(*ext) : std::nullopt;
}

std::string_view precisionName(Precision p)
{
    switch (p) {
    case Precision::Full: return "full";
    case Precision::Half: return "half";
    case Precision::Double: return "double";
    }
    return "full";
}

std::optional<Precision> precisionFromName(std::string_view name)
{
    const std::string n = lower(name);
    if (n == "full" || n == "f32")
        return Precision::Full;
    if (n == "half" || n == "f16")
        return Precision::Half;
    if (n == "double" || n == "f64")
        return Precision::Double;
    return std::nullopt;
}

Metadata makeMetadata(Recorder r, Precision p, std::string_view version, bool ruda)
{
    Metadata m;
    std::string settings;
    switch (p) {
    case Precision::Full: m.floatType = "f32"; m.intType = "i32"; settings = "FullPrecisionSettings"; break;
    case Precision::Half: m.floatType = "half::binary16::f16"; m.intType = "i16"; settings = "HalfPrecisionSettings"; break;
    case Precision::Double: m.floatType = "f64"; m.intType = "i64"; settings = "DoublePrecisionSettings"; break;
    }
    const std::string crate = ruda ? "ruda_model" : "burn_core";
    m.format = crate + "::record::file::" + std::string(kRecorders[static_cast<size_t>(r)].typeName) + "<" + crate
        + "::record::settings::" + settings + ">";
    m.version = std::string(version);
    m.settings = settings;
    return m;
}

std::optional<Precision> precisionFromMetadata(const Metadata& m)
{
    if (m.settings.starts_with("FullPrecision"))
        return Precision::Full;
    if (m.settings.starts_with("HalfPrecision"))
        return Precision::Half;
    if (m.settings.starts_with("DoublePrecision"))
        return Precision::Double;
    if (m.floatType == "f32")
        return Precision::Full;
    if (m.floatType.find("f16") != std::string::npos)
        return Precision::Half;
    if (m.floatType == "f64")
        return Precision::Double;
    return std::nullopt;
}

void putMetadata(TapeBuilder& b, const Metadata& m)
{
    static constexpr JsonField<Metadata> kFields[] = {{"float", &Metadata::floatType}, {"int", &Metadata::intType}, {"format", &Metadata::format},
        {"version", &Metadata::version}, {"settings", &Metadata::settings}};
    b.beginMap();
    putFields(b, m, kFields);
    b.end();
}

void beginEnvelope(TapeBuilder& b, const Metadata& m)
{
    b.beginMap();
    b.key("metadata");
    putMetadata(b, m);
    b.key("item");
}

void endEnvelope(TapeBuilder& b)
{
    b.key("_b");
    b.beginArray(); // PhantomData: a unit struct, written by rmp-serde as an empty array
    b.end();
    b.end();
}

} // namespace ckpt
