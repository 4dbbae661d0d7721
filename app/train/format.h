// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace ckpt::train {

/**
 * Rust's `Display` of an f64 (`format!("{}", x)`): the shortest digits that round-trip, laid out in
 * plain decimal notation without an exponent (`0.0000001`, `1000000000000000000000`), integral
 * values without a fraction (`1`), `NaN`, `inf`, `-inf`. burn-train's metric logs use it.
 */
std::string rustDisplayF64(double v);

} // namespace ckpt::train
