// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The opcodes are those of CPython's Lib/pickletools.py (protocols 0-5). What a call may construct is
// the list torch 1.13's _weights_only_unpickler allows, done here on data: no name is ever resolved.
#include "core/torch/pickle.h"

#include "core/torch/pickleops.h"
#include "core/util/charconv.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace ckpt::torch {

namespace {

/** The typed storage classes torch pickles (torch/storage.py), their element type and size. */
struct StorageClass {
    std::string_view cls;
    StorageType type;
};
constexpr std::array<StorageClass, 18> kStorageClasses = {{
    {"FloatStorage", {"float32", 4}},
    {"DoubleStorage", {"float64", 8}},
    {"HalfStorage", {"float16", 2}},
    {"BFloat16Storage", {"bfloat16", 2}},
    {"LongStorage", {"int64", 8}},
    {"IntStorage", {"int32", 4}},
    {"ShortStorage", {"int16", 2}},
    {"CharStorage", {"int8", 1}},
    {"ByteStorage", {"uint8", 1}},
    {"BoolStorage", {"bool", 1}},
    {"ComplexHalfStorage", {"complex32", 4}},
    {"ComplexFloatStorage", {"complex64", 8}},
    {"ComplexDoubleStorage", {"complex128", 16}},
    {"QUInt8Storage", {"quint8", 1}},
    {"QInt8Storage", {"qint8", 1}},
    {"QInt32Storage", {"qint32", 4}},
    {"QUInt4x2Storage", {"quint4x2", 1}},
    {"QUInt2x4Storage", {"quint2x4", 1}},
}};

/**
 * The globals torch.load(weights_only=True) lets a pickle name (torch/_weights_only_unpickler.py's
 * _get_allowed_globals, 1.13 to 2.x): the value each stands for is built below, never looked up.
 */
bool allowedGlobal(std::string_view name)
{
    static constexpr std::string_view kAllowed[] = {"collections.OrderedDict", "torch.nn.parameter.Parameter", "torch.serialization._get_layout", "torch.Size",
        "torch.Tensor", "torch.device", "torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
        "torch._utils._rebuild_parameter_with_state", "torch._utils._rebuild_qtensor", "torch._utils._rebuild_sparse_tensor",
        "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_sparse_csr_tensor", "torch._tensor._rebuild_from_type_v2",
        "torch.per_tensor_affine", "torch.per_channel_affine", "_codecs.encode", "builtins.set", "builtins.frozenset", "builtins.bytearray"};
    for (std::string_view a : kAllowed)
        if (name == a)
            return true;
    if (name.starts_with("torch.") && name.ends_with("Storage"))
        return !storageType(name.substr(6)).torchName.empty();
    // the dtypes: torch.float32, torch.bfloat16, torch.int8, torch.bool, torch.complex64, torch.quint8, ...
    static constexpr std::string_view kDTypes[] = {"float16", "float32", "float64", "bfloat16", "half", "float", "double", "int8", "int16", "int32", "int64",
        "uint8", "bool", "complex32", "complex64", "complex128", "quint8", "qint8", "qint32", "quint4x2", "quint2x4", "float8_e4m3fn", "float8_e5m2", "uint16",
        "uint32", "uint64", "long", "int", "short", "cfloat", "cdouble"};
    if (name.starts_with("torch."))
        for (std::string_view d : kDTypes)
            if (name.substr(6) == d)
                return true;
    return false;
}

/** The dataclasses of a Distributed Checkpoint's .metadata (torch 1.13's _shard package and 2.x's), read as plain records. */
bool dcpClass(std::string_view name)
{
    static constexpr std::string_view kModules[] = {"torch.distributed.checkpoint.metadata.", "torch.distributed._shard.checkpoint.metadata.",
        "torch.distributed.checkpoint.filesystem.", "torch.distributed._shard.checkpoint.filesystem.", "torch.distributed._shard.sharded_tensor.metadata."};
    static constexpr std::string_view kClasses[] = {"Metadata", "TensorStorageMetadata", "BytesStorageMetadata", "ChunkStorageMetadata", "MetadataIndex",
        "TensorProperties", "StorageMeta", "_StorageInfo", "MEM_FORMAT_ENCODING"};
    for (std::string_view m : kModules)
        if (name.starts_with(m))
            for (std::string_view c : kClasses)
                if (name.substr(m.size()) == c)
                    return true;
    return false;
}

} // namespace

