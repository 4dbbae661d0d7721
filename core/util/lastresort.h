// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdio>
#include <exception>
#include <new>

namespace ckpt {

/**
 * Runs a program's main body with the last-resort catch of ckpt and checkpoint-inspector: not the
 * error handling (core returns errors as values and never throws; the programs check what they
 * parse), but what keeps an exception that still escapes (an allocation the machine cannot make, a
 * bug) from ending in std::terminate's abort: one line on stderr, exit code 1. (The Python module
 * has pybind11's translation into Python exceptions at the same place.)
 */
template<typename Body>
int runWithLastResort(const char* program, Body&& body)
{
    try {
        return body();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: out of memory\n", program);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    } catch (...) {
        std::fprintf(stderr, "%s: internal error: unknown exception\n", program);
    }
    return 1;
}

} // namespace ckpt
