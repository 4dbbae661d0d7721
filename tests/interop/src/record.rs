// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! serde mirror types of Burn 0.21 / Ruda 0.21 records (format-burn-record.md, Appendix A) and
//! the six file recorders. These are our own types with the exact serde shapes of the real ones:
//! the bytes come from the real serializer crates (rmp-serde, serde_json, bincode, flate2).

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::io::{Read, Write};
use std::marker::PhantomData;

/// `BurnMetadata`: field order float, int, format, version, settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BurnMetadata {
    pub float: String,
    pub int: String,
    pub format: String,
    pub version: String,
    pub settings: String,
}

/// `BurnRecord<I, B>`: `_b` is a PhantomData that IS serialized (msgpack `[]`, JSON null, bincode nothing).
#[derive(Serialize, Deserialize)]
pub struct BurnRecord<I> {
    pub metadata: BurnMetadata,
    pub item: I,
    pub _b: PhantomData<()>,
}

/// Only the metadata, for sniffing the precision before the typed decode.
#[derive(Deserialize)]
pub struct BurnRecordNoItem {
    pub metadata: BurnMetadata,
}

/// 0.21 `BoolStore` (Native = 1 byte per element).
#[allow(dead_code)]
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum BoolStore {
    Native,
    U8,
    U32,
}

/// Payload of `QFloat`: never written; reading accepts and ignores any value (self-describing formats only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IgnoredQuantScheme;
impl Serialize for IgnoredQuantScheme {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}
impl<'de> Deserialize<'de> for IgnoredQuantScheme {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d)?;
        Ok(IgnoredQuantScheme)
    }
}

/// Burn 0.21.0-pre.3+ / Ruda `DType`: variant order matters (bincode writes the index).
#[allow(dead_code)]
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum DType {
    F64,
    F32,
    Flex32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Bool(BoolStore),
    QFloat(IgnoredQuantScheme),
}

impl DType {
    /// Element size in bytes; None for quantized data (opaque layout).
    pub fn size(self) -> Option<usize> {
        Some(match self {
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::F32 | DType::Flex32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::I8 | DType::U8 => 1,
            DType::Bool(BoolStore::Native) | DType::Bool(BoolStore::U8) => 1,
            DType::Bool(BoolStore::U32) => 4,
            DType::QFloat(_) => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "F64",
            DType::F32 => "F32",
            DType::Flex32 => "Flex32",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::I64 => "I64",
            DType::I32 => "I32",
            DType::I16 => "I16",
            DType::I8 => "I8",
            DType::U64 => "U64",
            DType::U32 => "U32",
            DType::U16 => "U16",
            DType::U8 => "U8",
            DType::Bool(_) => "Bool",
            DType::QFloat(_) => "QFloat",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, DType::F64 | DType::F32 | DType::Flex32 | DType::F16 | DType::BF16)
    }
    pub fn is_int(self) -> bool {
        matches!(self, DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U64 | DType::U32 | DType::U16 | DType::U8)
    }
    /// Widens element `i` of `bytes` (little endian) exactly to f64.
    pub fn element(self, bytes: &[u8], i: usize) -> f64 {
        let s = self.size().unwrap_or(1);
        let b = &bytes[i * s..(i + 1) * s];
        match self {
            DType::F64 => f64::from_le_bytes(b.try_into().unwrap()),
            DType::F32 | DType::Flex32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::F16 => half::f16::from_bits(u16::from_le_bytes(b.try_into().unwrap())).to_f64(),
            DType::BF16 => half::bf16::from_bits(u16::from_le_bytes(b.try_into().unwrap())).to_f64(),
            DType::I64 => i64::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::I32 => i32::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::I16 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::I8 => b[0] as i8 as f64,
            DType::U64 => u64::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::U32 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::U16 => u16::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::U8 | DType::Bool(BoolStore::Native) | DType::Bool(BoolStore::U8) => b[0] as f64,
            DType::Bool(BoolStore::U32) => u32::from_le_bytes(b.try_into().unwrap()) as f64,
            DType::QFloat(_) => f64::NAN,
        }
    }
}

/// `TensorData` (0.14–0.21): bytes via serde_bytes (msgpack bin, JSON int array, bincode len+bytes).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TensorData {
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// `ParamSerde<T>`: id is the 13-char BASE32_DNSSEC of the u64 param id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ParamSerde<T> {
    pub id: String,
    pub param: T,
}

