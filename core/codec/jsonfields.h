// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// A report's members as a table: each key beside the struct member that holds its value. A document
// states its key order once, as data, and putFields writes it; a put call per field written by hand
// in every report was the same list of lines again and again, differing only in names.
#pragma once

#include "core/codec/json.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace ckpt {

/** The member types a table can name, each written as its put* helper writes it (json.h). */
template<class T>
using JsonMember = std::variant<std::string T::*, uint64_t T::*, double T::*, bool T::*, std::optional<std::string> T::*, std::optional<uint64_t> T::*,
    std::optional<double> T::*, std::vector<std::string> T::*>;

template<class T>
struct JsonField {
    std::string_view key;
    JsonMember<T> member;
};

/** One member of the open map, written as its type's put* helper writes it. */
void putMember(TapeBuilder& b, std::string_view key, const std::string& v);
void putMember(TapeBuilder& b, std::string_view key, uint64_t v);
void putMember(TapeBuilder& b, std::string_view key, double v);
void putMember(TapeBuilder& b, std::string_view key, bool v);
void putMember(TapeBuilder& b, std::string_view key, const std::optional<std::string>& v);
void putMember(TapeBuilder& b, std::string_view key, const std::optional<uint64_t>& v);
void putMember(TapeBuilder& b, std::string_view key, const std::optional<double>& v);
void putMember(TapeBuilder& b, std::string_view key, const std::vector<std::string>& v);

/** Writes \a fields of \a object (a T or a struct derived from it) into the map \a b has open, in the table's order. */
template<class T, size_t N>
void putFields(TapeBuilder& b, const std::type_identity_t<T>& object, const JsonField<T> (&fields)[N])
{
    for (const JsonField<T>& f : fields)
        std::visit([&](auto member) { putMember(b, f.key, object.*member); }, f.member);
}

} // namespace ckpt
