// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The shapes a bincode file leaves to its twin, against records the real crates wrote (scenario
// enum_modules of tests/interop): #[derive(Module)] enums in a Vec with elements of two variants, an
// enum whose variants the twin shows in another order than their indices (2 before 0), a tuple of
// two different modules, unit/struct/newtype/tuple variants in the caller state, u128 and i128 values
// beyond 64 bits (rmp-serde writes them as 16 big-endian bytes, bincode as a varint with marker fe).
// Each bincode file decodes with its MessagePack twin to the twin's values, re-saves to the same
// bytes, and converts back to bincode that the typed Rust decoder reads.

#include "interop_common.h"

#include "core/io/bytes.h"
#include "core/io/gzip.h"
#include "core/model/recorder.h"
#include "core/open/formats.h"
#include "core/record/bincoderecord.h"
#include "core/record/record.h"
#include "core/report/recordjson.h"

#include <QTemporaryDir>
#include <QtTest>

#include <array>

using namespace ckpt;
using interop::jsonEqual;
using interop::payloadOf;
using interop::tapeToJson;
using nlohmann::json;

namespace {

const std::string kScenario = "enum_modules";
constexpr std::array<Precision, 3> kPrecisions{Precision::Full, Precision::Half, Precision::Double};
constexpr std::array<Recorder, 6> kRecorders{Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson, Recorder::JsonGz, Recorder::Bin, Recorder::BinGz};

std::string fileName(Precision p, Recorder r)
{
    return kScenario + "-" + std::string(precisionName(p)) + "." + std::string(recorderExtension(r));
}
std::string dataPath(const std::string& name)
{
    return interop::dataDir() + "/" + name;
}
bool isBincode(Recorder r)
{
    return r == Recorder::Bin || r == Recorder::BinGz;
}

OpenOptions withTwin(Precision p)
{
    OpenOptions o;
    o.schemaFrom = dataPath(fileName(p, Recorder::NamedMpk));
    return o;
}

void addRows(bool bincodeOnly)
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("recorder");
    for (auto p : kPrecisions)
        for (auto r : kRecorders)
            if (!bincodeOnly || isBincode(r))
                QTest::newRow(fileName(p, r).c_str()) << int(p) << int(r);
}

} // namespace

