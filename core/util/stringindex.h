// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt {

/** A fast hash of a short byte string, 8 bytes per step (ids and CIDs are 15 to 60 bytes). */
inline uint64_t hashBytes(std::string_view s)
{
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xD6E8FEB86659FD93ull);
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ w) * 0x94D049BB133111EBull;
    }
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

/**
 * Interns string views to dense indices 0, 1, 2, ... in first-insertion order. The views are not
 * copied: they must outlive the index (they point into a graph's strings or a mapped file). Open
 * addressing with linear probing in one flat array, a third of the cost of
 * std::unordered_map<std::string_view, uint32_t> on 100k-node graphs (no node allocations).
 */
class StringIndex {
public:
    void reserve(size_t n)
    {
        m_names.reserve(n);
        if (n * 2 > m_slots.size())
            rehash(n * 2);
    }
    size_t size() const { return m_names.size(); }
    std::string_view name(uint32_t i) const { return m_names[i]; }
    const std::vector<std::string_view>& names() const { return m_names; }

    /** (index, true) when \a s is new (index == the previous size()), else (its index, false). */
    std::pair<uint32_t, bool> insert(std::string_view s) { return insertHashed(s, hashBytes(s)); }
    std::pair<uint32_t, bool> insertHashed(std::string_view s, uint64_t h)
    {
        if ((m_names.size() + 1) * 2 > m_slots.size())
            rehash(m_slots.empty() ? 16 : m_slots.size() * 2);
        for (size_t i = h & m_mask;; i = (i + 1) & m_mask) {
            const uint64_t slot = m_slots[i];
            if (slot == 0) {
                const auto index = static_cast<uint32_t>(m_names.size());
                m_names.push_back(s);
                m_slots[i] = pack(h, index);
                return {index, true};
            }
            if (tag(slot) == tag(h) && m_names[indexOf(slot)] == s)
                return {indexOf(slot), false};
        }
    }
    /**
     * insert() of every string in order; the result holds each one's index. Hashes are computed
     * first and the slot of string i + 16 is prefetched while string i is inserted, so the cache
     * misses of a large table overlap instead of queueing (most of the cost at 100k+ strings).
     */
    std::vector<uint32_t> insertAll(std::span<const std::string_view> strings)
    {
        reserve(m_names.size() + strings.size());
        std::vector<uint64_t> hashes(strings.size());
        for (size_t i = 0; i < strings.size(); ++i)
            hashes[i] = hashBytes(strings[i]);
        std::vector<uint32_t> out(strings.size());
        // Three stages ahead of the insert: the slot, then the name it holds, then that name's bytes
        // (a guess: the first slot probed usually is the one; a wrong guess only costs a prefetch).
        const size_t n = strings.size();
        auto candidate = [&](size_t i) -> const std::string_view* {
            const uint64_t slot = m_slots[hashes[i] & m_mask];
            return slot != 0 && tag(slot) == tag(hashes[i]) ? &m_names[indexOf(slot)] : nullptr;
        };
        for (size_t i = 0; i < n; ++i) {
            if (i + 24 < n)
                __builtin_prefetch(&m_slots[hashes[i + 24] & m_mask]);
            if (i + 12 < n)
                if (const auto* name = candidate(i + 12))
                    __builtin_prefetch(name);
            if (i + 4 < n)
                if (const auto* name = candidate(i + 4))
                    __builtin_prefetch(name->data());
            out[i] = insertHashed(strings[i], hashes[i]).first;
        }
        return out;
    }

    std::optional<uint32_t> find(std::string_view s) const
    {
        if (m_slots.empty())
            return std::nullopt;
        const uint64_t h = hashBytes(s);
        for (size_t i = h & m_mask;; i = (i + 1) & m_mask) {
            const uint64_t slot = m_slots[i];
            if (slot == 0)
                return std::nullopt;
            if (tag(slot) == tag(h) && m_names[indexOf(slot)] == s)
                return indexOf(slot);
        }
    }

private:
    // A slot holds the hash's high 32 bits (a cheap pre-check before comparing strings) and index + 1.
    static uint64_t tag(uint64_t v) { return v >> 32; }
    static uint32_t indexOf(uint64_t slot) { return static_cast<uint32_t>(slot) - 1; }
    static uint64_t pack(uint64_t h, uint32_t index) { return (h & 0xFFFFFFFF00000000ull) | (uint64_t(index) + 1); }

    void rehash(size_t want)
    {
        size_t cap = 16;
        while (cap < want)
            cap *= 2;
        m_slots.assign(cap, 0);
        m_mask = cap - 1;
        for (uint32_t k = 0; k < m_names.size(); ++k) {
            const uint64_t h = hashBytes(m_names[k]);
            size_t i = h & m_mask;
            while (m_slots[i] != 0)
                i = (i + 1) & m_mask;
            m_slots[i] = pack(h, k);
        }
    }

    std::vector<std::string_view> m_names;
    std::vector<uint64_t> m_slots;
    size_t m_mask = 0;
};

} // namespace ckpt
