// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/gzip.h"
#include "core/model/paramid.h"
#include "core/model/recorder.h"
#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

class BincodeSchema;

/**
 * One container file of a record read from a format without an envelope (a checkpoint may be several
 * such files: a model, its optimizer and its scheduler): what it holds and where it sits on the tape.
 */
struct RecordPart {
    enum class Role { Model, Optimizer, Scheduler };
    Role role = Role::Model;
    std::string file;
    /** The file as its format family parsed it; only that family reads it (RecordFormat). */
    std::shared_ptr<const void> container;
    uint32_t node = 0;                   ///< the file's map {tensors, metadata, scalars} on the record's tape
    std::optional<uint32_t> scalarsNode; ///< its `scalars` map, if any
};

/** What a record file holds (the `kind` of `ckpt info`). */
enum class RecordKind {
    TrainingRecord,            ///< Ruda TrainingRecord: item = [module, optimizer, scheduler, gradients, state]
    ModelStateTrainingRecord,  ///< 7-tuple with version 1 and a parameter contract (§9.6)
    ModuleRecord,              ///< a plain module record (model.mpk, checkpoint/model-N.mpk)
    OptimizerRecord,           ///< an optimizer record (checkpoint/optim-N.mpk)
    SchedulerRecord,           ///< a scheduler record (checkpoint/scheduler-N.mpk)
    GradientCheckpoint,        ///< ipfrs JSON (handled by core/graph)
    RunDirectory,              ///< burn-train artifact directory (handled by core/run)
    BurnTrainCheckpoint,       ///< Burn >= 0.22: one epoch's model, optim and scheduler files as one record
    TorchStateDict,            ///< torch.save of a state dict: name -> tensor (core/torch)
    TorchOptimizerState,       ///< torch.save of an optimizer's {"state", "param_groups"}
    TorchCheckpoint,           ///< torch.save of a dict holding a state dict, an optimizer state, epoch, step, ...
    Safetensors,               ///< a safetensors file, or a sharded set of them (core/safetensors)
    TorchDcp,                  ///< a PyTorch Distributed Checkpoint directory: .metadata and *.distcp shards (core/torch)
};
std::string_view recordKindName(RecordKind k); ///< the contract's snake_case names

enum class TensorRole { Param, Optimizer, Gradient, Other };
std::string_view tensorRoleName(TensorRole r); ///< "param", "optimizer", "gradient", "other"

/** One tensor of a record, found while indexing (payload bytes are not touched). */
struct TensorEntry {
    std::string path;              ///< ckpt path of the TensorData map, e.g. item[0].fc1.weight.param
    TensorRole role = TensorRole::Other;
    std::string paramId;           ///< the parameter this tensor belongs to ("" if none)
    std::string stateName;         ///< optimizer: "moment_1", "velocity", ...; gradient: the native dtype
    DType dtype = DType::F32;
    BoolStore boolStore = BoolStore::Native; ///< Bool only: Burn >= 0.21's Bool(U8) / Bool(U32)
    std::string quant;             ///< QFloat only: the quantization scheme as stored, as compact JSON ("" if none)
    std::vector<uint64_t> shape;
    uint64_t numel = 0;
    uint64_t bytes = 0;            ///< payload length
    std::optional<uint64_t> offset;///< payload offset in the decoded stream (none for JSON)
    uint32_t node = 0;             ///< the tensor's map on the tape
    uint32_t dataNode = 0;         ///< its Bin node (or the legacy `value` array)
    bool legacy = false;           ///< Burn <= 0.13 {value, shape}: values are numbers on the tape
    /** A container format's payload: this view into a file's mapping, not a Bin node (a record may span several files). */
    std::optional<std::span<const uint8_t>> view;
    /**
     * An element type Burn has no name for (PyTorch's complex64, quint8, float8_e4m3fn, ...): listed
     * with this name, and with \a dtype QFloat (opaque: no values, no statistics). Empty otherwise.
     */
    std::string foreignDType;
    /** A format whose tensors are views of storages (PyTorch): the first tensor in file order whose storage this one shares. */
    std::optional<std::string> sharesStorageWith;