/// `EmptyRecord` / `ConstantRecord`: written as None (nil / null / bincode 00); reading tolerates any value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Empty;
impl Serialize for Empty {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_none()
    }
}
impl<'de> Deserialize<'de> for Empty {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<IgnoredAny>::deserialize(d)?;
        Ok(Empty)
    }
}

/// Burn's `Linear` record item.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LinearItem {
    pub weight: ParamSerde<TensorData>,
    pub bias: Option<ParamSerde<TensorData>>,
}

/// Burn's `LayerNorm` record item (0.21: the f64 `epsilon` field is an EmptyRecord → nil).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LayerNormItem {
    pub gamma: ParamSerde<TensorData>,
    pub beta: ParamSerde<TensorData>,
    pub epsilon: Empty,
}

/// 0.21 / Ruda `AdaptiveMomentumState` (max_moment_2 always serialized, nil unless AMSGrad).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdaptiveMomentumState {
    pub time: usize,
    pub moment_1: TensorData,
    pub moment_2: TensorData,
    #[serde(default)]
    pub max_moment_2: Option<TensorData>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdamState {
    pub momentum: AdaptiveMomentumState,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdamWState {
    pub momentum: AdaptiveMomentumState,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MomentumState {
    pub velocity: TensorData,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SgdState {
    pub momentum: Option<MomentumState>,
}

/// `AdaptorRecordItemV1`: the variant index is the tensor rank.
#[allow(dead_code)]
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum AdaptorRecordItemV1<S> {
    Rank0(S),
    Rank1(S),
    Rank2(S),
    Rank3(S),
    Rank4(S),
    Rank5(S),
    Rank6(S),
    Rank7(S),
    Rank8(S),
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum AdaptorRecordItem<S> {
    V1(AdaptorRecordItemV1<S>),
}

impl<S> AdaptorRecordItem<S> {
    /// Wraps a state item in the variant for `rank` (Burn panics above 8; so do we).
    pub fn for_rank(rank: usize, state: S) -> Self {
        use AdaptorRecordItemV1::*;
        AdaptorRecordItem::V1(match rank {
            0 => Rank0(state),
            1 => Rank1(state),
            2 => Rank2(state),
            3 => Rank3(state),
            4 => Rank4(state),
            5 => Rank5(state),
            6 => Rank6(state),
            7 => Rank7(state),
            8 => Rank8(state),
            _ => panic!("rank {rank} > 8 is not representable"),
        })
    }
}

/// The optimizer record: param id → state, order preserved so re-encoding is byte-identical.
pub type OptimItem<S> = indexmap::IndexMap<String, AdaptorRecordItem<S>>;

/// Ruda `GradientsParamsRecord`: (param id as raw u64, native dtype, data converted to FloatElem), sorted by id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GradientsParamsRecord {
    pub gradients: Vec<(u64, DType, TensorData)>,
}

/// Precision settings: what tensors are converted to on save and the metadata strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    Full,
    Half,
    Double,
}

pub const ALL_PRECISIONS: [Precision; 3] = [Precision::Full, Precision::Half, Precision::Double];

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::Full => "full",
            Precision::Half => "half",
            Precision::Double => "double",
        }
    }
    pub fn settings(self) -> &'static str {
        match self {
            Precision::Full => "FullPrecisionSettings",
            Precision::Half => "HalfPrecisionSettings",
            Precision::Double => "DoublePrecisionSettings",
        }
    }
    pub fn from_settings(s: &str) -> Option<Precision> {
        ALL_PRECISIONS.iter().copied().find(|p| p.settings() == s)
    }
    pub fn float_name(self) -> &'static str {
        match self {
            Precision::Full => "f32",
            Precision::Half => "half::binary16::f16",
            Precision::Double => "f64",
        }
    }
    pub fn int_name(self) -> &'static str {
        match self {
            Precision::Full => "i32",
            Precision::Half => "i16",
            Precision::Double => "i64",
        }
    }
    pub fn float_dtype(self) -> DType {
        match self {
            Precision::Full => DType::F32,
            Precision::Half => DType::F16,
            Precision::Double => DType::F64,
        }
    }
    pub fn int_dtype(self) -> DType {
        match self {
            Precision::Full => DType::I32,
            Precision::Half => DType::I16,
            Precision::Double => DType::I64,
        }
    }

    /// A float tensor as `TensorData::convert::<FloatElem>()` stores it. Values are produced as
    /// f64 and go through f32 first (an f32 backend), f16 via `half::f16::from_f32` (round to nearest even).
    pub fn float_tensor(self, shape: &[usize], values: &[f64]) -> TensorData {
        assert_eq!(shape.iter().product::<usize>(), values.len(), "shape/value count mismatch");
        let mut bytes = Vec::with_capacity(values.len() * 8);
        for &v in values {
            match self {
                Precision::Full => bytes.extend_from_slice(&(v as f32).to_le_bytes()),
                Precision::Half => bytes.extend_from_slice(&half::f16::from_f32(v as f32).to_bits().to_le_bytes()),
                Precision::Double => bytes.extend_from_slice(&v.to_le_bytes()),
            }
        }
        TensorData { bytes, shape: shape.to_vec(), dtype: self.float_dtype() }
    }

    /// An int tensor converted to IntElem (values must fit i16).
    pub fn int_tensor(self, shape: &[usize], values: &[i64]) -> TensorData {
        assert_eq!(shape.iter().product::<usize>(), values.len(), "shape/value count mismatch");
        let mut bytes = Vec::new();
        for &v in values {
            match self {
                Precision::Full => bytes.extend_from_slice(&(v as i32).to_le_bytes()),
                Precision::Half => bytes.extend_from_slice(&(i16::try_from(v).expect("int fits i16")).to_le_bytes()),
                Precision::Double => bytes.extend_from_slice(&v.to_le_bytes()),
            }
        }
        TensorData { bytes, shape: shape.to_vec(), dtype: self.int_dtype() }
    }
}

