// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! The `ckpt-train` layout: the Rust types of the TrainingRecords the reference trainer
//! (app/train) writes, so that the real rmp-serde / serde_json / bincode decode them typed.
//!
//! Mirrors app/train/recordwriter.cpp (writeModule, writeOptimizer, writeGradients, the schedulers of
//! optim.h) and app/train/config.cpp (writeCallerState: field order and Rust widths). Field order
//! only matters on the wire for bincode; for MessagePack and JSON `reencode` checks it (a re-encode
//! in declaration order must give the file's bytes back).
//!
//! The optimizer state and scheduler record types depend on the run, so they are type parameters:
//! `--optimizer sgd|adam|adamw` and `--scheduler constant|step|linear|cosine|exponential|noam` pick
//! them (the trainer's own names); without the flags every layout is tried in turn.

use crate::record::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// `struct Block { fc1: Linear, norm: LayerNorm, fc2: Linear }`: the residual block `h + fc2(act(norm(fc1(h))))`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainBlock {
    pub fc1: LinearItem,
    pub norm: LayerNormItem,
    pub fc2: LinearItem,
}

/// `struct Mlp { input: Linear, norm: LayerNorm, activation: Relu|Gelu, blocks: Vec<Block>, output: Linear }`
/// (a `Vec<Module>` records as a Vec of the modules' records; `--blocks 0` writes an empty one).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainMlp {
    pub input: LinearItem,
    pub norm: LayerNormItem,
    pub activation: Empty,
    pub blocks: Vec<TrainBlock>,
    pub output: LinearItem,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainModelConfig {
    pub input_dim: usize,
    pub hidden: usize,
    pub output_dim: usize,
    pub activation: String,
    pub blocks: usize,
}

/// Burn's config widths: Adam/AdamW betas, epsilon and weight decay are f32; lr, SGD momentum and dampening f64.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainOptimizerConfig {
    pub name: String,
    pub lr: f64,
    pub beta_1: f32,
    pub beta_2: f32,
    pub epsilon: f32,
    pub weight_decay: f32,
    pub amsgrad: bool,
    pub momentum: f64,
    pub dampening: f64,
    pub nesterov: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainSchedulerConfig {
    pub name: String,
    pub gamma: f64,
    pub step_size: usize,
    pub final_lr: f64,
    pub num_iters: usize,
    pub warmup_steps: usize,
    pub embedding_size: usize,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainConfig {
    pub model: TrainModelConfig,
    pub task: String,
    pub dtype: String,
    pub batch_size: usize,
    pub dataset_size: usize,
    pub valid_size: usize,
    pub seed: u64,
    pub optimizer: TrainOptimizerConfig,
    pub scheduler: TrainSchedulerConfig,
    pub recorder: String,
    pub precision: String,
    pub checkpoint_every: usize,
    pub grad_accum: usize,
    pub steps: usize,
    pub layout: String,
    /// `--diverge-at STEP`: from that micro-batch step on the optimizer applies lr × 10^6; None = never.
    pub diverge_at: Option<u64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainProgress {
    pub step: u64,
    pub optimizer_steps: u64,
    pub pending_micro_batches: u64,
    pub epoch: usize,
    pub data_cursor: usize,
    pub samples_seen: u64,
    pub rng_counter: u64,
    pub stop_step: u64,
    pub last_lr: f64,
    /// None for a non-finite loss (a diverged run): serde_json writes NaN and ±inf as null, which no f64 reads back.
    pub loss_tail: Vec<Option<f64>>,
}

/// The caller state (item[4]): `struct { config, progress }`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TrainCallerState {
    pub config: TrainConfig,
    pub progress: TrainProgress,
}

/// One ckpt-train layout: optimizer state `O`, scheduler record `S`.
pub struct CkptTrain<O, S>(PhantomData<(O, S)>);

impl<O: Serialize + DeserializeOwned, S: Serialize + DeserializeOwned> crate::Typed for CkptTrain<O, S> {
    const NAME: &'static str = "ckpt-train";
    type Item = (TrainMlp, OptimItem<O>, S, GradientsParamsRecord, TrainCallerState);
}

/// The trainer's optimizer names.
pub const OPTIMIZERS: [&str; 3] = ["sgd", "adam", "adamw"];
/// The trainer's scheduler names; the record types are `()`, i32, usize, usize, f64, usize.
pub const SCHEDULERS: [&str; 6] = ["constant", "step", "linear", "cosine", "exponential", "noam"];

/// Calls `$f::<CkptTrain<State, SchedulerRecord>>($args)` for an optimizer and scheduler name;
/// evaluates `$none` for unknown names.
#[macro_export]
macro_rules! with_train_layout {
    ($optimizer:expr, $scheduler:expr, $f:ident ( $($args:expr),* ), $none:expr) => {{
        use $crate::record::{AdamState, AdamWState, SgdState};
        use $crate::train::CkptTrain;
        match ($optimizer, $scheduler) {
            ("sgd", "constant") => $f::<CkptTrain<SgdState, ()>>($($args),*),
            ("sgd", "step") => $f::<CkptTrain<SgdState, i32>>($($args),*),
            ("sgd", "linear" | "cosine" | "noam") => $f::<CkptTrain<SgdState, usize>>($($args),*),
            ("sgd", "exponential") => $f::<CkptTrain<SgdState, f64>>($($args),*),
            ("adam", "constant") => $f::<CkptTrain<AdamState, ()>>($($args),*),
            ("adam", "step") => $f::<CkptTrain<AdamState, i32>>($($args),*),
            ("adam", "linear" | "cosine" | "noam") => $f::<CkptTrain<AdamState, usize>>($($args),*),
            ("adam", "exponential") => $f::<CkptTrain<AdamState, f64>>($($args),*),
            ("adamw", "constant") => $f::<CkptTrain<AdamWState, ()>>($($args),*),
            ("adamw", "step") => $f::<CkptTrain<AdamWState, i32>>($($args),*),
            ("adamw", "linear" | "cosine" | "noam") => $f::<CkptTrain<AdamWState, usize>>($($args),*),
            ("adamw", "exponential") => $f::<CkptTrain<AdamWState, f64>>($($args),*),
            _ => $none,
        }
    }};
}
