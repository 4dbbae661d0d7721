// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The containers of torch/serialization.py (_save and _legacy_save, torch 1.6 to 2.x), read with
// every length, index and extent checked against the bytes that are there.
#include "core/torch/torchfile.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace ckpt::torch {

namespace {

/** A compressed data.pkl inflates at most this far (cli-contract.md, PyTorch limits). */
constexpr uint64_t kMaxPickleBytes = uint64_t(256) << 20;
/** The legacy format's opening pickle after PROTO (and, from protocol 4, a FRAME): LONG1 of 10 bytes, 0x1950a86a20f9469cfc6c. */
constexpr uint8_t kLegacyMagic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

/** A storage's bytes: where they are and how many elements of its type they hold. */
struct StorageData {
    std::span<const uint8_t> bytes;
    std::optional<uint64_t> fileOffset;
    uint32_t identity = 0;
};

/** The data.pkl entry: the one directly under the archive's top folder (torch names the folder after the file). */
const ZipEntry* pickleEntry(const ZipArchive& zip)
{
    for (const auto& e : zip.entries()) {
        const size_t slash = e.name.find('/');
        if (e.name.ends_with("data.pkl") && (e.name == "data.pkl" || (slash != std::string::npos && slash + 1 + 8 == e.name.size())))
            return &e;
    }
    return nullptr;
}

/** Unpickles \a bytes; an error says which pickle of the file it was in. */
Result<Pickled> unpickleNamed(std::span<const uint8_t> bytes, const std::string& name, uint64_t base)
{
    auto p = unpickle(bytes);
    if (!p) {
        Error e = std::move(p.error());
        if (e.offset)
            *e.offset += base;
        e.what += " (" + name + ")";
        return std::unexpected(std::move(e));
    }
    return p;
}

bool multiplyOverflows(uint64_t a, uint64_t b, uint64_t& out)
{
    return __builtin_mul_overflow(a, b, &out);
}

/**
 * The tensor's logical elements: a view when its strides are row-major over a checked extent, else
 * gathered into \a owned (an expanded view is refused when it is larger than the file itself).
 */
Result<TensorBytes> tensorBytes(const PickledTensor& t, const StorageData& s, uint32_t es, TorchFile& file)
{
    auto at = [&](std::string what) {
        return fail(ErrorCode::Invalid, std::move(what), t.offset).error();
    };
    uint64_t numel = 1;
    for (uint64_t d : t.shape)
        if (multiplyOverflows(numel, d, numel))
            return std::unexpected(at("pickle: a tensor shape whose element count overflows 64 bits"));
    uint64_t logicalBytes = 0;
    if (multiplyOverflows(numel, es, logicalBytes))
        return std::unexpected(at("pickle: a tensor shape of more bytes than 64 bits count"));
    const uint64_t available = s.bytes.size() / es;
    TensorBytes out;
    out.elementSize = es;
    out.storageIdentity = s.identity;
    if (numel == 0) {
        out.fileOffset = s.fileOffset;
        return out;
    }
    // the last element the view reaches, overflow-checked
    uint64_t last = t.storageOffset;
    bool contiguous = true;
    uint64_t expect = 1;
    for (size_t d = t.shape.size(); d-- > 0;) {
        uint64_t reach = 0;
        if (multiplyOverflows(t.shape[d] - 1, uint64_t(t.stride[d]), reach) || __builtin_add_overflow(last, reach, &last))
            return std::unexpected(at("pickle: a tensor's strides reach beyond 64 bits"));
        if (t.shape[d] != 1 && uint64_t(t.stride[d]) != expect)
            contiguous = false;
        expect *= t.shape[d];
    }
    if (last >= available)
        return std::unexpected(at("storage too short: the tensor's view reaches element " + std::to_string(last) + " but its storage holds "
            + std::to_string(available) + " (torch would read past it)"));
    out.fileOffset = s.fileOffset ? std::optional(*s.fileOffset + t.storageOffset * es) : std::nullopt;
    if (contiguous) {
        out.bytes = s.bytes.subspan(t.storageOffset * es, logicalBytes);
        return out;
    }
    if (logicalBytes > file.bytes->size() + (uint64_t(1) << 20))
        return std::unexpected(at("a strided view of " + std::to_string(logicalBytes) + " bytes, more than the file holds (an expanded view)"));
    std::vector<uint8_t>& buf = file.owned.emplace_back(logicalBytes);
    std::vector<uint64_t> index(t.shape.size(), 0);
    for (uint64_t i = 0; i < numel; ++i) {
        uint64_t element = t.storageOffset;
        for (size_t d = 0; d < index.size(); ++d)
            element += index[d] * uint64_t(t.stride[d]);
        std::memcpy(buf.data() + i * es, s.bytes.data() + element * es, es);
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < t.shape[d])
                break;
            index[d] = 0;
        }
    }
    out.bytes = buf;
    return out;
}

