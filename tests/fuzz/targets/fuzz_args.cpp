// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// What a user types: the input is split at NUL bytes into arguments, read as a CLI command line
// (app/cli/args.h: options with and without values, --opt=VALUE) and each argument as what the
// commands parse from one: a record path (`show`, `--set PATH=...`), a `--set` edit applied to a
// small genuine-shaped record (the path and the JSON value), a `--filter` glob, the numbers of
// --limit / --depth / --tolerance, an `--what` export selection, a CID. Any crash, abort (an
// exception escaping core or the parsers) or sanitizer finding is a failure; errors are fine.
#include "app/cli/args.h"
#include "core/edit/edit.h"
#include "core/export/export.h"
#include "core/graph/cid.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/util/text.h"
#include "core/value/tape.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

/** A tiny NamedMpk module record {metadata, item: {w: {id, param: TensorData F32 [2]}}, _b: []}. */
std::shared_ptr<const ckpt::Record> smallRecord()
{
    static const std::shared_ptr<const ckpt::Record> record = [] {
        std::vector<uint8_t> b;
        auto str = [&](std::string_view s) {
            b.push_back(uint8_t(0xa0 | s.size()));
            b.insert(b.end(), s.begin(), s.end());
        };
        b.push_back(0x83);
        str("metadata");
        b.push_back(0x85);
        for (std::string_view kv : {"float", "f32", "int", "i32", "format",
                 "burn_core::record::file::NamedMpkFileRecorder<burn_core::record::settings::FullPrecisionSettings>"})
            if (kv.size() < 32)
                str(kv);
            else {
                b.push_back(0xd9);
                b.push_back(uint8_t(kv.size()));
                b.insert(b.end(), kv.begin(), kv.end());
            }
        str("version");
        str("0.21.0");
        str("settings");
        str("FullPrecisionSettings");
        str("item");
        b.push_back(0x81);
        str("w");
        b.push_back(0x82);
        str("id");
        str("aaaaaaaaaaaaa");
        str("param");
        b.push_back(0x83);
        str("bytes");
        b.insert(b.end(), {0xc4, 8, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40});
        str("shape");
        b.insert(b.end(), {0x91, 0x02});
        str("dtype");
        str("F32");
        str("_b");
        b.push_back(0x90);
        auto r = ckpt::openRecordBytes(ckpt::makeBytes(std::move(b)), "fuzz-args.mpk");
        return r ? *r : nullptr;
    }();
    return record;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<std::string> argv;
    std::string current;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            argv.push_back(std::move(current));
            current.clear();
        } else {
            current += char(data[i]);
        }
    }
    argv.push_back(std::move(current));

    const ckpt::cli::Args args(argv, {"--set", "--limit", "--depth", "--tolerance", "--filter", "--what", "-o"},
        {"--json", "--lenient"});
    (void)args.error();
    for (const auto& v : args.values("--limit"))
        (void)ckpt::cli::parseNumber<uint64_t>(v);
    for (const auto& v : args.values("--depth"))
        (void)ckpt::cli::parseNumber<int>(v);
    for (const auto& v : args.values("--tolerance"))
        (void)ckpt::cli::parseNumber<double>(v);

    const auto record = smallRecord();
    std::vector<ckpt::Edit> edits;
    for (const std::string& a : argv) {
        (void)ckpt::parsePath(a);
        (void)ckpt::globMatch(a, "item.w.param");
        (void)ckpt::globMatch("item.*.param", a);
        (void)ckpt::parseExportSelection(a);
        (void)ckpt::parseCid(a);
        if (const auto eq = a.find('='); eq != std::string::npos && eq > 0)
            edits.push_back({a.substr(0, eq), a.substr(eq + 1)});
    }
    if (record && !edits.empty() && edits.size() <= 8)
        (void)ckpt::applyEdits(*record, edits);
    return 0;
}
