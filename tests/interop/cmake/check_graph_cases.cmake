# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# ctest `interop_graph_cases`: the expected outcomes of the hand-made GradientCheckpoint cases
# (tests/data/graph/cases/expected.tsv, which tst_graph holds our reader to) are what serde_json
# says today, not only what it said once: every row is re-derived with ckpt-interop's `read-gc`
# (serde_json into the crate's mirror types, the same as the program in tests/bench/graph/README.md).
#   OK  N      read-gc exits 0 and reports N nodes
#   ERR text   read-gc fails and its message contains the text (serde_json's, with line and column)
# In: BIN (ckpt-interop), CASES_DIR.

foreach(var BIN CASES_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_graph_cases.cmake: ${var} is not set")
  endif()
endforeach()

file(STRINGS "${CASES_DIR}/expected.tsv" rows)
set(count 0)
foreach(row ${rows})
  string(REPLACE "\t" ";" fields "${row}")
  list(GET fields 0 file)
  list(GET fields 1 outcome)
  list(GET fields 2 detail)
  execute_process(COMMAND "${BIN}" read-gc "${CASES_DIR}/${file}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(outcome STREQUAL "OK")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${file}: expected.tsv says serde_json accepts it, read-gc refused it:\n${err}")
    endif()
    string(JSON nodes GET "${out}" nodes)
    if(NOT nodes EQUAL detail)
      message(FATAL_ERROR "${file}: expected.tsv says ${detail} nodes, serde_json read ${nodes}")
    endif()
  elseif(outcome STREQUAL "ERR")
    if(rc EQUAL 0)
      message(FATAL_ERROR "${file}: expected.tsv says serde_json rejects it (${detail}), read-gc accepted it")
    endif()
    string(FIND "${err}" "${detail}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${file}: expected.tsv says '${detail}', serde_json said:\n${err}")
    endif()
  else()
    message(FATAL_ERROR "expected.tsv: unknown outcome '${outcome}' for ${file}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "no cases in ${CASES_DIR}/expected.tsv")
endif()
message(STATUS "interop: ${count} graph cases of expected.tsv re-derived with serde_json")
