// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! The TrainingRecord scenarios: each one a different Rust type layout of
//! `(module item, optimizer item, scheduler item, GradientsParamsRecord, caller state)`.

use crate::record::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Deterministic value source (PCG-style 64-bit LCG), so every run writes the same files.
pub struct Lcg(u64);
impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let x = self.0;
        // xorshift the high bits down: the low bits of a power-of-two LCG are weak.
        x ^ (x >> 29) ^ (x >> 43)
    }
    /// Values in [-2, 2) with 1/1024 resolution, so many of them are exact in f16 and some are not.
    pub fn value(&mut self) -> f64 {
        let k = (self.next_u64() >> 40) as i64 % 4096 - 2048; // -2048..2047
        let fine = (self.next_u64() >> 54) as f64 / 1024.0 / 1024.0; // sub-resolution noise: not f16-exact
        k as f64 / 1024.0 + if k % 3 == 0 { fine } else { 0.0 }
    }
    pub fn values(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.value()).collect()
    }
    /// A positive value (for second moments).
    pub fn positive(&mut self) -> f64 {
        self.value().abs() / 16.0 + 1.0 / 4096.0
    }
}

/// One scenario: a Rust item type and how to build it for a precision.
pub trait Scenario {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    type Item: Serialize + DeserializeOwned;
    fn build(p: Precision) -> Self::Item;
}

pub type TrainingItem<M, O, S, U> = (M, O, S, GradientsParamsRecord, U);

fn param(id: u64, t: TensorData) -> ParamSerde<TensorData> {
    ParamSerde { id: param_id_string(id), param: t }
}

fn adam_state(p: Precision, rng: &mut Lcg, shape: &[usize], time: usize, amsgrad: bool) -> AdaptiveMomentumState {
    let n: usize = shape.iter().product();
    let m1 = rng.values(n).iter().map(|v| v / 8.0).collect::<Vec<_>>();
    let m2 = (0..n).map(|_| rng.positive()).collect::<Vec<_>>();
    let max = if amsgrad { Some(p.float_tensor(shape, &m2.iter().map(|v| v * 1.5).collect::<Vec<_>>())) } else { None };
    AdaptiveMomentumState { time, moment_1: p.float_tensor(shape, &m1), moment_2: p.float_tensor(shape, &m2), max_moment_2: max }
}