/** Every tensor of \a file, from the storages of \a data (indexed like Pickled::storages). */
Result<void> resolveTensors(TorchFile& file, const std::vector<StorageData>& data)
{
    for (const PickledTensor& t : file.pickled.tensors) {
        const PickledStorage& s = file.pickled.storages[t.storage];
        const StorageType type = storageType(s.type);
        auto tb = tensorBytes(t, data[t.storage], type.elementSize, file);
        if (!tb) {
            Error e = std::move(tb.error());
            e.what += " (" + file.pickleName + ")";
            return std::unexpected(std::move(e));
        }
        tb->torchDType = type.torchName;
        file.tensors.push_back(*tb);
    }
    return {};
}

/** The type of every storage must be one torch writes (its element size bounds every check after). */
Result<void> checkStorageTypes(const TorchFile& file)
{
    for (const auto& s : file.pickled.storages)
        if (storageType(s.type).torchName.empty())
            return fail(ErrorCode::Unsupported, "pickle: unknown storage type torch." + s.type + " (" + file.pickleName + ")", s.offset);
    return {};
}

Result<void> readZipFormat(TorchFile& file)
{
    auto zip = ZipArchive::open(file.bytes);
    if (!zip)
        return std::unexpected(zip.error());
    const ZipEntry* pkl = pickleEntry(*zip);
    if (!pkl)
        return fail(ErrorCode::Invalid, "a zip without ARCHIVE/data.pkl is not a torch.save file", 0);
    const std::string prefix = pkl->name.substr(0, pkl->name.size() - 8);
    file.pickleName = pkl->name;
    if (const ZipEntry* order = zip->find(prefix + "byteorder")) {
        auto text = zip->read(*order, 64);
        if (!text)
            return std::unexpected(text.error());
        const std::string_view v(reinterpret_cast<const char*>((*text)->data()), (*text)->size());
        if (v != "little")
            return fail(ErrorCode::Unsupported, "a " + std::string(v.substr(0, 16)) + "-endian file (byteorder): only little-endian storages are read",
                order->dataOffset);
    }
    if (const ZipEntry* version = zip->find(prefix + "version")) {
        auto text = zip->read(*version, 64);
        if (text && (*text)->size() > 0)
            file.formatVersion = uint32_t(std::max(0, std::atoi(std::string(reinterpret_cast<const char*>((*text)->data()), (*text)->size()).c_str())));
    }
    auto pickle = zip->read(*pkl, kMaxPickleBytes);
    if (!pickle)
        return std::unexpected(pickle.error());
    file.inflated.push_back(*pickle);
    auto p = unpickleNamed((*pickle)->span(), file.pickleName, 0);
    if (!p)
        return std::unexpected(p.error());
    file.pickled = std::move(*p);
    if (auto types = checkStorageTypes(file); !types)
        return types;
    std::vector<StorageData> data;
    std::map<std::string, uint32_t> identity;
    for (const auto& s : file.pickled.storages) {
        const ZipEntry* e = zip->find(prefix + "data/" + s.key);
        if (!e)
            return fail(ErrorCode::Invalid, "storage key " + s.key + " has no entry " + prefix + "data/" + s.key + " (" + file.pickleName + ")", s.offset);
        StorageData d;
        d.identity = identity.emplace(s.key, uint32_t(identity.size())).first->second;
        if (e->method == 0) {
            d.bytes = *zip->view(*e);
            d.fileOffset = e->dataOffset;
        } else {
            // a compressed storage is inflated on demand, never beyond its declared size
            const uint64_t declared = s.numel * storageType(s.type).elementSize;
            auto b = zip->read(*e, declared);
            if (!b)
                return std::unexpected(b.error());
            file.inflated.push_back(*b);
            d.bytes = (*b)->span();
        }
        data.push_back(d);
    }
    return resolveTensors(file, data);
}

