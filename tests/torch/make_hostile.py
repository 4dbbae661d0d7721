#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_hostile.py OUTDIR [--pwned PATH] — files a safe PyTorch reader must refuse, and OUTDIR/hostile.json.

Written without torch: the pickles are assembled opcode by opcode, the zip files with zipfile and
struct. Every file must make `ckpt` exit 1 with one message that names the file and contains the
case's keyword (`expect`). A payload that would act if a pickle machine executed it runs
`touch PWNED_PATH` (default OUTDIR/PWNED), so a checker can prove that nothing ran.

Each pickle payload sits where a real state dict's value would (after a real tensor) and is written
twice: as a zip-format .pt (ARCHIVE/data.pkl, ARCHIVE/data/KEY, ARCHIVE/version "3\\n", stored, as
torch 1.13 writes them) and, where the case means something there, as a legacy-format file
(NAME.legacy.pt: magic, protocol, sys info, the pickle, the storage keys, the raw storages).

hostile.json: [{"file", "what", "expect", "format", "selftest", "pwned"}]; `selftest` says what
check_torch_files.py --self-test proves about the file without ckpt.
"""
import json
import os
import pickle
import shlex
import struct
import sys
import zipfile

# ---------------------------------------------------------------------------------------------
# A pickle assembler

STOP, MARK, TUPLE, EMPTY_TUPLE = b".", b"(", b"t", b")"
TUPLES = {1: b"\x85", 2: b"\x86", 3: b"\x87"}
REDUCE, BUILD, BINPERSID, POP = b"R", b"b", b"Q", b"0"
EMPTY_DICT, EMPTY_LIST, SETITEM, SETITEMS, APPENDS = b"}", b"]", b"s", b"u", b"e"
NONE, FALSE = b"N", b"\x89"
OBJ, NEWOBJ, NEWOBJ_EX, STACK_GLOBAL = b"o", b"\x81", b"\x92", b"\x93"
BINGET, BINPUT = b"h", b"q"
BINUNICODE8, BINBYTES8 = b"\x8d", b"\x8e"

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_SYS_INFO = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
BOMB_BYTES = 257 * 1024 * 1024  # inflates past the contract's 256 MiB limit


def proto(n):
    return b"\x80" + bytes([n])


def s(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def i(n):
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if -(2 ** 31) <= n < 2 ** 31:
        return b"J" + struct.pack("<i", n)
    b = pickle.encode_long(n)
    return b"\x8a" + bytes([len(b)]) + b


def g(module, name):
    return b"c" + f"{module}\n{name}\n".encode()


def sg(module, name):
    return s(module) + s(name) + STACK_GLOBAL


def tup(*items):
    if not items:
        return EMPTY_TUPLE
    if len(items) <= 3:
        return b"".join(items) + TUPLES[len(items)]
    return MARK + b"".join(items) + TUPLE


def call(fn, *args):
    return fn + tup(*args) + REDUCE


def odict(*pairs):
    out = call(g("collections", "OrderedDict"))
    if pairs:
        out += MARK + b"".join(k + v for k, v in pairs) + SETITEMS
    return out


def storage(key, numel, legacy, stype="FloatStorage"):
    items = [s("storage"), g("torch", stype), s(key), s("cpu"), i(numel)]
    if legacy:
        items.append(NONE)
    return tup(*items) + BINPERSID


def tensor(key, numel, offset, size, stride, legacy):
    return call(g("torch._utils", "_rebuild_tensor_v2"), storage(key, numel, legacy), i(offset),
                tup(*map(i, size)), tup(*map(i, stride)), FALSE, odict())


def floats(n, start=0.0):
    return b"".join(struct.pack("<f", start + k * 0.25) for k in range(n))


# ---------------------------------------------------------------------------------------------
# Containers


def zip_bytes(members, archive="archive"):
    """members: [(name inside the archive, bytes)] → a zip as torch 1.13 writes one (stored, no byteorder)."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(f"{archive}/{name}", date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, data)
    return buf.getvalue()


def torch_zip(pkl, storages):
    """storages: [(key, bytes)]"""
    return zip_bytes([("data.pkl", pkl)] + [(f"data/{k}", data) for k, data in storages] + [("version", b"3\n")])


def legacy(pkl, storages):
    """storages: [(key, element count, bytes)]"""
    head = pickle.dumps(LEGACY_MAGIC, protocol=2) + pickle.dumps(1001, protocol=2) + pickle.dumps(LEGACY_SYS_INFO, protocol=2)
    keys = pickle.dumps([k for k, _, _ in storages], protocol=2)
    return head + pkl + keys + b"".join(struct.pack("<q", n) + data for _, n, data in storages)