// ------------------------------------------------------------------------------------------------
// adam: two Linear layers, a LayerNorm, a nil activation; Adam; StepLr 7; pending gradients
// (one id above 2^63, one BF16-native); a rich caller-state struct.

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdamModel {
    pub layer1: LinearItem,
    pub layer2: LinearItem,
    pub norm: LayerNormItem,
    pub activation: Empty,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainerState {
    pub epoch: usize,
    pub iteration: u64,
    pub samples_seen: u64,
    pub rng_state: (u64, u64, u64, u64),
    pub data_cursor: usize,
    pub lr_schedule_position: u64,
    pub loss_history: Vec<f64>,
    pub note: String,
    pub stop_step: Option<u64>,
    pub flags: (bool, bool),
}

pub struct Adam;
pub const ADAM_IDS: [u64; 5] = [
    123456,                // layer1.weight -> "83h0200000000"
    10337348971143725002,  // layer1.bias   -> "p9vkb80ukhqou" (> 2^63)
    42,                    // layer2.weight
    0x0123_4567_89ab_cdef, // norm.gamma
    7,                     // norm.beta
];

impl Scenario for Adam {
    const NAME: &'static str = "adam";
    const DESCRIPTION: &'static str = "Linear[4,3]+bias, Linear[3,4] without bias, LayerNorm[3] (epsilon nil), activation nil; \
        Adam (max_moment_2 nil) for layer1.weight/bias, layer2.weight, norm.gamma; StepLr iter_idx 7; \
        3 pending gradients sorted by id (one id > 2^63, one with native dtype BF16); TrainerState struct";
    type Item = TrainingItem<AdamModel, OptimItem<AdamState>, i32, TrainerState>;

    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(1);
        let [w1, b1, w2, gamma, beta] = ADAM_IDS;
        let model = AdamModel {
            layer1: LinearItem {
                weight: param(w1, p.float_tensor(&[4, 3], &rng.values(12))),
                bias: Some(param(b1, p.float_tensor(&[3], &rng.values(3)))),
            },
            layer2: LinearItem { weight: param(w2, p.float_tensor(&[3, 4], &rng.values(12))), bias: None },
            norm: LayerNormItem {
                gamma: param(gamma, p.float_tensor(&[4], &[1.0, 1.0, 0.5, -0.0])),
                beta: param(beta, p.float_tensor(&[4], &[0.0, 0.25, -0.125, 0.0])),
                epsilon: Empty,
            },
            activation: Empty,
        };
        // Insertion order deliberately not sorted: the real map is a hashbrown map in random order.
        let mut optim = OptimItem::new();
        for (id, shape) in [(gamma, vec![4]), (w1, vec![4, 3]), (b1, vec![3]), (w2, vec![3, 4])] {
            let st = AdamState { momentum: adam_state(p, &mut rng, &shape, 9400, false) };
            optim.insert(param_id_string(id), AdaptorRecordItem::for_rank(shape.len(), st));
        }
        let mut gradients = vec![
            (b1, DType::F32, p.float_tensor(&[3], &rng.values(3))),
            (w2, DType::BF16, p.float_tensor(&[3, 4], &rng.values(12))),
            (w1, DType::F32, p.float_tensor(&[4, 3], &rng.values(12))),
        ];
        gradients.sort_by_key(|g| g.0);
        let state = TrainerState {
            epoch: 3,
            iteration: 9400,
            samples_seen: 601_600,
            rng_state: (0x853c_49e6_748f_ea9b, u64::MAX, 0, 9_007_199_254_740_993),
            data_cursor: 1234,
            lr_schedule_position: 7,
            loss_history: vec![2.302585092994046, 1.0, 0.1, 1e-7, 1.2345678901234568e20, 0.0],
            note: "résumé ✓ 学习".to_string(),
            stop_step: Some(18_446_744_073_709_551_000),
            flags: (true, false),
        };
        (model, optim, 7i32, GradientsParamsRecord { gradients }, state)
    }
}

// ------------------------------------------------------------------------------------------------
// adamw_amsgrad: AdamW with max_moment_2, cosine scheduler usize 5, rank-0, empty, int and bool
// params, and the special float values (0.0, -0.0, NaN, +inf, -inf) in item[0].embed.param.

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AmsModel {
    pub embed: ParamSerde<TensorData>,
    pub scale: ParamSerde<TensorData>,
    pub empty: ParamSerde<TensorData>,
    pub counts: ParamSerde<TensorData>,
    pub mask: ParamSerde<TensorData>,
    pub dropout: Empty,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub run_name: String,
    pub tags: Vec<String>,
    pub best_loss: f64,
    pub resumed: bool,
    pub shard: (u8, i16, i64),
}

pub struct AdamWAmsgrad;
pub const AMS_IDS: [u64; 5] = [1, 1 << 63, 999_999_999_999, 0xffff_ffff, 3];