StorageType storageType(std::string_view storageClass)
{
    for (const auto& c : kStorageClasses)
        if (c.cls == storageClass)
            return c.type;
    return {};
}

std::optional<std::string_view> storageClassOf(std::string_view torchName)
{
    for (const auto& c : kStorageClasses)
        if (c.type.torchName == torchName)
            return c.cls;
    return std::nullopt;
}

namespace {

/** The machine: a stack and mark stack of object indices, the memo, the arena. */
class Machine {
public:
    Machine(std::span<const uint8_t> bytes, const PickleOptions& options)
        : m_in(bytes)
        , m_options(options)
    { }

    Result<Pickled> run()
    {
        while (true) {
            if (m_pos >= m_in.size())
                return fail(ErrorCode::Truncated, "the pickle ends before its STOP opcode", m_pos);
            m_op = m_pos;
            const uint8_t op = m_in[m_pos++];
            if (op == '.')
                break;
            if (auto done = step(op); !done)
                return std::unexpected(done.error());
        }
        if (m_stack.size() != 1 || !m_marks.empty())
            return fail(ErrorCode::Malformed, "pickle: STOP with " + std::to_string(m_stack.size()) + " objects on the stack (expected 1)", m_op);
        m_out.root = m_stack.back();
        m_out.end = m_pos;
        return std::move(m_out);
    }

private:
    Result<void> step(uint8_t op);
    Result<void> pushConstant(uint8_t op);
    Result<void> pushText(uint8_t op);
    Result<void> containerOp(uint8_t op);
    Result<void> memoOp(uint8_t op);
    Result<void> callOp(uint8_t op);
    Result<void> reduce(uint32_t callable, uint32_t args);
    Result<uint32_t> rebuildTensor(std::string_view fn, const std::vector<uint32_t>& args, uint64_t at);
    Result<uint32_t> persistentLoad(uint32_t pid);
    Result<void> build();
    void setItems(uint32_t dict, const std::vector<uint32_t>& pairs);

    std::unexpected<Error> bad(std::string what, ErrorCode code = ErrorCode::Malformed) const { return fail(code, "pickle: " + std::move(what), m_op); }
    std::unexpected<Error> refuse(std::string what) const { return bad(std::move(what), ErrorCode::Unsupported); }

    // --- reading the opcode's argument
    Result<std::span<const uint8_t>> take(uint64_t n)
    {
        if (n > m_in.size() - m_pos)
            return fail(ErrorCode::Limit, "pickle: a length of " + std::to_string(n) + " bytes, but only " + std::to_string(m_in.size() - m_pos) + " are left",
                m_op);
        auto s = m_in.subspan(m_pos, n);
        m_pos += n;
        return s;
    }
    Result<uint64_t> uintLE(unsigned width)
    {
        auto s = take(width);
        if (!s)
            return std::unexpected(s.error());
        uint64_t v = 0;
        for (unsigned i = width; i-- > 0;)
            v = (v << 8) | (*s)[i];
        return v;
    }
    Result<std::string_view> line()
    {
        const auto* begin = m_in.data() + m_pos;
        const auto* nl = static_cast<const uint8_t*>(std::memchr(begin, '\n', m_in.size() - m_pos));
        if (!nl)
            return fail(ErrorCode::Truncated, "pickle: a text argument without its newline", m_op);
        std::string_view s(reinterpret_cast<const char*>(begin), size_t(nl - begin));
        m_pos += s.size() + 1;
        return s;
    }

