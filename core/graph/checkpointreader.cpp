// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The fast path of loadGradientCheckpoint: typed decoding straight from the bytes, without a
// generic tape. It accepts only a subset of what serde_json accepts — objects with exactly the
// crate's field names, plain strings (printable ASCII, no escapes), unsigned integers — and on
// anything else (an escape, a non-ASCII byte, an unknown or duplicate field, a struct written as an
// array, any malformed byte) it declines, and the caller runs the general reader (core/codec/json +
// the typed Decoder of checkpoint.cpp), which produces serde_json's verdict and its exact message
// and position. So accept/reject and every error stays the general reader's; this file only has to
// be right about the inputs it accepts, and tests/core/tst_graph_fast.cpp checks that it agrees
// with the general reader on them.
#include "core/graph/checkpointreader.h"

#include "core/codec/jsonscan.h"
#include "core/graph/checkpoint.h"
#include "core/util/stringindex.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace ckpt {

namespace {

class FastReader {
public:
    explicit FastReader(std::span<const uint8_t> text)
        : m_p(text.data())
        , m_e(text.data() + text.size())
    {
    }

    bool checkpoint(GradientCheckpoint& c)
    {
        constexpr unsigned Graph = 1, Step = 2, Loss = 4, Optim = 8, Time = 16;
        unsigned have = 0;
        const bool ok = object([&](std::string_view key) {
            const unsigned f = key == "graph" ? Graph
                : key == "step"               ? Step
                : key == "loss_cid"           ? Loss
                : key == "optimizer_state"    ? Optim
                : key == "timestamp"          ? Time
                                              : 0;
            if (f == 0 || (have & f))
                return false;
            have |= f;
            switch (f) {
            case Graph: return graph(c.graph);
            case Step: return unsignedInt(c.step, UINT64_MAX);
            case Loss: return optString(c.lossCid);
            case Optim: return blobs(c.optimizerState);
            default: return unsignedInt(c.timestamp, UINT64_MAX);
            }
        });
        if (!ok || (have | Loss) != (Graph | Step | Loss | Optim | Time))
            return false;
        space();
        if (m_p != m_e)
            return false;
        c.notes = m_notes;
        return true;
    }

private:
    // ---- lexing --------------------------------------------------------------------------------

