# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# ctest fixture `interop_files`: builds ckpt-interop if needed, regenerates DATA_DIR, and reads
# every generated file back through the program's typed `read` / `read-gc` / `reencode` commands.
# In: the variables of build_interop.cmake, plus BIN (the built executable) and DATA_DIR.

include("${CMAKE_CURRENT_LIST_DIR}/build_interop.cmake")

function(run_ok)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}${err}")
  endif()
endfunction()

function(run_fails expected_text)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " cmd "${ARGN}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a failure but it succeeded: ${cmd}\n${out}")
  endif()
  string(FIND "${err}" "${expected_text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "failure of ${cmd} does not mention '${expected_text}':\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${DATA_DIR}")
file(MAKE_DIRECTORY "${DATA_DIR}")
run_ok("${BIN}" write "${DATA_DIR}")
run_ok("${BIN}" gradient-checkpoint "${DATA_DIR}/gc" --sorted)
run_ok("${BIN}" gradient-checkpoint "${DATA_DIR}/gc-hashmap")
# Records the typed decoders refuse (a duplicate struct field; 4096 zero bytes as bincode), apart
# from the scenario files so the loop below does not read them.
run_ok("${BIN}" hostile "${DATA_DIR}/hostile")
# Burn 0.22 burnpack files (model/optim/scheduler/empty.bpk + burnpack.json), CBOR heads by ciborium-ll;
# the generator reads each back itself. ctest interop_burnpack holds ckpt to them.
run_ok("${BIN}" burnpack "${DATA_DIR}/burnpack")
foreach(f model.bpk optim.bpk scheduler.bpk empty.bpk burnpack.json)
  if(NOT EXISTS "${DATA_DIR}/burnpack/${f}")
    message(FATAL_ERROR "ckpt-interop burnpack did not write ${DATA_DIR}/burnpack/${f}")
  endif()
endforeach()

# Every TrainingRecord file: typed read and byte-identical re-encode, each in a fresh process.
set(scratch "${DATA_DIR}/.reencoded")
file(MAKE_DIRECTORY "${scratch}")
set(count 0)
foreach(ext mpk mpk.gz json json.gz bin bin.gz)
  file(GLOB files "${DATA_DIR}/*-*.${ext}")
  foreach(f ${files})
    get_filename_component(name "${f}" NAME)
    run_ok("${BIN}" read "${f}")
    run_ok("${BIN}" reencode "${f}" "${scratch}/${name}")
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()
file(REMOVE_RECURSE "${scratch}")
# 14 scenarios x 3 precisions x 6 recorders.
if(NOT count EQUAL 252)
  message(FATAL_ERROR "expected 252 record files in ${DATA_DIR}, found ${count}")
endif()

foreach(dir gc gc-hashmap)
  file(GLOB files "${DATA_DIR}/${dir}/*.json")
  list(FILTER files EXCLUDE REGEX "gc\\.expected\\.json$")
  list(LENGTH files n)
  if(NOT n EQUAL 9)
    message(FATAL_ERROR "expected 9 gradient checkpoints in ${DATA_DIR}/${dir}, found ${n}")
  endif()
  foreach(f ${files})
    run_ok("${BIN}" read-gc "${f}")
  endforeach()
endforeach()

# The typed decoders must reject a file of another layout (truncation and trailing bytes are
# checked inside `write`).
run_fails("missing field" "${BIN}" read "${DATA_DIR}/adam-full.mpk" --scenario sgd)
message(STATUS "interop: ${count} TrainingRecord files, 18 gradient checkpoints and 4 burnpack files generated and read back in ${DATA_DIR}")
