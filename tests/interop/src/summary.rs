// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! Per-tensor summaries in file order, with paths in the inspector's path syntax
//! (core/value/tape.cpp appendKeyToPath / appendIndexToPath).
//!
//! The typed record is turned into an order-preserving serde_json::Value (serde_json's
//! `preserve_order`), whose shape is the NamedMpk/JSON layout; a TensorData is an object with
//! exactly the keys bytes, shape, dtype.

use crate::record::{DType, Precision};
use serde_json::{json, Map, Value};

/// Identifier-like keys are appended as `.key`; anything else as `["key"]` with the same escapes as core/value/tape.cpp.
pub fn append_key(base: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    let mut out = base.to_string();
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
        return out;
    }
    out.push_str("[\"");
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("\"]");
    out
}

pub fn append_index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a64(state: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(state, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}
pub const FNV_OFFSET: u64 = 0xcbf29ce484222325;

/// Statistics of a run of values: sequential left-to-right f64 sums over the FINITE values only
/// (so the numbers stay valid JSON), plus counts of the non-finite ones.
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Stats {
    pub sum: f64,
    pub sum_sq: f64,
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
}
impl Stats {
    pub fn add(&mut self, v: f64) {
        if v.is_nan() {
            self.nan += 1;
        } else if v == f64::INFINITY {
            self.pos_inf += 1;
        } else if v == f64::NEG_INFINITY {
            self.neg_inf += 1;
        } else {
            self.sum += v;
            self.sum_sq += v * v;
        }
    }
    fn write(&self, o: &mut Map<String, Value>) {
        o.insert("sum".into(), json!(self.sum));
        o.insert("l2".into(), json!(self.sum_sq.sqrt()));
        o.insert("nan".into(), json!(self.nan));
        o.insert("pos_inf".into(), json!(self.pos_inf));
        o.insert("neg_inf".into(), json!(self.neg_inf));
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TensorSummary {
    pub path: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
    pub stats: Stats,
}

impl TensorSummary {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("path".into(), json!(self.path));
        o.insert("dtype".into(), json!(self.dtype.name()));
        o.insert("shape".into(), json!(self.shape));
        o.insert("byte_len".into(), json!(self.bytes.len()));
        self.stats.write(&mut o);
        o.insert("fnv1a64".into(), json!(format!("{:016x}", fnv1a64(FNV_OFFSET, &self.bytes))));
        Value::Object(o)
    }
}

fn as_tensor(path: &str, o: &Map<String, Value>) -> Result<Option<TensorSummary>, String> {
    let keys: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
    if keys != ["bytes", "shape", "dtype"] {
        return Ok(None);
    }
    let dtype: DType = serde_json::from_value(o["dtype"].clone()).map_err(|e| format!("{path}: bad dtype: {e}"))?;
    let shape: Vec<usize> = serde_json::from_value(o["shape"].clone()).map_err(|e| format!("{path}: bad shape: {e}"))?;
    let bytes: Vec<u8> = serde_json::from_value(o["bytes"].clone()).map_err(|e| format!("{path}: bad bytes: {e}"))?;
    let numel = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or_else(|| format!("{path}: shape overflows"))?;
    let size = dtype.size().ok_or_else(|| format!("{path}: quantized tensors are not summarised"))?;
    if numel.checked_mul(size) != Some(bytes.len()) {
        return Err(format!("{path}: {} bytes but shape {:?} of {} needs {}", bytes.len(), shape, dtype.name(), numel * size));
    }
    let mut stats = Stats::default();
    for i in 0..numel {
        stats.add(dtype.element(&bytes, i));
    }
    Ok(Some(TensorSummary { path: path.to_string(), dtype, shape, bytes, stats }))
}

/// Every TensorData under `v`, in serialization (file) order.
pub fn collect_tensors(v: &Value, path: &str, out: &mut Vec<TensorSummary>) -> Result<(), String> {
    match v {
        Value::Object(o) => {
            if let Some(t) = as_tensor(path, o)? {
                out.push(t);
                return Ok(());
            }
            for (k, child) in o {
                collect_tensors(child, &append_key(path, k), out)?;
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                collect_tensors(child, &append_index(path, i), out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Summary of a decoded record (BurnRecord as an order-preserving Value).
pub struct RecordSummary {
    pub tensors: Vec<TensorSummary>,
    pub metadata: Value,
    pub scheduler: Value,
    pub state: Value,
}

pub fn summarize(record: &Value) -> Result<RecordSummary, String> {
    let item = record.get("item").ok_or("no item")?;
    let mut tensors = Vec::new();
    collect_tensors(item, "item", &mut tensors)?;
    // TrainingRecord 5-tuple: scheduler 2, caller state 4; ModelStateTrainingRecord 7-tuple: 4 and 6.
    let (scheduler, state) = if item.as_array().map_or(false, |a| a.len() == 7) { (4, 6) } else { (2, 4) };
    Ok(RecordSummary {
        tensors,
        metadata: record.get("metadata").cloned().unwrap_or(Value::Null),
        scheduler: item.get(scheduler).cloned().unwrap_or(Value::Null),
        state: item.get(state).cloned().unwrap_or(Value::Null),
    })
}

impl RecordSummary {
    /// Float tensors must carry the settings' FloatElem dtype and int tensors its IntElem (what
    /// `into_item::<S>` produces); Bool is stored unconverted.
    pub fn check_precision(&self, p: Precision) -> Result<(), String> {
        for t in &self.tensors {
            if t.dtype.is_float() && t.dtype != p.float_dtype() {
                return Err(format!("{}: float tensor stored as {} but settings {} store {}", t.path, t.dtype.name(), p.settings(), p.float_dtype().name()));
            }
            if t.dtype.is_int() && t.dtype != p.int_dtype() {
                return Err(format!("{}: int tensor stored as {} but settings {} store {}", t.path, t.dtype.name(), p.settings(), p.int_dtype().name()));
            }
        }
        Ok(())
    }

    /// Totals over all tensors: stats in file order and a FNV-1a 64 over all tensor bytes in file order.
    pub fn totals(&self, o: &mut Map<String, Value>) {
        let mut all = Stats::default();
        let mut h = FNV_OFFSET;
        for t in &self.tensors {
            for i in 0..t.bytes.len() / t.dtype.size().unwrap_or(1) {
                all.add(t.dtype.element(&t.bytes, i));
            }
            h = fnv1a64(h, &t.bytes);
        }
        o.insert("tensor_count".into(), json!(self.tensors.len()));
        all.write(o);
        o.insert("fnv1a64".into(), json!(format!("{h:016x}")));
    }
}
