# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# The tools outside the project that whole test suites depend on. A machine without them used to get
# a green run with those suites silently missing (one STATUS line each); now the configure of a
# build with tests stops and names what to install, so "green" always means every suite ran.
#
#   cargo + rustc + Debian's librust-*-dev crates   tests/interop (the Rust oracle), tests/interopcheck,
#                                                    the train_interop_* tests, bench_smoke's Rust peers
#   /usr/bin/python3 with msgpack and numpy         tst_msgpack's oracle, bench_smoke's peers
#   clang-tidy-19 (and its run-clang-tidy-19)       tests/lint (clang_tidy_core)
#   universal-ctags (ctags-universal)                tests/lint (function_sizes, function_sizes_selftest)
#   clang-format-19 (its clang-format-diff-19)       tests/lint (format_changed_lines)
#
# -DCKPT_REQUIRE_TEST_TOOLS=OFF is the deliberate way out (say, a developer without Rust): the
# configure then warns, loudly and once, which suites are left out.

option(CKPT_REQUIRE_TEST_TOOLS "Stop the configure when a tool that a test suite needs is missing" ON)

set(_missing "")
set(_dropped "")

# Debian's cargo first (what CI installs), as tests/interop does.
find_program(CKPT_TOOL_CARGO NAMES cargo PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CKPT_TOOL_CARGO)
  find_program(CKPT_TOOL_CARGO NAMES cargo)
endif()
if(CKPT_TOOL_CARGO)
  get_filename_component(_cargo_dir "${CKPT_TOOL_CARGO}" DIRECTORY)
  find_program(CKPT_TOOL_RUSTC NAMES rustc PATHS "${_cargo_dir}" NO_DEFAULT_PATH)
  if(NOT CKPT_TOOL_RUSTC)
    list(APPEND _missing "rustc next to ${CKPT_TOOL_CARGO} (Debian package rustc)")
  endif()
  # The oracle builds offline from the crate sources the librust-*-dev packages unpack
  # (tests/interop/.cargo/config.toml); a missing one would only surface minutes into the test run.
  set(_registry /usr/share/cargo/registry)
  foreach(crate serde serde_derive rmp-serde serde_json bincode flate2 half serde_bytes data-encoding indexmap ciborium-ll ciborium-io)
    file(GLOB _found LIST_DIRECTORIES true "${_registry}/${crate}-[0-9]*")
    if(NOT _found)
      string(REPLACE "_" "-" _pkg "${crate}")
      list(APPEND _missing "the ${crate} crate in ${_registry} (Debian package librust-${_pkg}-dev)")
    endif()
  endforeach()
else()
  list(APPEND _missing "cargo (Debian packages cargo and librust-*-dev, see tests/interop/README.md)")
  list(APPEND _dropped "tests/interop, tests/interopcheck, train_interop_*, bench_smoke's Rust peers")
endif()

# Tests call /usr/bin/python3 by its full path: the python3 first on PATH may be a pyenv without the
# Debian modules.
if(EXISTS /usr/bin/python3)
  foreach(module msgpack numpy)
    execute_process(COMMAND /usr/bin/python3 -c "import ${module}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT _rc EQUAL 0)
      list(APPEND _missing "the Python module ${module} for /usr/bin/python3 (Debian package python3-${module})")
    endif()
  endforeach()
else()
  list(APPEND _missing "/usr/bin/python3 (Debian packages python3 python3-msgpack python3-numpy)")
  list(APPEND _dropped "bench_smoke")
endif()

# clang-tidy 19 for the lint suite (tests/lint): 14, Debian's default, cannot parse <expected>.
find_program(CKPT_TOOL_CLANG_TIDY NAMES clang-tidy-19)
find_program(CKPT_TOOL_RUN_CLANG_TIDY NAMES run-clang-tidy-19)
if(NOT CKPT_TOOL_CLANG_TIDY OR NOT CKPT_TOOL_RUN_CLANG_TIDY)
  list(APPEND _missing "clang-tidy-19 and run-clang-tidy-19 (Debian package clang-tidy-19)")
  list(APPEND _dropped "tests/lint (clang_tidy_core)")
endif()
# Universal Ctags finds the function definitions for the size check; Debian names it ctags-universal
# (a plain ctags may be Exuberant Ctags, which writes no JSON). Without it, under
# CKPT_REQUIRE_TEST_TOOLS=OFF, function_sizes and its self-test are Not Run (failed under CI=true).
find_program(CKPT_TOOL_CTAGS NAMES ctags-universal ctags)
if(CKPT_TOOL_CTAGS)
  execute_process(COMMAND ${CKPT_TOOL_CTAGS} --version OUTPUT_VARIABLE _ctags_version ERROR_QUIET)
  if(NOT _ctags_version MATCHES "^Universal Ctags")
    list(APPEND _missing "Universal Ctags, not ${CKPT_TOOL_CTAGS} (Debian package universal-ctags)")
    list(APPEND _dropped "tests/lint (function_sizes, function_sizes_selftest)")
  endif()
else()
  list(APPEND _missing "ctags-universal (Debian package universal-ctags)")
  list(APPEND _dropped "tests/lint (function_sizes, function_sizes_selftest)")
endif()
# clang-format 19 reads the project's .clang-format (14 cannot parse it).
find_program(CKPT_TOOL_CLANG_FORMAT_DIFF NAMES clang-format-diff-19)
if(NOT CKPT_TOOL_CLANG_FORMAT_DIFF)
  list(APPEND _missing "clang-format-diff-19 (Debian package clang-format-19)")
  list(APPEND _dropped "tests/lint (format_changed_lines)")
endif()

if(_missing)
  list(JOIN _missing "\n  - " _missing_text)
  set(_text "tools that test suites need are missing:\n  - ${_missing_text}\npackaging/install-deps.sh installs all of them.")
  if(CKPT_REQUIRE_TEST_TOOLS)
    message(FATAL_ERROR "${_text}\nTo configure without those tests on purpose: -DCKPT_REQUIRE_TEST_TOOLS=OFF "
                        "(or -DBUILD_TESTING=OFF for no tests at all).")
  endif()
  list(JOIN _dropped ", " _dropped_text)
  message(WARNING "${_text}\nCKPT_REQUIRE_TEST_TOOLS=OFF: the affected tests fail or are left out "
                  "(${_dropped_text}); this build's test run does not cover them.")
endif()
