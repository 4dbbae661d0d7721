// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! `burnpack OUT_DIR`: Burn 0.22 burnpack (`.bpk`) files written the way burn-pack's `Writer` writes
//! them (docs/format-burnpack.md §2, §3, §4, §7), with every CBOR head pushed through the real
//! `ciborium_ll::Encoder` — the encoder ciborium 0.2.2's serde serializer writes through — so the
//! head widths and the float narrowing (`Header::Float(f64)` → binary16/32/64) are the crate's, not
//! ours. Burn itself is not compiled (not packaged); the serde mapping of burn-pack's
//! `Metadata`/`TensorDescriptor`/`DType`/`Scalar` onto heads is spelled out below, call by call as
//! ciborium's `Serializer` makes it:
//!
//! | serde call (ciborium 0.2.2 `ser/mod.rs`)      | ciborium-ll                                   |
//! |-----------------------------------------------|-----------------------------------------------|
//! | `serialize_struct(_, n)` (n = written fields) | `push(Header::Map(Some(n)))`                  |
//! | `serialize_map(Some(n))` (BTreeMap)           | `push(Header::Map(Some(n)))`, keys in order   |
//! | `serialize_seq(Some(n))` / `serialize_tuple`  | `push(Header::Array(Some(n)))`                |
//! | `serialize_str(s)` / unit variant name        | `Header::Text(Some(len))` + bytes = `text(s, None)` |
//! | `serialize_newtype_variant(_, _, "V", x)`     | `push(Header::Map(Some(1)))`, `"V"`, x        |
//! | `serialize_u64(v)`                            | `push(Header::Positive(v))`                   |
//! | `serialize_i64(v)`                            | `Positive(v as u64)` / `Negative(v as u64 ^ !0)` |
//! | `serialize_f64(v)`                            | `push(Header::Float(v))`                      |
//! | `serialize_bool(b)`                           | `push(Header::Simple(simple::TRUE/FALSE))`    |
//!
//! Every file is read back here (header, metadata decoded with `ciborium_ll::Decoder` into a JSON
//! tree compared with the intended content, offsets, padding, payloads), and the fixed byte
//! sequences the spec spells out (§3.4, §3.5) are looked for in the output, so a disagreement
//! between the spec and the crate stops the generator with both spellings.

use crate::record::param_id_string;
use crate::summary::{fnv1a64, FNV_OFFSET};
use ciborium_io::Read as _;
use ciborium_ll::{simple, Decoder, Encoder, Header};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// burn-pack `MAGIC_NUMBER` (`"NRUB"` on disk), `FORMAT_VERSION`, `HEADER_SIZE`, alignment (§2, §4).
const MAGIC: u32 = 0x4255_524E;
const VERSION: u16 = 1;
const HEADER_SIZE: usize = 10;
const ALIGN: u64 = 256;

/// burn-std 0.22 `DType` (the variants written here) with `BoolStore`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum DType {
    F32,
    F16,
    BF16,
    I64,
    U8,
    /// `Bool(BoolStore::Native)`: a newtype variant, `{"Bool": "Native"}`.
    BoolNative,
}

impl DType {
    fn size(self) -> u64 {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I64 => 8,
            DType::U8 | DType::BoolNative => 1,
        }
    }
    /// The name `ckpt tensors --json` prints (the variant).
    fn name(self) -> &'static str {
        match self {
            DType::F32 => "F32",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::I64 => "I64",
            DType::U8 => "U8",
            DType::BoolNative => "Bool",
        }
    }
    /// The value as serde writes it, as JSON.
    fn cbor_json(self) -> Value {
        match self {
            DType::BoolNative => json!({"Bool": "Native"}),
            d => json!(d.name()),
        }
    }
    /// Element values as f64 (f16/bf16 widened exactly, ints and bools as numbers).
    fn values(self, bytes: &[u8]) -> Vec<f64> {
        let n = self.size() as usize;
        bytes
            .chunks_exact(n)
            .map(|c| match self {
                DType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                DType::F16 => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
                DType::BF16 => half::bf16::from_le_bytes([c[0], c[1]]).to_f64(),
                DType::I64 => i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64,
                DType::U8 | DType::BoolNative => c[0] as f64,
            })
            .collect()
    }
}

