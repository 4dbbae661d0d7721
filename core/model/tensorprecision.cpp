// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/tensorprecision.h"

namespace ckpt {

void settleTensorPrecision(Record& r)
{
    bool f16 = false, f32 = false, f64 = false;
    for (const auto& t : r.tensors) {
        f16 = f16 || t.dtype == DType::F16 || t.dtype == DType::BF16;
        f32 = f32 || t.dtype == DType::F32 || t.dtype == DType::Flex32;
        f64 = f64 || t.dtype == DType::F64;
    }
    r.mixedPrecision = int(f16) + int(f32) + int(f64) > 1;
    r.precision = f16 && !f32 && !f64 ? Precision::Half : f64 && !f32 && !f16 ? Precision::Double : Precision::Full;
}

} // namespace ckpt
