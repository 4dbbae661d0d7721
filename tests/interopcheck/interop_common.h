// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers shared by the interop tests: reading files and JSON, FNV-1a as ckpt-interop computes it,
// and running the Rust oracle `ckpt-interop` in a child process.

#include <QProcess>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

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

} // namespace interop