/// burn-pack `Scalar`: four newtype variants.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    fn to_json(self) -> Value {
        match self {
            Scalar::Int(v) => json!({"variant": "Int", "value": v}),
            Scalar::UInt(v) => json!({"variant": "UInt", "value": v}),
            Scalar::Float(v) => json!({"variant": "Float", "value": v, "f64_bits": format!("{:016x}", v.to_bits())}),
            Scalar::Bool(v) => json!({"variant": "Bool", "value": v}),
        }
    }
    /// As serde derives it onto a JSON tree (`{"UInt": 7}`), for the read-back comparison.
    fn serde_json(self) -> Value {
        match self {
            Scalar::Int(v) => json!({"Int": v}),
            Scalar::UInt(v) => json!({"UInt": v}),
            Scalar::Float(v) => json!({"Float": v}),
            Scalar::Bool(v) => json!({"Bool": v}),
        }
    }
}

/// One entry of the writer's tensor list (list order = physical order).
struct Tensor {
    name: String,
    dtype: DType,
    shape: Vec<u64>,
    param_id: Option<u64>,
    bytes: Vec<u8>,
}

/// What `Writer::new(tensors).with_metadata(..).with_scalars(..)` is given.
struct Pack {
    file: &'static str,
    /// What `ckpt info` must call it (`kind`).
    kind: &'static str,
    description: &'static str,
    tensors: Vec<Tensor>,
    metadata: BTreeMap<String, String>,
    scalars: BTreeMap<String, Scalar>,
}

/// burn-pack `TensorDescriptor`.
struct Descriptor {
    dtype: DType,
    shape: Vec<u64>,
    data_offsets: (u64, u64),
    param_id: Option<u64>,
}

fn align(x: u64) -> u64 {
    (x + ALIGN - 1) / ALIGN * ALIGN
}

/// §7 step 1: offsets in list order, each start aligned to 256, relative to the data section; the
/// descriptors in a name-keyed BTreeMap (a repeated name is refused, as 0.22 does).
fn plan(p: &Pack) -> Result<(BTreeMap<String, Descriptor>, Vec<(u64, u64)>, u64), String> {
    let mut map = BTreeMap::new();
    let mut ranges = Vec::new();
    let mut cur = 0u64;
    for t in &p.tensors {
        let numel: u64 = t.shape.iter().product();
        if numel * t.dtype.size() != t.bytes.len() as u64 {
            return Err(format!("{}: {}: byte_len {} != numel {} x size {}", p.file, t.name, t.bytes.len(), numel, t.dtype.size()));
        }
        let start = align(cur);
        let end = start + t.bytes.len() as u64;
        cur = end;
        ranges.push((start, end));
        let d = Descriptor { dtype: t.dtype, shape: t.shape.clone(), data_offsets: (start, end), param_id: t.param_id };
        if map.insert(t.name.clone(), d).is_some() {
            return Err(format!("{}: Duplicate tensor name {}", p.file, t.name));
        }
    }
    Ok((map, ranges, cur))
}

type Enc<'a> = Encoder<&'a mut Vec<u8>>;
type IoResult = std::io::Result<()>;

/// `serialize_str` (ciborium 0.2.2 pushes `Header::Text(Some(len))` and the bytes: `text(s, None)`).
fn put_str(e: &mut Enc, s: &str) -> IoResult {
    e.text(s, None)
}

fn put_u64(e: &mut Enc, v: u64) -> IoResult {
    e.push(Header::Positive(v))
}

fn put_i64(e: &mut Enc, v: i64) -> IoResult {
    e.push(if v.is_negative() { Header::Negative(v as u64 ^ !0) } else { Header::Positive(v as u64) })
}

