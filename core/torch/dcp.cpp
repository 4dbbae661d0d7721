// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The layout of torch/distributed/checkpoint (metadata.py, filesystem.py; torch 1.13's
// torch/distributed/_shard/checkpoint is the same): Metadata{state_dict_metadata: {fqn:
// TensorStorageMetadata{properties, size, chunks: [ChunkStorageMetadata{offsets, sizes}]} |
// BytesStorageMetadata}, storage_data: {MetadataIndex{fqn, offset, index}: _StorageInfo{relative_path,
// offset, length}}}.
#include "core/torch/dcp.h"

#include "core/codec/json.h"
#include "core/io/bytes.h"
#include "core/model/statedict.h"

#include <cstring>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ckpt::torch {

namespace {

/** A chunk's stream inside its shard: a view that keeps the mapping alive. */
class ShardSlice final : public Bytes {
public:
    ShardSlice(BytesPtr parent, std::span<const uint8_t> view)
        : m_parent(std::move(parent))
        , m_view(view)
    { }
    std::span<const uint8_t> span() const override { return m_view; }

private:
    BytesPtr m_parent;
    std::span<const uint8_t> m_view;
};

/** Reads the arena of one .metadata pickle. */
class MetadataReader {
public:
    explicit MetadataReader(const Pickled& p)
        : m_p(p)
    { }

    const PyObject& at(uint32_t i) const { return m_p.objects[i]; }

    /** The BUILD state of a dataclass object, if it is one of class \a suffix. */
    std::optional<uint32_t> state(uint32_t o, std::string_view suffix) const
    {
        const PyObject& v = at(o);
        if (v.kind != PyKind::Object || !v.s.ends_with(suffix) || v.items.size() != 1)
            return std::nullopt;
        return v.items[0];
    }
    std::optional<uint32_t> field(std::optional<uint32_t> dict, std::string_view key) const
    {
        if (!dict || at(*dict).kind != PyKind::Dict)
            return std::nullopt;
        for (size_t i = 0; i + 1 < at(*dict).items.size(); i += 2)
            if (at(at(*dict).items[i]).kind == PyKind::Str && at(at(*dict).items[i]).s == key)
                return at(*dict).items[i + 1];
        return std::nullopt;
    }
    /** A tuple or list of non-negative ints (torch.Size, offsets, sizes). */
    std::optional<std::vector<uint64_t>> dims(std::optional<uint32_t> o) const
    {
        if (!o || (at(*o).kind != PyKind::Tuple && at(*o).kind != PyKind::List))
            return std::nullopt;
        std::vector<uint64_t> out;
        for (uint32_t i : at(*o).items) {
            if (at(i).kind != PyKind::Int || at(i).i < 0)
                return std::nullopt;
            out.push_back(uint64_t(at(i).i));
        }
        return out;
    }
    std::optional<int64_t> integer(std::optional<uint32_t> o) const { return o && at(*o).kind == PyKind::Int ? std::optional(at(*o).i) : std::nullopt; }
    /** TensorProperties' dtype: its state is a tuple (dtype, layout, ...) in 1.13, a dict in later versions. */
    std::string dtypeOf(std::optional<uint32_t> properties) const
    {
        auto s = properties ? state(*properties, "TensorProperties") : std::nullopt;
        std::optional<uint32_t> d;
        if (s && at(*s).kind == PyKind::Tuple && !at(*s).items.empty())
            d = at(*s).items[0];
        else
            d = field(s, "dtype");
        return d && at(*d).kind == PyKind::Global && at(*d).s.starts_with("torch.") ? at(*d).s.substr(6) : std::string();
    }

private:
    const Pickled& m_p;
};

using StorageKey = std::pair<std::string, std::vector<uint64_t>>;
struct StorageInfo {
    std::string file;
    uint64_t offset = 0, length = 0;
};

Result<std::map<StorageKey, StorageInfo>> storageData(const MetadataReader& r, std::optional<uint32_t> data, const std::string& where)
{
    std::map<StorageKey, StorageInfo> out;
    if (!data || r.at(*data).kind != PyKind::Dict)
        return std::unexpected(Error{ErrorCode::Invalid, ".metadata has no storage_data map", where});
    const auto& items = r.at(*data).items;
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
        auto index = r.state(items[i], "MetadataIndex");
        auto info = r.state(items[i + 1], "_StorageInfo");
        auto fqn = r.field(index, "fqn");
        auto path = r.field(info, "relative_path");
        auto offset = r.integer(r.field(info, "offset")), length = r.integer(r.field(info, "length"));
        if (!fqn || r.at(*fqn).kind != PyKind::Str || !path || r.at(*path).kind != PyKind::Str || !offset || !length || *offset < 0 || *length < 0)
            return std::unexpected(Error{ErrorCode::Invalid, ".metadata: a storage_data entry that is not MetadataIndex -> _StorageInfo", where});
        const std::string& file = r.at(*path).s;
        if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
            return std::unexpected(Error{ErrorCode::Invalid, ".metadata: shard '" + file.substr(0, 80) + "' is not a file name in the directory", where});
        out[{r.at(*fqn).s, r.dims(r.field(index, "offset")).value_or(std::vector<uint64_t>{})}] = {file, uint64_t(*offset), uint64_t(*length)};
    }
    return out;
}

