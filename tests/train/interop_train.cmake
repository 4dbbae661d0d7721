# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# ctest script: the real serde crates decode what ckpt-train writes.
#
# For one recorder and every row of a small optimizer/scheduler/precision matrix (one row with
# --blocks 2 --diverge-at 1): runs
#   ckpt-train --out DIR --steps 5 --grad-accum 2 --recorder R --precision P --optimizer O --scheduler S
# then, with the Rust oracle (tests/interop, scenario `ckpt-train`):
#   read     DIR/checkpoint/record-5.EXT  typed decode by rmp-serde / serde_json / bincode; the summary
#            must name the precision and count the tensors the run holds
#   reencode DIR/checkpoint/record-5.EXT  (MessagePack, bincode) the typed value re-encoded in declaration
#            order must give the file's serializer payload back byte for byte (field order, number widths)
#   read-gc  DIR/graph/step-5.json        the GradientCheckpoint of the same step, typed
# For bincode also (ckpt, the CLI): `ckpt info` reads the record without a twin, by core's built-in
# ckpt-train layout with the scheduler type its caller state names; the record converted to NamedMpk and
# back with `convert --schema-from` the original gives a file the oracle decodes with the run's layout,
# byte-identical to the original for Bin. For JSON: converted to NamedMpk, rmp-serde re-encodes it
# byte-identically (the f32 config fields are f32 again).
# In: TRAIN, CKPT, ORACLE, WORK_DIR, RECORDER (mpk, mpk.gz, json, json.gz, bin, bin.gz).

foreach(var TRAIN CKPT ORACLE WORK_DIR RECORDER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "interop_train.cmake: ${var} is not set")
  endif()
endforeach()

# optimizer | scheduler | precision | extra trainer flags (comma-separated, "-" for none) | tensors in record-5
#   6 params + optimizer states (Adam 2 per param, AMSGrad 3, SGD momentum 1, no momentum 0)
#   + 6 pending gradients (step 5 with --grad-accum 2 leaves one micro-batch accumulated)
# The last row is the deep, diverging model: 2 residual blocks (18 params: Vec<Block> in the module
# record) and lr x 10^6 from the first update on, so record-5 mixes finite, inf and NaN values (f16
# too) and its caller state holds diverge_at Some(1) and None losses in loss_tail.
set(rows
  "adam|step|full|-|24"
  "sgd|constant|half|-|18"
  "adamw|exponential|double|--amsgrad|30"
  "adam|cosine|full|--dtype,f64|24"
  "sgd|linear|full|--momentum,0|12"
  "adam|noam|half|--weight-decay,0.01|24"
  "adam|cosine|half|--blocks,2,--diverge-at,1|72")

include(${CMAKE_CURRENT_LIST_DIR}/interop_common.cmake)

