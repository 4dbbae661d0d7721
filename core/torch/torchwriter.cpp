// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/torch/torchwriter.h"

#include "core/io/zipwriter.h"
#include "core/torch/pickle.h"
#include "core/torch/pickleops.h"
#include "core/torch/torchfile.h"

#include <bit>
#include <cstring>

namespace ckpt::torch {

namespace {

/// A protocol-2 pickle stream, opcode by opcode (CPython's pickletools names them).
class PickleStream {
public:
    explicit PickleStream(const std::vector<TensorOut>& tensors)
        : m_tensors(tensors)
    {
        op(kProto);
        m_out.push_back(2);
    }

    Result<void> value(const PyValue& v)
    {
        using K = PyValue::Kind;
        switch (v.kind) {
        case K::None: op(kNone); return {};
        case K::Bool: op(v.boolean ? kNewTrue : kNewFalse); return {};
        case K::Int: integer(v.integer); return {};
        case K::Float: real(v.real); return {};
        case K::Str: text(v.text); return {};
        case K::Tuple: return tuple(v.items);
        case K::List: return list(v.items);
        case K::Dict: op(kEmptyDict); return setItems(v.items);
        case K::OrderedDict: emptyOrderedDict(); return setItems(v.items);
        case K::Tensor: return tensor(v.tensor);
        }
        return {};
    }

    std::vector<uint8_t> finish() &&
    {
        op(kStop);
        return std::move(m_out);
    }

private:
    void op(uint8_t o) { m_out.push_back(o); }
    void le(uint64_t v, int bytes)
    {
        for (int i = 0; i < bytes; ++i)
            m_out.push_back(uint8_t(v >> (8 * i)));
    }
    void integer(int64_t i)
    {
        if (i >= 0 && i < 0x100) {
            op(kBinInt1);
            le(uint64_t(i), 1);
        } else if (i >= 0 && i < 0x10000) {
            op(kBinInt2);
            le(uint64_t(i), 2);
        } else if (i >= INT32_MIN && i <= INT32_MAX) {
            op(kBinInt);
            le(uint64_t(uint32_t(int32_t(i))), 4);
        } else { // LONG1: 8 bytes of two's complement, little-endian
            op(kLong1);
            m_out.push_back(8);
            le(uint64_t(i), 8);
        }
    }
    void real(double d)
    {
        op(kBinFloat); // big-endian IEEE double
        const auto bits = std::bit_cast<uint64_t>(d);
        for (int i = 7; i >= 0; --i)
            m_out.push_back(uint8_t(bits >> (8 * i)));
    }
    void text(std::string_view s)
    {
        op(kBinUnicode);
        le(s.size(), 4);
        m_out.insert(m_out.end(), s.begin(), s.end());
    }
    void global(std::string_view module, std::string_view name)
    {
        op(kGlobal);
        m_out.insert(m_out.end(), module.begin(), module.end());
        m_out.push_back('\n');
        m_out.insert(m_out.end(), name.begin(), name.end());
        m_out.push_back('\n');
    }
    void emptyOrderedDict()
    {
        global("collections", "OrderedDict");
        op(kEmptyTuple);
        op(kReduce);
    }
    Result<void> tuple(const std::vector<PyValue>& items)
    {
        if (items.empty()) {
            op(kEmptyTuple);
            return {};
        }
        if (items.size() > 3)
            return marked(items, kTuple);
        for (const auto& i : items)
            if (auto r = value(i); !r)
                return r;
        static constexpr uint8_t kSmall[] = {0, kTuple1, kTuple2, kTuple3};
        op(kSmall[items.size()]);
        return {};
    }
    Result<void> list(const std::vector<PyValue>& items)
    {
        op(kEmptyList);
        return items.empty() ? Result<void>{} : marked(items, kAppends);
    }
    Result<void> setItems(const std::vector<PyValue>& items) { return items.empty() ? Result<void>{} : marked(items, kSetItems); }
    /// MARK, the items, then \a closing (APPENDS, SETITEMS, TUPLE) takes them all.
    Result<void> marked(const std::vector<PyValue>& items, uint8_t closing)
    {
        op(kMark);
        for (const auto& i : items)
            if (auto r = value(i); !r)
                return r;
        op(closing);
        return {};
    }
    void ints(const std::vector<uint64_t>& v)
    {
        std::vector<PyValue> items;
        items.reserve(v.size());
        for (uint64_t x : v)
            items.push_back(PyValue::of(int64_t(x)));
        (void)tuple(items); // integers never fail
    }
    /// torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)
    Result<void> tensor(size_t index)
    {
        if (index >= m_tensors.size())
            return fail(ErrorCode::Invalid, "a tensor refers to storage " + std::to_string(index) + " of " + std::to_string(m_tensors.size()));
        const TensorOut& t = m_tensors[index];
        const auto name = torchDTypeOfBurn(t.dtype);
        const auto cls = name ? storageClassOf(*name) : std::nullopt;
        if (!cls)
            return fail(ErrorCode::Unsupported, "torch has no typed storage for Burn's " + std::string(dtypeName(t.dtype)));
        uint64_t numel = 1;
        for (uint64_t d : t.shape)
            numel *= d;
        std::vector<uint64_t> strides(t.shape.size(), 1);
        for (size_t i = t.shape.size(); i-- > 1;)
            strides[i - 1] = strides[i] * t.shape[i];
        global("torch._utils", "_rebuild_tensor_v2");
        op(kMark);
        op(kMark); // the persistent id: ('storage', torch.FloatStorage, key, location, numel)
        text("storage");
        global("torch", *cls);
        text(std::to_string(index));
        text("cpu");
        integer(int64_t(numel));
        op(kTuple);
        op(kBinPersId);
        integer(0);
        ints(t.shape);
        ints(strides);
        op(kNewFalse);
        emptyOrderedDict();
        op(kTuple);
        op(kReduce);
        return {};
    }

    const std::vector<TensorOut>& m_tensors;
    std::vector<uint8_t> m_out;
};

} // namespace

Result<std::vector<uint8_t>> picklePyValue(const PyValue& root, const std::vector<TensorOut>& tensors)
{
    PickleStream s(tensors);
    if (auto r = s.value(root); !r)
        return std::unexpected(std::move(r.error()));
    return std::move(s).finish();
}

Result<void> writeTorchFile(const std::string& path, const PyValue& root, const std::vector<TensorOut>& tensors)
{
    auto pickle = picklePyValue(root, tensors);
    if (!pickle)
        return std::unexpected(std::move(pickle.error()).withFile(path));
    constexpr uint32_t kAlignment = 64; // torch's own writer aligns every record so (mmap=True maps storages in place)
    std::vector<ZipMemberOut> members;
    members.push_back({"archive/data.pkl", std::move(*pickle), {}, kAlignment});
    members.push_back({"archive/byteorder", {'l', 'i', 't', 't', 'l', 'e'}, {}, kAlignment});
    for (size_t i = 0; i < tensors.size(); ++i)
        members.push_back({"archive/data/" + std::to_string(i), {}, tensors[i].bytes, kAlignment});
    members.push_back({"archive/version", {'3', '\n'}, {}, kAlignment});
    return writeStoredZip(path, members);
}

} // namespace ckpt::torch
