// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How every ckpt command reports a failure and reads the options shared by the commands that open
// a record: one place, so the contract's exit codes (1 bad input, 2 usage) and message shape
// ("ckpt: FILE: offset N: ...") cannot drift between commands.

#include "app/cli/args.h"
#include "core/record/record.h"

#include <cstdio>
#include <set>
#include <string>

namespace ckpt::cli {

/** A document (JSON or text) on stdout, ending in one newline. */
inline void printDocument(const std::string& s)
{
    std::fwrite(s.data(), 1, s.size(), stdout);
    if (s.empty() || s.back() != '\n')
        std::fputc('\n', stdout);
}

/** A number as the text outputs show it: 6 significant digits, "nan" for any NaN. */
inline std::string fmt(double v)
{
    if (v != v)
        return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/** A usage error: one line pointing at --help; exit code 2. */
inline int usageError(const std::string& msg)
{
    std::fprintf(stderr, "ckpt: %s (see ckpt --help)\n", msg.c_str());
    return 2;
}

/** An error value: its one-line message; exit code 2 for a usage error, else 1. */
inline int failWith(const Error& e)
{
    std::fprintf(stderr, "ckpt: %s\n", e.message().c_str());
    return e.code == ErrorCode::Usage ? 2 : 1;
}

/** An error of the input \a file (named in the message when the error does not name it); exit code 1. */
inline int inputError(const std::string& file, Error e)
{
    std::fprintf(stderr, "ckpt: %s\n", std::move(e).withFile(file).message().c_str());
    return 1;
}

/** \a s plus the options that choose how a bincode record is read: --schema-from, --schema, --scheduler. */
inline std::set<std::string> withSchemaOptions(std::set<std::string> s)
{
    s.insert({"--schema-from", "--schema", "--scheduler"});
    return s;
}

/** The OpenOptions those options (and --lenient, where the command takes it) ask for. */
inline OpenOptions openOptions(const Args& a)
{
    OpenOptions o;
    o.schemaFrom = a.value("--schema-from").value_or("");
    o.schemaFile = a.value("--schema").value_or("");
    o.scheduler = a.value("--scheduler").value_or("");
    o.lenient = a.flag("--lenient");
    return o;
}

} // namespace ckpt::cli
