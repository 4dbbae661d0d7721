# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -P script: builds ckpt-interop offline with cargo, never writing into the source tree.
# In: CARGO, RUSTC (may be empty), SOURCE_DIR (tests/interop), WORK_DIR (copy of the cargo project),
#     TARGET_DIR (CARGO_TARGET_DIR).
# The project is mirrored into WORK_DIR because cargo rewrites Cargo.lock next to Cargo.toml when
# its crate set differs from the lock, and reads .cargo/config.toml relative to its working directory.

foreach(var CARGO SOURCE_DIR WORK_DIR TARGET_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "build_interop.cmake: ${var} is not set")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK_DIR}/src" "${WORK_DIR}/.cargo")
# copy_if_different keeps timestamps of unchanged files, so cargo's no-op build stays a no-op.
file(GLOB sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/src/*.rs")
foreach(f Cargo.toml Cargo.lock .cargo/config.toml ${sources})
  if(EXISTS "${SOURCE_DIR}/${f}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${SOURCE_DIR}/${f}" "${WORK_DIR}/${f}")
  endif()
endforeach()
# Remove sources that no longer exist in the tree.
file(GLOB copied RELATIVE "${WORK_DIR}" "${WORK_DIR}/src/*.rs")
foreach(f ${copied})
  if(NOT EXISTS "${SOURCE_DIR}/${f}")
    file(REMOVE "${WORK_DIR}/${f}")
  endif()
endforeach()

set(ENV{CARGO_TARGET_DIR} "${TARGET_DIR}")
if(RUSTC)
  # Debian's cargo must drive Debian's rustc even when a rustup toolchain is first on PATH.
  set(ENV{RUSTC} "${RUSTC}")
endif()
execute_process(
  COMMAND "${CARGO}" build --release --offline
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cargo build of ckpt-interop failed (${rc}); it needs Debian's librust-*-dev crates in /usr/share/cargo/registry (see tests/interop/README.md)")
endif()
