// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! `verdict`: would Burn / Ruda load this file? The answer `ckpt validate` must give (issue 10).
//!
//! Unlike `read` (which checks writers and is stricter than Burn), this decodes exactly as the
//! recorders load: rmp-serde and bincode ignore trailing bytes, serde_json rejects them, gzip
//! reads the first member, a tensor of another dtype than the precision's is converted (accepted).
//! A decoded record then passes the checks loading does (format-burn-record.md §5.4, §8, §9.6):
//! every TensorData holds numel × dtype-size bytes (Burn's TensorData::convert casts the bytes);
//! Ruda's GradientsParams::from_record_for_model rejects duplicate ids, non-float dtypes and
//! gradients that do not name a parameter of the model with the same shape; the optimizer entries
//! must belong to parameters of the same rank, shape and float-ness (the adaptor steps them with
//! the parameter); ModelStateTrainingRecord restores only version 1.

use crate::record::{param_id_string, Recorder};
use crate::Typed;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

fn typed_decode<S: Typed>(rec: Recorder, file: &[u8]) -> Result<Value, String> {
    let payload = if rec.is_gz() {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(file).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
        out
    } else {
        file.to_vec()
    };
    let record: crate::record::BurnRecord<S::Item> = match rec {
        Recorder::NamedMpk | Recorder::NamedMpkGz => rmp_serde::from_slice(&payload).map_err(|e| format!("rmp-serde: {e}"))?,
        Recorder::PrettyJson | Recorder::JsonGz => serde_json::from_slice(&payload).map_err(|e| format!("serde_json: {e}"))?,
        Recorder::Bin | Recorder::BinGz => {
            use bincode::Options;
            bincode::DefaultOptions::new().allow_trailing_bytes().deserialize(&payload).map_err(|e| format!("bincode: {e}"))?
        }
    };
    serde_json::to_value(&record).map_err(|e| format!("to_value: {e}"))
}

fn dtype_name(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

fn is_float(name: &str) -> bool {
    matches!(name, "F64" | "F32" | "Flex32" | "F16" | "BF16")
}

fn dtype_size(v: &Value) -> Option<u64> {
    Some(match dtype_name(v).as_str() {
        "F64" | "I64" | "U64" => 8,
        "F32" | "Flex32" | "I32" | "U32" => 4,
        "F16" | "BF16" | "I16" | "U16" => 2,
        "I8" | "U8" => 1,
        "Bool" => {
            if v.get("Bool").and_then(|s| s.as_str()) == Some("U32") {
                4
            } else {
                1
            }
        }
        _ => return None,
    })
}

fn is_tensor(v: &Value) -> bool {
    v.as_object().map_or(false, |o| o.len() == 3 && o.contains_key("bytes") && o.contains_key("shape") && o.contains_key("dtype"))
}

fn shape_of(t: &Value) -> Vec<u64> {
    t["shape"].as_array().map(|a| a.iter().filter_map(|d| d.as_u64()).collect()).unwrap_or_default()
}

/// Every TensorData below `v`, in order.
fn tensors<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    if is_tensor(v) {
        out.push(v);
        return;
    }
    match v {
        Value::Object(o) => o.values().for_each(|c| tensors(c, out)),
        Value::Array(a) => a.iter().for_each(|c| tensors(c, out)),
        _ => {}
    }
}

/// Every ParamSerde {id, param: TensorData} below `v`: id → tensor.
fn params<'a>(v: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    if let Value::Object(o) = v {
        if o.len() == 2 {
            if let (Some(Value::String(id)), Some(p)) = (o.get("id"), o.get("param")) {
                if is_tensor(p) {
                    out.push((id.clone(), p));
                    return;
                }
            }
        }
        o.values().for_each(|c| params(c, out));
    } else if let Value::Array(a) = v {
        a.iter().for_each(|c| params(c, out));
    }
}

