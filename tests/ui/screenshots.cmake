# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs checkpoint-inspector --screenshot once per panel and checks that each PNG was written.
file(MAKE_DIRECTORY ${OUT_DIR})
set(RUN ${FIXTURES}/runs/mlplay-0.16.1)
set(cases
  "tree|${RUN}"
  "tensors|${RUN}"
  "optimizer|${RUN}"
  "scheduler|${RUN}"
  "state|${RUN}"
  "loss|${FIXTURES}/runs/mechint-0.20.0-pre.6"
  "graph|${SRC_DIR}/tests/data/graph/worked_example.json"
  "resume|${RUN}"
  "diff|--diff,${FIXTURES}/runs/mlplay-0.16.1/checkpoint/model-10.mpk,${FIXTURES}/models/burn-0.16.1_full_connect4.mpk")
foreach(case ${cases})
  # "panel|input,input,..." (commas, since ; would split the case list itself)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 panel)
  list(GET parts 1 inputs)
  string(REPLACE "," ";" inputs "${inputs}")
  set(png ${OUT_DIR}/${panel}.png)
  file(REMOVE ${png})
  execute_process(COMMAND ${INSPECTOR} ${inputs} --screenshot ${png} --panel ${panel}
    RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${png})
    message(FATAL_ERROR "screenshot of panel ${panel} failed (exit ${rc})")
  endif()
  file(SIZE ${png} size)
  message(STATUS "${panel}: ${png} (${size} bytes)")
endforeach()
