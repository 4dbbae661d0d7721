# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# ctest fixture `transformer_records`: transformer-shaped TrainingRecords as users have them
# (embedding, 8 attention + MLP blocks, Adam moments and pending gradients for every parameter:
# 532 tensors), written by the real rmp-serde through `ckpt-interop transformer`, at the sizes
# the app must open: 8, 64, 256 MiB and 1 GiB. Made at test time, never committed; a file already
# made by the same generator binary is kept (1.3 GiB of writing costs seconds, not nothing).
# In: BIN (ckpt-interop), OUT_DIR, SIZES (MiB, comma-separated).
if(NOT EXISTS "${BIN}")
  message(FATAL_ERROR "ckpt-interop is not built (${BIN}): the interop_generate fixture builds it with cargo")
endif()
file(MAKE_DIRECTORY "${OUT_DIR}")
file(TIMESTAMP "${BIN}" bin_time "%s" UTC)
string(REPLACE "," ";" sizes "${SIZES}")
foreach(mib ${sizes})
  set(file "${OUT_DIR}/transformer-${mib}.mpk")
  set(stamp "${file}.made-by")
  set(want "${BIN} ${bin_time}")
  set(have "")
  if(EXISTS "${stamp}" AND EXISTS "${file}")
    file(READ "${stamp}" have)
  endif()
  if(NOT have STREQUAL want)
    execute_process(COMMAND "${BIN}" transformer "${file}" --mib ${mib} --seed ${mib}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "ckpt-interop transformer ${file} --mib ${mib} failed (${rc}):\n${out}${err}")
    endif()
    file(WRITE "${stamp}" "${want}")
    message(STATUS "${out}")
  endif()
endforeach()