    // --- the arena and the stack
    uint32_t make(PyObject o)
    {
        o.offset = m_op;
        m_out.objects.push_back(std::move(o));
        return uint32_t(m_out.objects.size() - 1);
    }
    uint32_t push(PyObject o)
    {
        const uint32_t i = make(std::move(o));
        m_stack.push_back(i);
        return i;
    }
    Result<uint32_t> pop()
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() == m_marks.back()))
            return bad("an opcode needs an object but the stack is empty");
        const uint32_t v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    Result<uint32_t> top()
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() == m_marks.back()))
            return bad("an opcode needs an object but the stack is empty");
        return m_stack.back();
    }
    /** The objects above the topmost mark, which is removed (the form of APPENDS, SETITEMS, TUPLE, ...). */
    Result<std::vector<uint32_t>> popMark()
    {
        if (m_marks.empty())
            return bad("an opcode needs a MARK but none is open");
        const size_t at = m_marks.back();
        m_marks.pop_back();
        std::vector<uint32_t> items(m_stack.begin() + std::ptrdiff_t(at), m_stack.end());
        m_stack.resize(at);
        return items;
    }
    PyObject& obj(uint32_t i) { return m_out.objects[i]; }
    const char* kindName(uint32_t i);

    std::span<const uint8_t> m_in;
    PickleOptions m_options;
    uint64_t m_pos = 0;
    uint64_t m_op = 0;
    std::vector<uint32_t> m_stack;
    std::vector<size_t> m_marks;
    std::unordered_map<uint64_t, uint32_t> m_memo;
    /** Each dict's str and int keys and their place in its items (SETITEM of a key given again replaces its value). */
    std::unordered_map<uint32_t, std::unordered_map<std::string, size_t>> m_dictKeys;
    Pickled m_out;
};

const char* Machine::kindName(uint32_t i)
{
    static constexpr const char* kNames[] = {"None", "bool", "int", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "global", "tensor",
        "storage", "object"};
    return kNames[static_cast<size_t>(obj(i).kind)];
}