class TestInteropEnums : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(QString::fromStdString(dataPath(fileName(Precision::Full, Recorder::Bin)))),
            ("no " + fileName(Precision::Full, Recorder::Bin) + " in " + interop::dataDir() + " (the ctest fixture interop_files writes it)").c_str());
    }

    /** The bincode file with its MessagePack twin: the whole item as the twin holds it, tensors included. */
    void bincodeReadsLikeItsTwin_data() { addRows(true); }
    void bincodeReadsLikeItsTwin()
    {
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const auto p = static_cast<Precision>(precision);
        auto twin = openRecord(dataPath(fileName(p, Recorder::NamedMpk)));
        QVERIFY2(twin, twin ? "" : twin.error().message().c_str());
        auto opened = openRecord(dataPath(fileName(p, static_cast<Recorder>(recorder))), withTwin(p));
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        const Record& rec = **opened;
        QVERIFY(!rec.partial);
        QCOMPARE(rec.kind, RecordKind::TrainingRecord);
        const json ours = tapeToJson(rec.tape, rec.itemNode), theirs = tapeToJson((*twin)->tape, (*twin)->itemNode);
        QVERIFY2(jsonEqual(ours, theirs),
            ("item differs from the twin's:\nours " + ours.dump().substr(0, 3000) + "\ntwin " + theirs.dump().substr(0, 3000)).c_str());
        QCOMPARE(rec.tensors.size(), (*twin)->tensors.size());
        QCOMPARE(rec.params.size(), (*twin)->params.size());
        // The layout the bytes settled: Gated is index 2 and Plain index 0, as declared in Rust.
        QVERIFY(rec.bincodeSchema);
        std::string schema = rec.bincodeSchema->toJson();
        std::erase_if(schema, [](char c) { return c == ' ' || c == '\n' || c == '\t'; });
        QVERIFY2(schema.find("\"indices\":[0,2]") != std::string::npos, schema.c_str());
        QVERIFY2(schema.find("\"u128\"") != std::string::npos && schema.find("\"i128\"") != std::string::npos, schema.c_str());
    }

    /**
     * The PrettyJson twin gives the same layout: its 128-bit integers are digits (u128/i128 at once),
     * everything else as in MessagePack. The record opens and re-saves to the same bytes.
     */
    void bincodeWithAJsonTwin_data() { addRows(true); }
    void bincodeWithAJsonTwin()
    {
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        OpenOptions o;
        o.schemaFrom = dataPath(fileName(p, Recorder::PrettyJson));
        auto opened = openRecord(dataPath(fileName(p, r)), o);
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        QVERIFY(!(*opened)->partial);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string out = dir.path().toStdString() + "/" + fileName(p, r);
        auto w = resaveRecord(**opened, out);
        QVERIFY2(w, w ? "" : w.error().message().c_str());
        const auto theirs = payloadOf(interop::readAll(dataPath(fileName(p, r))), r), ours = payloadOf(interop::readAll(out), r);
        QVERIFY(theirs && ours && !theirs->empty());
        QVERIFY(*theirs == *ours);
    }

    /** Every recorder's file re-saves to its serializer's bytes (bincode with the twin's layout). */
    void resaveIdentical_data() { addRows(false); }
    void resaveIdentical()
    {
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        auto opened = openRecord(dataPath(fileName(p, r)), isBincode(r) ? withTwin(p) : OpenOptions{});
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string out = dir.path().toStdString() + "/" + fileName(p, r);
        auto w = resaveRecord(**opened, out);
        QVERIFY2(w, w ? "" : w.error().message().c_str());
        const auto theirsRead = payloadOf(interop::readAll(dataPath(fileName(p, r))), r), oursRead = payloadOf(interop::readAll(out), r);
        QVERIFY(theirsRead && oursRead && !theirsRead->empty());
        const std::vector<uint8_t>&theirs = *theirsRead, &ours = *oursRead;
        size_t at = 0;
        while (at < theirs.size() && at < ours.size() && theirs[at] == ours[at])
            ++at;
        QVERIFY2(theirs == ours,
            ("payload differs at byte " + std::to_string(at) + " (theirs " + std::to_string(theirs.size()) + " bytes, ours " + std::to_string(ours.size())
                + ")")
                .c_str());
        const auto run =
            interop::runOracle({QStringLiteral("read"), QString::fromStdString(out), QStringLiteral("--scenario"), QString::fromStdString(kScenario)});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
    }

    /**
     * The MessagePack record converted to bincode with the layout the bytes settled: the typed Rust
     * decoder reads it, enums, tuple and 128-bit integers with their values (the digits compared as
     * serde_json prints them, not through a double).
     */
    void convertWithSettledLayout_data()
    {
        QTest::addColumn<int>("recorder");
        QTest::newRow("bin") << int(Recorder::Bin);
        QTest::newRow("bin.gz") << int(Recorder::BinGz);
    }
    void convertWithSettledLayout()
    {
        QFETCH(int, recorder);
        auto settled = openRecord(dataPath(fileName(Precision::Full, Recorder::Bin)), withTwin(Precision::Full));
        QVERIFY2(settled, settled ? "" : settled.error().message().c_str());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string schemaPath = dir.path().toStdString() + "/settled.schema.json";
        const std::string text = (*settled)->bincodeSchema->toJson();
        QVERIFY(writeFileAtomic(schemaPath, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
        auto source = openRecord(dataPath(fileName(Precision::Half, Recorder::NamedMpk)));
        QVERIFY2(source, source ? "" : source.error().message().c_str());
        OpenOptions target;
        target.schemaFile = schemaPath;
        auto layout = bincodeTargetLayout(**source, target);
        QVERIFY2(layout, layout ? "" : layout.error().message().c_str());
        const auto dr = static_cast<Recorder>(recorder);
        const std::string out = dir.path().toStdString() + "/" + fileName(Precision::Double, dr);
        auto c = convertRecord(**source, dr, Precision::Double, out, &layout->schema);
        QVERIFY2(c, c ? "" : c.error().message().c_str());
        const auto run =
            interop::runOracle({QStringLiteral("read"), QString::fromStdString(out), QStringLiteral("--scenario"), QString::fromStdString(kScenario)});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
        for (const char* exact : {"340282366920938463463374607431768211455", "-170141183460469231731687303715884105728"})
            QVERIFY2(run.out.find(exact) != std::string::npos, (std::string(exact) + " not in the oracle's reading: " + run.out.substr(0, 2000)).c_str());
        const json expected = interop::readJson(dataPath(kScenario + ".expected.json"));
        QVERIFY2(jsonEqual(run.line()["state"], expected["state"]), run.line()["state"].dump().c_str());
        QCOMPARE(run.line()["tensor_count"].get<int>(), expected["precisions"]["double"]["tensor_count"].get<int>());
    }
};

QTEST_GUILESS_MAIN(TestInteropEnums)
#include "tst_interop_enums.moc"
