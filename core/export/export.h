// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Moving a record's tensors to the tools researchers script with and back: safetensors (the format
// of Hugging Face's `safetensors` crate, read by PyTorch, JAX and numpy) and numpy's .npz. Names are
// the record's tensor paths, so a file written here goes back into the same record (`ckpt import`).

#include "core/model/crossframework.h"
#include "core/record/record.h"
#include "core/safetensors/safetensorsfile.h"

#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

enum class ExportFormat { Safetensors, Npz, PyTorch };
/** By extension: `.safetensors`, `.npz`, `.pt` or `.pth` (case-insensitive); nullopt otherwise. */
std::optional<ExportFormat> exportFormatFromPath(std::string_view path);

/** Which tensors to export, by role (`--what params,optimizer,gradients,other`). */
struct ExportSelection {
    bool params = true;
    bool optimizer = true;
    bool gradients = true;
    bool other = true;
    bool includes(TensorRole role) const;
};
/** Parses a comma-separated list of params, optimizer, gradients, other (Usage error otherwise). */
Result<ExportSelection> parseExportSelection(std::string_view list);

/**
 * The safetensors dtype a record tensor is written as ("F32", "BF16", "BOOL", ...): Burn's dtype
 * under safetensors' name. Flex32 is stored as f32 bytes (F32); a Bool stored as u32 (Burn 0.21's
 * BoolStore::U32) is U32. QFloat (an opaque packed layout) has no safetensors dtype: Unsupported.
 */
Result<std::string> safetensorsDtypeFor(const TensorEntry& t);

/**
 * The numpy dtype (`descr` of a .npy header, "<f4", "|b1", ...) a tensor is shown or written as:
 * safetensorsDtypeFor()'s type in numpy's spelling, BF16 widened to "<f4" (numpy has no bfloat16).
 * Empty for QFloat. One answer for the .npz writer and the Python module's arrays.
 */
std::string npyDescrFor(const TensorEntry& t);

/**
 * The JSON document kept under `__metadata__["ckpt"]` (and as `ckpt-metadata.json` in a .npz): the
 * source file's kind, recorder, precision, envelope metadata, scheduler (kind, description, value),
 * continuation state (exact integers; null with a `state_omitted` note when tensors in it hold more
 * than 64 KiB, which would be written as arrays of numbers), which roles were exported, and per
 * tensor its role, parameter id, optimizer state name and Burn dtype.
 */
std::string exportMetadataJson(const Record& r, const ExportSelection& what);

struct ExportSummary {
    uint64_t tensors = 0;
    uint64_t payloadBytes = 0;
    std::vector<std::string> notes; ///< conversions made on the way (bf16 widened in .npz, legacy tensors encoded)
};

/**
 * Writes the selected tensors as safetensors, atomically: 8-byte little-endian header length, the
 * JSON header (tensors in the record's file order, then `__metadata__`), padded with spaces so the
 * data start at a multiple of 8, then the payloads ordered by element size (largest first, file
 * order within a size) so every tensor starts at a multiple of its element size with no gap, as the
 * format requires. Payload bytes are copied from the mapping once, straight to the file.
 */
Result<ExportSummary> exportSafetensors(const Record& r, const ExportSelection& what, const std::string& path);

/**
 * Writes the selected tensors as a .npz (a ZIP archive of stored, uncompressed `.npy` files, named
 * PATH.npy, plus ckpt-metadata.json), atomically. BF16 has no numpy dtype and is widened to float32
 * (exact). Members or archives of 4 GiB and more get ZIP64 records (core/io/zipwriter), which numpy
 * reads.
 */
Result<ExportSummary> exportNpz(const Record& r, const ExportSelection& what, const std::string& path);

/** What `ckpt export RECORD OUT.pt` writes: a state dict (params) or {"model", "optimizer", "step"} (all). */
enum class TorchExportWhat { Params, All };
std::optional<TorchExportWhat> parseTorchExportWhat(std::string_view what); ///< "params", "all"

struct TorchExportOptions {
    TorchExportWhat what = TorchExportWhat::Params;
    std::vector<NameRewrite> rewrites; ///< `--map FROM=TO` on the PyTorch names written
};