/** The state dict's entries with their chunks and where each chunk's bytes are. */
Result<std::vector<DcpEntry>> entriesOf(const MetadataReader& r, uint32_t root, const std::string& where)
{
    auto meta = r.state(root, ".Metadata");
    auto sdm = r.field(meta, "state_dict_metadata");
    if (!sdm || r.at(*sdm).kind != PyKind::Dict)
        return std::unexpected(Error{ErrorCode::Invalid, ".metadata is not a Distributed Checkpoint's Metadata (no state_dict_metadata)", where});
    auto storage = storageData(r, r.field(meta, "storage_data"), where);
    if (!storage)
        return std::unexpected(storage.error());
    std::vector<DcpEntry> out;
    const auto& items = r.at(*sdm).items;
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
        DcpEntry e;
        e.fqn = r.at(items[i]).kind == PyKind::Str ? r.at(items[i]).s : "<" + std::to_string(i / 2) + ">";
        auto tensor = r.state(items[i + 1], "TensorStorageMetadata");
        if (!tensor) {
            e.tensor = false;
            if (auto it = storage->find({e.fqn, {}}); it != storage->end())
                e.chunks.push_back({{}, {}, it->second.file, it->second.offset, it->second.length});
            out.push_back(std::move(e));
            continue;
        }
        e.torchDType = r.dtypeOf(r.field(tensor, "properties"));
        e.shape = r.dims(r.field(tensor, "size")).value_or(std::vector<uint64_t>{});
        auto chunks = r.field(tensor, "chunks");
        for (uint32_t c : chunks&& r.at(*chunks).kind == PyKind::List ? r.at(*chunks).items : std::vector<uint32_t>{}) {
            auto cs = r.state(c, "ChunkStorageMetadata");
            DcpChunk chunk;
            chunk.offsets = r.dims(r.field(cs, "offsets")).value_or(std::vector<uint64_t>{});
            chunk.sizes = r.dims(r.field(cs, "sizes")).value_or(std::vector<uint64_t>{});
            if (auto it = storage->find({e.fqn, chunk.offsets}); it != storage->end()) {
                chunk.file = it->second.file;
                chunk.offset = it->second.offset;
                chunk.length = it->second.length;
            } else {
                e.unread = "a chunk has no storage_data entry";
            }
            e.chunks.push_back(std::move(chunk));
        }
        out.push_back(std::move(e));
    }
    return out;
}

bool multiplyOverflows(uint64_t a, uint64_t b, uint64_t& out)
{
    return __builtin_mul_overflow(a, b, &out);
}

