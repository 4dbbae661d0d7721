// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! Peer measurements of the benchmark suite (tests/bench/README.md): typed loads and saves of the
//! generated bench TrainingRecord with the real crates, flate2 inflation, serde_json parsing of a
//! GradientCheckpoint. Every command prints one JSON line of wall-clock seconds per phase.

use crate::gc;
use crate::record::*;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::path::Path;
use std::time::Instant;

/// One block of the bench module (tests/bench/gen/bench_gen.cpp): Burn's LayerNorm and Linear items.
#[derive(Serialize, Deserialize)]
pub struct BenchBlock {
    pub norm: LayerNormItem,
    pub up: LinearItem,
    pub down: LinearItem,
}

#[derive(Serialize, Deserialize)]
pub struct BenchModel {
    pub blocks: Vec<BenchBlock>,
}

/// The bench TrainingRecord: SGD without momentum, a usize scheduler record, no pending gradients,
/// and a Vec<u64> caller state (what a layout derived from the self-describing record writes for an array).
pub type BenchItem = crate::scenarios::TrainingItem<BenchModel, OptimItem<SgdState>, usize, Vec<u64>>;

fn read(file: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))
}

fn tensor_totals(r: &BurnRecord<BenchItem>) -> (usize, usize) {
    let mut tensors = 0;
    let mut bytes = 0;
    let mut add = |t: &TensorData| {
        tensors += 1;
        bytes += t.bytes.len();
    };
    for b in &r.item.0.blocks {
        add(&b.norm.gamma.param);
        add(&b.norm.beta.param);
        for l in [&b.up, &b.down] {
            add(&l.weight.param);
            if let Some(bias) = &l.bias {
                add(&bias.param);
            }
        }
    }
    (tensors, bytes)
}

fn recorder(file: &Path) -> Result<Recorder, String> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    Recorder::from_file_name(name).ok_or_else(|| format!("{}: unknown recorder extension", file.display()))
}

/// `bench-load FILE`: read the file, then the typed decode exactly as the recorder's load does.
pub fn load(file: &Path) -> Result<String, String> {
    let rec = recorder(file)?;
    let t0 = Instant::now();
    let bytes = read(file)?;
    let read_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let record: BurnRecord<BenchItem> = rec.decode(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let decode_s = t1.elapsed().as_secs_f64();
    let (tensors, tensor_bytes) = tensor_totals(&record);
    Ok(json!({"read_s": read_s, "decode_s": decode_s, "total_s": read_s + decode_s,
              "tensors": tensors, "tensor_bytes": tensor_bytes, "recorder": format!("{rec:?}")})
    .to_string())
}

/// `bench-save IN OUT`: typed load of IN, then the recorder of OUT's extension writes it (rmp-serde
/// `write_named` for .mpk), as Burn's `save_item`. `sync_s` is an fsync of OUT afterwards (Burn does
/// not sync; ckpt's atomic write does, so the bench compares `save_s + sync_s` with ckpt's writer).
pub fn save(input: &Path, output: &Path) -> Result<String, String> {
    let rin = recorder(input)?;
    let rout = recorder(output)?;
    let t0 = Instant::now();
    let bytes = read(input)?;
    let record: BurnRecord<BenchItem> = rin.decode(&bytes).map_err(|e| format!("{}: {e}", input.display()))?;
    drop(bytes);
    let load_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let out = rout.encode(&record)?;
    let encode_s = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    std::fs::write(output, &out).map_err(|e| format!("{}: {e}", output.display()))?;
    let write_s = t2.elapsed().as_secs_f64();
    let t3 = Instant::now();
    std::fs::File::open(output).and_then(|f| f.sync_all()).map_err(|e| format!("{}: fsync: {e}", output.display()))?;
    let sync_s = t3.elapsed().as_secs_f64();
    Ok(json!({"load_s": load_s, "encode_s": encode_s, "write_s": write_s, "sync_s": sync_s,
              "save_s": encode_s + write_s, "total_s": load_s + encode_s + write_s, "bytes": out.len()})
    .to_string())
}

/// `bench-inflate FILE.gz`: flate2's GzDecoder over the whole file (what the gz recorders' load does first).
pub fn inflate(file: &Path) -> Result<String, String> {
    let t0 = Instant::now();
    let bytes = read(file)?;
    let read_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out).map_err(|e| format!("{}: gzip: {e}", file.display()))?;
    let inflate_s = t1.elapsed().as_secs_f64();
    Ok(json!({"read_s": read_s, "inflate_s": inflate_s, "total_s": read_s + inflate_s, "bytes": out.len()}).to_string())
}

/// `bench-gc FILE`: serde_json typed parse (GradientCheckpoint::load), then the crate's Kahn order
/// over the edges (ComputationGraphStore::topological_sort).
pub fn gradient_checkpoint(file: &Path) -> Result<String, String> {
    let t0 = Instant::now();
    let bytes = read(file)?;
    let read_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let c: gc::hashed::GradientCheckpoint =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: serde_json: {e}", file.display()))?;
    let parse_s = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let mut indegree: HashMap<&str, usize> = c.graph.nodes.keys().map(|k| (k.as_str(), 0)).collect();
    let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
    for (a, b) in &c.graph.edges {
        *indegree.entry(b.as_str()).or_insert(0) += 1;
        indegree.entry(a.as_str()).or_insert(0);
        out.entry(a.as_str()).or_default().push(b.as_str());
    }
    let mut queue: VecDeque<&str> = indegree.iter().filter(|(_, d)| **d == 0).map(|(k, _)| *k).collect();
    let mut order = Vec::with_capacity(indegree.len());
    while let Some(n) = queue.pop_front() {
        order.push(n);
        if let Some(next) = out.get(n) {
            for m in next {
                let d = indegree.get_mut(m).expect("every edge end is in the map");
                *d -= 1;
                if *d == 0 {
                    queue.push_back(m);
                }
            }
        }
    }
    let topo_s = t2.elapsed().as_secs_f64();
    Ok(json!({"read_s": read_s, "parse_s": parse_s, "topo_s": topo_s, "total_s": read_s + parse_s + topo_s,
              "nodes": c.graph.nodes.len(), "ordered": order.len()})
    .to_string())
}
