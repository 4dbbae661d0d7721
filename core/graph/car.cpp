// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/car.h"

#include "core/codec/cbor.h"

namespace ckpt {

namespace {

/**
 * A minimal CBOR reader for exactly what a CAR header holds: a map of text keys to an unsigned
 * integer and an array of tag-42 byte strings; its heads are core/codec/cbor's. Unknown keys are skipped (bounded nesting). Offsets
 * in errors are absolute in the file (`base` is where the header starts).
 */
class CborReader {
public:
    CborReader(std::span<const uint8_t> in, uint64_t base)
        : m_in(in)
        , m_base(base)
    {
    }

    struct Head {
        uint8_t major;
        uint64_t arg;
        uint64_t offset;
    };

    Result<Head> head()
    {
        const uint64_t at = m_base + m_pos;
        auto raw = cbor::readHead(m_in, m_pos);
        if (!raw) {
            switch (raw.error()) {
            case cbor::HeadError::End: return fail(ErrorCode::Truncated, "CAR header: expected a CBOR item, found the end of the header", at);
            case cbor::HeadError::Reserved: break;
            case cbor::HeadError::Truncated: return fail(ErrorCode::Truncated, "CAR header: CBOR argument runs past the header", at);
            }
        }
        // DAG-CBOR has no indefinite lengths (and a break is no item)
        if (!raw || raw->indefinite)
            return fail(ErrorCode::Unsupported, "CAR header: indefinite-length or reserved CBOR item", at);
        return Head{raw->major, raw->arg, at};
    }

    Result<std::span<const uint8_t>> payload(const Head& h)
    {
        if (h.arg > m_in.size() - m_pos)
            return fail(ErrorCode::Truncated,
                "CAR header: CBOR string of " + std::to_string(h.arg) + " bytes runs past the header", h.offset);
        auto s = m_in.subspan(m_pos, h.arg);
        m_pos += h.arg;
        return s;
    }

    /** A definite array or map must fit the header's bytes left (cbor::countFits); \a what names it. */
    Result<void> fits(const Head& h, std::string_view what) const
    {
        const uint64_t left = m_in.size() - m_pos;
        if (cbor::countFits(h.major, h.arg, left))
            return {};
        const bool map = h.major == 5;
        return fail(ErrorCode::Truncated,
            "CAR header: " + std::string(what) + " count " + std::to_string(h.arg) + " exceeds the header (" + std::to_string(left) + " bytes left, at least "
                + (map ? "2 per entry)" : "1 per item)"),
            h.offset);
    }

    Result<void> skip(int depth)
    {
        if (depth > 16)
            return fail(ErrorCode::Limit, "CAR header: CBOR nesting deeper than 16", m_base + m_pos);
        auto h = head();
        if (!h)
            return std::unexpected(h.error());
        switch (h->major) {
        case 0:
        case 1:
        case 7: return {};
        case 2:
        case 3: {
            auto p = payload(*h);
            if (!p)
                return std::unexpected(p.error());
            return {};
        }
        case 4:
        case 5: {
            // before doubling a map's count: 2 x 2^63 entries would wrap to none
            if (auto f = fits(*h, h->major == 5 ? "CBOR map" : "CBOR array"); !f)
                return f;
            const uint64_t items = h->major == 5 ? h->arg * 2 : h->arg;
            for (uint64_t i = 0; i < items; ++i)
                if (auto r = skip(depth + 1); !r)
                    return r;
            return {};
        }
        case 6: return skip(depth + 1);
        default: return {}; // a major type is 3 bits: 0-7 are all above
        }
    }

