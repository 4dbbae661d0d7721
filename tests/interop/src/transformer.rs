// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! `transformer OUT_FILE --mib N [--seed S]`: a realistic, transformer-shaped TrainingRecord of
//! about N MiB, written by the NamedMpk recorder at full precision (rmp-serde `write_named`, as
//! `Recorder::NamedMpk.encode`), for size and speed tests with the real crate's bytes.
//!
//! Module: `embedding` (vocab 512 × d), 8 `layers` {norm_1, attention {query, key, value, output},
//! norm_2, mlp {up d→4d, down 4d→d}}, `norm`, `head` (d→512); every Linear has a bias. Adam state
//! (time 100, moment_2 positive, max_moment_2 nil) for every parameter in parameter order, one
//! pending F32 gradient per parameter sorted by id, StepLr-like scheduler `usize` 100, caller state
//! {step, epoch}. d_model is the multiple of 8 whose file size is nearest N MiB (4 f32 copies of
//! every parameter: param, moment_1, moment_2, gradient). Values come from a fast seeded generator
//! (a counter-based multiply-xorshift hash; the Irwin–Hall sum of its four 16-bit lanes is ≈ N(0,1)
//! and bounded at ±3.5σ: never NaN/Inf).
//!
//! `Transformer` is also a `Scenario` (d_model 8, seed 1), so `read` / `reencode` / `verdict`
//! decode these files with `--scenario transformer` (small files only: those commands build a JSON
//! tree of the whole record).

use crate::record::*;
use crate::scenarios::{Scenario, TrainingItem};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

pub const LAYERS: usize = 8;
pub const VOCAB: usize = 512;
/// Above this size the file is not read back after writing (a typed decode holds the file and the
/// decoded record in memory next to the written one and doubles the run time).
pub const READ_BACK_MAX_MIB: u64 = 64;