impl Scenario for AdamWAmsgrad {
    const NAME: &'static str = "adamw_amsgrad";
    const DESCRIPTION: &'static str = "embed[5,2] whose first five values are 0.0, -0.0, NaN, +inf, -inf; rank-0 scale (shape []); \
        empty [0]; int counts [3] (I32/I16/I64); bool mask [2,3] (Bool(Native)); dropout nil; AdamW with AMSGrad \
        (max_moment_2 tensors) incl. Rank0 and the empty tensor; cosine scheduler 5; 2 pending gradients; RunInfo with unicode strings";
    type Item = TrainingItem<AmsModel, OptimItem<AdamWState>, usize, RunInfo>;

    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(2);
        let [embed, scale, empty, counts, mask] = AMS_IDS;
        let mut embed_values = rng.values(10);
        embed_values[..5].copy_from_slice(&[0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        let model = AmsModel {
            embed: param(embed, p.float_tensor(&[5, 2], &embed_values)),
            scale: param(scale, p.float_tensor(&[], &[0.7071067811865476])),
            empty: param(empty, p.float_tensor(&[0], &[])),
            counts: param(counts, p.int_tensor(&[3], &[-32768, 0, 32767])),
            mask: param(mask, bool_tensor(&[2, 3], &[true, false, true, true, false, false])),
            dropout: Empty,
        };
        let mut optim = OptimItem::new();
        for (id, shape) in [(scale, vec![]), (embed, vec![5, 2]), (empty, vec![0])] {
            let st = AdamWState { momentum: adam_state(p, &mut rng, &shape, 5, true) };
            optim.insert(param_id_string(id), AdaptorRecordItem::for_rank(shape.len(), st));
        }
        let gradients = vec![
            (embed, DType::F32, p.float_tensor(&[5, 2], &rng.values(10))),
            (scale, DType::F16, p.float_tensor(&[], &[-1.5])),
        ];
        let state = RunInfo {
            run_name: "実験-α/β \"quoted\" \\ tab\t nl\n ctl\u{1} del\u{7f} ls\u{2028} 😀".to_string(),
            tags: vec!["ruda".to_string(), "résumé".to_string(), String::new()],
            best_loss: 0.0031415926535897933,
            resumed: true,
            shard: (255, -32768, i64::MIN),
        };
        (model, optim, 5usize, GradientsParamsRecord { gradients }, state)
    }
}

// ------------------------------------------------------------------------------------------------
// sgd: SGD with momentum for the weight only, constant LR `()`, no pending gradients, U = (3, 1).

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SgdModel {
    pub linear: LinearItem,
}

pub struct Sgd;
impl Scenario for Sgd {
    const NAME: &'static str = "sgd";
    const DESCRIPTION: &'static str =
        "Linear[2,2]+bias; SGD momentum Some for the weight, None for the bias; constant LR () -> nil; no pending gradients; U = (3, 1)";
    type Item = TrainingItem<SgdModel, OptimItem<SgdState>, (), (usize, usize)>;

    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(3);
        let (w, b) = (0xdead_beef, 0xfeed_face_cafe_0001);
        let model = SgdModel {
            linear: LinearItem {
                weight: param(w, p.float_tensor(&[2, 2], &rng.values(4))),
                bias: Some(param(b, p.float_tensor(&[2], &rng.values(2)))),
            },
        };
        let mut optim = OptimItem::new();
        optim.insert(
            param_id_string(w),
            AdaptorRecordItem::for_rank(2, SgdState { momentum: Some(MomentumState { velocity: p.float_tensor(&[2, 2], &rng.values(4)) }) }),
        );
        optim.insert(param_id_string(b), AdaptorRecordItem::for_rank(1, SgdState { momentum: None }));
        (model, optim, (), GradientsParamsRecord { gradients: vec![] }, (3usize, 1usize))
    }
}

// ------------------------------------------------------------------------------------------------
// Small variants: one Linear without bias, Adam, one pending gradient, differing only in the
// scheduler record type (and value), and a (usize, u64) caller state.

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TinyModel {
    pub fc: LinearItem,
}

/// The module, optimizer and pending gradients of the tiny scenarios.
fn tiny_parts(p: Precision, seed: u64) -> (TinyModel, OptimItem<AdamState>, GradientsParamsRecord) {
    let mut rng = Lcg::new(seed);
    let id = seed.wrapping_mul(0x1000_0000_0000_0001);
    let model = TinyModel { fc: LinearItem { weight: param(id, p.float_tensor(&[2, 1], &rng.values(2))), bias: None } };
    let mut optim = OptimItem::new();
    optim.insert(param_id_string(id), AdaptorRecordItem::for_rank(2, AdamState { momentum: adam_state(p, &mut rng, &[2, 1], 1, false) }));
    let gradients = vec![(id, DType::F32, p.float_tensor(&[2, 1], &rng.values(2)))];
    (model, optim, GradientsParamsRecord { gradients })
}

fn tiny<S>(p: Precision, seed: u64, scheduler: S) -> TrainingItem<TinyModel, OptimItem<AdamState>, S, (usize, u64)> {
    let (model, optim, gradients) = tiny_parts(p, seed);
    (model, optim, scheduler, gradients, (seed as usize, 1 << 40))
}