/// Bool tensors are stored unconverted, 1 byte (0/1) per element.
pub fn bool_tensor(shape: &[usize], values: &[bool]) -> TensorData {
    assert_eq!(shape.iter().product::<usize>(), values.len(), "shape/value count mismatch");
    TensorData { bytes: values.iter().map(|&b| b as u8).collect(), shape: shape.to_vec(), dtype: DType::Bool(BoolStore::Native) }
}

/// `ParamId::serialize()`: BASE32_DNSSEC of the little-endian u64 (13 chars).
pub fn param_id_string(id: u64) -> String {
    data_encoding::BASE32_DNSSEC.encode(&id.to_le_bytes())
}

/// The six file recorders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recorder {
    NamedMpk,
    NamedMpkGz,
    PrettyJson,
    JsonGz,
    Bin,
    BinGz,
}

pub const ALL_RECORDERS: [Recorder; 6] =
    [Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson, Recorder::JsonGz, Recorder::Bin, Recorder::BinGz];

impl Recorder {
    pub fn ext(self) -> &'static str {
        match self {
            Recorder::NamedMpk => "mpk",
            Recorder::NamedMpkGz => "mpk.gz",
            Recorder::PrettyJson => "json",
            Recorder::JsonGz => "json.gz",
            Recorder::Bin => "bin",
            Recorder::BinGz => "bin.gz",
        }
    }
    pub fn type_name(self) -> &'static str {
        match self {
            Recorder::NamedMpk => "NamedMpkFileRecorder",
            Recorder::NamedMpkGz => "NamedMpkGzFileRecorder",
            Recorder::PrettyJson => "PrettyJsonFileRecorder",
            Recorder::JsonGz => "JsonGzFileRecorder",
            Recorder::Bin => "BinFileRecorder",
            Recorder::BinGz => "BinGzFileRecorder",
        }
    }
    /// Recognises the recorder from a file name by its (double) extension.
    pub fn from_file_name(name: &str) -> Option<Recorder> {
        // Longest extensions first so "x.mpk.gz" is not taken for something ending in ".gz" only.
        let mut by_len = ALL_RECORDERS;
        by_len.sort_by_key(|r| std::cmp::Reverse(r.ext().len()));
        by_len.iter().copied().find(|r| name.ends_with(&format!(".{}", r.ext())))
    }
    pub fn is_gz(self) -> bool {
        matches!(self, Recorder::NamedMpkGz | Recorder::JsonGz | Recorder::BinGz)
    }

    /// The metadata `recorder_metadata()` writes for this recorder/precision with burn-core 0.21.0.
    pub fn metadata(self, p: Precision) -> BurnMetadata {
        BurnMetadata {
            float: p.float_name().to_string(),
            int: p.int_name().to_string(),
            format: format!(
                "burn_core::record::file::{}<burn_core::record::settings::{}>",
                self.type_name(),
                p.settings()
            ),
            version: "0.21.0".to_string(),
            settings: p.settings().to_string(),
        }
    }

    /// Serializes `value` exactly as the recorder's `save_item` does and returns the file bytes.
    pub fn encode<T: Serialize>(self, value: &T) -> Result<Vec<u8>, String> {
        let payload = self.encode_payload(value)?;
        if !self.is_gz() {
            return Ok(payload);
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&payload).map_err(|e| format!("gzip: {e}"))?;
        gz.finish().map_err(|e| format!("gzip: {e}"))
    }

    /// The uncompressed serializer output (for the gz recorders this is what is inside the gzip stream).
    pub fn encode_payload<T: Serialize>(self, value: &T) -> Result<Vec<u8>, String> {
        match self {
            Recorder::NamedMpk | Recorder::NamedMpkGz => {
                let mut out = Vec::new();
                rmp_serde::encode::write_named(&mut out, value).map_err(|e| format!("rmp-serde: {e}"))?;
                Ok(out)
            }
            Recorder::PrettyJson => serde_json::to_vec_pretty(value).map_err(|e| format!("serde_json: {e}")),
            Recorder::JsonGz => serde_json::to_vec(value).map_err(|e| format!("serde_json: {e}")),
            Recorder::Bin | Recorder::BinGz => {
                use bincode::Options;
                bincode::DefaultOptions::new().serialize(value).map_err(|e| format!("bincode: {e}"))
            }
        }
    }

    /// The serializer payload of a file (gunzipped for the gz recorders; first gzip member like flate2's GzDecoder).
    pub fn payload(self, file: &[u8]) -> Result<Vec<u8>, String> {
        if !self.is_gz() {
            return Ok(file.to_vec());
        }
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(file).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
        Ok(out)
    }

    /// Typed decode of a whole file. Stricter than Burn in one way: trailing bytes after the value
    /// are an error for every format (Burn ignores them for msgpack/bincode), because this program
    /// checks writers, and a writer that leaves garbage behind is wrong.
    pub fn decode<T: DeserializeOwned>(self, file: &[u8]) -> Result<T, String> {
        let payload = self.payload(file)?;
        match self {
            Recorder::NamedMpk | Recorder::NamedMpkGz => {
                let mut rest: &[u8] = &payload;
                let value = {
                    let mut de = rmp_serde::Deserializer::new(&mut rest);
                    T::deserialize(&mut de).map_err(|e| format!("rmp-serde: {e}"))?
                };
                if !rest.is_empty() {
                    return Err(format!(
                        "rmp-serde: {} trailing bytes after the record at offset {}",
                        rest.len(),
                        payload.len() - rest.len()
                    ));
                }
                Ok(value)
            }
            Recorder::PrettyJson | Recorder::JsonGz => serde_json::from_slice(&payload).map_err(|e| format!("serde_json: {e}")),
            Recorder::Bin | Recorder::BinGz => {
                use bincode::Options;
                // DefaultOptions rejects trailing bytes; varint + little endian = bincode 2 standard().
                bincode::DefaultOptions::new().deserialize(&payload).map_err(|e| format!("bincode: {e}"))
            }
        }
    }
}