    void space()
    {
        while (m_p < m_e && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
    }
    bool punct(uint8_t c)
    {
        space();
        if (m_p < m_e && *m_p == c) {
            ++m_p;
            return true;
        }
        return false;
    }
    bool peek(uint8_t c)
    {
        space();
        return m_p < m_e && *m_p == c;
    }

    /** A string without escapes or non-ASCII bytes, as a view into the input. */
    bool plainString(std::string_view& out)
    {
        if (!punct('"'))
            return false;
        const uint8_t* start = m_p;
        for (;;) {
            while (m_e - m_p >= 8) {
                uint64_t w;
                std::memcpy(&w, m_p, 8);
                if (jsonWordNeedsAttention(w))
                    break;
                m_p += 8;
            }
            if (m_p >= m_e)
                return false;
            const uint8_t c = *m_p;
            if (c == '"') {
                out = std::string_view(reinterpret_cast<const char*>(start), size_t(m_p - start));
                ++m_p;
                return true;
            }
            if (c < 0x20 || c == '\\' || c >= 0x80)
                return false;
            ++m_p;
        }
    }
    bool string(std::string& out)
    {
        std::string_view v;
        if (!plainString(v))
            return false;
        out.assign(v);
        return true;
    }
    bool optString(std::optional<std::string>& out)
    {
        if (peek('n')) {
            if (m_e - m_p < 4 || std::memcmp(m_p, "null", 4) != 0)
                return false;
            m_p += 4;
            out.reset();
            return true;
        }
        out.emplace();
        return string(*out);
    }

    /** A JSON integer 0..max written without sign, fraction or exponent (serde's u64 / u8 accept more; those decline). */
    bool unsignedInt(uint64_t& out, uint64_t max)
    {
        space();
        if (m_p >= m_e || *m_p < '0' || *m_p > '9')
            return false;
        uint64_t v = 0;
        if (*m_p == '0') {
            ++m_p;
        } else {
            while (m_p < m_e && *m_p >= '0' && *m_p <= '9') {
                const uint64_t d = *m_p - '0';
                if (v > (UINT64_MAX - d) / 10)
                    return false; // serde_json would read a float here
                v = v * 10 + d;
                ++m_p;
            }
        }
        if (m_p < m_e && (*m_p == '.' || *m_p == 'e' || *m_p == 'E' || (*m_p >= '0' && *m_p <= '9')))
            return false;
        if (v > max)
            return false;
        out = v;
        return true;
    }

    // ---- containers ----------------------------------------------------------------------------

    static constexpr size_t kSample = 64;
    static constexpr size_t kMinEntryBytes = 6; // `"":[],` : the least a map entry or an edge can take

    /**
     * Once \a v holds kSample items read since \a start, reserves for the rest of the input at the
     * same rate. A 100k-entry vector grown by doubling touches twice its final size in fresh pages,
     * and page faults are a third of a first parse. Untouched reserved pages cost little, but the
     * reservation is still bounded by the input: never more items than the unread bytes could hold
     * (the least bytes an item's text takes), and never more bytes than are unread, so 64 tiny
     * entries followed by a long string cannot reserve several times the file's size.
     */
    template<class V>
    void reserveAhead(V& v, const uint8_t* start, size_t minBytes)
    {
        const auto used = static_cast<size_t>(m_p - start);
        const auto left = static_cast<size_t>(m_e - m_p);
        if (used == 0)
            return;
        const size_t byRate = v.size() + (left / used + 1) * v.size();
        const size_t byInput = v.size() + left / std::max(minBytes, sizeof(typename V::value_type));
        v.reserve(std::min(byRate, byInput));
    }

    /** `{ "key": value, ... }`; \a member(key) reads the value. */
    template<class F>
    bool object(F&& member)
    {
        if (!punct('{'))
            return false;
        if (punct('}'))
            return true;
        for (;;) {
            std::string_view key;
            if (!plainString(key) || !punct(':') || !member(key))
                return false;
            space();
            if (m_p >= m_e)
                return false;
            const uint8_t c = *m_p++;
            if (c == '}')
                return true;
            if (c != ',')
                return false;
        }
    }
    /** `[ value, ... ]`; \a element() reads one value. */
    template<class F>
    bool array(F&& element)
    {
        if (!punct('['))
            return false;
        if (punct(']'))
            return true;
        for (;;) {
            if (!element())
                return false;
            space();
            if (m_p >= m_e)
                return false;
            const uint8_t c = *m_p++;
            if (c == ']')
                return true;
            if (c != ',')
                return false;
        }
    }

    /**
     * HashMap<String, T> as the typed decoder leaves it: first position, last value, duplicates
     * noted. Entries are read first and repeated keys merged afterwards, so that a large map's keys
     * go through the hash index in one batch (StringIndex::insertAll overlaps the cache misses).
     */
    template<class T, class F>
    bool map(std::vector<std::pair<std::string, T>>& out, F&& value)
    {
        out.clear();
        std::vector<std::string_view> keys;
        const uint8_t* start = m_p;
        const bool ok = object([&](std::string_view key) {
            if (keys.size() == kSample) {
                reserveAhead(out, start, kMinEntryBytes);
                reserveAhead(keys, start, kMinEntryBytes);
            }
            keys.push_back(key);
            auto& entry = out.emplace_back(std::string(key), T{});
            return value(entry.second);
        });
        if (!ok)
            return false;
        std::vector<uint32_t> first(keys.size());
        if (keys.size() <= 16) {
            uint32_t distinct = 0;
            for (size_t i = 0; i < keys.size(); ++i) {
                first[i] = distinct;
                for (uint32_t j = 0; j < i; ++j)
                    if (keys[j] == keys[i]) {
                        first[i] = first[j];
                        break;
                    }
                if (first[i] == distinct)
                    ++distinct;
            }
        } else {
            first = StringIndex().insertAll(keys);
        }
        size_t kept = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            if (first[i] == kept) {
                if (kept != i)
                    out[kept] = std::move(out[i]);
                ++kept;
            } else {
                out[first[i]].second = std::move(out[i].second);
                ++m_notes.duplicateMapKeys;
            }
        }
        out.resize(kept);
        return true;
    }