pub struct Exponential;
impl Scenario for Exponential {
    const NAME: &'static str = "exponential";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; ExponentialLr record f64 previous_lr = 0.0011111111111111111; U = (usize, u64)";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, f64, (usize, u64)>;
    fn build(p: Precision) -> Self::Item {
        tiny(p, 11, 0.0011111111111111111f64)
    }
}

pub struct Noam;
impl Scenario for Noam {
    const NAME: &'static str = "noam";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; Noam record usize step = 4000; U = (usize, u64)";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, usize, (usize, u64)>;
    fn build(p: Precision) -> Self::Item {
        tiny(p, 12, 4000usize)
    }
}

pub struct Linear;
impl Scenario for Linear {
    const NAME: &'static str = "linear";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; LinearLr record usize remaining_iters = 0; U = (usize, u64)";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, usize, (usize, u64)>;
    fn build(p: Precision) -> Self::Item {
        tiny(p, 13, 0usize)
    }
}

pub struct StepFresh;
impl Scenario for StepFresh {
    const NAME: &'static str = "step_fresh";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; StepLr record i32 iter_idx = -1 (never stepped); U = (usize, u64)";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, i32, (usize, u64)>;
    fn build(p: Precision) -> Self::Item {
        tiny(p, 14, -1i32)
    }
}

// ------------------------------------------------------------------------------------------------
// spec_example: the annotated example of format-burn-record.md §9.8 (module = a bare Linear).

pub struct SpecExample;
impl Scenario for SpecExample {
    const NAME: &'static str = "spec_example";
    const DESCRIPTION: &'static str = "format-burn-record.md §9.8: Linear{weight [2,1] = (0.25, -0.5), bias None} with param id 123456; \
        Adam (time 1) for it; StepLr 2; one pending gradient (123456, F32, [1.0, 2.0]); U = (3, 1)";
    type Item = TrainingItem<LinearItem, OptimItem<AdamState>, i32, (usize, usize)>;
    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(98);
        let id = 123456;
        let model = LinearItem { weight: param(id, p.float_tensor(&[2, 1], &[0.25, -0.5])), bias: None };
        let mut optim = OptimItem::new();
        optim.insert(param_id_string(id), AdaptorRecordItem::for_rank(2, AdamState { momentum: adam_state(p, &mut rng, &[2, 1], 1, false) }));
        let gradients = vec![(id, DType::F32, p.float_tensor(&[2, 1], &[1.0, 2.0]))];
        (model, optim, 2i32, GradientsParamsRecord { gradients }, (3usize, 1usize))
    }
}

// ------------------------------------------------------------------------------------------------
// model_state: Ruda's ModelStateTrainingRecord (format-burn-record.md §9.6), the 7-tuple
// (version 1, module, TrainableParameterContract, optimizer, scheduler, gradients, caller state),
// with a caller state holding multi-byte UTF-8 and an Option field that MessagePack writes bare.

/// Ruda `TrainableParameterContract`: (param id, shape, dtype) of every trainable parameter, sorted by id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainableParameterContract {
    pub entries: Vec<(u64, Vec<usize>, DType)>,
}

pub type ModelStateItem<M, O, S, U> = (u32, M, TrainableParameterContract, O, S, GradientsParamsRecord, U);

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ModelStateCaller {
    pub step: u64,
    pub label: String,
    pub best_loss: Option<f64>,
    pub warmup_done: bool,
}