/// Burn's `Embedding` record item.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct EmbeddingItem {
    pub weight: ParamSerde<TensorData>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AttentionItem {
    pub query: LinearItem,
    pub key: LinearItem,
    pub value: LinearItem,
    pub output: LinearItem,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MlpItem {
    pub up: LinearItem,
    pub down: LinearItem,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LayerItem {
    pub norm_1: LayerNormItem,
    pub attention: AttentionItem,
    pub norm_2: LayerNormItem,
    pub mlp: MlpItem,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TransformerModel {
    pub embedding: EmbeddingItem,
    pub layers: Vec<LayerItem>,
    pub norm: LayerNormItem,
    pub head: LinearItem,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CallerState {
    pub step: u64,
    pub epoch: u64,
}

pub type TransformerItem = TrainingItem<TransformerModel, OptimItem<AdamState>, usize, CallerState>;

/// Parameter elements of the model: 8 × (2 LayerNorms 4d + attention 4(d² + d) + mlp 8d² + 5d)
/// + embedding 512d + norm 2d + head 512d + 512 = 96d² + 1130d + 512.
pub fn param_count(d: u64) -> u64 {
    96 * d * d + 1130 * d + 512
}

/// Parameter tensors: embedding 1, 16 per layer, norm 2, head 2.
pub const PARAM_TENSORS: u64 = 1 + 16 * LAYERS as u64 + 4;

/// Estimated file size: 16 bytes per parameter element (param, moment_1, moment_2, gradient as
/// f32) plus the MessagePack framing, about 240 bytes per parameter (ids, keys, shapes, dtypes).
pub fn estimated_bytes(d: u64) -> u64 {
    16 * param_count(d) + 240 * PARAM_TENSORS + 600
}

/// The multiple of 8 (at least 8) whose estimated file size is nearest `target` bytes. The step of
/// 8 limits the accuracy for small files: 1 MiB gives d 24 (≈1.3 MiB), 8 MiB d 64 (≈0.89×).
pub fn choose_d_model(target: u64) -> u64 {
    let mut best = 8;
    let mut d = 8;
    while estimated_bytes(d) <= target.saturating_mul(2) {
        if estimated_bytes(d).abs_diff(target) < estimated_bytes(best).abs_diff(target) {
            best = d;
        }
        d += 8;
    }
    best
}

/// A counter-based generator: each value is a multiply-xorshift hash of a Weyl sequence, so
/// consecutive values do not wait on each other (about 2 ns per f32 at opt-level 1, where the
/// serial xorshift64* took twice as long).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(mix64(seed ^ 0x5851_f42d_4c95_7f2d))
    }
    /// ≈ N(0, 1): the sum of the four 16-bit lanes of one output (Irwin–Hall, |z| < 3.47).
    #[inline(always)]
    fn normal(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut r = (self.0 ^ (self.0 >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        r ^= r >> 32;
        let s = (r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48);
        // mean 4 × 32767.5, standard deviation 65536 × sqrt(4/12)
        (s as f32 - 131_070.0) * (1.0 / 37_837.23)
    }
}

/// splitmix64's finalizer: a bijection of u64, so distinct inputs give distinct param ids.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Value distribution: mean + z·(std + square·z) with z ≈ N(0, 1).
#[derive(Clone, Copy)]
struct Dist {
    mean: f32,
    std: f32,
    square: f32,
}

const WEIGHT: Dist = Dist { mean: 0.0, std: 0.02, square: 0.0 };
const BIAS: Dist = Dist { mean: 0.0, std: 0.01, square: 0.0 };
const GAMMA: Dist = Dist { mean: 1.0, std: 0.02, square: 0.0 };
const BETA: Dist = Dist { mean: 0.0, std: 0.01, square: 0.0 };
const MOMENT_1: Dist = Dist { mean: 0.0, std: 1e-3, square: 0.0 };
/// z² · 1e-6 + 1e-7: always positive (a squared-gradient average), also in f16 (1e-7 is subnormal there, not 0).
const MOMENT_2: Dist = Dist { mean: 1e-7, std: 0.0, square: 1e-6 };
const GRADIENT: Dist = Dist { mean: 0.0, std: 1e-3, square: 0.0 };

/// A float tensor as `TensorData::convert::<FloatElem>()` stores it, values from an f32 backend;
/// the bytes are written in place (no per-element allocation).
fn tensor(p: Precision, shape: &[usize], dist: Dist, rng: &mut Rng) -> TensorData {
    let n: usize = shape.iter().product();
    let dtype = p.float_dtype();
    let mut bytes = vec![0u8; n * dtype.size().expect("float dtypes have a size")];
    let Dist { mean, std, square } = dist;
    // Whole-array stores through `&mut [u8; N]`: `copy_from_slice` of a 4-byte chunk is a memcpy
    // call per element at opt-level 1.
    match p {
        Precision::Full => {
            for c in bytes.chunks_exact_mut(4) {
                let z = rng.normal();
                let c: &mut [u8; 4] = c.try_into().expect("4-byte chunk");
                *c = (mean + z * (std + square * z)).to_le_bytes();
            }
        }
        Precision::Half => {
            for c in bytes.chunks_exact_mut(2) {
                let z = rng.normal();
                let c: &mut [u8; 2] = c.try_into().expect("2-byte chunk");
                *c = half::f16::from_f32(mean + z * (std + square * z)).to_bits().to_le_bytes();
            }
        }
        Precision::Double => {
            for c in bytes.chunks_exact_mut(8) {
                let z = rng.normal();
                let c: &mut [u8; 8] = c.try_into().expect("8-byte chunk");
                *c = ((mean + z * (std + square * z)) as f64).to_le_bytes();
            }
        }
    }
    TensorData { bytes, shape: shape.to_vec(), dtype }
}

/// Builds the module in parameter order and remembers (id, shape) of every parameter.
struct Builder {
    p: Precision,
    rng: Rng,
    id_base: u64,
    params: Vec<(u64, Vec<usize>)>,
}

impl Builder {
    fn param(&mut self, shape: &[usize], dist: Dist) -> ParamSerde<TensorData> {
        let id = mix64(self.id_base.wrapping_add(self.params.len() as u64));
        self.params.push((id, shape.to_vec()));
        ParamSerde { id: param_id_string(id), param: tensor(self.p, shape, dist, &mut self.rng) }
    }
    /// Burn's Linear: weight [d_input, d_output], bias [d_output].
    fn linear(&mut self, d_in: usize, d_out: usize) -> LinearItem {
        LinearItem { weight: self.param(&[d_in, d_out], WEIGHT), bias: Some(self.param(&[d_out], BIAS)) }
    }
    fn layer_norm(&mut self, d: usize) -> LayerNormItem {
        LayerNormItem { gamma: self.param(&[d], GAMMA), beta: self.param(&[d], BETA), epsilon: Empty }
    }
}

/// The whole training item for d_model `d`.
pub fn build_item(p: Precision, d: usize, seed: u64) -> TransformerItem {
    let mut b = Builder { p, rng: Rng::new(seed), id_base: mix64(seed.wrapping_add(0x1d_c0de)), params: Vec::new() };
    let embedding = EmbeddingItem { weight: b.param(&[VOCAB, d], WEIGHT) };
    let layers = (0..LAYERS)
        .map(|_| LayerItem {
            norm_1: b.layer_norm(d),
            attention: AttentionItem { query: b.linear(d, d), key: b.linear(d, d), value: b.linear(d, d), output: b.linear(d, d) },
            norm_2: b.layer_norm(d),
            mlp: MlpItem { up: b.linear(d, 4 * d), down: b.linear(4 * d, d) },
        })
        .collect();
    let norm = b.layer_norm(d);
    let head = b.linear(d, VOCAB);
    let model = TransformerModel { embedding, layers, norm, head };
    assert_eq!(b.params.iter().map(|(_, s)| s.iter().product::<usize>() as u64).sum::<u64>(), param_count(d as u64));
    assert_eq!(b.params.len() as u64, PARAM_TENSORS);

    let mut optim = OptimItem::new();
    for (id, shape) in &b.params {
        let momentum = AdaptiveMomentumState {
            time: 100,
            moment_1: tensor(p, shape, MOMENT_1, &mut b.rng),
            moment_2: tensor(p, shape, MOMENT_2, &mut b.rng),
            max_moment_2: None,
        };
        optim.insert(param_id_string(*id), AdaptorRecordItem::for_rank(shape.len(), AdamState { momentum }));
    }
    // Ruda's GradientsParamsRecord: (id, native dtype, data converted to FloatElem), sorted by id.
    let mut gradients: Vec<(u64, DType, TensorData)> =
        b.params.iter().map(|(id, shape)| (*id, DType::F32, tensor(p, shape, GRADIENT, &mut b.rng))).collect();
    gradients.sort_by_key(|g| g.0);
    (model, optim, 100usize, GradientsParamsRecord { gradients }, CallerState { step: 100, epoch: 1 })
}

fn adaptor_state<S>(a: &AdaptorRecordItem<S>) -> &S {
    use AdaptorRecordItemV1::*;
    match a {
        AdaptorRecordItem::V1(Rank0(s) | Rank1(s) | Rank2(s) | Rank3(s) | Rank4(s) | Rank5(s) | Rank6(s) | Rank7(s) | Rank8(s)) => s,
    }
}

/// Every TensorData of the item: module parameters, Adam moments, pending gradients.
pub fn tensor_count(item: &TransformerItem) -> usize {
    let (model, optim, _, gradients, _) = item;
    let linear = |l: &LinearItem| 1 + l.bias.is_some() as usize;
    let layer_norm = |_: &LayerNormItem| 2;
    let module: usize = 1
        + model
            .layers
            .iter()
            .map(|l| {
                layer_norm(&l.norm_1)
                    + [&l.attention.query, &l.attention.key, &l.attention.value, &l.attention.output].iter().map(|x| linear(x)).sum::<usize>()
                    + layer_norm(&l.norm_2)
                    + linear(&l.mlp.up)
                    + linear(&l.mlp.down)
            })
            .sum::<usize>()
        + layer_norm(&model.norm)
        + linear(&model.head);
    let moments: usize = optim.values().map(|a| 2 + adaptor_state(a).momentum.max_moment_2.is_some() as usize).sum();
    module + moments + gradients.gradients.len()
}

fn temp_path(out: &Path) -> PathBuf {
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("transformer.mpk");
    out.with_file_name(format!(".{name}.tmp{}", std::process::id()))
}

/// `transformer OUT_FILE --mib N [--seed S]`: writes the record and returns the JSON line.
pub fn write(out: &Path, mib: u64, seed: u64) -> Result<String, String> {
    if !(1..=4096).contains(&mib) {
        return Err(format!("--mib must be 1..4096, not {mib}"));
    }
    let d = choose_d_model(mib << 20);
    let rec = Recorder::NamedMpk;
    let record = BurnRecord { metadata: rec.metadata(Precision::Full), item: build_item(Precision::Full, d as usize, seed), _b: PhantomData };
    let tensors = tensor_count(&record.item);

    // Streamed into a temporary file next to OUT_FILE (no second copy in memory), then renamed.
    let tmp = temp_path(out);
    let written = (|| -> Result<(), String> {
        let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        rmp_serde::encode::write_named(&mut w, &record).map_err(|e| format!("rmp-serde: {e}"))?;
        w.flush().map_err(|e| format!("{}: {e}", tmp.display()))
    })();
    if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, out).map_err(|e| format!("{}: {e}", out.display()))) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let bytes = std::fs::metadata(out).map_err(|e| format!("{}: {e}", out.display()))?.len();

    // Typed read-back only for small files (it would double the time and triple the memory of a
    // 1 GiB run): the real rmp-serde decodes it into the same types, equal to what was written,
    // with the same tensor count, and re-encodes to the file's bytes.
    if mib <= READ_BACK_MAX_MIB {
        let file = std::fs::read(out).map_err(|e| format!("{}: {e}", out.display()))?;
        let back: BurnRecord<TransformerItem> = rec.decode(&file).map_err(|e| format!("{}: read back: {e}", out.display()))?;
        if tensor_count(&back.item) != tensors {
            return Err(format!("{}: read back {} tensors, wrote {tensors}", out.display(), tensor_count(&back.item)));
        }
        if back.metadata != record.metadata || back.item != record.item {
            return Err(format!("{}: read back differs from what was written", out.display()));
        }
        if rec.encode(&back)? != file {
            return Err(format!("{}: decode + re-encode is not byte-identical", out.display()));
        }
    }
    Ok(serde_json::json!({"file": out.to_string_lossy(), "bytes": bytes, "tensors": tensors, "d_model": d, "layers": LAYERS}).to_string())
}

/// The layout as a scenario, so `read` / `reencode` / `verdict --scenario transformer` decode these
/// files; `write --scenario transformer` writes a d_model-8 instance (seed 1) in all 18 variants.
pub struct Transformer;
impl Scenario for Transformer {
    const NAME: &'static str = "transformer";
    const DESCRIPTION: &'static str = "transformer: embedding [512,8]; 8 layers {norm_1, attention {query, key, value, output}, norm_2, \
        mlp {up 8->32, down 32->8}} (Linear with bias, LayerNorm epsilon nil); norm; head [8,512]+bias; Adam (time 100) for every \
        parameter in parameter order; scheduler usize 100; one F32-native pending gradient per parameter sorted by id; U = {step, epoch}";
    type Item = TransformerItem;
    fn build(p: Precision) -> Self::Item {
        build_item(p, 8, 1)
    }
}
