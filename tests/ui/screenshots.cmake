# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs checkpoint-inspector --screenshot once per panel with its input, and once per panel with
# nothing loaded (OUT_DIR/empty/), then judges every loaded PNG by its pixels with CHECKER
# (ckpt-shot-check, shot_check.cpp): the window's size, not blank or uniform, the panel's own region
# changed by the loaded data, and different from every other panel's shot.
# In: INSPECTOR, CHECKER, TRAIN (ckpt-train), OUT_DIR, FIXTURES, SRC_DIR; optionally GEN (ckpt-bench-gen) and
# GRAPH_GUI (ckpt-bench-graph-gui) for the graph view at 10,000 and 100,000 nodes (see the end).
file(MAKE_DIRECTORY ${OUT_DIR}/empty)
set(RUN ${FIXTURES}/runs/mlplay-0.16.1)
# The scheduler curve, the caller state and the resume checklist exist only for TrainingRecords with
# ckpt-train's caller state (the genuine Burn runs have none: those panels would show their empty
# state), so a tiny run of the reference trainer feeds them.
set(TRAINED ${OUT_DIR}/trained-run)
file(REMOVE_RECURSE ${TRAINED})
execute_process(COMMAND ${TRAIN} --out ${TRAINED} --steps 40 --checkpoint-every 20 --layout all --scheduler cosine
                        --sched-iters 200 --hidden 8 --dataset-size 64 --batch-size 8
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ckpt-train for the screenshots failed (exit ${rc}): ${err}")
endif()
# A second run for the diff views: another seed (other node ids, so the activation node does not
# match by id) and gelu instead of relu: its graph diff against the first shows a removed node (relu,
# A only), an added one (gelu, B only) and changed tensors elsewhere; its records and loss logs differ.
set(TRAINED_B ${OUT_DIR}/trained-run-b)
file(REMOVE_RECURSE ${TRAINED_B})
execute_process(COMMAND ${TRAIN} --out ${TRAINED_B} --steps 40 --checkpoint-every 20 --layout all --scheduler cosine
                        --sched-iters 200 --hidden 8 --dataset-size 64 --batch-size 8 --seed 7 --activation gelu
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ckpt-train (second run) for the screenshots failed (exit ${rc}): ${err}")
endif()
# The Run panel: 12 checkpoints of a run whose SGD is blown up at step 160 (--diverge-at) show NaN
# cells, first-NaN markers and the first bad column beside the loss that jumps; a ckpt-train without
# that flag gives a finite run.
set(TIMELINE_RUN ${OUT_DIR}/timeline-run)
file(REMOVE_RECURSE ${TIMELINE_RUN})
execute_process(COMMAND ${TRAIN} --help OUTPUT_VARIABLE train_help ERROR_QUIET)
set(diverge "")
if(train_help MATCHES "--diverge-at")
  set(diverge --optimizer sgd --diverge-at 160)
endif()
execute_process(COMMAND ${TRAIN} --out ${TIMELINE_RUN} --steps 300 --checkpoint-every 25 ${diverge}
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ckpt-train (timeline run) for the screenshots failed (exit ${rc}): ${err}")
endif()
set(cases
  "tree|${RUN}"
  "tensors|${RUN}"
  "optimizer|${RUN}"
  "scheduler|${TRAINED}"
  "state|${TRAINED}"
  "loss|${FIXTURES}/runs/mechint-0.20.0-pre.6"
  "graph|${SRC_DIR}/tests/data/graph/worked_example.json"
  "resume|${TRAINED}"
  "diff|--diff,${TRAINED}/checkpoint/record-20.mpk,${TRAINED}/checkpoint/record-40.mpk"
  "diff-graph|--diff,${TRAINED}/graph/step-20.json,${TRAINED_B}/graph/step-40.json"
  "diff-loss|--diff,${TRAINED}/checkpoint/record-20.mpk,${TRAINED_B}/checkpoint/record-40.mpk"
  "run|${TIMELINE_RUN}")
# launcher.cpp resizes the window to this for --screenshot.
set(size 1600x1000)

function(shoot png panel)
  file(REMOVE ${png})
  # the Run panel's timeline cache stays with the shots
  execute_process(COMMAND ${CMAKE_COMMAND} -E env XDG_CACHE_HOME=${OUT_DIR}/cache ${INSPECTOR} ${ARGN} --screenshot ${png} --panel ${panel}
    RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${png})
    message(FATAL_ERROR "screenshot of panel ${panel} failed (exit ${rc})")
  endif()
endfunction()

set(panels "")
foreach(case ${cases})
  # "panel|input,input,..." (commas, since ; would split the case list itself)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 panel)
  list(GET parts 1 inputs)
  string(REPLACE "," ";" inputs "${inputs}")
  shoot(${OUT_DIR}/${panel}.png ${panel} ${inputs})
  shoot(${OUT_DIR}/empty/${panel}.png ${panel})
  list(APPEND panels ${panel})
endforeach()

foreach(panel ${panels})
  # The panel's region: where its empty window differs from another panel's empty window.
  # "tree" is the Record dock, visible beside every panel: raising it changes nothing, so its region
  # is the whole window, and it shares its view with "tensors" (the tab in front by default).
  set(region "")
  set(others "")
  if(NOT panel STREQUAL "tree")
    if(panel STREQUAL "tensors")
      set(region --region-from ${OUT_DIR}/empty/optimizer.png)
    else()
      set(region --region-from ${OUT_DIR}/empty/tensors.png)
    endif()
  endif()
  foreach(other ${panels})
    if(NOT other STREQUAL panel AND NOT "${panel}-${other}" MATCHES "^(tree-tensors|tensors-tree)$")
      list(APPEND others ${OUT_DIR}/${other}.png)
    endif()
  endforeach()
  execute_process(COMMAND ${CHECKER} ${OUT_DIR}/${panel}.png --size ${size} --empty ${OUT_DIR}/empty/${panel}.png ${region}
                          --distinct-from ${others}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${out}" out)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "screenshot of panel ${panel} is not what the panel should show:\n${err}")
  endif()
endforeach()

# The graph view at 10,000 and 100,000 generated nodes (ckpt-bench-gen gc, what the benchmark opens):
# the overview, its largest group opened in place and a k = 2 neighbourhood inside it, each written by
# the graph bench probe from the real window (same 1600x1000 size) and judged like the panels above.
if(GEN AND GRAPH_GUI)
  foreach(nodes 10000 100000)
    math(EXPR k "${nodes} / 1000")
    set(gc ${OUT_DIR}/gc-${k}k.json)
    execute_process(COMMAND ${GEN} gc ${nodes} ${gc} RESULT_VARIABLE rc OUTPUT_QUIET TIMEOUT 120)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "ckpt-bench-gen gc ${nodes} failed (exit ${rc})")
    endif()
    set(shots graph-${k}k-overview graph-${k}k-expanded graph-${k}k-neighbourhood)
    foreach(shot ${shots})
      file(REMOVE ${OUT_DIR}/${shot}.png)
    endforeach()
    execute_process(COMMAND ${GRAPH_GUI} ${gc} 120 --shots ${OUT_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out TIMEOUT 240)
    string(STRIP "${out}" out)
    message(STATUS "graph view at ${k}k nodes: ${out}")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "the graph shots at ${k}k nodes failed (exit ${rc})")
    endif()
    foreach(shot ${shots})
      set(others "")
      foreach(other ${shots} graph)
        if(NOT other STREQUAL shot)
          list(APPEND others ${OUT_DIR}/${other}.png)
        endif()
      endforeach()
      execute_process(COMMAND ${CHECKER} ${OUT_DIR}/${shot}.png --size ${size} --empty ${OUT_DIR}/empty/graph.png
                              --region-from ${OUT_DIR}/empty/tensors.png --distinct-from ${others}
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      string(STRIP "${out}" out)
      message(STATUS "${out}")
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${shot}.png is not what the graph view should show:\n${err}")
      endif()
    endforeach()
  endforeach()
endif()
