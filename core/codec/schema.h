// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/value/tape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * The kinds of Rust/serde types a bincode record can be made of. bincode stores no names, lengths of
 * structs or tuples, nor variant names, so decoding is only possible with the exact type layout.
 */
enum class SchemaKind : uint8_t {
    Bool,
    U8,
    U16,
    U32,
    U64,
    Usize,   ///< U8 is one raw byte; the others are varints (Usize = U64 on the wire)
    I8,
    I16,
    I32,
    I64,          ///< I8 is one raw byte; the others are zigzag varints
    /**
     * u128/i128: varints (zigzag for i128) whose marker fe carries 16 little-endian bytes. On the tape
     * they are what rmp-serde writes: a Bin of the 16 big-endian bytes (two's complement for i128).
     */
    U128,
    I128,
    Char, ///< char: its UTF-8 bytes alone (1-4, no length); a Str on the tape
    F32,
    F64,
    Str,                        ///< String: varint length + UTF-8 bytes
    Bytes,                      ///< serde_bytes (TensorData.bytes): varint length + raw bytes
    Unit,                       ///< `()`: zero bytes; Nil on the tape
    UnitStruct,                 ///< PhantomData `_b`: zero bytes; empty Array on the tape (msgpack `90`)
    Empty,                      ///< Burn's EmptyRecord/ConstantRecord: always `00` (serialize_none); Nil on the tape
    Option,                     ///< `00` None / `01` + value
    Seq,                        ///< Vec<T>: varint count + elements
    Map,                        ///< HashMap<K, V>: varint count + key, value pairs
    Tuple,                      ///< tuples, fixed arrays: elements back to back
    Struct,                     ///< fields back to back; a Map with the field names on the tape
    Enum,                       ///< varint (u32) variant index + payload
    DType,                      ///< Burn's DType enum; its index table depends on the Burn version
    /**
     * One of two types that a self-describing twin cannot tell apart (a struct or a string-keyed map,
     * a usize or a u8, ...): elements [preferred, other]. The decoder settles it on the bytes like
     * the ambiguous Option/Seq readings below; an unsettled one is written as its first element.
     */
    Either,
};

const char* schemaKindName(SchemaKind k);

struct SchemaVariant;
/** A variant's bincode index (SchemaVariant::index, or its \a position). */
uint32_t variantIndex(const SchemaVariant& v, size_t position);

enum class VariantKind : uint8_t { Unit, Newtype, Tuple, Struct };

inline constexpr uint32_t kNoSchemaNode = 0xffffffffu;

struct SchemaField {
    std::string name;
    uint32_t type = kNoSchemaNode;
};

/** A variant whose bincode index is its position in SchemaNode::variants (declaration order). */
inline constexpr uint32_t kIndexByPosition = 0xffffffffu;

/** One enum variant. Tuple and struct variants carry a Tuple/Struct payload node. */
struct SchemaVariant {
    std::string name;
    VariantKind kind = VariantKind::Unit;
    uint32_t payload = kNoSchemaNode; ///< none for unit variants
    /**
     * Its bincode index when not its position: a layout learned from a twin knows the variants the
     * record uses, not the ones declared before them.
     */
    uint32_t index = kIndexByPosition;
};

/**
 * One type node. Children are node indices into BincodeSchema::nodes, so identical sub-layouts may be
 * shared (the schema is a DAG, never a cycle: BincodeSchema::validate() refuses cycles).
 *
 * Two kinds of uncertainty a schema derived from a self-describing record cannot avoid are kept
 * explicit, so that the decoder can settle them on the bytes:
 *  - `maybeBare` on an Option: the field might be `Option<T>` or a plain `T` (MessagePack writes
 *    Some(x) exactly like x);
 *  - `maybeTuple` on a Seq: the array might be a `Vec<T>` (count prefix) or a tuple/fixed array of
 *    `tupleArity` elements (no prefix).
 * `preferAlternative` says which reading is tried first (the bare T / the tuple).
 */
struct SchemaNode {
    SchemaKind kind = SchemaKind::Unit;
    std::string name;                     ///< Struct/Enum type name (informative; used for JSON `types`)
    std::vector<SchemaField> fields;      ///< Struct
    std::vector<uint32_t> elements;       ///< Tuple: elements; Option/Seq: [T]; Map: [K, V]; Either: [A, B]
    std::vector<SchemaVariant> variants;  ///< Enum, in declaration order (= bincode index)
    DTypeTable dtypeTable = DTypeTable::Burn017; ///< DType
    bool maybeBare = false;               ///< Option only
    bool maybeTuple = false;              ///< Seq only
    bool preferAlternative = false;
    uint32_t tupleArity = 0;              ///< Seq with maybeTuple
    /**
     * What a twin showed where this node occurs, for readings only the twin's values decide. Enum with
     * indicesFromTwin: the variant name at each occurrence, in decoding order (the index is read from
     * the bytes there). Either of u128 and i128: the twin's 16 big-endian bytes at the first occurrence.
     * Never written to JSON: a decode turns it into explicit variant indices or a settled Either.
     */
    std::vector<std::string> twinSeen;
    bool indicesFromTwin = false;         ///< Enum: no variant index known before the bytes are read

    // The one way to make each kind of node: the builder below, the JSON reader and the twin's
    // deriver all start from these.
    static SchemaNode of(SchemaKind kind, std::vector<uint32_t> elements = {});
    static SchemaNode option(uint32_t inner, bool maybeBare = false, bool preferBare = false);
    static SchemaNode seq(uint32_t element, bool maybeTuple = false, uint32_t arity = 0, bool preferTuple = false);
    static SchemaNode structure(std::string name, std::vector<SchemaField> fields);
    static SchemaNode enumeration(std::string name, std::vector<SchemaVariant> variants);
    static SchemaNode dtype(DTypeTable table);
};