Result<void> Machine::step(uint8_t op)
{
    switch (classify(op)) {
    case OpClass::Constant: return pushConstant(op);
    case OpClass::Text: return pushText(op);
    case OpClass::Container: return containerOp(op);
    case OpClass::Memo: return memoOp(op);
    case OpClass::Call: return callOp(op);
    case OpClass::Frame: {
        if (op == kProto) {
            auto v = take(1);
            if (!v)
                return std::unexpected(v.error());
            if ((*v)[0] > 5)
                return refuse("protocol " + std::to_string((*v)[0]) + " (this reader knows 0 to 5)");
            m_out.protocol = (*v)[0];
            return {};
        }
        auto n = uintLE(8); // FRAME: a hint of the next frame's size; the opcodes themselves are read as usual
        if (!n)
            return std::unexpected(n.error());
        return {};
    }
    case OpClass::Refused: {
        std::string what; // the class an INST or OBJ would instantiate, named
        if (op == kInst) {
            auto m = line();
            auto n = m ? line() : m;
            if (n)
                what = ": " + std::string(*m) + "." + std::string(*n);
        } else if (op == kObj && !m_marks.empty() && m_marks.back() < m_stack.size() && obj(m_stack[m_marks.back()]).kind == PyKind::Global) {
            what = ": " + obj(m_stack[m_marks.back()]).s;
        }
        return refuse(std::string("opcode ") + opName(op) + " is refused (" + refusedWhy(op) + ")" + what);
    }
    case OpClass::Unknown: break;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    return bad(std::string("unknown opcode ") + hex);
}

Result<void> Machine::pushConstant(uint8_t op)
{
    switch (op) {
    case kNone: push({PyKind::None}); return {};
    case kNewTrue:
    case kNewFalse: push({.kind = PyKind::Bool, .flag = op == kNewTrue}); return {};
    case kBinInt1:
    case kBinInt2:
    case kBinInt: {
        auto v = uintLE(op == kBinInt1 ? 1 : op == kBinInt2 ? 2 : 4);
        if (!v)
            return std::unexpected(v.error());
        push({.kind = PyKind::Int, .i = op == kBinInt ? int64_t(int32_t(uint32_t(*v))) : int64_t(*v)});
        return {};
    }
    case kLong1:
    case kLong4: {
        auto n = uintLE(op == kLong1 ? 1 : 4);
        if (!n)
            return std::unexpected(n.error());
        auto digits = take(*n);
        if (!digits)
            return std::unexpected(digits.error());
        PyObject o{.kind = PyKind::Int};
        if (digits->size() <= 8) {
            uint64_t v = 0;
            for (size_t i = digits->size(); i-- > 0;)
                v = (v << 8) | (*digits)[i];
            if (!digits->empty() && digits->size() < 8 && ((*digits)[digits->size() - 1] & 0x80))
                v |= ~uint64_t(0) << (8 * digits->size()); // sign-extend
            o.i = int64_t(v);
        } else {
            o.kind = PyKind::BigInt;
            o.s.assign(digits->begin(), digits->end());
        }
        push(std::move(o));
        return {};
    }
    case kBinFloat: {
        auto v = uintLE(8);
        if (!v)
            return std::unexpected(v.error());
        uint64_t be = 0;
        for (int i = 0; i < 8; ++i)
            be = (be << 8) | ((*v >> (8 * i)) & 0xff); // BINFLOAT is big-endian
        double d;
        std::memcpy(&d, &be, 8);
        push({.kind = PyKind::Float, .f = d});
        return {};
    }
    default: break;
    }
    // protocol 0's text numbers: INT (with 00/01 for False/True), LONG (trailing L), FLOAT
    auto text = line();
    if (!text)
        return std::unexpected(text.error());
    std::string_view t = *text;
    if (op == kFloat) {
        double d = 0;
        auto [p, ec] = fromCharsDouble(t.data(), t.data() + t.size(), d);
        if (ec != std::errc() || p != t.data() + t.size())
            return bad("FLOAT expects a decimal number, found '" + std::string(t.substr(0, 40)) + "'");
        push({.kind = PyKind::Float, .f = d});
        return {};
    }
    if (op == kLong && t.ends_with('L'))
        t.remove_suffix(1);
    if (op == kInt && (t == "00" || t == "01")) {
        push({.kind = PyKind::Bool, .flag = t == "01"});
        return {};
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
        return refuse("a text integer that is not a 64-bit decimal ('" + std::string(t.substr(0, 40)) + "')");
    push({.kind = PyKind::Int, .i = v});
    return {};
}

Result<void> Machine::pushText(uint8_t op)
{
    if (op == kString || op == kUnicode) {
        // protocol 0: a quoted repr / raw-unicode-escape line; torch never writes these, they are read verbatim
        auto t = line();
        if (!t)
            return std::unexpected(t.error());
        std::string s(*t);
        if (op == kString && s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
            s = s.substr(1, s.size() - 2);
        push({.kind = PyKind::Str, .s = std::move(s)});
        return {};
    }
    unsigned width = 0;
    PyKind kind = PyKind::Str;
    switch (op) {
    case kShortBinUnicode: width = 1; break;
    case kBinUnicode: width = 4; break;
    case kBinUnicode8: width = 8; break;
    case kShortBinString: width = 1; break;
    case kBinString: width = 4; break;
    case kShortBinBytes:
        width = 1;
        kind = PyKind::Bytes;
        break;
    case kBinBytes:
        width = 4;
        kind = PyKind::Bytes;
        break;
    case kBinBytes8:
    case kByteArray8:
        width = 8;
        kind = PyKind::Bytes;
        break;
    default: return bad("internal: not a text opcode");
    }
    auto n = uintLE(width);
    if (!n)
        return std::unexpected(n.error());
    auto bytes = take(*n);
    if (!bytes)
        return std::unexpected(bytes.error());
    push({.kind = kind, .s = std::string(bytes->begin(), bytes->end())});
    return {};
}

Result<void> Machine::containerOp(uint8_t op)
{
    switch (op) {
    case kMark: m_marks.push_back(m_stack.size()); return {};
    case kEmptyList: push({PyKind::List}); return {};
    case kEmptyTuple: push({PyKind::Tuple}); return {};
    case kEmptyDict: push({PyKind::Dict}); return {};
    case kEmptySet: push({PyKind::Set}); return {};
    case kPop:
    case kPopMark: {
        Result<void> done;
        if (op == kPop) {
            if (auto v = pop(); !v)
                done = std::unexpected(v.error());
        } else if (auto v = popMark(); !v) {
            done = std::unexpected(v.error());
        }
        return done;
    }
    case kDup: {
        auto t = top();
        if (!t)
            return std::unexpected(t.error());
        m_stack.push_back(*t);
        return {};
    }
    case kTuple1:
    case kTuple2:
    case kTuple3: {
        const size_t n = size_t(op - kTuple1) + 1;
        std::vector<uint32_t> items(n);
        for (size_t i = n; i-- > 0;) {
            auto v = pop();
            if (!v)
                return std::unexpected(v.error());
            items[i] = *v;
        }
        push({.kind = PyKind::Tuple, .items = std::move(items)});
        return {};
    }
    case kTuple:
    case kList:
    case kDict:
    case kFrozenSet: {
        auto items = popMark();
        if (!items)
            return std::unexpected(items.error());
        if (op == kDict && items->size() % 2)
            return bad("DICT with an odd number of items");
        if (op == kDict) {
            const uint32_t dict = push({.kind = PyKind::Dict});
            setItems(dict, *items);
            return {};
        }
        push({.kind = op == kTuple ? PyKind::Tuple : op == kList ? PyKind::List : PyKind::Set, .items = std::move(*items)});
        return {};
    }
    default: break;
    }
    // the mutators: APPEND(S) to a list, SETITEM(S) on a dict, ADDITEMS to a set
    std::vector<uint32_t> items;
    if (op == kAppend || op == kSetItem) {
        for (int n = op == kSetItem ? 2 : 1; n-- > 0;) {
            auto v = pop();
            if (!v)
                return std::unexpected(v.error());
            items.insert(items.begin(), *v);
        }
    } else {
        auto marked = popMark();
        if (!marked)
            return std::unexpected(marked.error());
        items = std::move(*marked);
    }
    auto target = top();
    if (!target)
        return std::unexpected(target.error());
    const PyKind want = op == kAppend || op == kAppends ? PyKind::List : op == kAddItems ? PyKind::Set : PyKind::Dict;
    if (obj(*target).kind != want)
        return refuse(std::string(opName(op)) + " on a " + kindName(*target) + " (only on the built-in list, dict and set)");
    if (want == PyKind::Dict && items.size() % 2)
        return bad("SETITEMS with an odd number of items");
    if (want == PyKind::Dict) {
        setItems(*target, items);
        return {};
    }
    auto& dest = obj(*target).items;
    dest.insert(dest.end(), items.begin(), items.end());
    return {};
}

void Machine::setItems(uint32_t dict, const std::vector<uint32_t>& pairs)
{
    // as Python's dict: a key given again keeps its place and takes the new value (str and int keys,
    // the only ones a state dict has; others are appended)
    auto& keys = m_dictKeys[dict];
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const PyObject& k = obj(pairs[i]);
        std::string text;
        if (k.kind == PyKind::Str)
            text = "s" + k.s;
        else if (k.kind == PyKind::Int)
            text = "i" + std::to_string(k.i);
        auto& items = obj(dict).items;
        if (!text.empty()) {
            auto [it, fresh] = keys.emplace(std::move(text), items.size());
            if (!fresh) {
                items[it->second + 1] = pairs[i + 1];
                continue;
            }
        }
        items.push_back(pairs[i]);
        items.push_back(pairs[i + 1]);
    }
}

Result<void> Machine::memoOp(uint8_t op)
{
    uint64_t index = 0;
    if (op == kGet || op == kPut) {
        auto t = line();
        if (!t)
            return std::unexpected(t.error());
        auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), index);
        if (ec != std::errc() || p != t->data() + t->size())
            return bad("a memo index that is not a decimal number");
    } else if (op == kMemoize) {
        index = m_memo.size();
    } else {
        auto v = uintLE(op == kBinGet || op == kBinPut ? 1 : 4);
        if (!v)
            return std::unexpected(v.error());
        index = *v;
    }
    if (op == kGet || op == kBinGet || op == kLongBinGet) {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            return bad("memo slot " + std::to_string(index) + " is read before it is set");
        m_stack.push_back(it->second);
        return {};
    }
    auto t = top();
    if (!t)
        return std::unexpected(t.error());
    m_memo[index] = *t;
    return {};
}

