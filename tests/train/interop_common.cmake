# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# What the ctest scripts of the real-crates checks share (interop_train.cmake, interop_patch.cmake).

# Runs a command; fails the test with its output unless it exits 0. OUT_VAR gets stdout, OUT_VAR_ERR stderr.
function(run_checked out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${out_var}_ERR "${err}" PARENT_SCOPE)
endfunction()

# The oracle's typed decode of RECORD re-encoded with the same recorder must give the file's serializer
# payload back byte for byte. Checked for MessagePack and bincode; not for JSON: serde_json 1.0.87 parses
# floats "best effort" (exact only with its float_roundtrip feature, which Burn does not enable), so an
# f64 such as 1.5135221946334019 - the shortest round-trip text, which we write - comes back one ulp off
# and is re-written as 1.513522194633402. The JSON writer's bytes are checked against serde_json's own
# files in tests/interopcheck (resaveIdentical) instead.
function(check_typed_reencode oracle record recorder scratch)
  if(recorder MATCHES "^json")
    return()
  endif()
  run_checked(line "${oracle}" reencode "${record}" "${scratch}" ${ARGN})
  string(JSON identical GET "${line}" identical)
  if(NOT identical)
    message(FATAL_ERROR "${record}: typed re-encode differs:\n${line}")
  endif()
endfunction()