    /** The contract's dtype name: "F32", "Bool", "Bool(U8)", "Bool(U32)", "QFloat", "complex64", ... */
    std::string dtypeLabel() const { return foreignDType.empty() ? storedDTypeName(dtype, boolStore) : foreignDType; }
    /** What its payload's elements are read as (a Bool(U32) as U32: the same 0/1 values). */
    DType elementType() const { return elementDType(dtype, boolStore); }
};

/** One parameter of the module record. */
struct ParamEntry {
    std::string id;                ///< as written (13-char base32, 10-char legacy, or UUID)
    std::optional<uint64_t> numericId; ///< the u64 Burn >= 0.15 uses (base32-decoded), if decodable
    std::string modulePath;        ///< path of the ParamSerde map, e.g. item[0].fc1.weight
    size_t tensor = 0;             ///< index into Record::tensors
};

/** One entry of an optimizer adaptor map {id: {V1: {RankN: state}}}. */
struct OptimizerEntry {
    std::string paramId;
    std::string path;              ///< path of the state item
    uint32_t rank = 0;
    std::string optimizer;         ///< "Adam/AdamW", "SGD", "RmsProp", "AdaGrad", "Adan", "unknown"
    std::optional<uint64_t> time;  ///< AdaptiveMomentumState.time etc.
    bool amsgrad = false;          ///< max_moment_2 present
    /** The hyper-parameters the file records for this parameter's group (PyTorch's param_groups: betas, eps), where it does. */
    std::optional<double> beta1, beta2, epsilon;
    std::vector<size_t> tensors;   ///< indexes into Record::tensors
    uint32_t node = 0;
    uint32_t stateNode = 0;        ///< the state item itself, under {V1: {RankN: ...}} (a container format: the file's map)
};

/** One pending gradient (GradientsParamsRecord entry). */
struct PendingGradient {
    uint64_t id = 0;
    std::string paramId;           ///< base32 form of id (matches ParamEntry::id for Burn >= 0.15)
    std::string nativeDType;       ///< the tuple's DType (the accumulator's dtype)
    size_t tensor = 0;
};

/** The scheduler record, and what it can be. */
struct SchedulerInfo {
    uint32_t node = 0;
    std::string kind;              ///< "constant", "step", "exponential", "composed", or "usize" (linear/cosine/noam)
    std::string description;       ///< what the value means
};

/** A decoded and indexed record. Immutable once opened; shared with the UI as shared_ptr<const Record>. */
class Record {
public:
    std::string file;
    RecordKind kind = RecordKind::ModuleRecord;
    Recorder recorder = Recorder::NamedMpk;
    Precision precision = Precision::Full;
    Metadata metadata;
    Tape tape;
    uint32_t itemNode = 0;
    std::optional<uint32_t> moduleNode, optimizerNode, schedulerNode, gradientsNode, stateNode;
    std::vector<TensorEntry> tensors;     ///< file order
    std::vector<ParamEntry> params;
    std::vector<OptimizerEntry> optimizer;
    std::vector<PendingGradient> gradients;
    std::optional<SchedulerInfo> scheduler;
    std::vector<std::string> warnings;    ///< non-fatal findings while opening (trailing bytes, ...)
    bool partial = false;                 ///< bincode without schema: only provable tensors are listed; or opened leniently although damaged
    /** Opened with OpenOptions::lenient although the typed decoders reject it: why (file, offset, path). Empty when valid. */
    std::string damage;
    uint64_t fileSize = 0;                ///< bytes on disk
    uint64_t decodedSize = 0;             ///< bytes after gzip
    std::string schemaSource;             ///< bincode: where the layout came from
    /** bincode: the exact layout the bytes were decoded with (ambiguities settled), for byte-identical re-saves. */
    std::shared_ptr<const BincodeSchema> bincodeSchema;
    /** A format without an envelope (Burn >= 0.19): the file, or each file of the checkpoint; empty for an envelope record. */
    std::vector<RecordPart> parts;
    std::optional<uint64_t> epoch;        ///< several parts: the epoch of their file names
    bool mixedPrecision = false;          ///< float tensors of more than one width ("mixed"; only formats that keep each tensor's dtype)
    /** Tensors are views of shared storages (PyTorch): every tensor's report carries `shares_storage_with`. */
    bool sharedStorages = false;
    /** Tensors are stored in chunks (a Distributed Checkpoint): each tensor's map on the tape has `chunks`, which its report carries. */
    bool chunkedTensors = false;
    /** "full", "half", "double", or "mixed" for a record whose float tensors differ in width. */
    std::string_view precisionText() const;