Result<void> Machine::callOp(uint8_t op)
{
    switch (op) {
    case kGlobal:
    case kStackGlobal: {
        std::string module, name;
        if (op == kGlobal) {
            auto m = line();
            if (!m)
                return std::unexpected(m.error());
            module = *m;
            auto n = line();
            if (!n)
                return std::unexpected(n.error());
            name = *n;
        } else {
            auto n = pop();
            auto m = n ? pop() : n;
            if (!m)
                return std::unexpected(m.error());
            if (obj(*m).kind != PyKind::Str || obj(*n).kind != PyKind::Str)
                return bad("STACK_GLOBAL expects two strings");
            module = obj(*m).s;
            name = obj(*n).s;
        }
        const std::string full = module + "." + name;
        const bool dcp = m_options.dcpMetadata && (dcpClass(full) || full == "builtins.getattr" || full == "pathlib.PosixPath");
        if (!allowedGlobal(full) && !dcp)
            return refuse(
                "refused global " + full + ": only the globals torch.load(weights_only=True) allows are read, and nothing is ever imported or called");
        push({.kind = PyKind::Global, .s = full});
        return {};
    }
    case kReduce: {
        auto args = pop();
        auto callable = args ? pop() : args;
        if (!callable)
            return std::unexpected(callable.error());
        return reduce(*callable, *args);
    }
    case kNewObj: {
        auto args = pop();
        auto cls = args ? pop() : args;
        if (!cls)
            return std::unexpected(cls.error());
        if (obj(*cls).kind == PyKind::Global && obj(*cls).s == "collections.OrderedDict") {
            push({.kind = PyKind::Dict, .flag = true});
            return {};
        }
        if (m_options.dcpMetadata && obj(*cls).kind == PyKind::Global && dcpClass(obj(*cls).s)) {
            push({.kind = PyKind::Object, .s = obj(*cls).s});
            return {};
        }
        return refuse("NEWOBJ of " + std::string(obj(*cls).kind == PyKind::Global ? obj(*cls).s : kindName(*cls)) + " (only OrderedDict)");
    }
    case kBuild: return build();
    case kBinPersId: {
        auto pid = pop();
        if (!pid)
            return std::unexpected(pid.error());
        auto s = persistentLoad(*pid);
        if (!s)
            return std::unexpected(s.error());
        m_stack.push_back(*s);
        return {};
    }
    case kPersId: return refuse("a persistent id as text (PERSID): torch writes BINPERSID");
    default: return bad("internal: not a call opcode");
    }
}