    size_t pos() const { return m_pos; }
    uint64_t base() const { return m_base; }
    bool atEnd() const { return m_pos == m_in.size(); }

private:
    std::span<const uint8_t> m_in;
    uint64_t m_base;
    size_t m_pos = 0;
};

Result<CarHeader> parseHeader(std::span<const uint8_t> in, uint64_t base)
{
    CborReader r(in, base);
    CarHeader header;
    auto top = r.head();
    if (!top)
        return std::unexpected(top.error());
    if (top->major != 5)
        return fail(ErrorCode::Malformed, "CAR header: expected a CBOR map", top->offset);
    if (auto f = r.fits(*top, "map"); !f)
        return std::unexpected(f.error());
    bool haveVersion = false, haveRoots = false;
    for (uint64_t i = 0; i < top->arg; ++i) {
        auto kh = r.head();
        if (!kh)
            return std::unexpected(kh.error());
        if (kh->major != 3)
            return fail(ErrorCode::Malformed, "CAR header: expected a text key", kh->offset);
        auto key = r.payload(*kh);
        if (!key)
            return std::unexpected(key.error());
        const std::string_view k(reinterpret_cast<const char*>(key->data()), key->size());
        if (k == "version") {
            auto v = r.head();
            if (!v)
                return std::unexpected(v.error());
            if (v->major != 0)
                return fail(ErrorCode::Malformed, "CAR header: version must be an unsigned integer", v->offset);
            header.version = v->arg;
            header.versionKeyFirst = !haveRoots;
            haveVersion = true;
        } else if (k == "roots") {
            auto a = r.head();
            if (!a)
                return std::unexpected(a.error());
            if (a->major != 4)
                return fail(ErrorCode::Malformed, "CAR header: roots must be an array", a->offset);
            if (auto f = r.fits(*a, "roots"); !f)
                return std::unexpected(f.error());
            for (uint64_t j = 0; j < a->arg; ++j) {
                auto t = r.head();
                if (!t)
                    return std::unexpected(t.error());
                if (t->major != 6 || t->arg != 42)
                    return fail(ErrorCode::Malformed, "CAR header: expected a CID (CBOR tag 42)", t->offset);
                auto b = r.head();
                if (!b)
                    return std::unexpected(b.error());
                if (b->major != 2)
                    return fail(ErrorCode::Malformed, "CAR header: tag 42 must hold a byte string", b->offset);
                auto bytes = r.payload(*b);
                if (!bytes)
                    return std::unexpected(bytes.error());
                std::span<const uint8_t> cidBytes = *bytes;
                const uint64_t cidOffset = b->offset + (b->arg < 24 ? 1 : 2);
                // The DAG-CBOR spec prefixes 0x00 (identity multibase); ipfrs omits it. Accept both.
                const bool zero = !cidBytes.empty() && cidBytes[0] == 0x00;
                if (zero)
                    cidBytes = cidBytes.subspan(1);
                header.rootsWithZeroPrefix = zero;
                size_t used = 0;
                auto cid = parseCidBytes(cidBytes, used, cidOffset + (zero ? 1 : 0));
                if (!cid)
                    return std::unexpected(cid.error());
                if (used != cidBytes.size())
                    return fail(ErrorCode::Malformed, "CAR header: bytes after the root CID", cidOffset);
                header.roots.push_back(std::move(*cid));
            }
            haveRoots = true;
        } else if (auto s = r.skip(0); !s) {
            return std::unexpected(s.error());
        }
    }
    if (!haveVersion)
        return fail(ErrorCode::Malformed, "CAR header: missing \"version\"", base);
    if (header.version != 1)
        return fail(ErrorCode::Unsupported, "CAR version " + std::to_string(header.version) + ", only CARv1 is supported", base);
    if (!haveRoots)
        return fail(ErrorCode::Malformed, "CAR header: missing \"roots\"", base);
    if (!r.atEnd())
        return fail(ErrorCode::Malformed, "CAR header: bytes after the header map", base + r.pos());
    return header;
}

} // namespace

const char* blockCheckName(BlockCheck c)
{
    switch (c) {
    case BlockCheck::Ok: return "ok";
    case BlockCheck::Corrupted: return "corrupted";
    case BlockCheck::Unverifiable: return "unverifiable";
    }
    return "unverifiable";
}

Result<CarStore> CarStore::open(const BytesPtr& bytes)
{
    CarStore store;
    store.m_bytes = bytes;
    const auto in = bytes ? bytes->span() : std::span<const uint8_t>();
    size_t pos = 0;
    if (in.empty())
        return fail(ErrorCode::Truncated, "empty file, expected a CAR header", 0);
    auto headerLen = readVarint(in, pos);
    if (!headerLen)
        return std::unexpected(headerLen.error());
    if (*headerLen == 0)
        return fail(ErrorCode::Malformed, "CAR header length is 0", 0);
    if (*headerLen > in.size() - pos)
        return fail(ErrorCode::Truncated,
            "CAR header of " + std::to_string(*headerLen) + " bytes, only " + std::to_string(in.size() - pos) + " remain", pos);
    auto header = parseHeader(in.subspan(pos, *headerLen), pos);
    if (!header)
        return std::unexpected(header.error());
    store.m_header = std::move(*header);
    pos += *headerLen;
    while (pos < in.size()) {
        const size_t section = pos;
        auto len = readVarint(in, pos);
        if (!len)
            return std::unexpected(len.error());
        if (*len > in.size() - pos)
            return fail(ErrorCode::Truncated,
                "block section of " + std::to_string(*len) + " bytes, only " + std::to_string(in.size() - pos) + " remain", section);
        if (*len == 0)
            return fail(ErrorCode::Malformed, "empty block section, expected a CID", section);
        size_t cidLen = 0;
        auto cid = parseCidBytes(in.subspan(pos, *len), cidLen, pos);
        if (!cid)
            return std::unexpected(cid.error());
        CarBlock block;
        block.sectionOffset = section;
        block.dataOffset = pos + cidLen;
        block.dataSize = *len - cidLen;
        block.cid = std::move(*cid);
        pos += *len;
        std::string key(block.cid.bytes.begin(), block.cid.bytes.end());
        if (store.m_index.contains(key)) {
            ++store.m_duplicates;
        } else {
            store.m_index.emplace(std::move(key), store.m_blocks.size());
        }
        store.m_blocks.push_back(std::move(block));
    }
    return store;
}

std::span<const uint8_t> CarStore::data(const CarBlock& b) const
{
    return m_bytes->span().subspan(b.dataOffset, b.dataSize);
}

std::optional<size_t> CarStore::find(const Cid& cid) const
{
    auto it = m_index.find(std::string(cid.bytes.begin(), cid.bytes.end()));
    if (it == m_index.end())
        return std::nullopt;
    return it->second;
}

Result<std::span<const uint8_t>> CarStore::resolve(std::string_view cidText) const
{
    auto cid = parseCid(cidText);
    if (!cid)
        return fail(ErrorCode::Invalid, std::string(cidText) + " is " + cid.error().what);
    auto i = find(*cid);
    if (!i)
        return fail(ErrorCode::Invalid, "block " + std::string(cidText) + " is not in the CAR file");
    return data(m_blocks[*i]);
}

BlockCheck CarStore::verify(size_t index) const
{
    const auto& b = m_blocks[index];
    if (!b.cid.verifiable())
        return BlockCheck::Unverifiable;
    return b.cid.matches(data(b)) ? BlockCheck::Ok : BlockCheck::Corrupted;
}

std::vector<uint8_t> writeCar(const std::vector<Cid>& roots, const std::vector<CarEntry>& blocks, CarHeaderStyle style)
{
    std::vector<uint8_t> header;
    cbor::appendHead(header, 5, 2);
    auto writeRoots = [&] {
        cbor::appendText(header, "roots");
        cbor::appendHead(header, 4, roots.size());
        for (const auto& r : roots) {
            cbor::appendHead(header, 6, 42);
            const bool zero = style == CarHeaderStyle::Spec;
            cbor::appendHead(header, 2, r.bytes.size() + (zero ? 1 : 0));
            if (zero)
                header.push_back(0x00);
            header.insert(header.end(), r.bytes.begin(), r.bytes.end());
        }
    };
    auto writeVersion = [&] {
        cbor::appendText(header, "version");
        cbor::appendHead(header, 0, 1);
    };
    if (style == CarHeaderStyle::Spec) {
        writeRoots();
        writeVersion();
    } else {
        writeVersion();
        writeRoots();
    }
    std::vector<uint8_t> out;
    appendVarint(out, header.size());
    out.insert(out.end(), header.begin(), header.end());
    for (const auto& b : blocks) {
        appendVarint(out, b.cid.bytes.size() + b.data.size());
        out.insert(out.end(), b.cid.bytes.begin(), b.cid.bytes.end());
        out.insert(out.end(), b.data.begin(), b.data.end());
    }
    return out;
}

} // namespace ckpt