pub struct ModelState;
impl Scenario for ModelState {
    const NAME: &'static str = "model_state";
    const DESCRIPTION: &'static str = "ModelStateTrainingRecord version 1: Linear[3,2]+bias; contract of both params; Adam for the weight; \
        cosine scheduler usize 3; one pending gradient; caller state {step u64, label with multi-byte UTF-8, best_loss: Option<f64> Some, warmup_done}";
    type Item = ModelStateItem<LinearItem, OptimItem<AdamState>, usize, ModelStateCaller>;
    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(77);
        let (w, b) = (0x00ab_cdef_0123_4567u64, 5u64);
        let model = LinearItem {
            weight: param(w, p.float_tensor(&[3, 2], &rng.values(6))),
            bias: Some(param(b, p.float_tensor(&[2], &rng.values(2)))),
        };
        let contract = TrainableParameterContract { entries: vec![(b, vec![2], DType::F32), (w, vec![3, 2], DType::F32)] };
        let mut optim = OptimItem::new();
        optim.insert(param_id_string(w), AdaptorRecordItem::for_rank(2, AdamState { momentum: adam_state(p, &mut rng, &[3, 2], 12, false) }));
        let gradients = vec![(w, DType::F32, p.float_tensor(&[3, 2], &rng.values(6)))];
        let state = ModelStateCaller { step: 12, label: "Größe → 模型 ✓".to_string(), best_loss: Some(0.125), warmup_done: true };
        (1u32, model, contract, optim, 3usize, GradientsParamsRecord { gradients }, state)
    }
}

// ------------------------------------------------------------------------------------------------
// Layouts a MessagePack twin cannot spell out for bincode (issue 29): each one decodes from its
// bincode bytes only if the schema-driven decoder follows the Rust types the way bincode does.

/// Every u64 class a varint has: one byte, the fb/fc/fd markers and their edges, 2^53+1, the extremes.
pub const U64_EXTREMES: [u64; 12] = [0, 1, 250, 251, 65535, 65536, 4_294_967_295, 4_294_967_296, 9_007_199_254_740_993, 9_223_372_036_854_775_807, 9_223_372_036_854_775_808, u64::MAX];

/// Quotes, backslashes, tabs, newlines, C0 controls, DEL, U+2028 and an astral character.
pub const AWKWARD_TEXT: &str = "quote \" backslash \\ tab\t newline\n cr\r nul\u{0} ctl\u{1}\u{1f} del\u{7f} ls\u{2028} 😀";

pub struct Utf8Map;
impl Scenario for Utf8Map {
    const NAME: &'static str = "utf8_map";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; LinearLr usize 3; caller state a map keyed by multi-byte UTF-8 strings \
        (Latin accents, CJK, Cyrillic, Greek, an emoji, an empty key) whose values are (Vec<u64> of varint-class extremes, a string with \
        quotes, backslashes, tabs, newlines and control characters)";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, usize, indexmap::IndexMap<String, (Vec<u64>, String)>>;
    fn build(p: Precision) -> Self::Item {
        let (model, optim, gradients) = tiny_parts(p, 21);
        let mut state = indexmap::IndexMap::new();
        for (i, key) in ["résumé", "学习率", "Привет", "αβγδ", "Größe ✓", "😀", ""].iter().enumerate() {
            state.insert(key.to_string(), (U64_EXTREMES[..(i * 2 + 1).min(U64_EXTREMES.len())].to_vec(), format!("{i}: {AWKWARD_TEXT}")));
        }
        (model, optim, 3usize, gradients, state)
    }
}

/// A model with a fixed-size array of modules (a tuple to serde: no length in bincode) next to an
/// `Option` module that is Some (bare in MessagePack, tagged `01` in bincode), and one that is None.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ArrayModel {
    pub blocks: [LinearItem; 2],
    pub extra: Option<LinearItem>,
    pub head: LinearItem,
    pub skipped: Option<LinearItem>,
}

