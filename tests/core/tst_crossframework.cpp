// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Burn <-> PyTorch pieces of core: Burn's PyTorch rules (names, layouts, --map), the transposition,
// the stored zip writer (ZIP64 forced on small archives and read back by core/io/zip) and the torch.save
// writer read back by core/torch. Real PyTorch reads what ckpt writes in tests/torch
// (check_crossframework.py): this is the part no torch is needed for.
#include "core/io/bytes.h"
#include "core/io/zip.h"
#include "core/io/zipwriter.h"
#include "core/model/crossframework.h"
#include "core/open/formats.h"
#include "core/torch/torchwriter.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>

using namespace ckpt;

namespace {
std::vector<uint8_t> f32Bytes(const std::vector<float>& v)
{
    std::vector<uint8_t> out(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

bool contains(std::span<const uint8_t> bytes, uint32_t signature)
{
    const uint8_t s[4] = {uint8_t(signature), uint8_t(signature >> 8), uint8_t(signature >> 16), uint8_t(signature >> 24)};
    return std::search(bytes.begin(), bytes.end(), std::begin(s), std::end(s)) != bytes.end();
}
} // namespace

class TestCrossFramework : public QObject {
    Q_OBJECT
private slots:
    void burnPathsAsPyTorchNames()
    {
        QCOMPARE(pytorchNameOfBurnPath("item[0].input.weight"), std::string("input.weight"));
        QCOMPARE(pytorchNameOfBurnPath("item.norm.gamma"), std::string("norm.weight"));
        QCOMPARE(pytorchNameOfBurnPath("item[0].blocks[1].norm.beta"), std::string("blocks.1.norm.bias"));
        QCOMPARE(pytorchNameOfBurnPath("conv1.norm.running_mean"), std::string("conv1.norm.running_mean"));
        QCOMPARE(pytorchNameOfBurnPath("encoder.item.weight"), std::string("encoder.item.weight")); // only a leading root goes
        QCOMPARE(burnStateName("exp_avg"), std::string_view("moment_1"));
        QCOMPARE(burnStateName("exp_avg_sq"), std::string_view("moment_2"));
        QCOMPARE(burnStateName("momentum_buffer"), std::string_view("velocity"));
        QCOMPARE(pytorchStateName("max_moment_2"), std::string_view("max_exp_avg_sq"));
        QCOMPARE(pytorchStateName("step"), std::string_view("step"));
    }

    void layouts()
    {
        using V = std::vector<uint64_t>;
        QCOMPARE(layoutAcross("fc.weight", V{64, 32}, V{32, 64}), std::optional(CrossLayout::Transposed));
        QCOMPARE(layoutAcross("fc.weight", V{32, 32}, V{32, 32}), std::optional(CrossLayout::Transposed)); // square: a Linear's
        QCOMPARE(layoutAcross("tok_embeddings.weight", V{32, 32}, V{32, 32}), std::optional(CrossLayout::Same));
        QCOMPARE(layoutAcross("embed.weight", V{100, 32}, V{100, 32}), std::optional(CrossLayout::Same));
        QCOMPARE(layoutAcross("conv.weight", V{8, 3, 3, 3}, V{8, 3, 3, 3}), std::optional(CrossLayout::Same));
        QCOMPARE(layoutAcross("fc.bias", V{64}, V{64}), std::optional(CrossLayout::Same));
        QCOMPARE(layoutAcross("fc.weight", V{5, 3}, V{8, 32}), std::nullopt);
        QVERIFY(!isLinearWeight("fc.bias", 2));
        QVERIFY(!isLinearWeight("fc.weight", 4));
    }

    void rewrites()
    {
        auto r = parseNameRewrites({R"(^module\.=)", R"(^layers\.(\d+)\.=blocks.$1.)"});
        QVERIFY(r);
        auto name = applyNameRewrites(*r, "module.layers.3.fc.weight");
        QVERIFY(name);
        QCOMPARE(*name, std::string("blocks.3.fc.weight"));
        for (const char* bad : {"no-equals", "=x", "(=x", "[a-=b"}) {
            auto e = parseNameRewrite(bad);
            QVERIFY2(!e, bad);
            QCOMPARE(e.error().code, ErrorCode::Usage);
        }
    }

    void transposition()
    {
        const std::vector<uint8_t> m = {1, 2, 3, 4, 5, 6}; // [2, 3] of one-byte elements
        QCOMPARE(transposedMatrix(m, 2, 3, 1), (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
        const auto f = f32Bytes({1, 2, 3, 4, 5, 6});
        QCOMPARE(transposedMatrix(transposedMatrix(f, 2, 3, 4), 3, 2, 4), f);
        // beyond one tile and not a multiple of it: every element lands at [c, r]
        const uint64_t rows = 70, cols = 45;
        std::vector<uint8_t> big(rows * cols * 2);
        for (uint64_t i = 0; i < rows * cols; ++i) {
            big[2 * i] = uint8_t(i);
            big[2 * i + 1] = uint8_t(i >> 8);
        }
        const auto t = transposedMatrix(big, rows, cols, 2);
        for (uint64_t r = 0; r < rows; ++r)
            for (uint64_t c = 0; c < cols; ++c)
                QCOMPARE(t[2 * (c * rows + r)] | (t[2 * (c * rows + r) + 1] << 8), int(r * cols + c));
    }

    void storedZipWithAndWithoutZip64()
    {
        QTemporaryDir dir;
        const std::vector<uint8_t> body(100, 7);
        const std::vector<ZipMemberOut> members = {{"archive/a", {'h', 'i'}, {}, 64}, {"archive/data/0", {}, body, 64}, {"archive/empty", {}, {}, 1}};
        for (const bool zip64 : {false, true}) {
            const std::string path = dir.filePath(QLatin1String(zip64 ? "z64.zip" : "z.zip")).toStdString();
            ZipLimits limits;
            if (zip64)
                limits = {0, 0}; // every size, offset and count through the ZIP64 records
            QVERIFY(writeStoredZip(path, members, limits));
            auto bytes = mapFile(path);
            QVERIFY(bytes);
            QCOMPARE(contains((*bytes)->span(), 0x06064b50), zip64);
            auto zip = ZipArchive::open(*bytes);
            QVERIFY2(zip, zip ? "" : zip.error().message().c_str());
            QCOMPARE(zip->entries().size(), size_t(3));
            const ZipEntry* data = zip->find("archive/data/0");
            QVERIFY(data);
            QCOMPARE(data->dataOffset % 64, uint64_t(0));
            auto view = zip->view(*data);
            QVERIFY(view);
            QVERIFY(std::equal(view->begin(), view->end(), body.begin(), body.end()));
            QCOMPARE(zip->find("archive/empty")->size, uint64_t(0));
        }
    }

    void torchFileReadBack()
    {
        // {"model": OrderedDict(w, b), "optimizer": {"state": {0: {step, exp_avg}}, "param_groups": [...]}, "step": 7}
        const auto w = f32Bytes({1, 2, 3, 4, 5, 6}), b = f32Bytes({0.5f, -0.5f}), m = f32Bytes({6, 5, 4, 3, 2, 1}), step = f32Bytes({7});
        const std::vector<torch::TensorOut> tensors = {{DType::F32, {2, 3}, w}, {DType::F32, {2}, b}, {DType::F32, {}, step}, {DType::F32, {2, 3}, m}};
        using torch::PyValue;
        PyValue model = PyValue::container(PyValue::Kind::OrderedDict);
        model.set(PyValue::of(std::string("fc.weight")), PyValue::tensorAt(0));
        model.set(PyValue::of(std::string("fc.bias")), PyValue::tensorAt(1));
        PyValue s0 = PyValue::container(PyValue::Kind::Dict);
        s0.set(PyValue::of(std::string("step")), PyValue::tensorAt(2));
        s0.set(PyValue::of(std::string("exp_avg")), PyValue::tensorAt(3));
        PyValue state = PyValue::container(PyValue::Kind::Dict);
        state.set(PyValue::of(int64_t(0)), std::move(s0));
        PyValue group = PyValue::container(PyValue::Kind::Dict);
        group.set(PyValue::of(std::string("lr")), PyValue::of(1e-3));
        PyValue betas = PyValue::container(PyValue::Kind::Tuple);
        betas.items = {PyValue::of(0.9), PyValue::of(0.999)};
        group.set(PyValue::of(std::string("betas")), std::move(betas));
        PyValue params = PyValue::container(PyValue::Kind::List);
        params.items = {PyValue::of(int64_t(0)), PyValue::of(int64_t(1))};
        group.set(PyValue::of(std::string("params")), std::move(params));
        PyValue groups = PyValue::container(PyValue::Kind::List);
        groups.items.push_back(std::move(group));
        PyValue optimizer = PyValue::container(PyValue::Kind::Dict);
        optimizer.set(PyValue::of(std::string("state")), std::move(state));
        optimizer.set(PyValue::of(std::string("param_groups")), std::move(groups));
        PyValue root = PyValue::container(PyValue::Kind::Dict);
        root.set(PyValue::of(std::string("model")), std::move(model));
        root.set(PyValue::of(std::string("optimizer")), std::move(optimizer));
        root.set(PyValue::of(std::string("step")), PyValue::of(int64_t(70000))); // BININT, beyond BININT2
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("ck.pt")).toStdString();
        QVERIFY(torch::writeTorchFile(path, root, tensors));
        auto r = openRecord(path, {});
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE((*r)->kind, RecordKind::TorchCheckpoint);
        QCOMPARE((*r)->tensors.size(), size_t(4));
        const auto weight = (*r)->findTensor("model.fc.weight");
        QVERIFY(weight);
        QCOMPARE((*r)->tensors[*weight].shape, (std::vector<uint64_t>{2, 3}));
        QCOMPARE((*r)->values((*r)->tensors[*weight], 0, 6), (std::vector<double>{1, 2, 3, 4, 5, 6}));
        QCOMPARE((*r)->optimizer.size(), size_t(1));
        QCOMPARE((*r)->optimizer[0].paramId, std::string("fc.weight"));
        QCOMPARE((*r)->optimizer[0].time, std::optional<uint64_t>(7));
        QCOMPARE((*r)->optimizer[0].beta2, std::optional<double>(0.999));
        // a dtype torch's typed storages lack is refused, naming it
        const std::vector<torch::TensorOut> unsigned32 = {{DType::U32, {1}, f32Bytes({1})}};
        auto e = torch::writeTorchFile(dir.filePath(QStringLiteral("u32.pt")).toStdString(), PyValue::tensorAt(0), unsigned32);
        QVERIFY(!e);
        QVERIFY(e.error().what.find("U32") != std::string::npos);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("u32.pt"))));
    }
};

QTEST_GUILESS_MAIN(TestCrossFramework)
#include "tst_crossframework.moc"
