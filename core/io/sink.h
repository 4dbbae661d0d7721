// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"

#include <cstring>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * Buffered output for the writers. Small pieces collect in a buffer; large payloads (tensor bytes)
 * go straight to the downstream function, so saving a mapped 1 GiB record copies each payload once.
 * With no downstream function everything stays in buffer() (in-memory encoding).
 */
class Sink {
public:
    using Downstream = std::function<Result<void>(std::span<const uint8_t>)>;

    Sink() = default;
    explicit Sink(Downstream d)
        : m_down(std::move(d))
    {
    }

    void put(uint8_t b)
    {
        m_buf.push_back(b);
        if (m_down && m_buf.size() >= kFlushAt)
            flush();
    }
    void put(std::span<const uint8_t> s)
    {
        if (m_down && s.size() >= kDirect) {
            flush();
            if (m_ok) {
                if (auto r = m_down(s); !r) {
                    m_ok = false;
                    m_error = r.error();
                }
            }
            m_written += s.size();
            return;
        }
        m_buf.insert(m_buf.end(), s.begin(), s.end());
        if (m_down && m_buf.size() >= kFlushAt)
            flush();
    }
    void put(std::string_view s) { put(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())); }

    /** Bytes produced so far (flushed and buffered). */
    uint64_t size() const { return m_written + m_buf.size(); }

    /** Flushes and reports the first downstream error, if any. */
    Result<void> finish()
    {
        flush();
        if (!m_ok)
            return std::unexpected(m_error);
        return {};
    }
    bool ok() const { return m_ok; }

    /** The in-memory result when there is no downstream function. */
    std::vector<uint8_t>& buffer() { return m_buf; }

private:
    void flush()
    {
        if (!m_down || m_buf.empty())
            return;
        if (m_ok) {
            if (auto r = m_down(m_buf); !r) {
                m_ok = false;
                m_error = r.error();
            }
        }
        m_written += m_buf.size();
        m_buf.clear();
    }

    static constexpr size_t kFlushAt = 1 << 20;
    static constexpr size_t kDirect = 1 << 16;
    Downstream m_down;
    std::vector<uint8_t> m_buf;
    uint64_t m_written = 0;
    bool m_ok = true;
    Error m_error;
};

} // namespace ckpt