pub struct ModuleArray;
impl Scenario for ModuleArray {
    const NAME: &'static str = "module_array";
    const DESCRIPTION: &'static str = "blocks: [Linear; 2] (a tuple: no length prefix in bincode), extra: Option<Linear> Some, head: Linear, \
        skipped: Option<Linear> None; Adam for every weight; Noam usize 10; one pending gradient; caller state () (nil in MessagePack, \
        null in JSON, nothing at all in bincode)";
    type Item = TrainingItem<ArrayModel, OptimItem<AdamState>, usize, ()>;
    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(22);
        let ids = [301u64, 302, 303, 304, 305];
        let linear = |id: u64, bias: Option<u64>, rng: &mut Lcg| LinearItem {
            weight: param(id, p.float_tensor(&[3, 2], &rng.values(6))),
            bias: bias.map(|b| param(b, p.float_tensor(&[2], &rng.values(2)))),
        };
        let model = ArrayModel {
            blocks: [linear(ids[0], Some(ids[1]), &mut rng), linear(ids[2], None, &mut rng)],
            extra: Some(linear(ids[3], None, &mut rng)),
            head: linear(ids[4], None, &mut rng),
            skipped: None,
        };
        let mut optim = OptimItem::new();
        for id in [ids[4], ids[0], ids[3], ids[2]] {
            optim.insert(param_id_string(id), AdaptorRecordItem::for_rank(2, AdamState { momentum: adam_state(p, &mut rng, &[3, 2], 10, false) }));
        }
        let gradients = vec![(ids[2], DType::F32, p.float_tensor(&[3, 2], &rng.values(6)))];
        (model, optim, 10usize, GradientsParamsRecord { gradients }, ())
    }
}

/// Maps of every key type a MessagePack twin shows (strings, unsigned and signed integers of every
/// width; u8/i8 are one raw byte in bincode, the others varints or zigzag varints), and an empty map.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MapKeysState {
    pub by_name: indexmap::IndexMap<String, u32>,
    pub by_u64: indexmap::IndexMap<u64, String>,
    pub by_i64: indexmap::IndexMap<i64, f64>,
    pub by_u8: indexmap::IndexMap<u8, bool>,
    pub by_i8: indexmap::IndexMap<i8, u64>,
    pub by_u16: indexmap::IndexMap<u16, i32>,
    pub by_i32: indexmap::IndexMap<i32, Option<u64>>,
    pub empty: indexmap::IndexMap<String, u64>,
}

pub struct MapKeys;
impl Scenario for MapKeys {
    const NAME: &'static str = "map_keys";
    const DESCRIPTION: &'static str = "tiny Linear[2,1]; Adam; StepLr i32 4; caller state {by_name: String keys, by_u64, by_i64, by_u8 \
        (raw byte in bincode), by_i8 (raw byte), by_u16, by_i32 -> Option<u64> (Some bare in MessagePack), an empty map}";
    type Item = TrainingItem<TinyModel, OptimItem<AdamState>, i32, MapKeysState>;
    fn build(p: Precision) -> Self::Item {
        let (model, optim, gradients) = tiny_parts(p, 23);
        let state = MapKeysState {
            by_name: [("ascii", 1u32), ("é", 2), ("键", u32::MAX)].iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            by_u64: U64_EXTREMES.iter().map(|&k| (k, format!("u{k}"))).collect(),
            by_i64: [i64::MIN, -1, 0, 1, i64::MAX].iter().map(|&k| (k, k as f64 / 3.0)).collect(),
            by_u8: [0u8, 7, 250, 251, 255].iter().map(|&k| (k, k % 2 == 0)).collect(),
            by_i8: [-128i8, -1, 0, 127].iter().map(|&k| (k, k as u64)).collect(),
            by_u16: [0u16, 251, 65535].iter().map(|&k| (k, -(k as i32))).collect(),
            by_i32: [(i32::MIN, Some(1u64)), (-5, None), (i32::MAX, Some(u64::MAX))].iter().copied().collect(),
            empty: indexmap::IndexMap::new(),
        };
        (model, optim, 4i32, gradients, state)
    }
}

/// Parameters of every rank 0-4 (float, int and bool), their Adam states (AdaptorRecordItem Rank0-Rank4)
/// and a pending gradient of every rank.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RanksModel {
    pub r0: ParamSerde<TensorData>,
    pub r1: ParamSerde<TensorData>,
    pub r2: ParamSerde<TensorData>,
    pub r3: ParamSerde<TensorData>,
    pub r4: ParamSerde<TensorData>,
    pub counts: ParamSerde<TensorData>,
    pub mask: ParamSerde<TensorData>,
}

