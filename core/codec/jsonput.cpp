// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The put* helpers: one member of an open map each, for the documents written with writeJson.
#include "core/codec/json.h"
#include "core/codec/jsonfields.h"

namespace ckpt {

void putStr(TapeBuilder& b, std::string_view key, std::string_view v)
{
    b.key(key);
    b.str(v);
}
void putU(TapeBuilder& b, std::string_view key, uint64_t v)
{
    b.key(key);
    b.uinteger(v);
}
void putF(TapeBuilder& b, std::string_view key, double v)
{
    b.key(key);
    b.f64(v);
}
void putBool(TapeBuilder& b, std::string_view key, bool v)
{
    b.key(key);
    b.boolean(v);
}
void putNil(TapeBuilder& b, std::string_view key)
{
    b.key(key);
    b.nil();
}
void putOptStr(TapeBuilder& b, std::string_view key, std::string_view v)
{
    b.key(key);
    if (v.empty())
        b.nil();
    else
        b.str(v);
}
void putOpt(TapeBuilder& b, std::string_view key, const std::optional<std::string>& v)
{
    b.key(key);
    if (v)
        b.str(*v);
    else
        b.nil();
}
void putOptU(TapeBuilder& b, std::string_view key, const std::optional<uint64_t>& v)
{
    b.key(key);
    if (v)
        b.uinteger(*v);
    else
        b.nil();
}
void putOptF(TapeBuilder& b, std::string_view key, const std::optional<double>& v)
{
    b.key(key);
    if (v)
        b.f64(*v);
    else
        b.nil();
}
void putStrings(TapeBuilder& b, std::string_view key, const std::vector<std::string>& v)
{
    b.key(key);
    b.beginArray();
    for (const auto& s : v)
        b.str(s);
    b.end();
}

// the overloads putFields picks by a member's type (jsonfields.h)
void putMember(TapeBuilder& b, std::string_view key, const std::string& v)
{
    putStr(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, uint64_t v)
{
    putU(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, double v)
{
    putF(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, bool v)
{
    putBool(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, const std::optional<std::string>& v)
{
    putOpt(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, const std::optional<uint64_t>& v)
{
    putOptU(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, const std::optional<double>& v)
{
    putOptF(b, key, v);
}
void putMember(TapeBuilder& b, std::string_view key, const std::vector<std::string>& v)
{
    putStrings(b, key, v);
}

} // namespace ckpt