/** Reads every chunk of \a e and puts them together; returns why not where it cannot. */
std::string assemble(DcpCheckpoint& d, const DcpEntry& e, std::vector<uint8_t>& out, std::map<std::string, BytesPtr>& mapped)
{
    const uint32_t es = elementSizeOfTorch(e.torchDType);
    uint64_t numel = 1, covered = 0, bytes = 0;
    for (uint64_t s : e.shape)
        if (multiplyOverflows(numel, s, numel))
            return "its shape overflows 64 bits";
    if (!es || multiplyOverflows(numel, es, bytes))
        return "dtype " + e.torchDType + " is not read";
    std::vector<std::pair<const DcpChunk*, TensorBytes>> parts;
    for (const DcpChunk& c : e.chunks) {
        if (c.sizes.size() != e.shape.size() || c.offsets.size() != e.shape.size())
            return "a chunk's rank is not the tensor's";
        uint64_t n = 1;
        for (size_t k = 0; k < c.sizes.size(); ++k)
            if (c.offsets[k] > e.shape[k] || c.sizes[k] > e.shape[k] - c.offsets[k] || multiplyOverflows(n, c.sizes[k], n))
                return "a chunk lies outside the tensor";
        covered += n;
        auto& file = mapped[c.file];
        if (!file) {
            auto m = mapFile((fs::path(d.dir) / c.file).string());
            if (!m)
                return m.error().message();
            file = *m;
            d.files.push_back(file);
        }
        if (c.offset > file->size() || c.length > file->size() - c.offset)
            return c.file + " is shorter than its chunk at " + std::to_string(c.offset);
        auto stream = readTorchFile(std::make_shared<ShardSlice>(file, file->span().subspan(c.offset, c.length)));
        if (!stream)
            return c.file + " at " + std::to_string(c.offset) + ": " + stream.error().message();
        const Pickled& p = (*stream)->pickled;
        if (p.objects[p.root].kind != PyKind::Tensor)
            return c.file + " at " + std::to_string(c.offset) + " is not a tensor's stream (a storage layout this reader does not know)";
        const TensorBytes& tb = (*stream)->tensors[p.objects[p.root].ref];
        if (tb.torchDType != e.torchDType || tb.bytes.size() != n * es)
            return c.file + " at " + std::to_string(c.offset) + " holds " + std::string(tb.torchDType) + " of " + std::to_string(tb.bytes.size())
                + " bytes, not the chunk";
        d.streams.push_back(*stream);
        parts.emplace_back(&c, tb);
    }
    if (covered != numel)
        return "its chunks cover " + std::to_string(covered) + " of its " + std::to_string(numel) + " elements";
    out.assign(bytes, 0);
    for (const auto& [c, tb] : parts) {
        // copy the chunk's rows (its last dimension) to their place in the row-major global tensor
        const size_t rank = e.shape.size();
        const uint64_t row = rank ? c->sizes[rank - 1] : 1;
        const uint64_t rows = row ? tb.bytes.size() / es / row : 0;
        std::vector<uint64_t> index(rank ? rank - 1 : 0, 0);
        for (uint64_t r = 0; r < rows; ++r) {
            uint64_t at = 0;
            for (size_t k = 0; k < rank; ++k)
                at = at * e.shape[k] + c->offsets[k] + (k + 1 < rank ? index[k] : 0);
            std::memcpy(out.data() + at * es, tb.bytes.data() + r * row * es, row * es);
            for (size_t k = index.size(); k-- > 0;) {
                if (++index[k] < c->sizes[k])
                    break;
                index[k] = 0;
            }
        }
    }
    return {};
}

} // namespace

bool isDcpDirectory(const std::string& path)
{
    std::error_code ec;
    return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / ".metadata", ec);
}