Result<void> Machine::build()
{
    auto state = pop();
    auto target = state ? top() : state;
    if (!target)
        return std::unexpected(target.error());
    const PyObject& t = obj(*target);
    // An OrderedDict's attributes (a state dict's _metadata) are kept aside, as torch does. A BUILD on
    // anything else would call its __setstate__; torch.save never writes one on a tensor (a tensor's
    // Python state travels in _rebuild_from_type_v2), and ignoring it would show a different tensor.
    if (t.kind == PyKind::Dict && t.flag)
        return {};
    if (t.kind == PyKind::Object) { // a Distributed Checkpoint's dataclass: its state is recorded, nothing is called
        obj(*target).items = {*state};
        return {};
    }
    return refuse(std::string("BUILD on a ") + kindName(*target) + " (only on an OrderedDict)");
}

Result<uint32_t> Machine::persistentLoad(uint32_t pid)
{
    const PyObject& t = obj(pid);
    auto item = [&](size_t i) -> const PyObject& {
        return obj(t.items[i]);
    };
    if (t.kind != PyKind::Tuple || t.items.size() < 5 || item(0).kind != PyKind::Str || item(0).s != "storage")
        return refuse("a persistent id that is not ('storage', type, key, location, numel)");
    if (item(1).kind != PyKind::Global || !item(1).s.starts_with("torch.") || item(2).kind != PyKind::Str || item(3).kind != PyKind::Str
        || item(4).kind != PyKind::Int || item(4).i < 0)
        return bad("a storage's persistent id needs a storage type, a key, a location and a size");
    PickledStorage s;
    s.type = item(1).s.substr(6);
    s.key = item(2).s;
    s.location = item(3).s;
    s.numel = uint64_t(item(4).i);
    s.offset = m_op;
    auto plainKey = [](std::string_view k) {
        return !k.empty() && k.size() <= 64 && k.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string_view::npos;
    };
    if (!plainKey(s.key))
        return refuse("storage key '" + s.key.substr(0, 80) + "' is not a plain name (torch writes decimal keys; a path is never followed)");
    if (t.items.size() > 5 && item(5).kind == PyKind::Tuple) {
        // legacy format: (view key, offset, size) of a view into the storage
        const PyObject& view = item(5);
        if (view.items.size() != 3 || obj(view.items[0]).kind != PyKind::Str || obj(view.items[1]).kind != PyKind::Int || obj(view.items[2]).kind != PyKind::Int
            || obj(view.items[1]).i < 0 || obj(view.items[2]).i < 0)
            return bad("a storage view needs (key, offset, size)");
        s.viewOf = s.key;
        s.key = obj(view.items[0]).s;
        s.viewOffset = uint64_t(obj(view.items[1]).i);
        s.numel = uint64_t(obj(view.items[2]).i);
        if (!plainKey(s.key))
            return refuse("storage key '" + s.key.substr(0, 80) + "' is not a plain name");
    }
    m_out.storages.push_back(std::move(s));
    return make({.kind = PyKind::Storage, .ref = uint32_t(m_out.storages.size() - 1)});
}