pub struct TensorRanks;
pub const RANK_SHAPES: [&[usize]; 5] = [&[], &[3], &[2, 3], &[2, 1, 3], &[1, 2, 2, 2]];
impl Scenario for TensorRanks {
    const NAME: &'static str = "tensor_ranks";
    const DESCRIPTION: &'static str = "params r0..r4 of shapes [], [3], [2,3], [2,1,3], [1,2,2,2], an int param of rank 0 and a bool param \
        of rank 3; Adam for r0..r4 (Rank0..Rank4); a pending gradient of every rank; cosine usize 2; caller state (rank: u8, shapes: Vec<Vec<usize>>)";
    type Item = TrainingItem<RanksModel, OptimItem<AdamState>, usize, (u8, Vec<Vec<usize>>)>;
    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(24);
        let ids = [401u64, 402, 403, 404, 405, 406, 407];
        let t = |rng: &mut Lcg, shape: &[usize]| p.float_tensor(shape, &rng.values(shape.iter().product()));
        let model = RanksModel {
            r0: param(ids[0], t(&mut rng, RANK_SHAPES[0])),
            r1: param(ids[1], t(&mut rng, RANK_SHAPES[1])),
            r2: param(ids[2], t(&mut rng, RANK_SHAPES[2])),
            r3: param(ids[3], t(&mut rng, RANK_SHAPES[3])),
            r4: param(ids[4], t(&mut rng, RANK_SHAPES[4])),
            counts: param(ids[5], p.int_tensor(&[], &[-7])),
            mask: param(ids[6], bool_tensor(&[1, 2, 1], &[true, false])),
        };
        let mut optim = OptimItem::new();
        for (rank, shape) in RANK_SHAPES.iter().enumerate() {
            optim.insert(param_id_string(ids[rank]), AdaptorRecordItem::for_rank(rank, AdamState { momentum: adam_state(p, &mut rng, shape, 2, false) }));
        }
        let mut gradients: Vec<_> = RANK_SHAPES.iter().enumerate().map(|(rank, shape)| (ids[rank], DType::F32, t(&mut rng, shape))).collect();
        gradients.sort_by_key(|g| g.0);
        let state = (4u8, RANK_SHAPES.iter().map(|s| s.to_vec()).collect());
        (model, optim, 2usize, GradientsParamsRecord { gradients }, state)
    }
}

/// A `#[derive(Module)] enum` record (Burn: newtype variants holding the variants' module records).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ProjItem {
    Dense(LinearItem),
    Norm(LayerNormItem),
}

/// An enum module whose first declared variant the record never uses: the twin shows `Gated`
/// (bincode index 2) before `Plain` (index 0), so the n-th name seen is not the n-th index.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum GateItem {
    Plain(LinearItem),
    Unused(Empty),
    Gated(LinearItem, LinearItem),
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct EnumModel {
    pub proj: Vec<ProjItem>,
    pub pair: (LinearItem, LayerNormItem),
    pub gates: [GateItem; 2],
}

/// Unit variants: a name in MessagePack and JSON, the index alone in bincode.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Phase {
    Warmup,
    Main,
    Cooldown,
}

/// Struct, newtype and tuple variants.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Event {
    Restart { at: u64, reason: String },
    Skip(u32),
    Note(String, i16),
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct EnumState {
    pub phase: Phase,
    pub events: Vec<Event>,
    pub tokens_seen: u128,
    pub small: u128,
    pub offset: i128,
    pub delta: i128,
    pub mixed: (u8, String, f32),
    pub initial: char,
    pub grade: char,
}