fn check_lengths(v: &Value) -> Result<(), String> {
    let mut all = Vec::new();
    tensors(v, &mut all);
    for t in all {
        let len = t["bytes"].as_array().map_or(0, |a| a.len()) as u64;
        if let Some(size) = dtype_size(&t["dtype"]) {
            let numel = shape_of(t).iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
            if numel.and_then(|n| n.checked_mul(size)) != Some(len) {
                return Err(format!("TensorData of shape {:?} and dtype {} holds {len} bytes", shape_of(t), dtype_name(&t["dtype"])));
            }
        }
    }
    Ok(())
}

/// The load-time checks on a decoded record (`value` = the typed record as JSON).
fn restore_checks(value: &Value) -> Result<(), String> {
    check_lengths(value)?;
    let item = value["item"].as_array().ok_or("item is not a tuple")?;
    let (module, optimizer, gradients) = match item.len() {
        5 => (&item[0], &item[1], &item[3]),
        7 => {
            if item[0].as_u64() != Some(1) {
                return Err(format!("ModelStateTrainingRecord version {} (only 1 restores)", item[0]));
            }
            (&item[1], &item[3], &item[5])
        }
        n => return Err(format!("item is a tuple of {n}")),
    };
    let mut ps = Vec::new();
    params(module, &mut ps);
    let by_id: HashMap<&str, &Value> = ps.iter().map(|(id, t)| (id.as_str(), *t)).collect();
    let mut seen = HashSet::new();
    for g in gradients["gradients"].as_array().ok_or("gradients is not a sequence")? {
        let id = g[0].as_u64().ok_or("gradient id is not a u64")?;
        if !seen.insert(id) {
            return Err(format!("duplicate pending gradient {id}"));
        }
        if !is_float(&dtype_name(&g[1])) || !is_float(&dtype_name(&g[2]["dtype"])) {
            return Err(format!("pending gradient {id} is not a float tensor"));
        }
        if !ps.is_empty() {
            match by_id.get(param_id_string(id).as_str()) {
                Some(p) if shape_of(p) == shape_of(&g[2]) => {}
                Some(_) => return Err(format!("pending gradient {id} does not have its parameter's shape")),
                None => return Err(format!("pending gradient {id} names no parameter of the model")),
            }
        }
    }
    if ps.is_empty() {
        return Ok(());
    }
    for (id, entry) in optimizer.as_object().ok_or("optimizer is not a map")? {
        let p = by_id.get(id.as_str()).ok_or_else(|| format!("optimizer entry {id} names no parameter"))?;
        let ranked = entry["V1"].as_object().and_then(|o| o.iter().next()).ok_or("adaptor entry without V1/RankN")?;
        let rank: usize = ranked.0.trim_start_matches("Rank").parse().map_err(|_| "bad rank variant")?;
        if rank != 0 && rank != shape_of(p).len() {
            return Err(format!("optimizer entry {id} is {} for a parameter of rank {}", ranked.0, shape_of(p).len()));
        }
        let mut states = Vec::new();
        tensors(ranked.1, &mut states);
        for s in states {
            if shape_of(s) != shape_of(p) || is_float(&dtype_name(&s["dtype"])) != is_float(&dtype_name(&p["dtype"])) {
                return Err(format!("optimizer state of {id} does not fit its parameter"));
            }
        }
    }
    Ok(())
}

/// One JSON line per file: {"file", "accepted", "error"}.
pub fn verdict_line<S: Typed>(file: &Path) -> Result<String, String> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let result = Recorder::from_file_name(name)
        .ok_or_else(|| "unknown extension".to_string())
        .and_then(|rec| std::fs::read(file).map_err(|e| e.to_string()).map(|b| (rec, b)))
        .and_then(|(rec, bytes)| typed_decode::<S>(rec, &bytes))
        .and_then(|v| restore_checks(&v));
    Ok(serde_json::json!({"file": file.to_string_lossy(), "accepted": result.is_ok(), "error": result.err()}).to_string())
}