/// `DType`'s derived Serialize: unit variants by name, `Bool(BoolStore)` a newtype variant whose
/// payload is the unit variant `Native`.
fn put_dtype(e: &mut Enc, d: DType) -> IoResult {
    match d {
        DType::BoolNative => {
            e.push(Header::Map(Some(1)))?;
            put_str(e, "Bool")?;
            put_str(e, "Native")
        }
        other => put_str(e, other.name()),
    }
}

/// `TensorDescriptor`: struct {dtype, shape, data_offsets, param_id (skip_serializing_if None)}.
fn put_descriptor(e: &mut Enc, d: &Descriptor) -> IoResult {
    e.push(Header::Map(Some(if d.param_id.is_some() { 4 } else { 3 })))?;
    put_str(e, "dtype")?;
    put_dtype(e, d.dtype)?;
    put_str(e, "shape")?;
    e.push(Header::Array(Some(d.shape.len())))?;
    for &x in &d.shape {
        put_u64(e, x)?;
    }
    put_str(e, "data_offsets")?;
    e.push(Header::Array(Some(2)))?; // a (u64, u64) tuple: serialize_tuple(2)
    put_u64(e, d.data_offsets.0)?;
    put_u64(e, d.data_offsets.1)?;
    if let Some(id) = d.param_id {
        put_str(e, "param_id")?;
        put_u64(e, id)?; // Some(x) serializes x
    }
    Ok(())
}

/// `Scalar`'s derived Serialize: newtype variants → 1-entry maps.
fn put_scalar(e: &mut Enc, s: Scalar) -> IoResult {
    e.push(Header::Map(Some(1)))?;
    match s {
        Scalar::Int(v) => {
            put_str(e, "Int")?;
            put_i64(e, v)
        }
        Scalar::UInt(v) => {
            put_str(e, "UInt")?;
            put_u64(e, v)
        }
        Scalar::Float(v) => {
            put_str(e, "Float")?;
            e.push(Header::Float(v))
        }
        Scalar::Bool(v) => {
            put_str(e, "Bool")?;
            e.push(Header::Simple(if v { simple::TRUE } else { simple::FALSE }))
        }
    }
}

/// `Metadata`: struct {tensors, metadata (skip if empty), scalars (skip if empty)}.
fn metadata_cbor(p: &Pack, descriptors: &BTreeMap<String, Descriptor>) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let io = |e: std::io::Error| format!("{}: CBOR: {e}", p.file);
    {
        let mut e: Enc = Encoder::from(&mut buf);
        let fields = 1 + usize::from(!p.metadata.is_empty()) + usize::from(!p.scalars.is_empty());
        e.push(Header::Map(Some(fields))).map_err(io)?;
        put_str(&mut e, "tensors").map_err(io)?;
        e.push(Header::Map(Some(descriptors.len()))).map_err(io)?;
        for (name, d) in descriptors {
            put_str(&mut e, name).map_err(io)?;
            put_descriptor(&mut e, d).map_err(io)?;
        }
        if !p.metadata.is_empty() {
            put_str(&mut e, "metadata").map_err(io)?;
            e.push(Header::Map(Some(p.metadata.len()))).map_err(io)?;
            for (k, v) in &p.metadata {
                put_str(&mut e, k).map_err(io)?;
                put_str(&mut e, v).map_err(io)?;
            }
        }
        if !p.scalars.is_empty() {
            put_str(&mut e, "scalars").map_err(io)?;
            e.push(Header::Map(Some(p.scalars.len()))).map_err(io)?;
            for (k, s) in &p.scalars {
                put_str(&mut e, k).map_err(io)?;
                put_scalar(&mut e, *s).map_err(io)?;
            }
        }
    }
    Ok(buf)
}

