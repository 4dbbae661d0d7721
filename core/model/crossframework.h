// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Burn's PyTorch rules (cli-contract.md, "Across frameworks"), as burn-store's PyTorch adapter applies
// them: which tensor of a PyTorch or safetensors checkpoint is which tensor of a Burn record, and in
// which layout. The one place `ckpt diff`, `ckpt import` and `ckpt export` learn them from.
//  - names: a Burn module path drops its record root (`item[0].`, `item.`), writes a vector's element
//    `[N]` as `.N`, and calls a norm's `gamma`/`beta` `weight`/`bias`; then `--map FROM=TO` rewrites
//    the PyTorch names, in order (burn-store's key remapping);
//  - layouts: a Linear weight is [out, in] in PyTorch and [in, out] in Burn (transposed); every other
//    tensor keeps its layout;
//  - optimizer state: Adam's `exp_avg`/`exp_avg_sq`/`max_exp_avg_sq` are Burn's `moment_1`/`moment_2`/
//    `max_moment_2`, SGD's `momentum_buffer` is the `velocity`; PyTorch's `step` is Burn's `time`.

#include "core/model/record.h"

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** One `--map FROM=TO` rewrite: FROM an ECMAScript regular expression, TO its replacement (`$1`, ...). */
struct NameRewrite {
    std::string from, to;
    std::shared_ptr<const std::regex> pattern;
};

/** Parses `FROM=TO` (the first `=` splits); a Usage error names the spec and what is wrong with FROM. */
Result<NameRewrite> parseNameRewrite(std::string_view spec);
Result<std::vector<NameRewrite>> parseNameRewrites(const std::vector<std::string>& specs);
/** \a name through every rewrite in order (each replaces all its matches). */
Result<std::string> applyNameRewrites(const std::vector<NameRewrite>& rewrites, std::string name);

/** The record's tensors follow PyTorch's names and layouts (torch.save files, safetensors, DCP). */
bool followsPyTorchConventions(const Record& r);
/** Exactly one of the two records follows PyTorch's conventions: they are matched by the rules above. */
bool acrossFrameworks(const Record& a, const Record& b);

/** A Burn module path (`item[0].blocks[1].norm.gamma`) as PyTorch names it (`blocks.1.norm.weight`). */
std::string pytorchNameOfBurnPath(std::string_view modulePath);
/** Burn's optimizer state name for PyTorch's (`exp_avg` -> `moment_1`); \a torchState itself when it has none. */
std::string_view burnStateName(std::string_view torchState);
/** PyTorch's optimizer state name for Burn's (`moment_1` -> `exp_avg`); \a burnState itself when it has none. */
std::string_view pytorchStateName(std::string_view burnState);

enum class CrossLayout { Same, Transposed };
std::string_view crossLayoutName(CrossLayout l); ///< "same", "transposed"

/**
 * Whether the tensor PyTorch names \a pytorchName is a Linear weight, whose layouts differ: a 2-D
 * tensor whose last name component is `weight`, unless the name speaks of an embedding (`Embedding`
 * is [num, dim] in both frameworks). Shapes cannot tell a square Linear weight from an embedding.
 */
bool isLinearWeight(std::string_view pytorchName, size_t rank);
/** The layout relating \a torchShape to \a burnShape for that tensor; nullopt when the shapes do not fit either way. */
std::optional<CrossLayout> layoutAcross(std::string_view pytorchName, const std::vector<uint64_t>& torchShape, const std::vector<uint64_t>& burnShape);

/** One tensor's place in the matching: the name and optimizer state it was matched by. */
struct CrossKey {
    std::string name;   ///< the PyTorch-side name (after the rewrites on that side): `blocks.1.norm.weight`
    std::string state;  ///< Burn's state name for optimizer tensors ("moment_1"), "" for parameters and buffers
    bool matchable = false; ///< a parameter, buffer or optimizer moment with a name
};

/** The pairing of a PyTorch-convention record with a Burn record. */
struct CrossMatch {
    /** Per tensor of the PyTorch side: its Burn partner (index into burn.tensors) and the layout; nullopt when it has none. */
    std::vector<std::optional<std::pair<size_t, std::optional<CrossLayout>>>> burnOf;
    std::vector<CrossKey> torchKeys, burnKeys;
    /** PyTorch-side tensors that have no Burn counterpart by rule: optimizer `step` tensors and `num_batches_tracked`. */
    std::vector<bool> noCounterpart;
};

/**
 * Pairs \a torchSide's tensors with \a burnSide's: first by identical path (a safetensors file ckpt
 * exported from a Burn record), then by the rules. \a rewrites apply to the PyTorch names. An error
 * only from a rewrite (a regular expression too complex to run).
 */
Result<CrossMatch> matchAcrossFrameworks(const Record& torchSide, const Record& burnSide, const std::vector<NameRewrite>& rewrites);

/** The elements of a row-major [rows, cols] matrix of \a elementSize bytes each, transposed to [cols, rows]. */
std::vector<uint8_t> transposedMatrix(std::span<const uint8_t> bytes, uint64_t rows, uint64_t cols, size_t elementSize);

} // namespace ckpt