    /** Payload bytes of a tensor (a view into the mapping / inflated buffer). Empty for legacy tensors. */
    std::span<const uint8_t> payload(const TensorEntry& t) const;
    /** Statistics of one tensor (legacy tensors included). */
    TensorStats stats(const TensorEntry& t, const StatsOptions& options = {}) const;
    /**
     * Statistics of the tensors at \a indices (into `tensors`), all chunks of all of them spread
     * over \a parallel (computeStatsMany); results in the order of \a indices.
     */
    std::vector<TensorStats> stats(std::span<const size_t> indices, const StatsOptions& options, const ParallelFor& parallel) const;
    /** Values [first, first+count) as doubles. */
    std::vector<double> values(const TensorEntry& t, uint64_t first, uint64_t count) const;
    uint64_t tensorBytes() const;
    std::optional<size_t> findParam(std::string_view id) const;          ///< index into params
    std::optional<size_t> findTensor(std::string_view path) const;       ///< index into tensors
    /** Tensors (optimizer states, pending gradient) attached to a parameter id. */
    std::vector<size_t> tensorsOfParam(std::string_view id) const;
};

struct OpenOptions {
    std::string schemaFrom;       ///< bincode: a self-describing record of the same types
    std::string schemaFile;       ///< bincode: a schema written by `ckpt schema`
    /**
     * bincode: the scheduler whose record the file holds where the bytes cannot tell (StepLr's i32
     * from the usize of linear/cosine/noam): a name of schedulerRecordType(). Empty: from the twin's
     * value, or every built-in scheduler layout in turn. A schema file states it itself.
     */
    std::string scheduler;
    /**
     * Salvage mode ("Open damaged file…", `--lenient`): a record the typed decoders of its declared
     * type reject is still indexed structurally; Record::damage says why and the record is partial.
     * Default: strict, the file opens only if rmp-serde / serde_json / bincode into Burn's and Ruda's
     * types (and Ruda's restore checks) would accept it.
     */
    bool lenient = false;
    InflateLimits limits;
    std::optional<Recorder> assumeRecorder; ///< skip sniffing (tests)
    /**
     * A file that is one part of a checkpoint written as several files (burn-train 0.22's model-N with
     * its optim-N and scheduler-N) opens with its siblings as one record (a run directory, the app).
     * Off: the file alone, as `ckpt info FILE` reads it.
     */
    bool wholeCheckpoint = false;
};

/** Writes Burn's TensorData map {bytes, shape, dtype} in serde's field order, \a bytes copied into the tape. */
void writeTensorData(TapeBuilder& b, std::string_view dtype, std::span<const uint64_t> shape, std::span<const uint8_t> bytes);
/** The same for Burn >= 0.21.0-pre.3, whose Bool is the newtype variant {"Bool": store}. */
void writeTensorData(TapeBuilder& b, const TensorEntry& t, std::span<const uint8_t> bytes);

} // namespace ckpt