/**
 * The exact Rust type layout of a bincode record, as a tree (DAG) of type nodes.
 * Round-trips through JSON (`ckpt schema FILE -o S.json`):
 *
 *     {"format": "ckpt-bincode-schema", "version": 1, "root": NODE, "types": {"Name": NODE, ...}}
 *     NODE := "bool" | "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "f32" | "f64"
 *           | "str" | "bytes" | "unit" | "unit_struct" | "empty"
 *           | {"option": NODE [, "maybe_bare": true, "prefer_bare": BOOL]}
 *           | {"seq": NODE [, "maybe_tuple": ARITY, "prefer_tuple": BOOL]}
 *           | {"map": [NODE, NODE]} | {"tuple": [NODE, ...]}
 *           | {"struct": "Name", "fields": [["field", NODE], ...]}
 *           | "u128" | "i128" | "char"
 *           | {"enum": "Name", "variants": [["Unit"], ["Newtype", NODE], ["Tuple", "tuple", NODE], ["S", "struct", NODE]]
 *              [, "indices": [INDEX, ...]]}   (bincode indices, one per variant, when not 0, 1, 2, ...)
 *           | {"dtype": "burn-0.14" | "burn-0.16" | "burn-0.17" | "burn-0.21"}
 *           | {"either": [NODE, NODE]}   (two readings the bytes settle, the first tried first)
 *           | {"ref": "Name"}          (a node of "types"; named nodes used more than once are written there)
 */
class BincodeSchema {
public:
    std::vector<SchemaNode> nodes;
    uint32_t root = kNoSchemaNode;

    uint32_t add(SchemaNode n);
    uint32_t primitive(SchemaKind k);
    uint32_t option(uint32_t inner, bool maybeBare = false, bool preferBare = false);
    uint32_t seq(uint32_t element);
    uint32_t map(uint32_t key, uint32_t value);
    uint32_t tuple(std::vector<uint32_t> elements);
    uint32_t structure(std::string name, std::vector<SchemaField> fields);
    uint32_t enumeration(std::string name, std::vector<SchemaVariant> variants);
    uint32_t dtype(DTypeTable table);

    /** Indices in range, no cycles, nesting depth ≤ kMaxDepth, kinds have the children they need. */
    Result<void> validate() const;
    /** Fewest bytes an encoding of \a node can take (bounds declared counts before allocating). */
    uint64_t minEncodedSize(uint32_t node) const;

    std::string toJson() const;
    static Result<BincodeSchema> fromJson(std::string_view json);

    static constexpr uint32_t kMaxDepth = 256;
};

/** The JSON spelling of a DType table ("burn-0.17"), and back. */
std::string_view dtypeTableName(DTypeTable t);
std::optional<DTypeTable> dtypeTableFromName(std::string_view name);

/** Which Burn record an envelope's `item` holds, when the caller knows better than the guess. */
enum class RecordRole : uint8_t { Auto, Module, Optimizer, Scheduler, Training, ModelStateTraining };

struct SchemaFromRecordOptions {
    RecordRole role = RecordRole::Auto;
    /**
     * Layout of the scheduler record (item of a scheduler file, element 2 of a TrainingRecord) when it
     * cannot be told from the value: "usize" (Linear/Noam/Cosine), "i32" (StepLr), "f64"
     * (Exponential), "unit" (ConstantLr). Empty = guess from the value (UInt → usize, Int → i32,
     * F64 → f64, nil → unit) and report the guess as a note.
     */
    std::string schedulerType;
    /**
     * The record is JSON: serde_json writes an f32 and an f64 alike, so a caller-state float may be
     * either (4 or 8 bytes in bincode, which settle it). MessagePack keeps them apart (ca / cb).
     */
    bool floatWidthUnknown = false;
};

/**
 * The Rust type of a scheduler's record (format-burn-record.md §7) for the names the CLI and the
 * trainer use: "step" → "i32" (StepLr iter_idx); "linear", "cosine", "noam" → "usize"; "exponential"
 * → "f64"; "constant" → "unit". The type names themselves ("i32", "usize", "f64", "unit") pass through.
 * nullopt for anything else.
 */
std::optional<std::string> schedulerRecordType(std::string_view scheduler);

struct SchemaFromRecordResult {
    BincodeSchema schema;
    std::vector<std::string> notes; ///< guesses that the bytes of a bincode file may contradict, with record paths
};

/**
 * Derives the bincode layout of a Burn record envelope from a decoded NamedMpk/JSON record of the same
 * Rust types (`--schema-from`): BurnRecord{metadata: 5 strings, item, _b}; ParamSerde, TensorData with
 * the DType table of metadata.version, legacy {value, shape}, optimizer adaptor maps with the known
 * state structs, scheduler records, TrainingRecord 5-tuples and GradientsParamsRecord; anything else
 * is inferred (identifier-keyed map → struct, array → Vec, UInt → usize, Int → i64, ...). Where the
 * self-describing record cannot tell (Option or not, Vec or tuple), the node is marked ambiguous and
 * the decoder settles it. Precision may differ between the two files: only the layout is taken.
 */
Result<SchemaFromRecordResult> schemaFromRecord(const Tape& record, const SchemaFromRecordOptions& options = {});

} // namespace ckpt
