// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/sink.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <optional>
#include <string>
#include <vector>

namespace ckpt {

struct JsonReadOptions {
    uint32_t maxDepth = 128;        ///< serde_json's recursion limit: deeper input is rejected as it would be
    /**
     * Pack arrays of integers 0..255 that are the value of a "bytes" key into one Bin node
     * (flag FromJsonArray): that is how serde_bytes payloads (TensorData.bytes) look in JSON, and it
     * keeps a PrettyJson record's tape as small as its MessagePack twin.
     */
    bool packByteArrays = true;
    bool rejectTrailing = true;     ///< serde_json::from_slice rejects trailing non-whitespace
    /**
     * Python's json module writes NaN, Infinity and -Infinity as those bare words (a Hugging Face
     * trainer_state.json of a run that diverged): read them as F64 values. serde_json rejects them.
     */
    bool pythonNonFinite = false;
};

/**
 * Parses JSON with serde_json's accept/reject rules (RFC 8259 strictly: no comments, no trailing
 * commas, no leading zeros, no NaN, control characters in strings rejected, invalid UTF-8 and lone
 * surrogates rejected, a BOM rejected) into a tape. Integers: non-negative -> UInt (full u64 range,
 * exact), negative -> Int (i64); beyond 64 bits up to u128 / i128 (serde_json writes those as digits)
 * -> a Wide128 UInt / Int, exact, where serde_json's Value would make an f64; beyond 128 bits -> F64 as
 * serde_json does; floats -> F64. Duplicate
 * keys are kept in order (typed decoding decides about them). Errors carry line and column exactly as
 * serde_json reports them.
 */
Result<Tape> readJson(const BytesPtr& bytes, const JsonReadOptions& options = {}, const Progress& progress = Progress::none());

enum class JsonStyle { Pretty, Compact };

/**
 * How floats are spelled. Serde: serde_json's (ryu) shortest digits, as checkpoints and PrettyJson
 * records carry them (1e-5, 1.0). Nlohmann: nlohmann::json::dump's Grisu2 digits and layout (1e-05,
 * 1.5e+20, 2.0, every float widened to double), which the CLI contract's reports have always printed:
 * their bytes are an interface, so they keep that spelling.
 */
enum class JsonFloats { Serde, Nlohmann };

/**
 * Writes the subtree as serde_json::to_writer_pretty (2-space indent, "key": value, one array element
 * per line, empty containers as [] / {}, no trailing newline) or serde_json::to_writer (compact).
 * Integers print exactly, a Wide128 one with all its digits as serde_json prints a u128 / i128.
 * F32 nodes print with the shortest digits that round-trip as f32, F64 as f64, laid out as ryu does
 * (1.0, 1e-7, 1.2345678901234568e20); non-finite floats as null; Bin as an array of integers; strings
 * escaped as serde_json escapes them.
 */
void writeJson(const Tape& tape, uint32_t node, JsonStyle style, Sink& out, JsonFloats floats = JsonFloats::Serde);
/** writeJson into a string. */
std::string jsonText(const Tape& tape, uint32_t node, JsonStyle style, JsonFloats floats = JsonFloats::Serde);

/** serde_json's text for one float (ryu layout). */
std::string formatJsonF32(float v);
std::string formatJsonF64(double v);
/** nlohmann::json::dump's text for one double (its own to_chars); non-finite values as null. */
std::string formatNlohmannF64(double v);

/*
 * One member of the map a TapeBuilder has open, a call each, for the documents written with writeJson
 * (the CLI contract's reports). Distinct names, so that a string literal never binds to a bool.
 */
void putStr(TapeBuilder& b, std::string_view key, std::string_view v);
void putU(TapeBuilder& b, std::string_view key, uint64_t v);
void putF(TapeBuilder& b, std::string_view key, double v); ///< non-finite values print as null
void putBool(TapeBuilder& b, std::string_view key, bool v);
void putNil(TapeBuilder& b, std::string_view key);
void putOptStr(TapeBuilder& b, std::string_view key, std::string_view v); ///< null when \a v is empty
void putOpt(TapeBuilder& b, std::string_view key, const std::optional<std::string>& v);
void putOptU(TapeBuilder& b, std::string_view key, const std::optional<uint64_t>& v);
void putOptF(TapeBuilder& b, std::string_view key, const std::optional<double>& v);
void putStrings(TapeBuilder& b, std::string_view key, const std::vector<std::string>& v);

/**
 * Appends \a s as a JSON string literal with serde_json's escaping. A byte that starts no valid UTF-8
 * sequence (only ever in text the user typed, such as a file name) is written as U+FFFD.
 */
void appendJsonQuoted(std::string& out, std::string_view s);

} // namespace ckpt
