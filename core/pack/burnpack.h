// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The burnpack container (`.bpk`) of Burn 0.19 - 0.22 (../shared/docs/format-burnpack.md): a
// 10-byte header, ciborium-encoded CBOR metadata, a data section (256-byte aligned since Burn
// 0.20.0-pre.5, back to back in 0.19's layout). readBurnpack() accepts exactly what burn-pack's
// reader accepts (plus 0.19's files) and reports every rejection with the byte offset;
// encodeBurnpack()/writeBurnpack() write what burn-pack's writer writes, byte for byte. The reader is
// burnpackreader.cpp, the writer burnpackwriter.cpp; the CBOR underneath is core/codec/cbor.

#include "core/io/bytes.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::pack {

inline constexpr uint32_t kBurnpackMagic = 0x4255524E;            ///< "NRUB" on disk
inline constexpr uint16_t kBurnpackVersion = 1;
inline constexpr uint64_t kBurnpackHeaderSize = 10;
inline constexpr uint64_t kBurnpackAlignment = 256;
inline constexpr uint64_t kBurnpackMaxMetadataSize = 104857600;    ///< 100 MiB (MAX_METADATA_SIZE)
inline constexpr uint64_t kBurnpackMaxTensorCount = 100000;        ///< MAX_TENSOR_COUNT
inline constexpr uint64_t kBurnpackMaxTensorSize = 10737418240ull; ///< 10 GiB (MAX_TENSOR_SIZE, 64-bit)
inline constexpr uint32_t kBurnpackRecursionLimit = 128;           ///< ciborium budget burn-pack passes

/** \a v rounded up to the data section's alignment (Aligned256 offsets). */
inline constexpr uint64_t burnpackAlign(uint64_t v)
{
    return (v + (kBurnpackAlignment - 1)) / kBurnpackAlignment * kBurnpackAlignment;
}

/** True when \a head starts with the magic ("NRUB" on disk): the one test for a burnpack file. */
inline bool hasBurnpackMagic(std::span<const uint8_t> head)
{
    return head.size() >= 4 && head[0] == 'N' && head[1] == 'R' && head[2] == 'U' && head[3] == 'B';
}

/** Where the data section starts: after 256-byte alignment (Burn >= 0.20.0-pre.5) or right after the metadata (0.19). */
enum class BurnpackLayout { Aligned256, Unaligned };

/** A Burn DType as burnpack's metadata spells it (§3.3). */
struct BurnpackDType {
    enum class Kind { F64, F32, Flex32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, Bool, QFloat };
    Kind kind = Kind::F32;
    /** Bool only: the 0.19-0.21.0-pre.2 unit variant `"Bool"` rather than `{"Bool": store}` (0.21.0-pre.3+). */
    bool legacyBool = false;
    BoolStore boolStore = BoolStore::Native; ///< Bool only, unless legacyBool
    /** QFloat only: the scheme's CBOR bytes exactly as stored (written back verbatim; layout is opaque). */
    std::vector<uint8_t> qfloatScheme;

    /** Bytes per element (DType::size()); 0 for QFloat, whose payload is not numel x size. */
    uint64_t elementSize() const;
    /** "F32", "Bool(Native)", "Bool" (legacy spelling), "QFloat", ... */
    std::string name() const;
    /** The unit variant spelled \a name ("F64" ... "U8"); nullopt for Bool, QFloat and anything else. */
    static std::optional<Kind> unitKind(std::string_view name);
    /** The tensor dtype it stores (every Bool store is DType::Bool). */
    DType dtype() const;
    /** How its elements are stored: the BoolStore of a Bool (Native for the legacy spelling), else Native. */
    BoolStore store() const { return kind == Kind::Bool && !legacyBool ? boolStore : BoolStore::Native; }
    /** What Burn 0.22's record layer writes for a tensor of \a d (Bool: the native store); nullopt for QFloat. */
    static std::optional<BurnpackDType> of(DType d);
    bool operator==(const BurnpackDType&) const = default;
};

/** burn_pack::Scalar (0.22): one of four newtype variants. */
struct BurnpackScalar {
    enum class Kind { Int, UInt, Float, Bool };
    Kind kind = Kind::UInt;
    int64_t i = 0;     ///< Int
    uint64_t u = 0;    ///< UInt
    double f = 0;      ///< Float
    bool b = false;    ///< Bool
    static BurnpackScalar makeInt(int64_t v) { BurnpackScalar s; s.kind = Kind::Int; s.i = v; return s; }
    static BurnpackScalar makeUInt(uint64_t v) { BurnpackScalar s; s.kind = Kind::UInt; s.u = v; return s; }
    static BurnpackScalar makeFloat(double v) { BurnpackScalar s; s.kind = Kind::Float; s.f = v; return s; }
    static BurnpackScalar makeBool(bool v) { BurnpackScalar s; s.kind = Kind::Bool; s.b = v; return s; }
};

