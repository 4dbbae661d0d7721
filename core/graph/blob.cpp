// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/blob.h"

#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"

#include <algorithm>
#include <cctype>

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

} // namespace

DType blobViewDType(BlobView v)
{
    switch (v) {
    case BlobView::U8: return DType::U8;
    case BlobView::F32: return DType::F32;
    case BlobView::F64: return DType::F64;
    case BlobView::F16: return DType::F16;
    case BlobView::BF16: return DType::BF16;
    case BlobView::U64: return DType::U64;
    case BlobView::I64: return DType::I64;
    case BlobView::U32: return DType::U32;
    case BlobView::I32: return DType::I32;
    }
    return DType::U8;
}

namespace {

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
    StatsOptions options;
    options.histogramBins = 0;
    return computeStats(blobViewDType(view), bytes, options);
}

Result<std::vector<double>> blobValues(std::span<const uint8_t> bytes, BlobView view, size_t limit)
{
    if (auto r = checkLength(bytes, view); !r)
        return std::unexpected(r.error());
    return elementsAsDouble(blobViewDType(view), bytes, 0, std::min<uint64_t>(bytes.size() / blobViewWidth(view), limit));
}

} // namespace ckpt