/** Reads an Int argument \a i of \a args as a non-negative count. */
std::optional<uint64_t> count(const std::vector<PyObject>& objects, uint32_t i)
{
    const PyObject& o = objects[i];
    if (o.kind != PyKind::Int || o.i < 0)
        return std::nullopt;
    return uint64_t(o.i);
}

Result<uint32_t> Machine::rebuildTensor(std::string_view fn, const std::vector<uint32_t>& args, uint64_t at)
{
    // _rebuild_tensor(storage, storage_offset, size, stride); _v2 adds requires_grad, backward_hooks[,
    // metadata]; _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad, hooks)
    const bool q = fn == "torch._utils._rebuild_qtensor";
    const size_t need = fn == "torch._utils._rebuild_tensor" ? 4 : q ? 7 : 6;
    if (args.size() < need || args.size() > need + 1 || obj(args[0]).kind != PyKind::Storage)
        return bad(std::string(fn) + " takes (storage, offset, size, stride, ...): " + std::to_string(args.size()) + " arguments given to rebuild a tensor");
    PickledTensor t;
    t.storage = obj(args[0]).ref;
    t.offset = at;
    t.quantized = q;
    auto offset = count(m_out.objects, args[1]);
    if (!offset)
        return bad("a tensor's storage offset must be a non-negative int");
    t.storageOffset = *offset;
    const PyObject& size = obj(args[2]);
    const PyObject& stride = obj(args[3]);
    if (size.kind != PyKind::Tuple || stride.kind != PyKind::Tuple || size.items.size() != stride.items.size() || size.items.size() > 64)
        return bad("a tensor's size and stride must be tuples of one length (at most 64)");
    for (size_t d = 0; d < size.items.size(); ++d) {
        auto n = count(m_out.objects, size.items[d]);
        if (!n)
            return bad("a tensor's shape must be non-negative ints");
        t.shape.push_back(*n);
        const PyObject& s = obj(stride.items[d]);
        if (s.kind != PyKind::Int || s.i < 0)
            return refuse("a tensor's stride must be a non-negative int (torch never writes a negative stride)");
        t.stride.push_back(s.i);
    }
    if (!q && need == 6)
        t.requiresGrad = obj(args[4]).kind == PyKind::Bool && obj(args[4]).flag;
    m_out.tensors.push_back(std::move(t));
    return make({.kind = PyKind::Tensor, .ref = uint32_t(m_out.tensors.size() - 1)});
}