pub struct EnumModules;
impl Scenario for EnumModules {
    const NAME: &'static str = "enum_modules";
    const DESCRIPTION: &'static str = "proj: Vec<enum {Dense(Linear), Norm(LayerNorm)}> of Dense, Norm, Dense; pair: (Linear, LayerNorm); \
        gates: [enum {Plain(Linear), Unused, Gated(Linear, Linear)}; 2] = [Gated, Plain] (indices 2, 0); Adam for every weight; \
        Noam usize 6; caller state with unit, struct, newtype and tuple variants, u128::MAX, u128 5, i128::MIN, i128 -3, (u8, String, f32), chars 'é' and 'A' (a char is its UTF-8 bytes alone in bincode)";
    type Item = TrainingItem<EnumModel, OptimItem<AdamState>, usize, EnumState>;
    fn build(p: Precision) -> Self::Item {
        let mut rng = Lcg::new(26);
        let mut next_id = 500u64;
        let mut weights: Vec<(u64, Vec<usize>)> = Vec::new();
        let mut linear = |rng: &mut Lcg, bias: bool| {
            next_id += 2;
            weights.push((next_id, vec![2, 3]));
            LinearItem {
                weight: param(next_id, p.float_tensor(&[2, 3], &rng.values(6))),
                bias: if bias { Some(param(next_id + 1, p.float_tensor(&[3], &rng.values(3)))) } else { None },
            }
        };
        let norm = |rng: &mut Lcg, id: u64| LayerNormItem {
            gamma: param(id, p.float_tensor(&[3], &rng.values(3))),
            beta: param(id + 1, p.float_tensor(&[3], &rng.values(3))),
            epsilon: Empty,
        };
        let proj = vec![ProjItem::Dense(linear(&mut rng, true)), ProjItem::Norm(norm(&mut rng, 600)), ProjItem::Dense(linear(&mut rng, false))];
        let pair = (linear(&mut rng, false), norm(&mut rng, 610));
        let gates = [GateItem::Gated(linear(&mut rng, true), linear(&mut rng, false)), GateItem::Plain(linear(&mut rng, false))];
        let model = EnumModel { proj, pair, gates };
        let mut optim = OptimItem::new();
        for (id, shape) in weights.iter() {
            optim.insert(param_id_string(*id), AdaptorRecordItem::for_rank(2, AdamState { momentum: adam_state(p, &mut rng, shape, 6, false) }));
        }
        let gradients = vec![(weights[0].0, DType::F32, p.float_tensor(&[2, 3], &rng.values(6)))];
        let state = EnumState {
            phase: Phase::Cooldown,
            events: vec![Event::Skip(3), Event::Restart { at: 9, reason: "nan".to_string() }, Event::Note("lr".to_string(), -4)],
            tokens_seen: u128::MAX,
            small: 5,
            offset: i128::MIN,
            delta: -3,
            mixed: (200, "Warmup".to_string(), 0.5),
            initial: 'é',
            grade: 'A',
        };
        (model, optim, 6usize, GradientsParamsRecord { gradients }, state)
    }
}

pub const SCENARIO_NAMES: [&str; 14] = ["adam", "adamw_amsgrad", "sgd", "exponential", "noam", "linear", "step_fresh", "spec_example", "model_state",
    "utf8_map", "module_array", "map_keys", "tensor_ranks", "enum_modules"];

/// Calls `$f::<ScenarioType>($args)` for the scenario named `$name`, or evaluates `$none`.
#[macro_export]
macro_rules! with_scenario {
    ($name:expr, $f:ident ( $($args:expr),* ), $none:expr) => {
        match $name {
            "adam" => $f::<$crate::scenarios::Adam>($($args),*),
            "adamw_amsgrad" => $f::<$crate::scenarios::AdamWAmsgrad>($($args),*),
            "sgd" => $f::<$crate::scenarios::Sgd>($($args),*),
            "exponential" => $f::<$crate::scenarios::Exponential>($($args),*),
            "noam" => $f::<$crate::scenarios::Noam>($($args),*),
            "linear" => $f::<$crate::scenarios::Linear>($($args),*),
            "step_fresh" => $f::<$crate::scenarios::StepFresh>($($args),*),
            "spec_example" => $f::<$crate::scenarios::SpecExample>($($args),*),
            "model_state" => $f::<$crate::scenarios::ModelState>($($args),*),
            "utf8_map" => $f::<$crate::scenarios::Utf8Map>($($args),*),
            "module_array" => $f::<$crate::scenarios::ModuleArray>($($args),*),
            "map_keys" => $f::<$crate::scenarios::MapKeys>($($args),*),
            "tensor_ranks" => $f::<$crate::scenarios::TensorRanks>($($args),*),
            "enum_modules" => $f::<$crate::scenarios::EnumModules>($($args),*),
            "transformer" => $f::<$crate::transformer::Transformer>($($args),*),
            _ => $none,
        }
    };
}