/// §7 steps 2-5: header, metadata, zero padding to the aligned data start, every tensor at its
/// planned offset in list order (zero gaps), nothing after the last tensor.
fn write_pack(p: &Pack) -> Result<(Vec<u8>, usize, u64, Vec<(u64, u64)>), String> {
    let (descriptors, ranges, end) = plan(p)?;
    let meta = metadata_cbor(p, &descriptors)?;
    let m = u32::try_from(meta.len()).map_err(|_| format!("{}: metadata too large", p.file))?;
    let data_start = align((HEADER_SIZE + meta.len()) as u64);
    let mut out = Vec::with_capacity((data_start + end) as usize);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&m.to_le_bytes());
    out.extend_from_slice(&meta);
    out.resize(data_start as usize, 0);
    for (t, &(start, _)) in p.tensors.iter().zip(&ranges) {
        out.resize((data_start + start) as usize, 0);
        out.extend_from_slice(&t.bytes);
    }
    // A zero-length last tensor still moves the end to its aligned start (§4).
    out.resize((data_start + end) as usize, 0);
    Ok((out, meta.len(), data_start, ranges))
}

// ---------------------------------------------------------------------------------------------
// Read-back with ciborium-ll's Decoder.

type Dec<'a> = Decoder<&'a [u8]>;

fn read_text(d: &mut Dec, len: Option<usize>) -> Result<String, String> {
    let len = len.ok_or("indefinite-length text")?;
    let mut buf = vec![0u8; len];
    d.read_exact(&mut buf).map_err(|e| format!("text: {e:?}"))?;
    String::from_utf8(buf).map_err(|e| e.to_string())
}

/// Any CBOR item as JSON (maps order-preserving, keys must be text; definite lengths only, which
/// is all ciborium's serializer writes for these types).
fn read_item(d: &mut Dec) -> Result<Value, String> {
    match d.pull().map_err(|e| format!("pull at {}: {e:?}", d.offset()))? {
        Header::Positive(v) => Ok(json!(v)),
        Header::Negative(v) => {
            let n = -1i128 - v as i128;
            i64::try_from(n).map(|x| json!(x)).map_err(|_| format!("negative integer {n} beyond i64"))
        }
        Header::Float(f) => Ok(json!(f)),
        Header::Simple(simple::TRUE) => Ok(json!(true)),
        Header::Simple(simple::FALSE) => Ok(json!(false)),
        Header::Simple(simple::NULL) => Ok(Value::Null),
        Header::Text(len) => Ok(json!(read_text(d, len)?)),
        Header::Array(Some(n)) => (0..n).map(|_| read_item(d)).collect::<Result<Vec<_>, _>>().map(Value::Array),
        Header::Map(Some(n)) => {
            let mut m = Map::new();
            for _ in 0..n {
                let k = match read_item(d)? {
                    Value::String(s) => s,
                    other => return Err(format!("non-text map key {other}")),
                };
                let v = read_item(d)?;
                if m.insert(k.clone(), v).is_some() {
                    return Err(format!("duplicate key {k}"));
                }
            }
            Ok(Value::Object(m))
        }
        h => Err(format!("unexpected CBOR item {h:?}")),
    }
}

/// The metadata the pack should produce, as the JSON tree serde would make of the same structs.
fn expected_tree(p: &Pack, descriptors: &BTreeMap<String, Descriptor>) -> Value {
    let mut tensors = Map::new();
    for (name, d) in descriptors {
        let mut o = Map::new();
        o.insert("dtype".into(), d.dtype.cbor_json());
        o.insert("shape".into(), json!(d.shape));
        o.insert("data_offsets".into(), json!([d.data_offsets.0, d.data_offsets.1]));
        if let Some(id) = d.param_id {
            o.insert("param_id".into(), json!(id));
        }
        tensors.insert(name.clone(), Value::Object(o));
    }
    let mut top = Map::new();
    top.insert("tensors".into(), Value::Object(tensors));
    if !p.metadata.is_empty() {
        top.insert("metadata".into(), json!(p.metadata));
    }
    if !p.scalars.is_empty() {
        top.insert("scalars".into(), Value::Object(p.scalars.iter().map(|(k, s)| (k.clone(), s.serde_json())).collect()));
    }
    Value::Object(top)
}

