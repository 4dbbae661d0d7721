// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The pickle machine of core/torch on pickles assembled here opcode by opcode, after CPython's
// Lib/pickletools.py: what each opcode builds, and every refusal with its reason and offset. Real
// files written by torch.save are tests/torch's (against torch itself); hostile files are its corpus.
#include "core/torch/pickle.h"

#include <QTest>

#include <string>

using namespace ckpt::torch;

namespace {

std::span<const uint8_t> bytesOf(const std::string& s)
{
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/** PROTO 2, the body, STOP. */
std::string proto2(const std::string& body)
{
    return std::string("\x80\x02", 2) + body + ".";
}

std::string binunicode(const std::string& s)
{
    std::string out = "X";
    const auto n = uint32_t(s.size());
    out += std::string{char(n & 0xff), char((n >> 8) & 0xff), char((n >> 16) & 0xff), char(n >> 24)};
    return out + s;
}

/** ('storage', torch.FloatStorage, KEY, 'cpu', N) as torch's persistent_id writes it, then BINPERSID. */
std::string storage(const std::string& key, char numel)
{
    return "(" + binunicode("storage") + "ctorch\nFloatStorage\n" + binunicode(key) + binunicode("cpu") + "K" + std::string(1, numel) + "tQ";
}

} // namespace

class TestTorchPickle : public QObject {
    Q_OBJECT
private slots:
    void constantsOfEveryWidth()
    {
        // [None, True, False, 255, -2 (BININT), -1 (LONG1), 2**64 (LONG1 of 9 bytes), 1.5 (BINFLOAT)]
        const std::string body = std::string("](N\x88\x89K\xff", 7) + "J" + std::string("\xfe\xff\xff\xff", 4) + std::string("\x8a\x01\xff", 3)
            + std::string("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11) + "G" + std::string("\x3f\xf8\x00\x00\x00\x00\x00\x00", 8) + "e";
        auto p = unpickle(bytesOf(proto2(body)));
        QVERIFY2(p, p ? "" : p.error().message().c_str());
        const PyObject& list = p->objects[p->root];
        QCOMPARE(list.kind, PyKind::List);
        QCOMPARE(list.items.size(), size_t(8));
        QCOMPARE(p->objects[list.items[1]].flag, true);
        QCOMPARE(p->objects[list.items[3]].i, int64_t(255));
        QCOMPARE(p->objects[list.items[4]].i, int64_t(-2));
        QCOMPARE(p->objects[list.items[5]].i, int64_t(-1));
        QCOMPARE(p->objects[list.items[6]].kind, PyKind::BigInt);
        QCOMPARE(p->objects[list.items[7]].f, 1.5);
        QCOMPARE(p->protocol, uint8_t(2));
    }

    void orderedDictWithMetadataAndTensor()
    {
        // OrderedDict() REDUCE, SETITEMS {"w": _rebuild_tensor_v2(storage, 0, (2,), (1,), False, OrderedDict())}, BUILD {"_metadata": {}}
        const std::string od = "ccollections\nOrderedDict\n)R";
        const std::string tensor = "ctorch._utils\n_rebuild_tensor_v2\n(" + storage("0", 2) + std::string("K\x00", 2) + "K\x02\x85K\x01\x85\x89" + od + "tR";
        const std::string body = od + "(" + binunicode("w") + tensor + "u}" + binunicode("_metadata") + "}sb";
        auto p = unpickle(bytesOf(proto2(body)));
        QVERIFY2(p, p ? "" : p.error().message().c_str());
        const PyObject& root = p->objects[p->root];
        QCOMPARE(root.kind, PyKind::Dict);
        QVERIFY(root.flag);
        QCOMPARE(root.items.size(), size_t(2));
        QCOMPARE(p->objects[root.items[1]].kind, PyKind::Tensor);
        QCOMPARE(p->tensors.size(), size_t(1));
        QCOMPARE(p->tensors[0].shape, std::vector<uint64_t>{2});
        QCOMPARE(p->storages[0].key, std::string("0"));
        QCOMPARE(p->storages[0].type, std::string("FloatStorage"));
        QCOMPARE(p->storages[0].numel, uint64_t(2));
    }

    void memoSharesOneObject()
    {
        // a list put in memo 0, then [it, it]: one object, referenced twice (tied weights work so)
        auto p = unpickle(bytesOf(proto2(std::string("]q\x00h\x00\x86", 6))));
        QVERIFY(p);
        const PyObject& pair = p->objects[p->root];
        QCOMPARE(pair.items.size(), size_t(2));
        QCOMPARE(pair.items[0], pair.items[1]);
    }

    void bytesThroughCodecsEncode()
    {
        // protocol 2 pickles bytes as _codecs.encode('\xe9\x01', 'latin1')
        auto p = unpickle(bytesOf(proto2("c_codecs\nencode\n" + binunicode("\xc3\xa9\x01") + binunicode("latin1") + "\x86R")));
        QVERIFY2(p, p ? "" : p.error().message().c_str());
        QCOMPARE(p->objects[p->root].kind, PyKind::Bytes);
        QCOMPARE(p->objects[p->root].s, std::string("\xe9\x01", 2));
    }

    void refusals_data()
    {
        QTest::addColumn<std::string>("pickle");
        QTest::addColumn<std::string>("words");
        QTest::addColumn<qulonglong>("offset");
        QTest::newRow("os.system") << proto2("cos\nsystem\n" + binunicode("true") + "\x85R") << std::string("refused global os.system") << 2ULL;
        QTest::newRow("stack global eval") << proto2("\x8c\x08"
                                                     "builtins\x8c\x04"
                                                     "eval\x93")
                                           << std::string("builtins.eval") << 18ULL;
        QTest::newRow("INST") << proto2("(isubprocess\nPopen\n") << std::string("INST is refused (it instantiates an arbitrary class): subprocess.Popen")
                              << 3ULL;
        QTest::newRow("unknown opcode") << proto2("\xff") << std::string("unknown opcode 0xff") << 2ULL;
        QTest::newRow("memo unset") << proto2("h\x07") << std::string("memo slot 7 is read before it is set") << 2ULL;
        QTest::newRow("huge length") << proto2(std::string("\x8e\x00\x00\x00\x00\x00\x01\x00\x00", 9)) << std::string("a length of 1099511627776 bytes")
                                     << 2ULL;
        QTest::newRow("no STOP") << std::string("\x80\x02N", 3) << std::string("ends before its STOP") << 3ULL;
        QTest::newRow("append to dict") << proto2("}Na") << std::string("APPEND on a dict") << 4ULL;
        QTest::newRow("BUILD on a list") << proto2("]}b") << std::string("BUILD on a list") << 4ULL;
        QTest::newRow("path in a storage key") << proto2(storage("../../etc/passwd", 1)) << std::string("storage key '../../etc/passwd' is not a plain name")
                                               << 67ULL;
        QTest::newRow("rebuild with 2 arguments") << proto2("ctorch._utils\n_rebuild_tensor_v2\nNN\x86R") << std::string("rebuild") << 38ULL;
        QTest::newRow("protocol 6") << std::string("\x80\x06N.", 4) << std::string("protocol 6") << 0ULL;
        QTest::newRow("pop an empty stack") << proto2("0") << std::string("stack is empty") << 2ULL;
        QTest::newRow("extension registry") << proto2("\x82\x01") << std::string("EXT1 is refused") << 2ULL;
    }
    void refusals()
    {
        QFETCH(std::string, pickle);
        QFETCH(std::string, words);
        QFETCH(qulonglong, offset);
        auto p = unpickle(bytesOf(pickle));
        QVERIFY(!p);
        QVERIFY2(p.error().what.find(words) != std::string::npos, p.error().what.c_str());
        QVERIFY(p.error().offset);
        QCOMPARE(qulonglong(*p.error().offset), offset);
    }

    void deepNestingDoesNotRecurse()
    {
        // 100000 nested lists are built by the stack machine without recursion (depth is refused later, when walked)
        std::string body;
        for (int i = 0; i < 100000; ++i)
            body += "(";
        body += "]";
        for (int i = 0; i < 100000; ++i)
            body += "l";
        auto p = unpickle(bytesOf(proto2(body)));
        QVERIFY2(p, p ? "" : p.error().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTorchPickle)
#include "tst_torchpickle.moc"
