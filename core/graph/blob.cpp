// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/blob.h"

#include "core/tensor/dtype.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

namespace ckpt {

const char* blobViewName(BlobView v)
{
    switch (v) {
    case BlobView::U8: return "u8";
    case BlobView::F32: return "f32";
    case BlobView::F64: return "f64";
    case BlobView::F16: return "f16";
    case BlobView::BF16: return "bf16";
    case BlobView::U64: return "u64";
    case BlobView::I64: return "i64";
    case BlobView::U32: return "u32";
    case BlobView::I32: return "i32";
    }
    return "u8";
}

std::optional<BlobView> blobViewFromName(std::string_view name)
{
    for (BlobView v : {BlobView::U8, BlobView::F32, BlobView::F64, BlobView::F16, BlobView::BF16, BlobView::U64,
             BlobView::I64, BlobView::U32, BlobView::I32})
        if (name == blobViewName(v))
            return v;
    return std::nullopt;
}

uint32_t blobViewWidth(BlobView v)
{
    switch (v) {
    case BlobView::U8: return 1;
    case BlobView::F16:
    case BlobView::BF16: return 2;
    case BlobView::F32:
    case BlobView::U32:
    case BlobView::I32: return 4;
    case BlobView::F64:
    case BlobView::U64:
    case BlobView::I64: return 8;
    }
    return 1;
}

namespace {

std::string lastComponent(std::string_view key)
{
    // "fc.weight/exp_avg" -> "exp_avg"; "layer.0.momentum" -> "momentum".
    const auto cut = key.find_last_of("/.:");
    std::string s(cut == std::string_view::npos ? key : key.substr(cut + 1));
    for (auto& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

double valueAt(const uint8_t* p, BlobView v)
{
    switch (v) {
    case BlobView::U8: return *p;
    case BlobView::F32: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    case BlobView::F64: {
        double d;
        std::memcpy(&d, p, 8);
        return d;
    }
    case BlobView::F16: return halfToFloat(uint16_t(p[0] | p[1] << 8));
    case BlobView::BF16: return bf16ToFloat(uint16_t(p[0] | p[1] << 8));
    case BlobView::U64: {
        uint64_t u;
        std::memcpy(&u, p, 8);
        return double(u);
    }
    case BlobView::I64: {
        int64_t i;
        std::memcpy(&i, p, 8);
        return double(i);
    }
    case BlobView::U32: {
        uint32_t u;
        std::memcpy(&u, p, 4);
        return u;
    }
    case BlobView::I32: {
        int32_t i;
        std::memcpy(&i, p, 4);
        return i;
    }
    }
    return 0;
}

Result<void> checkLength(std::span<const uint8_t> bytes, BlobView view)
{
    const uint32_t w = blobViewWidth(view);
    if (bytes.size() % w != 0)
        return fail(ErrorCode::Invalid,
            std::to_string(bytes.size()) + " bytes are not a whole number of " + blobViewName(view) + " values ("
                + std::to_string(w) + " bytes each)");
    return {};
}

} // namespace

BlobView inferBlobView(std::string_view key, size_t n)
{
    const std::string last = lastComponent(key);
    std::string lower(key);
    for (auto& c : lower)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (last.ends_with("step") || last == "t" || last == "iteration" || last == "count") {
        if (n == 8)
            return BlobView::U64;
        if (n == 4)
            return BlobView::U32;
    }
    if (contains(lower, "bf16") && n % 2 == 0)
        return BlobView::BF16;
    if ((contains(lower, "f16") || contains(lower, "half")) && n % 2 == 0)
        return BlobView::F16;
    if ((contains(lower, "f64") || contains(lower, "double")) && n % 8 == 0)
        return BlobView::F64;
    // Adam/AdamW/RMSProp/SGD state names, and everything else of a plausible length, as f32 — the
    // convention of TensorBlock and GradientStore.
    if (n % 4 == 0 && n > 0)
        return BlobView::F32;
    return BlobView::U8;
}

Result<BlobStats> blobStats(std::span<const uint8_t> bytes, BlobView view)
{
    if (auto r = checkLength(bytes, view); !r)
        return std::unexpected(r.error());
    const uint32_t w = blobViewWidth(view);
    BlobStats s;
    s.count = bytes.size() / w;
    double min = std::numeric_limits<double>::infinity(), max = -min;
    double sum = 0, sumSq = 0;
    uint64_t finite = 0;
    // Welford for the variance: stable for long blobs with a large mean.
    double mean = 0, m2 = 0;
    for (uint64_t i = 0; i < s.count; ++i) {
        const double x = valueAt(bytes.data() + i * w, view);
        if (std::isnan(x)) {
            ++s.nan;
            continue;
        }
        if (std::isinf(x)) {
            ++s.inf;
            continue;
        }
        if (x == 0)
            ++s.zeros;
        min = std::min(min, x);
        max = std::max(max, x);
        sum += x;
        sumSq += x * x;
        ++finite;
        const double d = x - mean;
        mean += d / double(finite);
        m2 += d * (x - mean);
    }
    if (finite) {
        s.min = min;
        s.max = max;
        s.mean = mean;
        s.std = std::sqrt(m2 / double(finite));
    }
    s.sum = sum;
    s.l2 = std::sqrt(sumSq);
    return s;
}

Result<std::vector<double>> blobValues(std::span<const uint8_t> bytes, BlobView view, size_t limit)
{
    if (auto r = checkLength(bytes, view); !r)
        return std::unexpected(r.error());
    const uint32_t w = blobViewWidth(view);
    const size_t n = std::min<size_t>(bytes.size() / w, limit);
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i)
        out[i] = valueAt(bytes.data() + i * w, view);
    return out;
}

} // namespace ckpt