# ---------------------------------------------------------------------------------------------
# The cases


class Corpus:
    def __init__(self, outdir, pwned):
        self.out = outdir
        self.pwned = pwned
        self.cmd = "touch " + shlex.quote(pwned)
        self.entries = []

    def write(self, name, data, what, expect, fmt, selftest):
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)
        self.entries.append({"file": name, "what": what, "expect": expect, "format": fmt, "selftest": selftest,
                             "pwned": self.pwned})

    def payload(self, name, what, expect, value, selftest, protocol=2, forms=("zip", "legacy"), extra=None):
        """A state dict {"fc.weight": a real 2x2 tensor, "fc.bias": VALUE}: the hostile value follows
        a tensor a reader may already have accepted. value(legacy) → bytes; extra(legacy) → more
        storages [(key, numel, bytes)] the value refers to."""
        for form in forms:
            is_legacy = form == "legacy"
            pkl = (proto(protocol) + odict((s("fc.weight"), tensor("0", 4, 0, (2, 2), (2, 1), is_legacy)),
                                           (s("fc.bias"), value(is_legacy))) + STOP)
            storages = [("0", 4, floats(4))] + (extra(is_legacy) if extra else [])
            if is_legacy:
                data = legacy(pkl, storages)
                fname = f"{name}.legacy.pt"
            else:
                data = torch_zip(pkl, [(k, b) for k, _, b in storages])
                fname = f"{name}.pt"
            self.write(fname, data, what, expect, form, dict(selftest, pickle=len(pkl)))

    def state_dict(self, size, stride, offset, numel, data, form, key="0"):
        """A state dict of one tensor; (pickle, file bytes)."""
        is_legacy = form == "legacy"
        pkl = proto(2) + odict((s("weight"), tensor(key, numel, offset, size, stride, is_legacy))) + STOP
        if is_legacy:
            return pkl, legacy(pkl, [(key, len(data) // 4, data)])
        return pkl, torch_zip(pkl, [(key, data)])


def pickle_cases(c):
    cmd = c.cmd
    refused = lambda m, n: {"refused_global": f"{m} {n}"}  # noqa: E731
    c.payload("global_os_system", "GLOBAL os system, called on 'touch PWNED' by REDUCE", "system",
              lambda _: call(g("os", "system"), s(cmd)), refused("os", "system"))
    c.payload("stack_global_posix_system", "STACK_GLOBAL posix system (protocol 4), called by REDUCE", "system",
              lambda _: call(sg("posix", "system"), s(cmd)), refused("posix", "system"), protocol=4)
    c.payload("global_builtins_eval", "builtins eval of a string that runs os.system", "eval",
              lambda _: call(g("builtins", "eval"), s(f"__import__('os').system({cmd!r})")), refused("builtins", "eval"))
    c.payload("global_builtins_exec", "builtins exec of a string that runs os.system", "exec",
              lambda _: call(g("builtins", "exec"), s(f"import os; os.system({cmd!r})")), refused("builtins", "exec"))
    c.payload("global_subprocess_popen", "subprocess Popen(('touch', PWNED))", "popen",
              lambda _: call(g("subprocess", "Popen"), tup(s("touch"), s(c.pwned))), refused("subprocess", "Popen"))
    c.payload("global_builtins_import", "builtins __import__('os'), memoised, then getattr(os, 'system')(cmd)",
              "__import__",
              lambda _: (call(g("builtins", "__import__"), s("os")) + BINPUT + b"\x01" + POP
                         + call(call(g("builtins", "getattr"), BINGET + b"\x01", s("system")), s(cmd))),
              refused("builtins", "__import__"))
    c.payload("global_functools_partial", "functools partial(os.system, cmd)() — a call hidden in a partial",
              "partial", lambda _: call(call(g("functools", "partial"), g("os", "system"), s(cmd))),
              refused("functools", "partial"))
    c.payload("global_builtins_getattr", "builtins getattr(__import__('os'), 'system')(cmd)", "getattr",
              lambda _: call(call(g("builtins", "getattr"), call(g("builtins", "__import__"), s("os")), s("system")),
                             s(cmd)), refused("builtins", "getattr"))
    c.payload("inst_subprocess_check_call", "INST subprocess check_call (('touch', PWNED),)", "check_call",
              lambda _: MARK + tup(s("touch"), s(c.pwned)) + b"i" + b"subprocess\ncheck_call\n",
              refused("subprocess", "check_call"))
    c.payload("obj_subprocess_getoutput", "OBJ of subprocess getoutput with cmd", "getoutput",
              lambda _: MARK + g("subprocess", "getoutput") + s(cmd) + OBJ, refused("subprocess", "getoutput"))
    c.payload("newobj_code_interactiveconsole", "NEWOBJ of code InteractiveConsole", "interactiveconsole",
              lambda _: g("code", "InteractiveConsole") + EMPTY_TUPLE + NEWOBJ, refused("code", "InteractiveConsole"))
    c.payload("newobj_ex_io_fileio", "NEWOBJ_EX (protocol 4) of io FileIO(PWNED, 'w')", "fileio",
              lambda _: sg("io", "FileIO") + tup(s(c.pwned), s("w")) + EMPTY_DICT + NEWOBJ_EX,
              refused("io", "FileIO"), protocol=4)
    c.payload("reduce_rebuild_two_args", "REDUCE of the allowed torch._utils _rebuild_tensor_v2 with 2 arguments",
              "rebuild", lambda lg: call(g("torch._utils", "_rebuild_tensor_v2"), storage("1", 4, lg), i(0)),
              {"stub_error": "TypeError"}, extra=lambda _: [("1", 4, floats(4))])
    c.payload("build_on_list", "BUILD with a dict state on a list", "build",
              lambda _: EMPTY_LIST + EMPTY_DICT + MARK + s("append") + s("x") + SETITEMS + BUILD, {"build_refused": True})
    c.payload("build_on_tensor", "BUILD on a tensor (torch 1.13's safe loader calls set_ with it: 2^40 elements)",
              "build",
              lambda lg: tensor("1", 4, 0, (4,), (1,), lg) + tup(storage("1", 4, lg), i(0), tup(i(2 ** 40)), tup(i(1))) + BUILD,
              {"build_refused": True}, extra=lambda _: [("1", 4, floats(4))])
    c.payload("memo_unset", "BINGET 7 with nothing in the memo", "memo", lambda _: BINGET + b"\x07",
              {"pickle_error": "memo"})
    c.payload("opcode_0xff", "the unknown opcode 0xff", "opcode", lambda _: b"\xff", {"pickle_error": "opcode"})
    c.payload("length_binunicode", "BINUNICODE claiming 4 GiB - 16 bytes, with a few bytes left", "length",
              lambda _: b"X" + struct.pack("<I", 0xFFFFFFF0) + b"abc", {"pickle_error": "length"})
    c.payload("length_binunicode8", "BINUNICODE8 (protocol 4) claiming 2^40 bytes", "length",
              lambda _: BINUNICODE8 + struct.pack("<Q", 2 ** 40) + b"abc", {"pickle_error": "length"}, protocol=4)
    c.payload("length_binbytes8", "BINBYTES8 (protocol 4) claiming 2^40 bytes", "length",
              lambda _: BINBYTES8 + struct.pack("<Q", 2 ** 40) + b"abc", {"pickle_error": "length"}, protocol=4)
    n = 100000
    c.payload("deep_lists_100000", f"lists nested {n} deep (EMPTY_LIST MARK ... APPENDS)", "deep",
              lambda _: (EMPTY_LIST + MARK) * n + EMPTY_LIST + APPENDS * n, {"deep": n + 1})
    c.payload("deep_lists_1001", "lists nested 1001 deep, just past the contract's 1,000", "deep",
              lambda _: (EMPTY_LIST + MARK) * 1000 + EMPTY_LIST + APPENDS * 1000, {"deep": 1001})
    c.payload("deep_tuples_1001", "tuples nested 1001 deep (MARK ... TUPLE)", "deep",
              lambda _: MARK * 1000 + EMPTY_TUPLE + TUPLE * 1000, {"deep": 1001})
    c.payload("deep_dicts_1001", "dicts nested 1001 deep (EMPTY_DICT key ... SETITEM)", "deep",
              lambda _: (EMPTY_DICT + s("a")) * 1000 + EMPTY_DICT + SETITEM * 1000, {"deep": 1001})


def storage_cases(c):
    # a storage key that climbs out of the archive; the archive holds an entry of that name
    pkl, _ = c.state_dict((2, 2), (2, 1), 0, 4, floats(4), "zip", key="../../etc/passwd")
    data = torch_zip(pkl, [("../../etc/passwd", floats(4))])
    c.write("storage_key_traversal.pt", data, "storage key ../../etc/passwd (and a zip entry archive/data/../../etc/passwd)",
            "storage key", "zip", {"tensor_check": "storage_key", "pickle": len(pkl)})
    for form in ("zip", "legacy"):
        ext = ".legacy.pt" if form == "legacy" else ".pt"
        pkl, data = c.state_dict((4, 4), (4, 1), 0, 2, floats(2), form)
        c.write("storage_short_view" + ext, data, "a [4, 4] float view of a storage of 2 elements (8 bytes)", "storage",
                form, {"tensor_check": "short_view", "pickle": len(pkl)})
        pkl, data = c.state_dict((4,), (-1,), 3, 4, floats(4), form)
        c.write("negative_stride" + ext, data, "stride -1 (offset 3) over a storage of 4", "stride", form,
                {"tensor_check": "negative_stride", "pickle": len(pkl)})
        pkl, data = c.state_dict((2 ** 32, 2 ** 32, 16), (2 ** 36, 16, 1), 0, 4, floats(4), form)
        c.write("shape_overflow" + ext, data, "shape [2^32, 2^32, 16]: 2^68 elements", "shape", form,
                {"tensor_check": "shape_overflow", "pickle": len(pkl)})
    pkl, _ = c.state_dict((4, 4), (4, 1), 0, 16, floats(16), "zip")
    data = torch_zip(pkl, [("0", floats(2))])
    c.write("storage_short_entry.pt", data, "the persistent id says 16 elements, the entry holds 8 bytes", "storage", "zip",
            {"tensor_check": "short_entry", "pickle": len(pkl)})
    pkl = proto(2) + odict((s("weight"), tensor("0", 16, 0, (4, 4), (4, 1), True))) + STOP
    data = legacy(pkl, [("0", 16, floats(16))])
    c.write("legacy_truncated_storage.legacy.pt", data[:-44], "a legacy file cut in its storage area (20 of 64 bytes)",
            "storage", "legacy", {"legacy_truncated": True, "pickle": len(pkl)})


def zip_cases(c):
    pkl, good = c.state_dict((2, 2), (2, 1), 0, 4, floats(4), "zip")
    cd = good.rfind(b"PK\x01\x02")  # the last central directory record
    c.write("zip_truncated.pt", good[: cd + 20], "a zip cut inside its central directory", "zip", "zip",
            {"zip_error": "truncated"})
    # the central directory's local-header offset of every entry points past the end of the file
    data = bytearray(good)
    pos = data.find(b"PK\x01\x02")
    while pos >= 0:
        struct.pack_into("<I", data, pos + 42, len(good) + 4096)
        pos = data.find(b"PK\x01\x02", pos + 4)
    c.write("zip_local_offset_past_end.pt", bytes(data), "every central directory entry's local header offset is past the end",
            "zip", "zip", {"zip_error": "local_offset"})
    # a deflated data.pkl of 257 MiB (a well-formed BINBYTES8 of zeros), streamed into zipfile
    path = os.path.join(c.out, "zip_bomb.pt")
    chunk = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        info = zipfile.ZipInfo("archive/data.pkl", date_time=ZIP_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w", force_zip64=True) as f:
            payload = BOMB_BYTES - 2 - 9 - 1
            f.write(proto(4) + BINBYTES8 + struct.pack("<Q", payload))
            left = payload
            while left:
                n = min(left, len(chunk))
                f.write(chunk[:n])
                left -= n
            f.write(STOP)
        info = zipfile.ZipInfo("archive/version", date_time=ZIP_TIME)
        z.writestr(info, b"3\n")
    c.entries.append({"file": "zip_bomb.pt", "what": f"data.pkl deflated: {os.path.getsize(path)} bytes inflate to "
                      f"{BOMB_BYTES} (past 256 MiB)", "expect": "inflate", "format": "zip",
                      "selftest": {"bomb": BOMB_BYTES}, "pwned": c.pwned})


def write_all(outdir, pwned):
    os.makedirs(outdir, exist_ok=True)
    if os.path.exists(os.path.join(outdir, "PWNED")):
        os.remove(os.path.join(outdir, "PWNED"))
    c = Corpus(outdir, pwned)
    pickle_cases(c)
    storage_cases(c)
    zip_cases(c)
    with open(os.path.join(outdir, "hostile.json.tmp"), "w") as f:
        json.dump(c.entries, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(outdir, "hostile.json.tmp"), os.path.join(outdir, "hostile.json"))
    return c.entries


def main(argv):
    args = argv[1:]
    pwned = None
    if "--pwned" in args:
        k = args.index("--pwned")
        pwned = args[k + 1]
        del args[k:k + 2]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: make_hostile.py OUTDIR [--pwned PATH]", file=sys.stderr)
        return 2
    outdir = os.path.abspath(args[0])
    entries = write_all(outdir, pwned or os.path.join(outdir, "PWNED"))
    big = [e["file"] for e in entries if os.path.getsize(os.path.join(outdir, e["file"])) > 400 * 1024]
    if big:
        print(f"make_hostile: too large: {big}", file=sys.stderr)
        return 1
    print(f"make_hostile: {len(entries)} files in {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