/** The legacy format's storage area: each key's element count (u64) and raw bytes, in the keys' order. */
Result<std::vector<StorageData>> legacyStorages(const TorchFile& file, const Pickled& keys, uint64_t at)
{
    const std::span<const uint8_t> d = file.bytes->span();
    const PyObject& list = keys.objects[keys.root];
    if (list.kind != PyKind::List)
        return fail(ErrorCode::Invalid, "the legacy format's storage keys are not a list", at);
    std::map<std::string, std::pair<std::span<const uint8_t>, uint64_t>> byKey;
    for (uint32_t k : list.items) {
        const PyObject& key = keys.objects[k];
        if (key.kind != PyKind::Str)
            return fail(ErrorCode::Invalid, "a legacy storage key that is not a string", at);
        auto s = std::find_if(file.pickled.storages.begin(), file.pickled.storages.end(),
            [&](const PickledStorage& p) { return (p.viewOf.empty() ? p.key : p.viewOf) == key.s; });
        if (s == file.pickled.storages.end())
            return fail(ErrorCode::Invalid, "legacy storage key " + key.s + " belongs to no tensor: its element size is unknown", at);
        const uint32_t es = storageType(s->type).elementSize;
        if (d.size() - at < 8)
            return fail(ErrorCode::Truncated, "storage " + key.s + ": the file ends before its element count", at);
        uint64_t numel = 0;
        for (int i = 8; i-- > 0;)
            numel = (numel << 8) | d[at + i];
        uint64_t bytes = 0;
        if (multiplyOverflows(numel, es, bytes) || bytes > d.size() - at - 8)
            return fail(ErrorCode::Truncated, "storage " + key.s + " claims " + std::to_string(numel) + " elements; the file ends before them", at);
        byKey[key.s] = {d.subspan(at + 8, bytes), at + 8};
        at += 8 + bytes;
    }
    std::vector<StorageData> out;
    std::map<std::string, uint32_t> identity;
    for (const auto& s : file.pickled.storages) {
        const std::string& root = s.viewOf.empty() ? s.key : s.viewOf;
        auto it = byKey.find(root);
        if (it == byKey.end())
            return fail(ErrorCode::Invalid, "storage key " + root + " is not in the file's list of storages", s.offset);
        StorageData data{it->second.first, it->second.second, identity.emplace(root, uint32_t(identity.size())).first->second};
        if (!s.viewOf.empty()) {
            const uint32_t es = storageType(s.type).elementSize;
            if (s.viewOffset > data.bytes.size() / es || s.numel > data.bytes.size() / es - s.viewOffset)
                return fail(ErrorCode::Invalid, "storage view " + s.key + " reaches past storage " + root, s.offset);
            data.bytes = data.bytes.subspan(s.viewOffset * es, s.numel * es);
            *data.fileOffset += s.viewOffset * es;
        }
        out.push_back(data);
    }
    return out;
}

