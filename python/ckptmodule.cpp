// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `import ckpt`: the core engine from Python. Thin glue like the CLI: every answer comes from the
// core function the CLI calls (the JSON documents of the CLI contract are parsed with Python's json,
// so integers stay exact), and tensors are numpy views of the mapped bytes.
// The module's init is a list of bind functions, one per class or area (glue.h declares them).
#include "glue.h"

#include "core/io/bytes.h"

#include <ckpt_version.h>

namespace py = pybind11;
using namespace ckpt::pyglue;

PYBIND11_MODULE(ckpt, m)
{
    m.doc() = "Checkpoint Inspector: Burn/Ruda records and ipfrs GradientCheckpoints from Python, tensors as zero-copy numpy views";
    m.attr("__version__") = CKPT_VERSION;
    // numpy views into a mapping outlive any check: a record truncated on disk reads as zeros instead
    // of killing the interpreter (a SIGBUS elsewhere still goes to the handler that was there before).
    ckpt::guardMappedFiles();
    g_errorType = PyErr_NewExceptionWithDoc("ckpt.Error",
        "An invalid input or a failed operation. str(e) is the message `ckpt` prints (FILE: offset N: at PATH: what); "
        "the parts are attributes: code, file, offset, line, column, path, what.",
        PyExc_Exception, nullptr);
    m.attr("Error") = py::reinterpret_borrow<py::object>(g_errorType);

    bindBuffer(m);
    bindRecord(m);
    bindGradientCheckpoint(m);
    bindOpenAndDiff(m);
    bindRunFunctions(m);
    bindPatchFunctions(m);
}
