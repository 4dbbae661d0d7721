# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a torch.save file holds, read without torch and without executing anything: the pickle is
replayed by an Unpickler that knows only stand-ins for the globals torch's safe loader allows, the
storages are located in the file (zip entries from their local headers, legacy storages after the
pickles), and the tensors come out in file order with their storage key, offset, shape and strides.

Used by make_torch_files.py (the absolute offsets of expected.json), by make_hostile.py's and
check_torch_files.py's self-tests. Only the standard library.
"""
import collections
import io
import pickle
import struct
import zipfile

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001

# torch's typed storage classes → (our dtype name, element size)
STORAGE_DTYPES = {
    "FloatStorage": ("F32", 4),
    "DoubleStorage": ("F64", 8),
    "HalfStorage": ("F16", 2),
    "BFloat16Storage": ("BF16", 2),
    "LongStorage": ("I64", 8),
    "IntStorage": ("I32", 4),
    "ShortStorage": ("I16", 2),
    "CharStorage": ("I8", 1),
    "ByteStorage": ("U8", 1),
    "BoolStorage": ("Bool", 1),
    "ComplexFloatStorage": ("complex64", 8),
    "ComplexDoubleStorage": ("complex128", 16),
    "QInt8Storage": ("qint8", 1),
    "QUInt8Storage": ("quint8", 1),
    "QInt32Storage": ("qint32", 4),
}


class StorageType:
    def __init__(self, name):
        self.name = name
        self.dtype, self.elsize = STORAGE_DTYPES[name]


class StorageRef:
    """A persistent id ('storage', type, key, location, numel[, view_metadata])."""

    def __init__(self, pid):
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"persistent id is not a storage: {pid!r}")
        if not isinstance(pid[1], StorageType):
            raise pickle.UnpicklingError(f"persistent id's storage type is {pid[1]!r}")
        self.type = pid[1]
        self.key = pid[2]
        self.location = pid[3]
        self.numel = pid[4]
        self.view_metadata = pid[5] if len(pid) > 5 else None


class TensorRef:
    def __init__(self, storage, storage_offset, size, stride, requires_grad=False):
        self.storage = storage
        self.storage_offset = storage_offset
        self.size = tuple(size)
        self.stride = tuple(stride)
        self.requires_grad = requires_grad

    @property
    def dtype(self):
        return self.storage.type.dtype

    @property
    def elsize(self):
        return self.storage.type.elsize

    @property
    def numel(self):
        n = 1
        for s in self.size:
            n *= s
        return n


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    if not isinstance(storage, StorageRef):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: first argument is not a storage: {storage!r}")
    return TensorRef(storage, storage_offset, size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return data


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad, backward_hooks):
    if not isinstance(storage, StorageRef):
        raise pickle.UnpicklingError(f"_rebuild_qtensor: first argument is not a storage: {storage!r}")
    return TensorRef(storage, storage_offset, size, stride, requires_grad)


ALLOWED = {("collections", "OrderedDict"): collections.OrderedDict,
           ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
           ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
           ("torch._utils", "_rebuild_qtensor"): _rebuild_qtensor,
           ("torch", "per_tensor_affine"): "per_tensor_affine"}
ALLOWED.update({("torch", name): StorageType(name) for name in STORAGE_DTYPES})


class Refused(Exception):
    """A global (or an operation) the stand-in machine does not allow."""


class StubUnpickler(pickle._Unpickler):
    """The pure-Python unpickler with stand-ins: never imports, never calls anything but the stubs
    above; BUILD only on an OrderedDict (the state dict's `_metadata`)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def find_class(self, module, name):
        try:
            return ALLOWED[(module, name)]
        except KeyError:
            raise Refused(f"global {module} {name}") from None

    def persistent_load(self, pid):
        return StorageRef(pid)

    def load_build(self):
        inst = self.stack[-2]
        if type(inst) is not collections.OrderedDict:
            raise Refused(f"BUILD on {type(inst).__name__}")
        pickle._Unpickler.load_build(self)

    dispatch[pickle.BUILD[0]] = load_build

    def load_reduce(self):
        func = self.stack[-2]
        if not any(func is v for v in ALLOWED.values()):
            raise Refused(f"REDUCE of {func!r}")
        pickle._Unpickler.load_reduce(self)

    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_inst(self):
        module = self.readline()[:-1].decode("ascii")
        name = self.readline()[:-1].decode("ascii")
        self.find_class(module, name)  # refuses what is not allowed, by name
        raise Refused(f"INST of {module} {name}")

    dispatch[pickle.INST[0]] = load_inst

    for _op in (pickle.OBJ, pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2, pickle.EXT4):
        def _refuse(self, _name=_op):
            raise Refused(f"opcode {_name!r}")
        dispatch[_op[0]] = _refuse


def stub_loads(data):
    return StubUnpickler(io.BytesIO(data)).load()


def walk(obj, path=()):
    """(path components, value) of every tensor-like leaf, in file order: dict insertion order,
    depth first, list/tuple elements by index. Iterative (a hostile pickle may nest deeply)."""
    out = []
    stack = [(path, obj)]
    while stack:
        p, o = stack.pop()
        if isinstance(o, dict):
            stack.extend(reversed([(p + (key_text(k),), v) for k, v in o.items()]))
        elif isinstance(o, (list, tuple)):
            stack.extend(reversed([(p + (str(i),), v) for i, v in enumerate(o)]))
        elif is_tensor(o):
            out.append((p, o))
    return out


def is_tensor(o):
    if isinstance(o, TensorRef):
        return True
    t = type(o)
    return t.__module__.startswith("torch") and hasattr(o, "storage_offset") and hasattr(o, "stride")


def key_text(k):
    if isinstance(k, bool):
        return str(k)
    if isinstance(k, int):
        return str(k)
    if isinstance(k, bytes):
        return k.decode("utf-8", "replace")
    return str(k)


class ZipEntry:
    def __init__(self, name, header_offset, data_start, compress_size, file_size, compress_type):
        self.name = name
        self.header_offset = header_offset
        self.data_start = data_start
        self.compress_size = compress_size
        self.file_size = file_size
        self.compress_type = compress_type


def zip_entries(path):
    """name → ZipEntry, the data start read from each entry's own local header."""
    entries = {}
    with open(path, "rb") as f, zipfile.ZipFile(path) as z:
        for info in z.infolist():
            f.seek(info.header_offset)
            head = f.read(30)
            if len(head) != 30 or head[:4] != b"PK\x03\x04":
                raise ValueError(f"{path}: {info.filename}: no local header at {info.header_offset}")
            name_len, extra_len = struct.unpack("<HH", head[26:30])
            entries[info.filename] = ZipEntry(info.filename, info.header_offset, info.header_offset + 30 + name_len + extra_len,
                                              info.compress_size, info.file_size, info.compress_type)
    return entries


class TorchFile:
    """A torch.save file: format, the unpickled object (stand-ins for tensors), its tensors in file
    order, and where each storage's bytes start in the file."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            head = f.read(4)
        if head == b"PK\x03\x04":
            self._read_zip()
        else:
            self._read_legacy()
        self.tensors = walk(self.obj)

    def _read_zip(self):
        self.format = "zip"
        self.entries = zip_entries(self.path)
        pkl = [n for n in self.entries if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pkl) != 1:
            raise ValueError(f"{self.path}: {len(pkl)} data.pkl entries")
        self.archive = pkl[0][: -len("/data.pkl")]
        with zipfile.ZipFile(self.path) as z:
            self.pickle_bytes = z.read(pkl[0])
        self.obj = stub_loads(self.pickle_bytes)
        self.storage_start = {}
        self.storage_bytes = {}
        for name, e in self.entries.items():
            prefix = self.archive + "/data/"
            if name.startswith(prefix):
                key = name[len(prefix):]
                self.storage_start[key] = e.data_start if e.compress_type == zipfile.ZIP_STORED else None
                self.storage_bytes[key] = e.file_size

    def _read_legacy(self):
        self.format = "legacy"
        with open(self.path, "rb") as f:
            magic = pickle.load(f)
            if magic != LEGACY_MAGIC:
                raise ValueError(f"{self.path}: not a torch file (magic {magic!r})")
            protocol = pickle.load(f)
            if protocol != LEGACY_PROTOCOL:
                raise ValueError(f"{self.path}: legacy protocol {protocol}")
            self.sys_info = pickle.load(f)
            start = f.tell()
            u = StubUnpickler(f)
            self.obj = u.load()
            self.pickle_bytes = None
            end = f.tell()
            f.seek(start)
            self.pickle_bytes = f.read(end - start)
            self.keys = pickle.load(f)
            self.storage_start = {}
            self.storage_bytes = {}
            elsize = {}
            for _, t in walk(self.obj):
                elsize[t.storage.key] = t.elsize
            for key in self.keys:
                count_bytes = f.read(8)
                if len(count_bytes) != 8:
                    raise ValueError(f"{self.path}: storage {key}: truncated count")
                count, = struct.unpack("<q", count_bytes)
                start = f.tell()
                nbytes = count * elsize.get(key, 1)
                self.storage_start[key] = start
                self.storage_bytes[key] = nbytes
                f.seek(start + nbytes)
                if f.tell() > _size(f):
                    raise ValueError(f"{self.path}: storage {key}: truncated")

    def offset(self, t):
        """Absolute offset of the first element of tensor t (a TensorRef), or None."""
        start = self.storage_start.get(t.storage.key)
        if start is None:
            return None
        return start + t.storage_offset * t.elsize


def _size(f):
    here = f.tell()
    f.seek(0, io.SEEK_END)
    n = f.tell()
    f.seek(here)
    return n


def path_text(components):
    return ".".join(components)