/** One tensor of a parsed file. */
struct BurnpackTensor {
    std::string name;
    BurnpackDType dtype;
    std::vector<uint64_t> shape;
    uint64_t start = 0, end = 0;          ///< data_offsets, relative to the data section
    std::optional<uint64_t> paramId;      ///< absent (or null on read) = None
    std::span<const uint8_t> data;        ///< [dataStart + start, dataStart + end) in the source mapping
    uint64_t descriptorOffset = 0;        ///< file offset of the descriptor's CBOR map (for messages)
    uint64_t offsetsOffset = 0;           ///< file offset of its data_offsets value
    /** numel x elementSize, nullopt for QFloat or when the product overflows u64. */
    std::optional<uint64_t> expectedByteLength() const;
    /**
     * Why Burn 0.22.1 refuses this tensor's payload (its bytes are not numel x size, or numel
     * overflows), when the file was read anyway (leniently, or a scheduler file that never takes
     * its tensors); empty for a readable tensor. A refused tensor is shown, never read.
     */
    std::string refused;
};

/** Something Burn's reader accepts silently but a writer never produces (§6.4). */
struct BurnpackWarning {
    uint64_t offset = 0;
    std::string what;
};

/** A burnpack file as burn-pack's reader sees it. Tensors, metadata and scalars are in name order
 *  (the BTreeMaps'; a repeated name keeps its last entry, as Burn does). Payloads are views into source. */
struct BurnpackFile {
    BytesPtr source;
    uint16_t version = kBurnpackVersion;
    uint32_t metadataSize = 0;            ///< M
    uint64_t dataStart = 0;               ///< D (depends on layout)
    BurnpackLayout layout = BurnpackLayout::Aligned256;
    std::vector<BurnpackTensor> tensors;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<std::pair<std::string, BurnpackScalar>> scalars;
    std::vector<BurnpackWarning> warnings;
    /** The metadata bytes are exactly what our (ciborium 0.2.2-exact) encoder writes for this content. */
    bool canonicalMetadata = false;
    /** Read with BurnpackReadOptions::lenient although Burn 0.22.1 rejects it: the first reason. Empty when valid. */
    std::string damage;

    const BurnpackTensor* find(std::string_view name) const;
    /** Tensor indices in the writer's (physical) order: by (start, end), ties by name order. */
    std::vector<size_t> physicalOrder() const;
};

struct BurnpackReadOptions {
    /**
     * Check every tensor's range (§6.1 step 9) as ModuleRecord / OptimizerRecord loading does
     * (`into_tensors`). LrSchedulerRecord never looks at tensors: off reads such a file as Burn does
     * (a tensor whose range is broken then has an empty data span and a warning).
     */
    bool checkTensorRanges = true;
    /**
     * Salvage (OpenOptions::lenient): what Burn 0.22.1 rejects in the layout or in a tensor's size is a
     * warning instead of an error; the tensor is refused (BurnpackTensor::refused) and
     * BurnpackFile::damage says why.
     */
    bool lenient = false;
};

/**
 * Parses \a bytes as a burnpack file (§6): the header, the metadata CBOR decoded with ciborium 0.2.2's
 * and serde's rules (recursion budget 128, duplicate struct fields, unit/newtype variants, tags,
 * bignums, byte-string sequences, ...), the limits and the range checks of burn-pack's reader, the
 * layout (§5.3). Everything burn-pack rejects is an Error whose offset is the file offset of the
 * offending bytes (Error::recordPath names the metadata entry, e.g. `tensors["fc.weight"].shape`);
 * what it tolerates becomes a warning. Bare `"Bool"` (0.19 - 0.21.0-pre.2) is accepted (with a
 * warning: Burn >= 0.21.0-pre.3 rejects it). Never throws; memory stays proportional to the input.
 */
Result<BurnpackFile> readBurnpack(const BytesPtr& bytes, const BurnpackReadOptions& options = {});
/** mapFile + readBurnpack; errors carry the file name. */
Result<BurnpackFile> readBurnpackFile(const std::string& path, const BurnpackReadOptions& options = {});

/** One tensor to write. */
struct BurnpackEntry {
    std::string name;
    BurnpackDType dtype;
    std::vector<uint64_t> shape;
    std::optional<uint64_t> paramId;
    std::span<const uint8_t> data;        ///< must stay alive until the write returns
};

/** What a writer needs: tensors in writer (physical) order; metadata and scalars in any order (written sorted). */
struct BurnpackContent {
    std::vector<BurnpackEntry> tensors;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<std::pair<std::string, BurnpackScalar>> scalars;
    BurnpackLayout layout = BurnpackLayout::Aligned256;
    BytesPtr keepAlive;                   ///< the source the spans point into, if any
};

/** The content of \a file in its physical order and layout: encodeBurnpack() of it re-creates every file burn-pack wrote. */
BurnpackContent contentOf(const BurnpackFile& file);

/** The metadata CBOR exactly as ciborium 0.2.2 serialises burn-pack's Metadata for \a content (§3). */
Result<std::vector<uint8_t>> encodeBurnpackMetadata(const BurnpackContent& content);

/**
 * The whole file as burn-pack's writer produces it (§7): offsets planned in list order, zero padding,
 * nothing after the last tensor. Refuses (Invalid) repeated tensor/metadata/scalar names, and (Limit)
 * metadata of 4 GiB or more. Lengths are not checked against shape x dtype (Burn 0.22.0-pre.2's writer
 * does not either).
 */
Result<std::vector<uint8_t>> encodeBurnpack(const BurnpackContent& content);
/** encodeBurnpack streamed into \a path through writeFileAtomic (payloads are not copied). */
Result<void> writeBurnpack(const std::string& path, const BurnpackContent& content);

} // namespace ckpt::pack
