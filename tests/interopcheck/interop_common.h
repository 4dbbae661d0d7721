// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers shared by the interop tests: reading files and JSON, FNV-1a as ckpt-interop computes it,
// running the Rust oracle `ckpt-interop` in a child process, and comparing decoded values with its JSON.

#include "core/io/gzip.h"
#include "core/model/recorder.h"
#include "core/value/tape.h"

#include <QProcess>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace interop {

inline std::string dataDir() { return CKPT_INTEROP_DATA; }
inline std::string oracleBin() { return CKPT_INTEROP_BIN; }

inline std::vector<uint8_t> readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** Parses a JSON file; a missing or broken file gives a discarded value (the caller QVERIFYs). */
inline nlohmann::json readJson(const std::string& path)
{
    const auto bytes = readAll(path);
    return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

/** FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3), continued from \a h. */
inline uint64_t fnv1a64(const uint8_t* data, size_t n, uint64_t h = 0xcbf29ce484222325ull)
{
    for (size_t i = 0; i < n; ++i) {
        h ^= data[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

inline std::string hex16(uint64_t v)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

struct OracleRun {
    int exitCode = -1;
    bool finished = false;
    std::string out;
    std::string err;
    /** The last stdout line parsed as JSON (discarded when it is not JSON). */
    nlohmann::json line() const
    {
        std::string s = out;
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
            s.pop_back();
        const auto nl = s.rfind('\n');
        if (nl != std::string::npos)
            s = s.substr(nl + 1);
        return nlohmann::json::parse(s, nullptr, false);
    }
    std::string describe() const { return "exit " + std::to_string(exitCode) + "\nstdout: " + out + "\nstderr: " + err; }
};

/** Runs ckpt-interop with \a args and waits (bounded: a hung child fails the test, it does not hang it). */
inline OracleRun runOracle(const QStringList& args, int timeoutMs = 60000)
{
    OracleRun r;
    QProcess p;
    p.start(QString::fromStdString(oracleBin()), args);
    if (!p.waitForStarted(timeoutMs)) {
        r.err = "could not start " + oracleBin() + ": " + p.errorString().toStdString();
        return r;
    }
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

/** A tape node as JSON (scheduler values; numbers keep their kind). */
inline nlohmann::json tapeToJson(const ckpt::Tape& t, uint32_t n)
{
    switch (t[n].kind) {
    case ckpt::Kind::Nil: return nullptr;
    case ckpt::Kind::Bool: return t.boolean(n);
    case ckpt::Kind::UInt: return t.u64(n);
    case ckpt::Kind::Int: return t.i64(n);
    case ckpt::Kind::F32:
    case ckpt::Kind::F64: return t.f64(n);
    case ckpt::Kind::Str: return std::string(t.str(n));
    case ckpt::Kind::Bin: {
        nlohmann::json a = nlohmann::json::array();
        for (uint8_t b : t.bin(n))
            a.push_back(b);
        return a;
    }
    case ckpt::Kind::Array: {
        nlohmann::json a = nlohmann::json::array();
        t.forEachChild(n, [&](uint32_t c) { a.push_back(tapeToJson(t, c)); });
        return a;
    }
    case ckpt::Kind::Map: {
        nlohmann::json o = nlohmann::json::object();
        t.forEachEntry(n, [&](uint32_t k, uint32_t v) { o[std::string(t.str(k))] = tapeToJson(t, v); });
        return o;
    }
    }
    return nullptr;
}

/** Numbers compare by value whatever their JSON kind (255 unsigned vs 255 signed); everything else exactly. */
inline bool jsonEqual(const nlohmann::json& a, const nlohmann::json& b)
{
    if (a.is_number() && b.is_number()) {
        if (a.is_number_float() || b.is_number_float())
            return a.get<double>() == b.get<double>();
        if (a.is_number_unsigned() && b.is_number_unsigned())
            return a.get<uint64_t>() == b.get<uint64_t>();
        // at least one signed: equal iff both fit int64 and are equal
        auto asI = [](const nlohmann::json& j, int64_t& out) {
            if (j.is_number_unsigned()) {
                const uint64_t u = j.get<uint64_t>();
                if (u > static_cast<uint64_t>(INT64_MAX))
                    return false;
                out = static_cast<int64_t>(u);
                return true;
            }
            out = j.get<int64_t>();
            return true;
        };
        int64_t x = 0, y = 0;
        return asI(a, x) && asI(b, y) && x == y;
    }
    if (a.type() != b.type())
        return false;
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!jsonEqual(a[i], b[i]))
                return false;
        return true;
    }
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
            if (it.key() != jt.key() || !jsonEqual(it.value(), jt.value()))
                return false;
        return true;
    }
    return a == b;
}

/** The payload a recorder wrote (gunzipped for the .gz recorders). */
inline std::optional<std::vector<uint8_t>> payloadOf(const std::vector<uint8_t>& file, ckpt::Recorder r)
{
    if (!ckpt::isGzipped(r))
        return file;
    auto inflated = ckpt::gunzip(file);
    if (!inflated)
        return std::nullopt;
    return std::vector<uint8_t>((*inflated)->data(), (*inflated)->data() + (*inflated)->size());
}

} // namespace interop