/**
 * Writes a Burn record as torch.save's zip format, atomically, by Burn's PyTorch rules
 * (core/model/crossframework.h): parameters by their PyTorch names in the record's order, Linear
 * weights (and their moments) transposed to [out, in]. With TorchExportWhat::All, also torch.optim's
 * state dict: per parameter index (the state dict's order without its buffers, as model.parameters()
 * gives them) `step` (a float32 scalar, as torch >= 1.12 keeps it), `exp_avg`, `exp_avg_sq` (or SGD's
 * `momentum_buffer`), and one param group with the record's hyper-parameters where its continuation
 * state keeps them (ckpt-train's: lr as last used, betas, epsilon, weight decay), Burn's defaults
 * otherwise (noted in the summary); and `step`, the largest Adam time. Loads with
 * torch.load(weights_only=True); the parts go to load_state_dict(strict=True) and
 * torch.optim.Adam/AdamW/SGD.load_state_dict. Unsupported for a PyTorch-convention record, quantized
 * tensors, unsigned dtypes torch's storages lack, and optimizers other than Adam/AdamW and SGD.
 */
Result<ExportSummary> exportTorch(const Record& r, const TorchExportOptions& options, const std::string& path);

struct ImportSummary {
    uint64_t replaced = 0;          ///< tensors whose bytes differ from the target's
    uint64_t unchanged = 0;         ///< tensors in the file with the target's bytes
    uint64_t untouched = 0;         ///< tensors of the target the file does not name
    std::vector<std::string> warnings;
};

/**
 * The target record's envelope with the payloads of \a file put in: every tensor of the file must
 * name a tensor of the target (by path), with the dtype safetensorsDtypeFor() gives it and the same
 * shape; tensors the file does not name keep their bytes. Metadata, scheduler and continuation state
 * stay the target's (a warning says when the file's `ckpt` metadata recorded others). Legacy
 * {value, shape} tensors cannot take new bytes (Unsupported unless the bytes are unchanged).
 * Errors name the safetensors file and the tensor. A record read from container files has no envelope (importedRecord).
 */
Result<Tape> importedEnvelope(const Record& target, const SafetensorsFile& file, ImportSummary& summary);

/** The record the import makes, in memory (the Python module's import_safetensors): the target's format family applies it (a container file keeps its layout). */
Result<std::shared_ptr<const Record>> importedRecord(const Record& target, const SafetensorsFile& file, ImportSummary& summary);

/** importedEnvelope, then an atomic write in the target's recorder (and bincode layout); write errors name \a outPath. */
Result<ImportSummary> importSafetensors(const Record& target, const SafetensorsFile& file, const std::string& outPath);

/** `ckpt import RECORD SOURCE.pt -o OUT [--map FROM=TO]... [--optimizer]`. */
struct CrossImportOptions {
    std::vector<NameRewrite> rewrites;  ///< on the source's PyTorch names, in order
    bool optimizer = false;  ///< also Adam/AdamW moments (and SGD's momentum buffer) and step counts
};

/**
 * A PyTorch or safetensors checkpoint's tensors put into a Burn record of the same model, by Burn's
 * PyTorch rules (core/model/crossframework.h): the target's structure decides names, layouts and
 * dtypes. Every tensor of the source's state dict must find its target tensor (Invalid, naming it,
 * otherwise: a `--map` rewrite is missing) with a shape that fits as is or transposed (Invalid naming
 * both shapes); values are converted to the target's dtype (exact between equal dtypes; floats round
 * to nearest). Target parameters the source does not name keep their values (warned). With
 * \a options.optimizer, the optimizer state too: each parameter's moments go to its target optimizer
 * entry's (which must exist: the target has taken a step) and its step count becomes the entry's
 * `time`. Metadata, scheduler and continuation state stay the target's. Errors name the source file
 * and the tensor. In memory (the Python module) and as an atomic write in the target's recorder.
 */
Result<std::shared_ptr<const Record>> importedAcrossFrameworks(const Record& target, const Record& source, const CrossImportOptions& options,
    ImportSummary& summary);
Result<ImportSummary> importAcrossFrameworks(const Record& target, const Record& source, const CrossImportOptions& options, const std::string& outPath);

} // namespace ckpt