/// Parses the file as burn-pack's reader does (§6.1) and checks every byte against the pack.
fn check_file(p: &Pack, bytes: &[u8]) -> Result<(), String> {
    let f = p.file;
    if bytes.len() < HEADER_SIZE || u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) != MAGIC {
        return Err(format!("{f}: bad header"));
    }
    if u16::from_le_bytes([bytes[4], bytes[5]]) != VERSION {
        return Err(format!("{f}: bad version"));
    }
    let m = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]) as usize;
    let meta = &bytes[HEADER_SIZE..HEADER_SIZE + m];
    let mut d: Dec = Decoder::from(meta);
    let tree = read_item(&mut d).map_err(|e| format!("{f}: metadata: {e}"))?;
    if d.offset() != m {
        return Err(format!("{f}: metadata item ends at {} of {m} bytes", d.offset()));
    }
    let (descriptors, ranges, end) = plan(p)?;
    let want = expected_tree(p, &descriptors);
    if tree != want {
        return Err(format!("{f}: metadata decodes to\n{tree}\nexpected\n{want}"));
    }
    // Key order on the wire is the byte order of the names (BTreeMap<String, _>).
    let names: Vec<&String> = tree["tensors"].as_object().map(|o| o.keys().collect()).unwrap_or_default();
    if names.windows(2).any(|w| w[0].as_bytes() >= w[1].as_bytes()) {
        return Err(format!("{f}: tensor names not in byte order: {names:?}"));
    }
    let data_start = align((HEADER_SIZE + m) as u64) as usize;
    if bytes.len() != data_start + end as usize {
        return Err(format!("{f}: {} bytes, expected D {data_start} + E {end}", bytes.len()));
    }
    let mut used = vec![false; bytes.len()];
    used[..HEADER_SIZE + m].iter_mut().for_each(|u| *u = true);
    for (t, &(s, e)) in p.tensors.iter().zip(&ranges) {
        if s % ALIGN != 0 {
            return Err(format!("{f}: {} starts at {s}", t.name));
        }
        let (a, b) = (data_start + s as usize, data_start + e as usize);
        if bytes[a..b] != t.bytes[..] {
            return Err(format!("{f}: {} payload differs", t.name));
        }
        used[a..b].iter_mut().for_each(|u| *u = true);
    }
    if let Some(i) = (0..bytes.len()).find(|&i| !used[i] && bytes[i] != 0) {
        return Err(format!("{f}: non-zero padding byte at {i}"));
    }
    Ok(())
}

/// Byte sequences docs/format-burnpack.md spells out; each must occur in the named file.
fn spec_vectors() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        // §3.5: the empty writer's whole metadata, header included.
        ("empty.bpk", "§3.5 empty writer", "4e52554201000a000000a16774656e736f7273a0"),
        // §3.4 / §3.5 scalars.
        ("scheduler.bpk", "§3.5 0.iter_idx Int(-1)", "6a302e697465725f696478a163496e7420"),
        ("scheduler.bpk", "§3.4 UInt(u64::MAX)", "a16455496e741bffffffffffffffff"),
        ("scheduler.bpk", "§3.4 Float(0.5)", "a165466c6f6174f93800"),
        ("scheduler.bpk", "§3.4 Bool(true)", "a164426f6f6cf5"),
        ("scheduler.bpk", "§3.2 0.1 as f64", "a165466c6f6174fb3fb999999999999a"),
        ("scheduler.bpk", "§3.2 0.1f32 widened", "a165466c6f6174fa3dcccccd"),
        ("scheduler.bpk", "§3.2 -0.0", "a165466c6f6174f98000"),
        ("scheduler.bpk", "§3.2 5e-324", "a165466c6f6174fb0000000000000001"),
        ("scheduler.bpk", "§3.2 -25", "a163496e743818"),
        ("scheduler.bpk", "§3.2 i64::MIN", "a163496e743b7fffffffffffffff"),
        // §3.3 Bool(Native).
        ("model.bpk", "§3.3 {\"Bool\": \"Native\"}", "656474797065a164426f6f6c664e6174697665"),
        // §3.1 param_id > 2^63 in 9 bytes (§8.1 example id).
        ("model.bpk", "§8.1 param_id 10337348971143725002", "68706172616d5f69641b8f75a41ea0457fca"),
    ]
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// Content.

