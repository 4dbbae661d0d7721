// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/checkpointreader.h"
#include "core/io/bytes.h"
#include "core/io/sink.h"
#include "core/value/tape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ckpt {

/**
 * ipfrs_tensorlogic::ComputationNode. Maps keep the order of the file (the crate's HashMap order is
 * random per process, so the file order is the only order there is); a key given twice keeps its
 * first position and its last value, as HashMap::insert would leave it.
 */
struct ComputationNode {
    std::string id;
    std::string op;
    std::vector<std::string> inputCids;
    std::optional<std::string> outputCid;
    std::optional<std::string> gradientCid;
    std::vector<std::pair<std::string, std::string>> metadata;
};

/** ipfrs_tensorlogic::ComputationGraphStore: nodes keyed by id, edges (producer, consumer) as stored. */
struct ComputationGraphStore {
    std::vector<std::pair<std::string, ComputationNode>> nodes;
    std::vector<std::pair<std::string, std::string>> edges;
};

/** One entry of GradientCheckpoint::optimizer_state (a Vec<u8>). */
struct OptimizerBlob {
    std::string key;
    std::vector<uint8_t> bytes;
};

/** Things serde accepts silently that an inspector should still mention. */
struct DecodeNotes {
    uint64_t duplicateMapKeys = 0;   ///< repeated keys in nodes/metadata/optimizer_state (last one won)
    uint64_t unknownFields = 0;      ///< struct members serde ignored
    uint64_t nodeKeyIdMismatches = 0;///< nodes whose map key differs from their `id`
};

/** ipfrs_tensorlogic::GradientCheckpoint (ipfrs-tensorlogic 0.2.0). */
struct GradientCheckpoint {
    ComputationGraphStore graph;
    uint64_t step = 0;
    std::optional<std::string> lossCid;
    std::vector<OptimizerBlob> optimizerState;
    uint64_t timestamp = 0;
    DecodeNotes notes;
};

/**
 * Typed decoding of a GradientCheckpoint from a JSON tape with serde-derive + serde_json rules:
 * missing non-Option fields, duplicate struct fields, wrong types, u64 out of range, negative or
 * fractional numbers, blob elements outside 0..255 are rejected with serde_json's message and its
 * line:column (when the tape has its source bytes); unknown fields are ignored, missing Option
 * fields are None, map duplicates are last-wins. Structs given as JSON arrays (positional) are
 * accepted as serde_json accepts them. Never throws.
 */
Result<GradientCheckpoint> decodeGradientCheckpoint(const Tape& tape);
/** The same for the graph-only bytes of ComputationGraphStore::checkpoint() ({"nodes", "edges"}). */
Result<ComputationGraphStore> decodeGraphStore(const Tape& tape);

/** What a JSON file holding ipfrs graph data is. */
enum class GraphFileKind { GradientCheckpoint, GraphStoreOnly, Other };
/** Sniffs the top-level keys of a parsed JSON tape (no typed decoding). */
GraphFileKind sniffGraphFile(const Tape& tape);

/**
 * Reads a GradientCheckpoint file (GradientCheckpoint::load: serde_json::from_slice). A graph-only
 * file (checkpoint() bytes) is accepted too and yields a checkpoint with step 0 and no blobs when
 * \a allowGraphOnly is set. Errors carry line:column.
 */
Result<GradientCheckpoint> loadGradientCheckpoint(const BytesPtr& bytes, bool allowGraphOnly = false);

/** The checkpoint as a tape in the crate's member order (maps in stored order), for writeJson. */
Tape gradientCheckpointToTape(const GradientCheckpoint& checkpoint);
/** Bytes as GradientCheckpoint::save writes them (serde_json pretty, no trailing newline). */
std::vector<uint8_t> saveGradientCheckpoint(const GradientCheckpoint& checkpoint);
/** Bytes as ComputationGraphStore::checkpoint() returns them (compact). */
std::vector<uint8_t> graphStoreCheckpointBytes(const ComputationGraphStore& graph);

/** 1-based line and serde_json column (bytes consumed on the line) of byte index \a index. */
std::pair<uint32_t, uint32_t> jsonLineColumn(std::span<const uint8_t> text, uint64_t index);

} // namespace ckpt