Result<void> readLegacyFormat(TorchFile& file)
{
    file.legacy = true;
    file.pickleName = "legacy format";
    const std::span<const uint8_t> d = file.bytes->span();
    uint64_t at = 0;
    // magic number, protocol version, system info: read by the same machine, checked, then dropped
    for (const char* which : {"magic number", "protocol version", "system info"}) {
        auto p = unpickleNamed(d.subspan(at), std::string("the legacy format's ") + which, at);
        if (!p)
            return std::unexpected(p.error());
        if (std::string_view(which) == "protocol version") {
            const PyObject& v = p->objects[p->root];
            if (v.kind != PyKind::Int || v.i != 1001)
                return fail(ErrorCode::Unsupported, "legacy protocol version " + std::to_string(v.i) + " (torch writes 1001)", at);
        }
        at += p->end;
    }
    const uint64_t objectAt = at;
    auto object = unpickleNamed(d.subspan(at), "the legacy format's object", at);
    if (!object)
        return std::unexpected(object.error());
    file.pickled = std::move(*object);
    at += file.pickled.end;
    if (auto types = checkStorageTypes(file); !types)
        return types;
    auto keys = unpickleNamed(d.subspan(at), "the legacy format's storage keys", at);
    if (!keys)
        return std::unexpected(keys.error());
    at += keys->end;
    auto storages = legacyStorages(file, *keys, at);
    if (!storages)
        return std::unexpected(storages.error());
    // the object's offsets are relative to its pickle; make the tensors' absolute like everything else here
    for (auto& t : file.pickled.tensors)
        t.offset += objectAt;
    for (auto& s : file.pickled.storages)
        s.offset += objectAt;
    return resolveTensors(file, *storages);
}

} // namespace

namespace {
/// torch's dtypes that are Burn's too; uint16/32/64 only exist in torch >= 2.3, and not as typed storages.
constexpr std::pair<std::string_view, DType> kSharedDTypes[] = {{"float32", DType::F32}, {"float64", DType::F64}, {"float16", DType::F16},
    {"bfloat16", DType::BF16}, {"int64", DType::I64}, {"int32", DType::I32}, {"int16", DType::I16}, {"int8", DType::I8}, {"uint8", DType::U8},
    {"bool", DType::Bool}};
} // namespace

std::optional<DType> burnDTypeOfTorch(std::string_view torchName)
{
    for (const auto& [name, d] : kSharedDTypes)
        if (name == torchName)
            return d;
    return std::nullopt;
}

std::optional<std::string_view> torchDTypeOfBurn(DType dtype)
{
    for (const auto& [name, d] : kSharedDTypes)
        if (d == dtype)
            return name;
    return std::nullopt;
}

uint32_t elementSizeOfTorch(std::string_view torchName)
{
    if (auto d = burnDTypeOfTorch(torchName))
        return dtypeSize(*d);
    static constexpr std::pair<std::string_view, uint32_t> kOthers[] = {{"complex32", 4}, {"complex64", 8}, {"complex128", 16}, {"quint8", 1}, {"qint8", 1},
        {"qint32", 4}, {"float8_e4m3fn", 1}, {"float8_e5m2", 1}};
    for (const auto& [name, size] : kOthers)
        if (name == torchName)
            return size;
    return 0;
}

bool isLegacyTorch(std::span<const uint8_t> data)
{
    // PROTO 2..5 (pickle_protocol=), then from protocol 4 a FRAME opcode with its 8-byte length
    if (data.size() < 2 || data[0] != 0x80 || data[1] < 2 || data[1] > 5)
        return false;
    const size_t at = data[1] >= 4 && data.size() > 2 && data[2] == 0x95 ? 11 : 2;
    return data.size() >= at + sizeof kLegacyMagic && std::memcmp(data.data() + at, kLegacyMagic, sizeof kLegacyMagic) == 0;
}

bool looksLikeTorch(std::span<const uint8_t> data)
{
    if (isLegacyTorch(data))
        return true;
    if (!isZip(data))
        return false;
    // a view, not a copy: the sniff only reads the directory
    struct View final : Bytes {
        std::span<const uint8_t> v;
        std::span<const uint8_t> span() const override { return v; }
    };
    auto view = std::make_shared<View>();
    view->v = data;
    auto zip = ZipArchive::open(view);
    return !zip || pickleEntry(*zip) != nullptr; // a broken zip is reported by the reader, not taken for bincode
}

Result<std::shared_ptr<TorchFile>> readTorchFile(BytesPtr bytes)
{
    auto file = std::make_shared<TorchFile>();
    file->bytes = std::move(bytes);
    auto read = isLegacyTorch(file->bytes->span()) ? readLegacyFormat(*file) : readZipFormat(*file);
    if (!read)
        return std::unexpected(read.error());
    return file;
}

} // namespace ckpt::torch