Result<void> Machine::reduce(uint32_t callable, uint32_t argsIndex)
{
    if (obj(callable).kind != PyKind::Global)
        return refuse(std::string("REDUCE of a ") + kindName(callable) + " (only an allowed global is called)");
    if (obj(argsIndex).kind != PyKind::Tuple)
        return bad("REDUCE's arguments must be a tuple");
    const std::string fn = obj(callable).s;
    const std::vector<uint32_t> args = obj(argsIndex).items;
    auto arg = [&](size_t i) -> const PyObject& {
        return obj(args[i]);
    };
    auto nargs = [&](size_t lo, size_t hi) {
        return args.size() >= lo && args.size() <= hi;
    };
    if (fn == "collections.OrderedDict" && args.empty()) {
        push({.kind = PyKind::Dict, .flag = true});
        return {};
    }
    if (fn == "torch._utils._rebuild_tensor" || fn == "torch._utils._rebuild_tensor_v2" || fn == "torch._utils._rebuild_qtensor") {
        auto t = rebuildTensor(fn, args, m_op);
        if (!t)
            return std::unexpected(t.error());
        m_stack.push_back(*t);
        return {};
    }
    if ((fn == "torch._utils._rebuild_parameter" && nargs(3, 3)) || (fn == "torch._utils._rebuild_parameter_with_state" && nargs(4, 4))) {
        if (arg(0).kind != PyKind::Tensor)
            return bad(fn + " expects a tensor");
        m_out.tensors[arg(0).ref].parameter = true;
        m_stack.push_back(args[0]);
        return {};
    }
    if (fn == "torch._tensor._rebuild_from_type_v2" && nargs(4, 4)) {
        // (func, type, args, state): the function must itself be an allowed rebuild, the type a tensor
        if (arg(0).kind != PyKind::Global || arg(1).kind != PyKind::Global || arg(2).kind != PyKind::Tuple
            || (arg(1).s != "torch.Tensor" && arg(1).s != "torch.nn.parameter.Parameter"))
            return refuse(fn + " of anything but a torch.Tensor or Parameter");
        if (auto inner = reduce(args[0], args[2]); !inner)
            return inner;
        if (arg(1).s == "torch.nn.parameter.Parameter" && obj(m_stack.back()).kind == PyKind::Tensor)
            m_out.tensors[obj(m_stack.back()).ref].parameter = true;
        return {};
    }
    if (fn == "torch.Size" && nargs(0, 1)) {
        push({.kind = PyKind::Tuple, .items = args.empty() ? std::vector<uint32_t>{} : arg(0).items});
        return {};
    }
    if ((fn == "torch.device" && nargs(1, 2) && arg(0).kind == PyKind::Str)
        || (fn == "torch.serialization._get_layout" && nargs(1, 1) && arg(0).kind == PyKind::Str)) {
        std::string s = arg(0).s;
        if (args.size() == 2 && arg(1).kind == PyKind::Int)
            s += ":" + std::to_string(arg(1).i);
        push({.kind = PyKind::Str, .s = std::move(s)});
        return {};
    }
    if (fn == "_codecs.encode" && nargs(2, 2) && arg(0).kind == PyKind::Str && arg(1).kind == PyKind::Str && arg(1).s == "latin1") {
        // protocol 2's bytes: the text's code points (all below 256) are the bytes
        std::string out;
        const std::string& in = arg(0).s;
        for (size_t i = 0; i < in.size(); ++i) {
            const auto c = uint8_t(in[i]);
            if (c < 0x80)
                out += char(c);
            else if ((c & 0xe0) == 0xc0 && i + 1 < in.size() && c <= 0xc3)
                out += char(((c & 0x1f) << 6) | (uint8_t(in[++i]) & 0x3f));
            else
                return bad("_codecs.encode(..., 'latin1') of a character above U+00FF");
        }
        push({.kind = PyKind::Bytes, .s = std::move(out)});
        return {};
    }
    if ((fn == "builtins.set" || fn == "builtins.frozenset") && nargs(0, 1)) {
        push({.kind = PyKind::Set, .items = args.empty() ? std::vector<uint32_t>{} : arg(0).items});
        return {};
    }
    if (m_options.dcpMetadata && fn == "builtins.getattr" && nargs(2, 2) && arg(0).kind == PyKind::Global && arg(0).s.ends_with(".MEM_FORMAT_ENCODING")
        && arg(1).kind == PyKind::Str) {
        push({.kind = PyKind::Str, .s = "MEM_FORMAT_ENCODING." + arg(1).s});
        return {};
    }
    if (m_options.dcpMetadata && fn == "pathlib.PosixPath") { // StorageMeta's checkpoint_id: the path's parts joined
        std::string path;
        for (uint32_t a : args)
            if (obj(a).kind == PyKind::Str)
                path += (path.empty() || path.ends_with('/') ? "" : "/") + obj(a).s;
        push({.kind = PyKind::Str, .s = std::move(path)});
        return {};
    }
    if (fn == "builtins.bytearray" && nargs(0, 1) && (args.empty() || arg(0).kind == PyKind::Bytes)) {
        push({.kind = PyKind::Bytes, .s = args.empty() ? std::string() : arg(0).s});
        return {};
    }
    return refuse("REDUCE of " + fn + " with " + std::to_string(args.size()) + " arguments is not a construction this reader makes"
        + (fn.find("sparse") != std::string::npos || fn.find("meta") != std::string::npos ? " (sparse and meta tensors are not read)" : "")
        + " (wrong arguments to rebuild a tensor, or a call torch's safe loader would also refuse)");
}

} // namespace

Result<Pickled> unpickle(std::span<const uint8_t> bytes, const PickleOptions& options)
{
    return Machine(bytes, options).run();
}

} // namespace ckpt::torch