/// Knuth's MMIX LCG; values are multiples of 1/16 in [-2, 2] (exact in f16, bf16 and f32, so any
/// summation order gives the same double — the C++ statistics are compared exactly).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn dyadic(&mut self) -> f64 {
        (self.next() % 65) as f64 / 16.0 - 2.0
    }
}

fn f32_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
}
fn f16_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|&x| half::f16::from_f64(x).to_le_bytes()).collect()
}
fn bf16_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|&x| half::bf16::from_f64(x).to_le_bytes()).collect()
}
fn dyadics(rng: &mut Lcg, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.dyadic()).collect()
}

const ID_WEIGHT: u64 = 10337348971143725002; // > 2^63; §8.1's example ("p9vkb80ukhqou")
const ID_BIAS: u64 = 123456; // "83h0200000000"

fn t(name: &str, dtype: DType, shape: &[u64], param_id: Option<u64>, bytes: Vec<u8>) -> Tensor {
    Tensor { name: name.into(), dtype, shape: shape.to_vec(), param_id, bytes }
}

/// ModuleRecord (§8.2): module-visitor order, every tensor with its param id, no metadata/scalars.
fn model() -> Pack {
    let mut r = Lcg(0x5eed_0bad_cafe_0001);
    let mut bias = dyadics(&mut r, 4);
    bias[1] = -0.0;
    bias[2] = f64::NAN; // counted apart by the statistics
    let mut w10 = dyadics(&mut r, 12);
    w10[5] = f64::INFINITY;
    w10[7] = 0.0;
    let ints: Vec<u8> = [-5_000_000_000i64, 0, 7, 1 << 40, -3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let tensors = vec![
        t("layers.2.weight", DType::F32, &[3, 4], Some(ID_WEIGHT), f32_bytes(&dyadics(&mut r, 12))),
        t("layers.2.bias", DType::F16, &[4], Some(ID_BIAS), f16_bytes(&bias)),
        t("layers.2.mask", DType::BoolNative, &[2, 2], Some(1 << 63), vec![1, 0, 0, 1]),
        t("layers.10.weight", DType::BF16, &[1, 2, 3, 2], Some(6748650816680658289), bf16_bytes(&w10)),
        // an empty parameter in the middle: shares its start with the next tensor
        t("layers.10.bias", DType::F32, &[0], Some(7), vec![]),
        t("layers.10.scale", DType::F32, &[], Some(u64::MAX), f32_bytes(&[0.5])),
        t("step_counts", DType::I64, &[5], Some(42), ints),
        t("嵌入.weight", DType::U8, &[2, 3], Some(1), vec![0, 255, 1, 128, 7, 0]),
        // an empty last parameter: the file ends with padding up to its aligned start (§4)
        t("head.unused", DType::F32, &[2, 0], Some(0x8000_0000_0000_0001), vec![]),
    ];
    Pack {
        file: "model.bpk",
        kind: "module_record",
        description: "ModuleRecord: 9 params of F32, F16, BF16, I64, U8, Bool(Native); ranks 0-4, two empty; names sorting layers.10 before layers.2 and a non-ASCII name last",
        tensors,
        metadata: BTreeMap::new(),
        scalars: BTreeMap::new(),
    }
}

/// OptimizerRecord (§8.3): Adam with amsgrad for two parameters, in hash-map (not name) order.
fn optim() -> Pack {
    let mut r = Lcg(0x0971_1a00_0000_0002);
    let mut tensors = Vec::new();
    let mut scalars = BTreeMap::new();
    let mut metadata = BTreeMap::new();
    // 123456 first: by name "10337…" sorts before "123456…", so physical order ≠ name order.
    for (id, shape, path, time) in [(ID_BIAS, vec![4u64], "layers.2.bias", 3u64), (ID_WEIGHT, vec![3, 4], "layers.2.weight", 3)] {
        let n: u64 = shape.iter().product();
        let m1 = dyadics(&mut r, n as usize);
        let m2: Vec<f64> = dyadics(&mut r, n as usize).iter().map(|v| v.abs() + 0.0625).collect();
        let max2: Vec<f64> = m2.iter().map(|v| v + 0.125).collect();
        tensors.push(t(&format!("{id}.momentum.moment_1"), DType::F32, &shape, Some(id), f32_bytes(&m1)));
        tensors.push(t(&format!("{id}.momentum.moment_2"), DType::F32, &shape, Some(id), f32_bytes(&m2)));
        tensors.push(t(&format!("{id}.momentum.max_moment_2"), DType::F32, &shape, Some(id), f32_bytes(&max2)));
        scalars.insert(format!("{id}.__rank"), Scalar::UInt(shape.len() as u64));
        scalars.insert(format!("{id}.momentum.time"), Scalar::UInt(time));
        metadata.insert(id.to_string(), path.to_string());
    }
    Pack {
        file: "optim.bpk",
        kind: "optimizer_record",
        description: "OptimizerRecord as burn-train 0.22 writes it: Adam (amsgrad) for 123456 (layers.2.bias) and 10337348971143725002 (layers.2.weight), written in that order (not name order)",
        tensors,
        metadata,
        scalars,
    }
}

/// LrSchedulerRecord (§8.4): scalars only, every variant and head width.
fn scheduler() -> Pack {
    let s: Vec<(&str, Scalar)> = vec![
        ("0.iter_idx", Scalar::Int(-1)),                     // 20
        ("0.0.remaining_iters", Scalar::UInt(u64::MAX)),     // 1b ffffffffffffffff
        ("0.1.previous_lr", Scalar::Float(0.1)),             // fb (needs f64)
        ("1.step", Scalar::Float(0.5)),                      // f9 3800
        ("2.0.previous_lr", Scalar::Float(0.1f32 as f64)),   // fa 3dcccccd
        ("2.flag", Scalar::Bool(true)),                      // f5
        ("2.off", Scalar::Bool(false)),                      // f4
        ("3.step", Scalar::Float(-0.0)),                     // f9 8000
        ("3.tiny", Scalar::Float(5e-324)),                   // fb 0000000000000001
        ("3.f16_subnormal", Scalar::Float(5.960464477539063e-8)), // 2^-24: f9 0001
        ("3.f16_max", Scalar::Float(65504.0)),               // f9 7bff
        ("3.big", Scalar::Float(1.0e300)),                   // fb
        ("4.int_pos", Scalar::Int(1000)),                    // major 0: 19 03e8
        ("4.int_m25", Scalar::Int(-25)),                     // 38 18
        ("4.int_m257", Scalar::Int(-257)),                   // 39 0100
        ("4.int_m2p32", Scalar::Int(-(1 << 32) - 1)),        // 3b 0000000100000000
        ("4.int_min", Scalar::Int(i64::MIN)),                // 3b 7fffffffffffffff
        ("4.int_max", Scalar::Int(i64::MAX)),                // 1b 7fffffffffffffff
        ("5.u23", Scalar::UInt(23)),                         // 17
        ("5.u24", Scalar::UInt(24)),                         // 18 18
        ("5.u256", Scalar::UInt(256)),                       // 19 0100
        ("5.u65536", Scalar::UInt(65536)),                   // 1a 00010000
        ("5.u2p32", Scalar::UInt(1 << 32)),                  // 1b 0000000100000000
        ("5.u0", Scalar::UInt(0)),                           // 00
    ];
    Pack {
        file: "scheduler.bpk",
        kind: "scheduler_record",
        description: "LrSchedulerRecord: scalars of every variant and CBOR head width (f16/f32/f64 floats, -0.0, subnormals, i64/u64 extremes), no tensors",
        tensors: vec![],
        metadata: BTreeMap::new(),
        scalars: s.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// A constant-LR scheduler's record: nothing at all (exactly 256 bytes, §3.5).
fn empty() -> Pack {
    Pack {
        file: "empty.bpk",
        kind: "scheduler_record",
        description: "no tensors, no metadata, no scalars (a constant-LR scheduler record): 256 bytes",
        tensors: vec![],
        metadata: BTreeMap::new(),
        scalars: BTreeMap::new(),
    }
}

fn stats_json(dtype: DType, bytes: &[u8]) -> Value {
    let vals = dtype.values(bytes);
    let (mut nan, mut inf, mut zeros, mut sum) = (0u64, 0u64, 0u64, 0.0f64);
    let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
    for &v in &vals {
        if v.is_nan() {
            nan += 1;
        } else if v.is_infinite() {
            inf += 1;
        } else {
            if v == 0.0 {
                zeros += 1;
            }
            sum += v;
            min = min.min(v);
            max = max.max(v);
        }
    }
    let finite = vals.len() as u64 - nan - inf;
    let mut o = json!({"count": vals.len(), "finite": finite, "nan": nan, "inf": inf, "zeros": zeros});
    if finite > 0 {
        o["sum"] = json!(sum);
        o["min"] = json!(min);
        o["max"] = json!(max);
    }
    o
}

fn describe(p: &Pack, bytes: &[u8], meta_len: usize, data_start: u64, ranges: &[(u64, u64)]) -> Value {
    let tensors: Vec<Value> = p
        .tensors
        .iter()
        .zip(ranges)
        .map(|(t, &(s, e))| {
            json!({
                "name": t.name,
                "dtype": t.dtype.name(),
                "dtype_cbor": t.dtype.cbor_json(),
                "shape": t.shape,
                "param_id": t.param_id.map(|id| id.to_string()),
                "param_id_base32": t.param_id.map(param_id_string),
                "byte_len": t.bytes.len(),
                "data_offsets": [s, e],
                "offset": data_start + s,
                "fnv1a64": format!("{:016x}", fnv1a64(FNV_OFFSET, &t.bytes)),
                "hex": hex(&t.bytes),
                "stats": stats_json(t.dtype, &t.bytes),
            })
        })
        .collect();
    json!({
        "file": p.file,
        "kind": p.kind,
        "description": p.description,
        "bytes": bytes.len(),
        "metadata_size": meta_len,
        "data_start": data_start,
        "fnv1a64": format!("{:016x}", fnv1a64(FNV_OFFSET, bytes)),
        "metadata_hex": hex(&bytes[HEADER_SIZE..HEADER_SIZE + meta_len]),
        "tensors": tensors,
        "metadata": p.metadata,
        "scalars": Value::Object(p.scalars.iter().map(|(k, s)| (k.clone(), s.to_json())).collect()),
    })
}

pub fn write(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = Vec::new();
    let mut written: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    for p in [model(), optim(), scheduler(), empty()] {
        let (bytes, meta_len, data_start, ranges) = write_pack(&p)?;
        check_file(&p, &bytes)?;
        let path = dir.join(p.file);
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(describe(&p, &bytes, meta_len, data_start, &ranges));
        println!("{}: {} bytes, metadata {meta_len}, data at {data_start}, {} tensors, {} scalars", p.file, bytes.len(), p.tensors.len(), p.scalars.len());
        written.insert(p.file, bytes);
    }
    // The spec's fixed byte sequences, as ciborium-ll wrote them.
    for (file, what, want) in spec_vectors() {
        let have = hex(&written[file]);
        if !have.contains(want) {
            return Err(format!("{file}: ciborium-ll's bytes lack docs/format-burnpack.md {what}: {want}"));
        }
    }
    if written["empty.bpk"].len() != 256 {
        return Err(format!("empty.bpk: {} bytes, §3.5 says 256", written["empty.bpk"].len()));
    }
    let expected = json!({
        "generator": "ckpt-interop burnpack: burn-pack 0.22 writer recipe (docs/format-burnpack.md §7), CBOR heads by ciborium-ll",
        "rules": "tensors in writer list order (= physical order); param_id decimal, param_id_base32 = BASE32_DNSSEC of the LE bytes (what ckpt prints); offset absolute; stats over the values as stored (f16/bf16 widened, ints/bools as numbers), NaN/±Inf counted apart, sum/min/max over the finite values (omitted when none); scalars as {variant, value}",
        "files": files,
    });
    let path = dir.join("burnpack.json");
    let text = serde_json::to_string_pretty(&expected).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}