    // ---- the crate's types ---------------------------------------------------------------------

    bool node(ComputationNode& n)
    {
        constexpr unsigned Id = 1, Op = 2, Inputs = 4, Output = 8, Gradient = 16, Meta = 32;
        unsigned have = 0;
        const bool ok = object([&](std::string_view key) {
            unsigned f = 0;
            switch (key.size()) {
            case 2: f = key == "id" ? Id : key == "op" ? Op : 0; break;
            case 8: f = key == "metadata" ? Meta : 0; break;
            case 10: f = key == "input_cids" ? Inputs : key == "output_cid" ? Output : 0; break;
            case 12: f = key == "gradient_cid" ? Gradient : 0; break;
            default: break;
            }
            if (f == 0 || (have & f))
                return false;
            have |= f;
            switch (f) {
            case Id: return string(n.id);
            case Op: return string(n.op);
            case Inputs: {
                // Views first, then one allocation of the exact size.
                m_views.clear();
                const bool read = array([&] {
                    std::string_view v;
                    if (!plainString(v))
                        return false;
                    m_views.push_back(v);
                    return true;
                });
                n.inputCids.assign(m_views.begin(), m_views.end());
                return read;
            }
            case Output: return optString(n.outputCid);
            case Gradient: return optString(n.gradientCid);
            default: return map(n.metadata, [&](std::string& s) { return string(s); });
            }
        });
        return ok && (have | Output | Gradient) == (Id | Op | Inputs | Output | Gradient | Meta);
    }

    bool graph(ComputationGraphStore& g)
    {
        constexpr unsigned Nodes = 1, Edges = 2;
        unsigned have = 0;
        const bool ok = object([&](std::string_view key) {
            const unsigned f = key == "nodes" ? Nodes : key == "edges" ? Edges : 0;
            if (f == 0 || (have & f))
                return false;
            have |= f;
            if (f == Nodes)
                return map(g.nodes, [&](ComputationNode& n) { return node(n); });
            const uint8_t* start = m_p;
            return array([&] {
                if (g.edges.size() == kSample)
                    reserveAhead(g.edges, start, kMinEntryBytes);
                auto& e = g.edges.emplace_back();
                return punct('[') && string(e.first) && punct(',') && string(e.second) && punct(']');
            });
        });
        if (!ok || have != (Nodes | Edges))
            return false;
        for (const auto& [key, n] : g.nodes)
            if (key != n.id)
                ++m_notes.nodeKeyIdMismatches;
        return true;
    }

    bool blobs(std::vector<OptimizerBlob>& out)
    {
        std::vector<std::pair<std::string, std::vector<uint8_t>>> m;
        const bool ok = map(m, [&](std::vector<uint8_t>& bytes) {
            return array([&] {
                uint64_t b = 0;
                if (!unsignedInt(b, 255))
                    return false;
                bytes.push_back(uint8_t(b));
                return true;
            });
        });
        if (!ok)
            return false;
        out.clear();
        out.reserve(m.size());
        for (auto& [k, b] : m)
            out.push_back(OptimizerBlob{std::move(k), std::move(b)});
        return true;
    }

    const uint8_t* m_p;
    const uint8_t* m_e;
    DecodeNotes m_notes;
    std::vector<std::string_view> m_views; // scratch of node()
};

} // namespace

std::optional<GradientCheckpoint> readGradientCheckpointFast(std::span<const uint8_t> json)
{
    try {
        GradientCheckpoint c;
        if (FastReader(json).checkpoint(c))
            return c;
    } catch (const std::bad_alloc&) {
        return std::nullopt; // the general reader then reports running out of memory as an error value
    }
    return std::nullopt;
}

} // namespace ckpt