namespace {

void putDims(TapeBuilder& b, std::string_view key, const std::vector<uint64_t>& dims)
{
    b.key(key);
    b.beginArray();
    for (uint64_t d : dims)
        b.uinteger(d);
    b.end();
}

/** The record's tape: one map per entry {dtype, shape, chunks: [{offsets, sizes, file, offset, length}]}. */
void writeEntry(TapeBuilder& b, const DcpEntry& e, TensorEntry& t)
{
    t.node = b.beginMap();
    if (e.tensor) {
        putStr(b, "dtype", e.torchDType);
        putDims(b, "shape", e.shape);
    }
    b.key("chunks");
    t.dataNode = b.beginArray();
    for (const DcpChunk& c : e.chunks) {
        b.beginMap();
        putDims(b, "offsets", c.offsets);
        putDims(b, "sizes", c.sizes);
        putStr(b, "file", c.file);
        putU(b, "offset", c.offset);
        putU(b, "length", c.length);
        b.end();
    }
    b.end();
    if (!e.unread.empty())
        putStr(b, "not_read", e.unread);
    b.end();
}

} // namespace

Result<std::shared_ptr<const Record>> openDcpDirectory(const std::string& path)
{
    const std::string metaPath = (fs::path(path) / ".metadata").string();
    auto bytes = mapFile(metaPath);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(metaPath));
    PickleOptions options;
    options.dcpMetadata = true;
    auto pickled = unpickle((*bytes)->span(), options);
    if (!pickled)
        return std::unexpected(std::move(pickled.error()).withFile(metaPath));
    const MetadataReader reader(*pickled);
    auto entries = entriesOf(reader, pickled->root, metaPath);
    if (!entries)
        return std::unexpected(entries.error());
    auto d = std::make_shared<DcpCheckpoint>();
    d->dir = path;
    d->entries = std::move(*entries);
    d->assembled.resize(d->entries.size());
    std::map<std::string, BytesPtr> mapped;
    auto r = std::make_shared<Record>();
    r->file = path;
    r->kind = RecordKind::TorchDcp;
    r->recorder = Recorder::DCP;
    r->chunkedTensors = true;
    TapeBuilder b;
    b.beginMap();
    for (size_t i = 0; i < d->entries.size(); ++i) {
        DcpEntry& e = d->entries[i];
        b.key(e.fqn);
        TensorEntry t;
        if (e.tensor && e.unread.empty())
            e.unread = assemble(*d, e, d->assembled[i], mapped);
        writeEntry(b, e, t);
        if (!e.tensor)
            continue;
        if (!e.unread.empty())
            r->warnings.push_back(e.fqn + ": values not read: " + e.unread);
        t.path = e.fqn;
        t.shape = e.shape;
        t.numel = 1;
        for (uint64_t s : e.shape)
            t.numel *= s;
        const auto dtype = burnDTypeOfTorch(e.torchDType);
        t.dtype = dtype.value_or(DType::QFloat);
        if (!dtype || !e.unread.empty())
            t.foreignDType = e.unread.empty() ? e.torchDType : e.torchDType + " (not read)";
        t.bytes = d->assembled[i].size();
        t.view = std::span<const uint8_t>(d->assembled[i]);
        // optimizer state is saved under the optimizer's key (torch.distributed.checkpoint's get_state_dict: "optim")
        const bool optimizer = e.fqn.starts_with("optim.") || e.fqn.starts_with("optimizer.");
        t.role = optimizer ? TensorRole::Optimizer : isStateDictBuffer(e.fqn) ? TensorRole::Other : TensorRole::Param;
        if (t.role == TensorRole::Param) {
            t.paramId = e.fqn;
            r->params.push_back({e.fqn, std::nullopt, e.fqn, r->tensors.size()});
        }
        r->tensors.push_back(std::move(t));
    }
    b.end();
    r->tape = std::move(b).finish();
    r->fileSize = r->decodedSize = (*bytes)->size();
    for (const auto& f : d->files)
        r->fileSize += f->size();
    r->decodedSize = r->fileSize;
    RecordPart part;
    part.file = metaPath;
    part.container = std::move(d);
    r->parts.push_back(std::move(part));
    return std::shared_ptr<const Record>(std::move(r));
}

const DcpCheckpoint& dcpCheckpointOf(const Record& record)
{
    return *static_cast<const DcpCheckpoint*>(record.parts.front().container.get());
}

} // namespace ckpt::torch
