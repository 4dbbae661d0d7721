#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# package_check.sh BUILD_DIR FIXTURES_DIR MIME_PROBE
#
# What a user gets from the package, checked from the package itself rather than the build tree:
#  1. CPack builds the .deb and the .tgz; the .deb's Depends (from dpkg-shlibdeps) name Qt 6 Widgets
#     and QCustomPlot, and apt accepts it on this machine (simulated install).
#     The Python module, when built, is its own package, python3-ckpt (Debian's Python policy),
#     whose Depends name python3 (the minor version it was built for) and python3-numpy.
#  2. Unpacked into an empty root, the installed ckpt (and python3-ckpt's module `ckpt`) reads
#     a genuine Burn fixture, the installed app takes a screenshot, and no binary points back into the
#     build tree (RUNPATH).
#  3. Each man page names every command and flag its program's --help names (same source).
#  4. desktop-file-validate and appstreamcli accept the installed desktop and metainfo files.
#  5. With only the package's MIME database, files renamed to meaningless names are recognised by
#     content; the desktop database associates those types with our .desktop file.
#  6. The bash completion completes commands and flags of the installed ckpt; zsh parses _ckpt.
#  7. cmake --install works with a prefix that contains a space.
set -euo pipefail

build=$1
fixtures=$2
probe=$3
work=$(mktemp -d)
# PACKAGE_CHECK_KEEP=1 keeps the unpacked root and logs for a look after a failure.
[[ -n ${PACKAGE_CHECK_KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
fail() { echo "package_check: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "cpack DEB and TGZ"
cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work/pkgs" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$work"/pkgs/checkpoint-inspector_*.deb 2>/dev/null | head -n1)
# the Python module's own package (Debian's Python policy), when the build has the module
pydeb=$(ls "$work"/pkgs/python3-ckpt_*.deb 2>/dev/null | head -n1)
tgz=$(ls "$work"/pkgs/*.tar.gz 2>/dev/null | head -n1)
[[ -f $deb ]] || fail "no .deb in $work/pkgs"
[[ -f $tgz ]] || fail "no .tar.gz in $work/pkgs"
echo "deb: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libqt6widgets6 libqcustomplot libc6 libstdc++6 zlib1g libdeflate0 libssl3; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (shlibdeps did not see the binaries?)"
done
# apt resolves the package against this machine's archive state without installing it.
if command -v apt-get >/dev/null; then
  apt-get install -s "$deb" ${pydeb:+"$pydeb"} >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get cannot install $deb ${pydeb:-}"; }
  grep -q "checkpoint-inspector" "$work/apt.log" || fail "apt-get's simulation does not mention the package"
fi

step "unpack into an empty root"
root=$work/root
dpkg-deb -x "$deb" "$root"
[[ -z $(find "$root" -name 'ckpt.*.so') ]] || fail "the Python module is in $(basename "$deb"), not in python3-ckpt"
bin=$root/usr/bin
share=$root/usr/share
for f in ckpt ckpt-train checkpoint-inspector; do
  [[ -x $bin/$f ]] || fail "$bin/$f missing"
  if readelf -d "$bin/$f" | grep -E 'R(UN)?PATH' | grep -q "$build"; then
    fail "$f has a RUNPATH into the build tree"
  fi
done
fixture=$fixtures/models/burn-0.16.1_full_connect4.mpk
"$bin/ckpt" info "$fixture" >"$work/info.txt" || fail "installed ckpt info failed on $fixture"
grep -q "NamedMpk" "$work/info.txt" || { cat "$work/info.txt"; fail "ckpt info does not name the recorder"; }
"$bin/ckpt" --version | grep -q "ckpt " || fail "ckpt --version"
# The Python module, when the build has it, imports from the package's dist-packages and reads the fixture.
if ls "$build"/python/ckpt.*.so >/dev/null 2>&1; then
  [[ -f $pydeb ]] || fail "no python3-ckpt .deb although the build has the Python module"
  pydepends=$(dpkg-deb -f "$pydeb" Depends)
  echo "python3-ckpt Depends: $pydepends"
  for dep in "python3 (>= 3." "python3 (<< 3." python3-numpy libstdc++6 libssl3; do
    grep -qF "$dep" <<<"$pydepends" || fail "python3-ckpt's Depends lacks $dep"
  done
  [[ $(dpkg-deb -f "$pydeb" Section) == python ]] || fail "python3-ckpt is not in section python"
  dpkg-deb -x "$pydeb" "$root"
  pymod=$(ls "$root"/usr/lib/python3/dist-packages/ckpt.*.so 2>/dev/null | head -n1)
  [[ -f $pymod ]] || fail "python3-ckpt lacks the Python module (usr/lib/python3/dist-packages/ckpt.*.so)"
  if readelf -d "$pymod" | grep -E 'R(UN)?PATH' | grep -q "$build"; then
    fail "the Python module has a RUNPATH into the build tree"
  fi
  # A sanitizer build's module needs its runtimes loaded before python3 (which is not instrumented),
  # and the interpreter's own allocations are not ours to call leaks (as tests/python does).
  preload=$(ldd "$pymod" | awk '/lib(asan|ubsan)\.so/ {print $3}' | paste -sd: -)
  LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 \
  PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 -c '
import sys, ckpt
assert ckpt.__file__.startswith(sys.argv[2]), ckpt.__file__
r = ckpt.open(sys.argv[1])
assert r.recorder == "NamedMpk" and r.array(r.paths()[0]).size > 0' "$fixture" "$root" || fail "the installed Python module cannot read $fixture"
fi
"$bin/ckpt-train" --version | grep -q "ckpt-train " || fail "ckpt-train --version"

# The app from the installed path photographs a fixture; the picture must hold more than one colour.
QT_QPA_PLATFORM=offscreen XDG_DATA_HOME=$work/xdg "$bin/checkpoint-inspector" "$fixture" \
  --screenshot "$work/shot.png" --panel tensors >"$work/app.log" 2>&1 ||
  { cat "$work/app.log" >&2; fail "installed checkpoint-inspector --screenshot failed"; }
[[ $(stat -c %s "$work/shot.png") -gt 10000 ]] || fail "screenshot suspiciously small"
/usr/bin/python3 - "$work/shot.png" <<'EOF' || fail "screenshot is a single colour"
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
# Distinct byte values over all scanlines: a blank or single-colour window has a handful.
sys.exit(0 if len(set(raw)) > 32 else 1)
EOF

step "man pages agree with --help"
for prog in ckpt ckpt-train checkpoint-inspector; do
  page=$share/man/man1/$prog.1.gz
  [[ -f $page ]] || fail "man page $page missing"
  # The troff source with its escaped hyphens undone (man's rendering hyphenates long flags).
  text=$(zcat "$page" | sed 's/\\-/-/g')
  # Every long option and (for ckpt) every command of --help appears in the page.
  help=$(QT_QPA_PLATFORM=offscreen "$bin/$prog" --help 2>&1)
  for flag in $(grep -o -- '--[a-z][a-z-]*' <<<"$help" | sort -u); do
    grep -qF -- "$flag" <<<"$text" || fail "$prog.1 lacks $flag which --help names"
  done
  if [[ $prog == ckpt ]]; then
    for cmd in $(awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}' <<<"$help"); do
      grep -qE "(^|[^a-z-])$cmd([^a-z-]|$)" <<<"$text" || fail "ckpt.1 lacks the command $cmd"
    done
  fi
done

step "validators"
desktop=$share/applications/org.checkpointinspector.CheckpointInspector.desktop
metainfo=$share/metainfo/org.checkpointinspector.CheckpointInspector.metainfo.xml
desktop-file-validate "$desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net --pedantic "$metainfo" || fail "appstreamcli validate"
for size in 16 22 24 32 48 64 128 256 512; do
  [[ -f $share/icons/hicolor/${size}x${size}/apps/org.checkpointinspector.CheckpointInspector.png ]] ||
    fail "icon ${size}x${size} missing"
done
[[ -f $share/icons/hicolor/scalable/apps/org.checkpointinspector.CheckpointInspector.svg ]] || fail "scalable icon missing"
for shot in tensors loss graph; do
  [[ $(stat -c %s "$share/checkpoint-inspector/screenshots/$shot.png") -gt 10000 ]] || fail "screenshot $shot missing or empty"
done

step "MIME types by content and the desktop association"
update-mime-database "$share/mime"
mkdir "$work/files"
cp "$fixture" "$work/files/weights-without-extension"
cp "$fixtures/models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin" "$work/files/some.data"
cp "$fixtures/models/burn-0.22.0-pre_mnist-inference-web.bpk" "$work/files/burnpack-weights"
cp "$(dirname "$0")/../data/graph/worked_example.json" "$work/files/step-7"
"$bin/ckpt" convert "$fixture" "$work/files/pretty-record" --recorder PrettyJson >/dev/null || fail "ckpt convert to PrettyJson"
# Only the package's database and the system's base types (application/json, application/gzip).
XDG_DATA_DIRS=$share:/usr/share XDG_DATA_HOME=$work/none "$probe" "$work"/files/* >"$work/mime.txt"
cat "$work/mime.txt"
expect_type() {
  awk -F'\t' -v f="$work/files/$1" -v t="$2" '$1 == f && $2 == t {ok=1} END {exit !ok}' "$work/mime.txt" ||
    fail "$1 is not recognised by content as $2"
}
expect_type weights-without-extension application/x-burn-record-msgpack
expect_type some.data application/x-burn-record-bincode
expect_type burnpack-weights application/x-burnpack
expect_type step-7 application/x-ipfrs-gradient-checkpoint
expect_type pretty-record application/x-burn-record-json
update-desktop-database "$share/applications"
for type in application/x-burnpack application/x-burn-record-msgpack application/x-ipfrs-gradient-checkpoint application/vnd.ipld.car; do
  grep -q "^$type=.*org.checkpointinspector.CheckpointInspector.desktop" "$share/applications/mimeinfo.cache" ||
    fail "the desktop database does not open $type with our app"
done

# A double click in a file manager runs the desktop file's Exec line with the file for %F: run that
# line from the installed paths on the extension-less record and check the app opened it.
exec_line=$(sed -n 's/^Exec=//p' "$desktop")
[[ $exec_line == *%F* ]] || fail "Exec line takes no files: $exec_line"
read -r -a exec_argv <<<"${exec_line/\%F/}"
PATH=$bin:$PATH QT_QPA_PLATFORM=offscreen XDG_DATA_HOME=$work/xdg "${exec_argv[@]}" "$work/files/weights-without-extension" \
  --screenshot "$work/double-click.png" --panel tensors >"$work/double-click.log" 2>&1 ||
  { cat "$work/double-click.log" >&2; fail "the desktop file's Exec line failed on a record"; }
[[ $(stat -c %s "$work/double-click.png") -gt 10000 ]] || fail "double-click screenshot missing"
grep -q "Opened $work/files/weights-without-extension: module_record, NamedMpk" "$work/double-click.log" ||
  { cat "$work/double-click.log" >&2; fail "the app did not open the double-clicked record"; }

step "completions"
completion=$share/bash-completion/completions/ckpt
[[ -f $completion ]] || fail "bash completion missing"
if [[ -f /usr/share/bash-completion/bash_completion ]]; then
  out=$(PATH=$bin:$PATH bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    COMP_WORDS=(ckpt va); COMP_CWORD=1; COMP_LINE="ckpt va"; COMP_POINT=${#COMP_LINE}
    _ckpt; printf "%s\n" "${COMPREPLY[@]}"
    COMP_WORDS=(ckpt convert --re); COMP_CWORD=2; COMP_LINE="ckpt convert --re"; COMP_POINT=${#COMP_LINE}
    _ckpt; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion")
  echo "$out"
  grep -qx validate <<<"$out" || fail "bash completion does not complete 'va' to validate"
  grep -qx -- --recorder <<<"$out" || fail "bash completion does not complete convert's --recorder"
else
  fail "bash-completion is not installed (packaging/install-deps.sh installs it)"
fi
zsh -n "$share/zsh/vendor-completions/_ckpt" || fail "zsh cannot parse _ckpt"

step "cmake --install with a prefix containing a space"
prefix="$work/prefix with space"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
"$prefix/bin/ckpt" info "$fixture" >/dev/null || fail "ckpt from the custom prefix"
[[ -f "$prefix/share/man/man1/ckpt.1.gz" ]] || fail "man page under the custom prefix"

step "installed files"
dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$'
[[ -z ${pydeb:-} ]] || dpkg-deb -c "$pydeb" | awk '{print $6}' | grep -v '/$'
echo "package_check: OK"
