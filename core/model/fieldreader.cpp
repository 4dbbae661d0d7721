// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/fieldreader.h"

namespace ckpt {

FieldReader::FieldReader(const Tape& tape, uint32_t node, std::string path)
    : m_tape(&tape)
    , m_node(node)
    , m_path(std::move(path))
{
}

std::unexpected<Error> FieldReader::failAt(std::string path, std::string what)
{
    auto e = fail(ErrorCode::Invalid, std::move(what));
    e.error().recordPath = std::move(path);
    return e;
}

Result<uint32_t> FieldReader::get(std::string_view key) const
{
    if (!m_tape->isMap(m_node))
        return failAt(m_path, "expected a map");
    auto v = m_tape->find(m_node, key);
    if (!v)
        return failAt(appendKeyToPath(m_path, key), "missing field `" + std::string(key) + "`");
    return *v;
}

Result<FieldReader> FieldReader::sub(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    if (!m_tape->isMap(*v))
        return failAt(appendKeyToPath(m_path, key), "expected a map");
    return FieldReader(*m_tape, *v, appendKeyToPath(m_path, key));
}

Result<uint64_t> FieldReader::u64(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    auto n = m_tape->asU64(*v);
    if (!n)
        return failAt(appendKeyToPath(m_path, key), "expected a non-negative integer");
    return *n;
}

Result<double> FieldReader::f64(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    const Kind k = (*m_tape)[*v].kind;
    auto n = m_tape->asNumber(*v);
    if ((k != Kind::F64 && k != Kind::F32 && k != Kind::UInt && k != Kind::Int) || !n)
        return failAt(appendKeyToPath(m_path, key), "expected a number");
    return *n;
}

Result<float> FieldReader::f32(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    if ((*m_tape)[*v].kind == Kind::F32)
        return m_tape->f32(*v);
    auto d = f64(key);
    if (!d)
        return std::unexpected(d.error());
    // JSON carries an f32 field as its shortest f32 digits; narrowing the parsed double gives it back.
    return static_cast<float>(*d);
}

Result<bool> FieldReader::boolean(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    if ((*m_tape)[*v].kind != Kind::Bool)
        return failAt(appendKeyToPath(m_path, key), "expected a bool");
    return m_tape->boolean(*v);
}

Result<std::string> FieldReader::str(std::string_view key) const
{
    auto v = get(key);
    if (!v)
        return std::unexpected(v.error());
    if (!m_tape->isStr(*v))
        return failAt(appendKeyToPath(m_path, key), "expected a string");
    return std::string(m_tape->str(*v));
}

} // namespace ckpt