set(count 0)
foreach(row ${rows})
  string(REPLACE "|" ";" f "${row}")
  list(GET f 0 optimizer)
  list(GET f 1 scheduler)
  list(GET f 2 precision)
  list(GET f 3 extra)
  list(GET f 4 tensors)
  if(extra STREQUAL "-")
    set(extra "")
  endif()
  string(REPLACE "," ";" extra "${extra}")
  set(dir "${WORK_DIR}/${RECORDER}-${optimizer}-${scheduler}-${precision}")
  file(REMOVE_RECURSE "${dir}")
  run_checked(ignored "${TRAIN}" --out "${dir}" --steps 5 --grad-accum 2 --recorder ${RECORDER} --precision ${precision}
              --optimizer ${optimizer} --scheduler ${scheduler} ${extra})
  set(record "${dir}/checkpoint/record-5.${RECORDER}")
  if(NOT EXISTS "${record}")
    message(FATAL_ERROR "ckpt-train did not write ${record}")
  endif()
  set(layout --scenario ckpt-train --optimizer ${optimizer} --scheduler ${scheduler})

  run_checked(line "${ORACLE}" read "${record}" ${layout})
  string(JSON got_precision GET "${line}" precision)
  string(JSON got_tensors GET "${line}" tensor_count)
  string(JSON got_state_precision GET "${line}" state config precision)
  if(NOT got_precision STREQUAL precision OR NOT got_state_precision STREQUAL precision OR NOT got_tensors EQUAL tensors)
    message(FATAL_ERROR "${record}: expected precision ${precision} and ${tensors} tensors, the oracle read:\n${line}")
  endif()
  list(FIND extra "--diverge-at" diverging)
  if(NOT diverging EQUAL -1)
    string(JSON got_nan GET "${line}" nan)
    string(JSON got_inf GET "${line}" pos_inf)
    string(JSON got_diverge GET "${line}" state config diverge_at)
    if(got_nan EQUAL 0 OR got_inf EQUAL 0 OR NOT got_diverge EQUAL 1)
      message(FATAL_ERROR "${record}: a diverged run should hold NaN and inf and diverge_at 1, the oracle read:\n${line}")
    endif()
  endif()

  check_typed_reencode("${ORACLE}" "${record}" ${RECORDER} "${dir}/reencoded.${RECORDER}" ${layout})

  # Without --optimizer/--scheduler every layout is tried: the right one must be among those that decode.
  set(representative ${scheduler})
  if(scheduler MATCHES "^(cosine|noam)$")
    set(representative linear) # the same Rust type (usize)
  endif()
  run_checked(line "${ORACLE}" read "${record}" --scenario ckpt-train)
  string(JSON decoding GET "${line}" layouts_that_decode)
  string(FIND "${decoding}" "\"${optimizer}/${representative}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${record}: layout ${optimizer}/${representative} not among the layouts that decode: ${decoding}")
  endif()

  # A layout of another optimizer must be refused (the oracle is not a yes-machine).
  if(optimizer STREQUAL "sgd")
    set(other adam)
  else()
    set(other sgd)
  endif()
  execute_process(COMMAND "${ORACLE}" read "${record}" --scenario ckpt-train --optimizer ${other} --scheduler ${scheduler}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${record}: decoded with the ${other} layout too")
  endif()

  if(RECORDER MATCHES "^bin")
    if(scheduler STREQUAL "step")
      set(record_type "i32")
    elseif(scheduler STREQUAL "exponential")
      set(record_type "f64")
    elseif(scheduler STREQUAL "constant")
      set(record_type "()")
    else()
      set(record_type "usize")
    endif()
    run_checked(info "${CKPT}" info "${record}")
    string(FIND "${info}" "layout      built-in ckpt-train TrainingRecord" at_layout)
    string(FIND "${info}" "scheduler ${record_type} " at_type)
    string(FIND "${info}" "warning" at_warning)
    if(at_layout EQUAL -1 OR at_type EQUAL -1 OR NOT at_warning EQUAL -1)
      message(FATAL_ERROR "${record}: expected the built-in ckpt-train layout with scheduler ${record_type} and no warning:\n${info}")
    endif()
    run_checked(ignored "${CKPT}" convert "${record}" "${dir}/as.mpk")
    run_checked(ignored "${CKPT}" convert "${dir}/as.mpk" "${dir}/back.${RECORDER}" --schema-from "${record}")
    run_checked(line "${ORACLE}" read "${dir}/back.${RECORDER}" ${layout})
    if(RECORDER STREQUAL "bin")
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${record}" "${dir}/back.bin" RESULT_VARIABLE differs)
      if(differs)
        message(FATAL_ERROR "${record}: NamedMpk and back to Bin with its own layout is not byte-identical")
      endif()
    endif()
  endif()

  # JSON keeps every float as f64; converted to NamedMpk, the config's f32 fields (beta_1, ...) must be
  # f32 again (`ca`): the typed re-encode by rmp-serde gives the converted file's bytes back.
  if(RECORDER MATCHES "^json")
    run_checked(ignored "${CKPT}" convert "${record}" "${dir}/as.mpk")
    run_checked(line "${ORACLE}" reencode "${dir}/as.mpk" "${dir}/as-reencoded.mpk" ${layout})
    string(JSON identical GET "${line}" identical)
    if(NOT identical)
      message(FATAL_ERROR "${record}: converted to NamedMpk, the typed re-encode differs (an f32 field written as f64?):\n${line}")
    endif()
  endif()

  run_checked(ignored "${ORACLE}" read-gc "${dir}/graph/step-5.json")
  file(REMOVE_RECURSE "${dir}")
  math(EXPR count "${count} + 1")
endforeach()
if(RECORDER MATCHES "^json")
  set(what "decoded")
else()
  set(what "decoded and re-encoded byte-identically")
endif()
message(STATUS "ckpt-train ${RECORDER}: ${count} runs ${what} by the Rust crates, graph checkpoints read")
