// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

/** Burn's element types, named as Burn's DType enum spells them in MessagePack/JSON. */
enum class DType : uint8_t { F64, F32, Flex32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, Bool, QFloat };

/** Burn's variant name ("F32", "Bool", ...). */
std::string_view dtypeName(DType d);
/** Parses a variant name; "Bool" also stands for 0.21's Bool(BoolStore). */
std::optional<DType> dtypeFromName(std::string_view name);
/**
 * How a Burn >= 0.21 Bool tensor stores its elements (`DType::Bool(BoolStore)`): Native and U8 a byte
 * each, U32 a little-endian u32 each (0 or 1). Native for every other tensor and for older Burn, whose
 * bare `Bool` is a byte too. The values are Burn's variant indices (bincode writes them).
 */
enum class BoolStore : uint8_t { Native, U8, U32 };
/** "Native", "U8", "U32" (BoolStore's variant names). */
std::string_view boolStoreName(BoolStore s);
std::optional<BoolStore> boolStoreFromName(std::string_view name);
/** The contract's name of a stored dtype: "Bool(U8)" and "Bool(U32)" for those stores, else dtypeName (Native stays "Bool"). */
std::string storedDTypeName(DType d, BoolStore store);
/** What a payload's elements are read as: U32 for a Bool(U32) (the same 0/1 values), else \a d. */
DType elementDType(DType d, BoolStore store);

/** Element size in bytes; 0 for QFloat (opaque packed layout). Bool is 1 unless stored as U32. */
uint32_t dtypeSize(DType d, BoolStore store = BoolStore::Native);
bool isFloat(DType d);

/**
 * The bincode variant index tables of §5.4 of the format spec. Burn renumbered DType three times;
 * bincode stores only the index, so decoding needs the writer's version.
 */
enum class DTypeTable : uint8_t {
    Burn014, ///< 0.14 - 0.15: F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U8 Bool QFloat
    Burn016, ///< 0.16: adds U16 before U8
    Burn017, ///< 0.17 - 0.20: adds Flex32 at 2
    Burn021, ///< 0.21.0-pre.3+ and Ruda: Bool(BoolStore) is a newtype variant
};
/** The table a Burn/Ruda version string ("0.16.1", "0.20.0-pre.6", "0.21.44") uses. */
DTypeTable dtypeTableForVersion(std::string_view version);
std::optional<DType> dtypeFromIndex(DTypeTable table, uint32_t index);
std::optional<uint32_t> dtypeIndex(DTypeTable table, DType d);

/** IEEE half and bfloat16 to float, exact (every value widens without rounding). */
float halfToFloat(uint16_t h);
float bf16ToFloat(uint16_t h);
/** Round-to-nearest-even narrowing, exactly as half::f16::from_f32 / bf16::from_f32. */
uint16_t floatToHalf(float f);
uint16_t floatToBf16(float f);
uint16_t doubleToHalf(double d);
/** The binary16 bits of \a f when it narrows without rounding (finite or infinite); nullopt otherwise and for NaN. */
std::optional<uint16_t> floatToHalfExact(float f);

} // namespace ckpt
