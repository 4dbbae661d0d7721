// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/sink.h"
#include "core/value/tape.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** Burn/Ruda file recorders (format-burn-record.md §2). */
enum class Recorder {
    NamedMpk,
    NamedMpkGz,
    PrettyJson,
    JsonGz,
    Bin,
    BinGz,
    Burnpack, ///< Burn >= 0.19's `.bpk` container (no Recorder, no precision settings; core/pack)
    PyTorch,       ///< torch.save's zip format (torch >= 1.6; core/torch): read, not written
    PyTorchLegacy, ///< torch.save(..., _use_new_zipfile_serialization=False): pickles and raw storages
    Safetensors,   ///< Hugging Face's safetensors (core/safetensors): read as a record; written by `ckpt export`
    DCP,           ///< a PyTorch Distributed Checkpoint directory (core/torch): read; a directory, so no extension
};
/** Burn's PrecisionSettings (§4). */
enum class Precision { Full, Half, Double };

std::string_view recorderName(Recorder r);              ///< "NamedMpk", ...
std::optional<Recorder> recorderFromName(std::string_view name); ///< accepts the names, case-insensitive, and "mpk", "json.gz", ...
std::string_view recorderExtension(Recorder r);         ///< "mpk", "mpk.gz", "json", "json.gz", "bin", "bin.gz"
std::optional<Recorder> recorderFromPath(std::string_view path); ///< by the file's extension(s)
/**
 * The extensions of every record file the recorders (and burnpack) write, without the dot and longest
 * first ("mpk.gz" before "mpk"): the one list the file dialogs, the run scan and the names shown are
 * made from.
 */
const std::vector<std::string_view>& recordExtensions();
/** \a name without the record extension it ends with (the longest of recordExtensions()), or as it is. */
std::string_view withoutRecordExtension(std::string_view name);
bool isGzipped(Recorder r);
std::string_view precisionName(Precision p);            ///< "full", "half", "double"
std::optional<Precision> precisionFromName(std::string_view name);

/** The envelope's five metadata strings, verbatim (§1). */
struct Metadata {
    std::string floatType;  ///< "f32", "half::binary16::f16", "f64"
    std::string intType;    ///< "i32", "i16", "i64"
    std::string format;     ///< type_name of the recorder
    std::string version;    ///< crate version, e.g. "0.21.0"
    std::string settings;   ///< "FullPrecisionSettings", ...
};

/** Metadata exactly as Burn (or Ruda, \a ruda) writes it for that recorder, precision and version. */
Metadata makeMetadata(Recorder r, Precision p, std::string_view version = "0.21.0", bool ruda = false);
/** The precision metadata names (settings first, then the float type); nullopt when unknown. */
std::optional<Precision> precisionFromMetadata(const Metadata& m);

/** Appends BurnMetadata as Burn's envelope holds it: {float, int, format, version, settings}. */
void putMetadata(TapeBuilder& b, const Metadata& m);

/**
 * Appends an envelope map {metadata, item, _b} to \a b; the caller writes the item between
 * beginEnvelope() and endEnvelope(). Keeps writers (trainer, converter, tests) from spelling the
 * envelope differently.
 */
void beginEnvelope(TapeBuilder& b, const Metadata& m);
void endEnvelope(TapeBuilder& b);

} // namespace ckpt
