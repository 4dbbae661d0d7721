# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# ctest script: `ckpt patch` output is what the real serde crates decode (issue 33, "every patch
# operation round-tripped through the real crates' decoders").
#
# For one recorder: a diverging ckpt-train run (2 residual blocks, lr x 10^6 from step 3, so record-6
# holds NaN and inf in its parameters and moments), then
#   ckpt patch record-6 -o patched --zero-nonfinite --reset-optimizer 'item[0].output.*'
#              --scheduler-step 2 --transplant record-2 'item[0].*' --set item[4].progress.data_cursor=0
# and the oracle (tests/interop, scenario ckpt-train):
#   read      patched: typed decode; no NaN or inf left (the parameters came from record-2, the moments
#             were zeroed), 4 tensors fewer (output.weight's and output.bias's two Adam moments)
#   reencode  patched: (MessagePack, bincode) the typed value re-encoded gives the file back byte for byte
# and the tool itself: `ckpt patch --replay` of the sidecar gives the same bytes, ckpt-train resumes
# from the patched file (re-initialising the reset state, as Burn does), and the sidecar names the source
# by its SHA-256.
# In: TRAIN, CKPT, ORACLE, WORK_DIR, RECORDER (mpk, mpk.gz, json, json.gz, bin, bin.gz).

foreach(var TRAIN CKPT ORACLE WORK_DIR RECORDER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "interop_patch.cmake: ${var} is not set")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/interop_common.cmake)

set(dir "${WORK_DIR}/${RECORDER}")
file(REMOVE_RECURSE "${dir}")
run_checked(ignored "${TRAIN}" --out "${dir}/run" --steps 6 --checkpoint-every 2 --recorder ${RECORDER} --optimizer adam
            --scheduler cosine --blocks 2 --diverge-at 3 --layout training-record)
set(record "${dir}/run/checkpoint/record-6.${RECORDER}")
set(donor "${dir}/run/checkpoint/record-2.${RECORDER}")
set(layout --scenario ckpt-train --optimizer adam --scheduler cosine)

run_checked(before "${ORACLE}" read "${record}" ${layout})
string(JSON tensors_before GET "${before}" tensor_count)
string(JSON nan_before GET "${before}" nan)
string(JSON inf_before GET "${before}" pos_inf)
string(JSON neg_inf_before GET "${before}" neg_inf)
math(EXPR nonfinite_before "${nan_before} + ${inf_before} + ${neg_inf_before}")
if(nonfinite_before EQUAL 0)
  message(FATAL_ERROR "${record}: the diverging run should hold non-finite values, the oracle read:\n${before}")
endif()

set(patched "${dir}/patched.${RECORDER}")
run_checked(log "${CKPT}" patch "${record}" -o "${patched}" --zero-nonfinite --reset-optimizer "item[0].output.*"
            --scheduler-step 2 --transplant "${donor}" "item[0].*" --set "item[4].progress.data_cursor=0")
string(FIND "${log_ERR}" "resume readiness of" at_verdict)
if(at_verdict EQUAL -1)
  message(FATAL_ERROR "ckpt patch printed no resume-readiness verdict:\n${log_ERR}")
endif()

run_checked(after "${ORACLE}" read "${patched}" ${layout})
string(JSON tensors_after GET "${after}" tensor_count)
string(JSON nan_after GET "${after}" nan)
string(JSON inf_after GET "${after}" pos_inf)
string(JSON neg_inf_after GET "${after}" neg_inf)
math(EXPR expected_tensors "${tensors_before} - 4")
if(NOT tensors_after EQUAL expected_tensors OR NOT nan_after EQUAL 0 OR NOT inf_after EQUAL 0 OR NOT neg_inf_after EQUAL 0)
  message(FATAL_ERROR "${patched}: expected ${expected_tensors} tensors and no NaN or inf, the oracle read:\n${after}")
endif()

check_typed_reencode("${ORACLE}" "${patched}" ${RECORDER} "${dir}/reencoded.${RECORDER}" ${layout})

file(READ "${patched}.patch.json" sidecar)
string(JSON source_sha GET "${sidecar}" source sha256)
file(SHA256 "${record}" expected_sha)
string(JSON op_count LENGTH "${sidecar}" operations)
if(NOT source_sha STREQUAL expected_sha OR NOT op_count EQUAL 5)
  message(FATAL_ERROR "${patched}.patch.json: expected the source's SHA-256 ${expected_sha} and 5 operations:\n${sidecar}")
endif()

run_checked(ignored "${CKPT}" patch --replay "${patched}.patch.json" -o "${dir}/replayed.${RECORDER}")
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${patched}" "${dir}/replayed.${RECORDER}" RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${patched}: the replay of its sidecar gave other bytes")
endif()

run_checked(resumed "${TRAIN}" --resume "${patched}" --out "${dir}/resumed" --steps 8)
string(FIND "${resumed}" "re-initialised at the next step" at_reinit)
if(at_reinit EQUAL -1 OR NOT EXISTS "${dir}/resumed/checkpoint/record-8.${RECORDER}")
  message(FATAL_ERROR "ckpt-train did not resume from ${patched} re-initialising the reset state:\n${resumed}")
endif()

file(REMOVE_RECURSE "${dir}")
message(STATUS "ckpt patch ${RECORDER}: decoded by the Rust crates (${tensors_after} tensors, no NaN/inf), replayed byte-identically, resumed")
