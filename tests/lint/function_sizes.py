#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""A function reads in one screen: 150 lines at the very most (the house rule, docs/architecture.md).

  function_sizes.py [--limit N] [--ctags PATH] [FOLDER...]
      every C++ function definition under the FOLDERs (default ui app python, relative to the current
      directory) whose span is over N lines (default 150), one `path:line: function NAME is N lines`
      each, and exit 1; or a one-line summary and exit 0
  function_sizes.py --self-test [--ctags PATH]
      the check against functions of 150 and 151 lines in a temporary folder: it must catch exactly
      the ones over the limit, and refuse to pass when it can see nothing

Exit 2: the check could not run (no Universal Ctags, a folder that is not there or holds no C++,
no function found at all, an end line ctags could not give): a check that cannot fail is no check.
Without ctags the message starts "function_sizes: not run:" (ctest shows Not Run); under CI=true,
where everything the suite needs is installed, it is a plain failure instead.

Universal Ctags (Debian's universal-ctags) finds the definitions - free functions, members defined
in or out of their class, in namespaces, templates, Qt slots - with the line of the function's name
and the line of its closing brace; the span is end - line + 1, from the signature to the brace.
clang-tidy's readability-function-size, which held ui/, app/ and python/ before (it still holds
core/ with .clang-tidy's full check set), counts from the opening brace's line to the closing one's:
one line less than the span for a brace on the signature's line, two for a brace on its own line
(the house style), more for a multi-line signature or a constructor's initializer list. So a span
of at most the limit is never looser than clang-tidy's 150: a function it flags (151 lines or more)
spans at least 152. On seven files of app/, ui/ and python/ and three headers, the two found the
same 72 functions (all over 5 or 10 lines) at the same lines: the span 2 more in 69, 3 for a
two-line signature, 14 and 22 for two constructors' initializer lists.
A lambda counts inside its enclosing function, as clang-tidy counts it; a lambda outside any
function (clang-tidy skips those) is held to the limit on its own.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

DEFAULT_FOLDERS = ["ui", "app", "python"]
CTAGS_ARGS = ["--options=NONE", "--quiet", "--output-format=json", "--languages=C++", "--kinds-C++=f",
              "--fields=+ne", "--extras=+f", "-R", "-f", "-"]


class CannotCheck(Exception):
    """The check could not run; `missing_tool` when it is for want of ctags (Not Run outside CI)."""

    def __init__(self, message, missing_tool=False):
        super().__init__(message)
        self.missing_tool = missing_tool


def find_ctags(path):
    ctags = path or shutil.which("ctags-universal") or shutil.which("ctags")
    hint = "install Universal Ctags (Debian package universal-ctags; packaging/install-deps.sh)"
    if not ctags or not (os.path.isfile(ctags) and os.access(ctags, os.X_OK)):
        raise CannotCheck(f"no ctags at {ctags or 'PATH'}: {hint}", missing_tool=True)
    try:
        version = subprocess.run([ctags, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise CannotCheck(f"{ctags} --version failed ({e}): {hint}", missing_tool=True)
    if not version.startswith("Universal Ctags") or "+json" not in version:
        first = version.splitlines()[0] if version else "no version"
        raise CannotCheck(f"{ctags} is not Universal Ctags with JSON output ({first}): {hint}",
                          missing_tool=True)
    return ctags


def qualified(tag):
    """Class::name for a member, namespaces and anonymous scopes (ctags' __anon...) left out."""
    if tag["name"].startswith("__anon"):
        return "(lambda)"
    if tag.get("scopeKind") in ("class", "struct", "union"):
        scope = [part for part in tag["scope"].split("::") if not part.startswith("__anon")]
        if scope:
            return f"{scope[-1]}::{tag['name']}"
    return tag["name"]


def read_tags(ctags, folders):
    """(files, functions): the C++ files ctags read under the folders and their function
    definitions as (path, line, end, name), lambdas inside functions left to their function."""
    for folder in folders:
        if not os.path.isdir(folder):
            raise CannotCheck(f"{folder} is not a folder (under {os.getcwd()})")
    run = subprocess.run([ctags, *CTAGS_ARGS, *folders], capture_output=True, text=True)
    if run.returncode != 0:
        raise CannotCheck(f"ctags exited {run.returncode}: {run.stderr.strip()}")
    files, functions = [], []
    for text in run.stdout.splitlines():
        try:
            tag = json.loads(text)
        except ValueError:
            raise CannotCheck(f"ctags wrote a line that is not JSON: {text[:200]}")
        if tag.get("_type") != "tag":
            continue
        if tag.get("kind") == "file":
            files.append(tag["path"])
        elif tag.get("kind") == "function" and tag.get("scopeKind") != "function":
            if "end" not in tag:
                raise CannotCheck(f"{tag['path']}:{tag['line']}: ctags gave no end line for "
                                  f"{tag['name']}")
            functions.append((tag["path"], tag["line"], tag["end"], qualified(tag)))
    for folder in folders:
        if not any(os.path.commonpath([folder, path]) == os.path.normpath(folder) for path in files):
            raise CannotCheck(f"ctags found no C++ file under {folder}")
    if not functions:
        raise CannotCheck(f"ctags found no function definition in {len(files)} C++ file(s) under "
                          f"{' '.join(folders)}: a check that sees nothing cannot fail")
    return files, functions


def check_ends(functions):
    """A closing line without a brace means ctags misread the function: say so, do not trust it."""
    lines_of = {}
    for path, line, end, name in functions:
        if path not in lines_of:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines_of[path] = f.read().split("\n")
        lines = lines_of[path]
        if not 1 <= line <= end <= len(lines) or "}" not in lines[end - 1]:
            raise CannotCheck(f"{path}:{line}: ctags puts the end of {name} at line {end}, "
                              f"which does not close it; the span cannot be trusted")


def check(folders, limit, ctags):
    files, functions = read_tags(ctags, folders)
    check_ends(functions)
    spans = [(path, line, end - line + 1, name) for path, line, end, name in functions]
    over = [f for f in spans if f[2] > limit]
    for path, line, span, name in sorted(over):
        print(f"{path}:{line}: function {name} is {span} lines (limit {limit})", flush=True)
    if over:
        print(f"function_sizes: {len(over)} function(s) over {limit} lines: split each into steps that "
              f"read in one screen", file=sys.stderr)
        return 1
    path, line, span, name = min(spans, key=lambda f: (-f[2], f[0], f[1]))  # the first of the longest
    print(f"function_sizes: {len(files)} files under {' '.join(folders)}, {len(functions)} functions, "
          f"none over {limit} lines; the longest {path}:{line} {name}, {span} lines")
    return 0


def body(count, indent="    "):
    return [f"{indent}total += {i};" for i in range(count)]


# spans: over 151 lines (from "int over" to its "}"), exact 150, the inline overInline 151, the slot
# onChanged 150 with a 61-line lambda in it (counted in the slot, not on its own), tick 1
FREE_CPP = ['#include "widget.h"', "", "namespace demo {", "namespace {",
            "int over(int total)", "{", *body(148), "}", "",
            "int exact(int total)", "{", *body(146), "    return total;", "}", "}", "",
            "void Widget::onChanged(int total)", "{", "    auto step = [&](int i) {", *body(58, " " * 8),
            "        return i;", "    };", *body(86), "}", "}  // namespace demo"]
WIDGET_H = ["#pragma once", "#include <QObject>", "", "namespace demo {",
            "class Widget : public QObject {", "    Q_OBJECT", "public:",
            "    int overInline(int total) {", *body(148, " " * 8), "        return total;", "    }",
            "signals:", "    void changed(int);", "public slots:", "    void onChanged(int total);",
            "private Q_SLOTS:", "    void tick() { emit changed(1); }", "};", "}"]


def self_test(ctags):
    """Writes functions of known spans and runs this script on them as CI would."""
    find_ctags(ctags)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:

        def write(path, lines):
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")

        def run(folder, *args):
            ctags_args = ["--ctags", ctags] if ctags else []
            command = [sys.executable, os.path.abspath(__file__), *ctags_args, *args, folder]
            return subprocess.run(command, capture_output=True, text=True, cwd=tmp)

        def expect(what, result, code, lines, mentions=""):
            """The exit code, stdout's lines and a phrase of stderr; the output of a wrong case is
            indented, so that a child's "not run" never makes the self-test itself Not Run."""
            out = result.stdout.splitlines()
            if result.returncode != code or out != lines or mentions not in result.stderr:
                output = "".join(f"  | {text}\n" for text in (result.stdout + result.stderr).splitlines())
                failures.append(f"{what}: wanted exit {code}, {lines} and '{mentions}', "
                                f"got exit {result.returncode}:\n{output}")

        write("src/free.cpp", FREE_CPP)
        write("src/widget.h", WIDGET_H)
        expect("a 151-line function and a 151-line inline method, beside 150-line ones", run("src"), 1,
               ["src/free.cpp:5: function over is 151 lines (limit 150)",
                "src/widget.h:8: function Widget::overInline is 151 lines (limit 150)"])
        expect("the same at --limit 151", run("src", "--limit", "151"), 0,
               ["function_sizes: 2 files under src, 5 functions, none over 151 lines; "
                "the longest src/free.cpp:5 over, 151 lines"])
        os.mkdir(os.path.join(tmp, "empty"))
        expect("a folder without C++", run("empty"), 2, [], "no C++ file")
        write("empty/decl.h", ["#pragma once", "int declared(int);", "struct S { void m(); };"])
        expect("declarations only", run("empty"), 2, [], "no function definition")
        expect("no ctags", run("src", "--ctags", os.path.join(tmp, "none")), 2, [], "universal-ctags")
    for failure in failures:
        print(failure, end="", flush=True)
    if failures:
        print(f"function_sizes self-test: {len(failures)} case(s) wrong", file=sys.stderr)
        return 1
    print("function_sizes self-test: catches 151 lines in a function and an inline method, passes 150, "
          "refuses to pass on no C++, no functions, no ctags")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*", default=DEFAULT_FOLDERS)
    parser.add_argument("--limit", type=int, default=150)
    parser.add_argument("--ctags", help="Universal Ctags (default: ctags-universal or ctags on PATH)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args(argv[1:])
    try:
        if args.self_test:
            return self_test(args.ctags)
        return check(args.folders, args.limit, find_ctags(args.ctags))
    except CannotCheck as e:
        if e.missing_tool and os.environ.get("CI") != "true":
            print(f"function_sizes: not run: {e}", file=sys.stderr)
        elif e.missing_tool:
            print(f"function_sizes: cannot run under CI: {e}", file=sys.stderr)
        else:
            print(f"function_sizes: cannot run: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
