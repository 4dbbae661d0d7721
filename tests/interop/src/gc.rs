// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! ipfrs-tensorlogic 0.2.0 `GradientCheckpoint` mirror types (format-ipfrs-gradient-checkpoint.md
//! §1.1–§1.3) and the stand-in files. `hashed` uses std HashMap exactly like the crate (random
//! order per process: genuine output); `sorted` uses BTreeMap for reproducible files.

use crate::scenarios::Lcg;
use serde_json::{json, Map, Value};

macro_rules! gc_types {
    ($module:ident, $map:ident) => {
        pub mod $module {
            use serde::{Deserialize, Serialize};
            use std::collections::$map;

            #[derive(Serialize, Deserialize, Debug, Clone)]
            pub struct ComputationNode {
                pub id: String,
                pub op: String,
                pub input_cids: Vec<String>,
                pub output_cid: Option<String>,
                pub gradient_cid: Option<String>,
                pub metadata: $map<String, String>,
            }

            #[derive(Serialize, Deserialize, Debug, Clone, Default)]
            pub struct ComputationGraphStore {
                pub nodes: $map<String, ComputationNode>,
                pub edges: Vec<(String, String)>,
            }

            #[derive(Serialize, Deserialize, Debug, Clone)]
            pub struct GradientCheckpoint {
                pub graph: ComputationGraphStore,
                pub step: u64,
                pub loss_cid: Option<String>,
                pub optimizer_state: $map<String, Vec<u8>>,
                pub timestamp: u64,
            }
        }
    };
}
gc_types!(hashed, HashMap);
gc_types!(sorted, BTreeMap);

use sorted::{ComputationGraphStore, ComputationNode, GradientCheckpoint};

fn node(id: &str, op: &str, inputs: &[&str], output: Option<&str>, gradient: Option<&str>, meta: &[(&str, &str)]) -> ComputationNode {
    ComputationNode {
        id: id.to_string(),
        op: op.to_string(),
        input_cids: inputs.iter().map(|s| s.to_string()).collect(),
        output_cid: output.map(str::to_string),
        gradient_cid: gradient.map(str::to_string),
        metadata: meta.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    }
}

/// `ComputationGraphStore::add_node`: one edge from every existing node whose output the new node
/// consumes (no de-duplication), then insert (replacing a node with the same id).
fn add_node(g: &mut ComputationGraphStore, n: ComputationNode) {
    let producers: Vec<String> = g
        .nodes
        .values()
        .filter(|p| p.output_cid.as_ref().map_or(false, |oc| n.input_cids.contains(oc)))
        .map(|p| p.id.clone())
        .collect();
    for p in producers {
        g.edges.push((p, n.id.clone()));
    }
    g.nodes.insert(n.id.clone(), n);
}

/// `record_output`: set the output, link every other node consuming it (skipping existing pairs).
fn record_output(g: &mut ComputationGraphStore, id: &str, cid: &str) {
    g.nodes.get_mut(id).expect("known node").output_cid = Some(cid.to_string());
    let consumers: Vec<String> = g.nodes.values().filter(|c| c.id != id && c.input_cids.iter().any(|i| i == cid)).map(|c| c.id.clone()).collect();
    for c in consumers {
        let e = (id.to_string(), c);
        if !g.edges.contains(&e) {
            g.edges.push(e);
        }
    }
}

fn uuid_v4(rng: &mut Lcg) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // RFC 4122 variant
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000; // version 4
    format!("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48, b & 0xffff_ffff_ffff)
}

/// A well-formed CIDv1 (raw codec 0x55, sha2-256 multihash header) whose 32-byte digest is
/// pseudo-random: it parses like a real `bafkrei…` CID but is not the hash of any stored block.
fn pseudo_cid(rng: &mut Lcg) -> String {
    let mut bin = vec![0x01, 0x55, 0x12, 0x20];
    for _ in 0..4 {
        bin.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    format!("b{}", data_encoding::BASE32_NOPAD.encode(&bin).to_lowercase())
}

fn checkpoint(graph: ComputationGraphStore, step: u64, loss: Option<&str>, blobs: Vec<(&str, Vec<u8>)>, timestamp: u64) -> GradientCheckpoint {
    GradientCheckpoint {
        graph,
        step,
        loss_cid: loss.map(str::to_string),
        optimizer_state: blobs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        timestamp,
    }
}

/// §2.2 worked example: exact ids, CIDs, metadata, blobs and timestamp.
fn worked_example() -> GradientCheckpoint {
    let x = "bafkreihojldtyk6so5lkxatyb4t4oot3ytj7bo3kzm36acf4e7wm27syrm";
    let w = "bafkreib2cj24pbqff2yazy74ctemn3hhmhc2szu6fvrorxjklqfs3ameda";
    let y = "bafkreihf4dhdt6wittmtv5n2rpfnf7rv3cghkql4pzcjih7f5zher4opou";
    let r = "bafkreicdjmtaikx7h64ejjgey27a3anapgym5bgpxamqm6iciqcolxciei";
    let loss = "bafkreihabzplsrcbqlzvemrtotxu4chlzn4eojp52t6wcllxgbkawpqmrq";
    let dr = "bafkreib6tegulsb7uaozx4ggjn4625ty346henqu6d36ztod2glpumdt5e";
    let dw = "bafyreictoepr7ufd5aer5flw2lcnwoxxpqtuwgxelpfnxsqkzdzngd6owe";
    let f32_2 = [("dtype", "f32"), ("shape", "[2]")];
    let mut g = ComputationGraphStore::default();
    add_node(&mut g, node("0b1f6c1e-5d2a-4c3b-9a7e-1f2d3c4b5a60", "input", &[], Some(x), None, &f32_2));
    add_node(&mut g, node("4e8a2b7c-9d1f-4a6e-8b3c-2d5e7f9a1b24", "matmul", &[x, w], Some(y), Some(dw), &[("dtype", "f32"), ("shape", "[2]"), ("weight", "fc.weight")]));
    add_node(&mut g, node("9c3d5e7f-1a2b-4c4d-a5e6-f7a8b9c0d1e2", "relu", &[y], Some(r), Some(dr), &f32_2));
    add_node(&mut g, node("d7e6f5a4-b3c2-4d1e-8f9a-0b1c2d3e4f56", "sum_sq_loss", &[r], Some(loss), None, &[]));
    let blobs = vec![
        ("fc.weight/exp_avg", 0.1f32.to_le_bytes().to_vec()),
        ("fc.weight/exp_avg_sq", 0.001f32.to_le_bytes().to_vec()),
        ("fc.weight/step", 1u64.to_le_bytes().to_vec()),
    ];
    checkpoint(g, 1, Some(loss), blobs, 1767225600)
}

/// The crate's own unit test data (test_gradient_checkpoint_save_load): outputs preset, 3 edges.
fn crate_test_mirror(rng: &mut Lcg) -> GradientCheckpoint {
    let mut g = ComputationGraphStore::default();
    let steps = [("input", None, "cid_a"), ("matmul", Some("cid_a"), "cid_b"), ("relu", Some("cid_b"), "cid_c"), ("output", Some("cid_c"), "cid_d")];
    for (op, input, output) in steps {
        let inputs: Vec<&str> = input.into_iter().collect();
        add_node(&mut g, node(&uuid_v4(rng), op, &inputs, Some(output), None, &[]));
    }
    checkpoint(g, 42, Some("cid_loss_xyz"), vec![("adam_m", vec![1, 2, 3]), ("adam_v", vec![4, 5, 6])], 1767225600)
}

/// Two nodes, the consumer added before its producer's output is known (edge via record_output),
/// no loss, one node without output/gradient.
fn no_loss(rng: &mut Lcg) -> GradientCheckpoint {
    let mut g = ComputationGraphStore::default();
    let a = uuid_v4(rng);
    let b = uuid_v4(rng);
    add_node(&mut g, node(&a, "embedding", &[], None, None, &[("shape", "[128, 64]")]));
    add_node(&mut g, node(&b, "softmax", &["cid_emb"], None, None, &[]));
    record_output(&mut g, &a, "cid_emb");
    checkpoint(g, 0, None, vec![], 1)
}

fn unicode_metadata(rng: &mut Lcg) -> GradientCheckpoint {
    let mut g = ComputationGraphStore::default();
    let id = uuid_v4(rng);
    let meta = [
        ("dtype", "f32"),
        ("名前", "学习率 ✓ résumé 😀"),
        ("quote\"back\\slash", "tab\t nl\n cr\r bs\u{8} ff\u{c} nul\u{0} us\u{1f} del\u{7f} ls\u{2028} ps\u{2029} /slash"),
        ("", "empty key"),
    ];
    add_node(&mut g, node(&id, "layer_norm ∑", &["cid:ünïcode"], Some("出力"), Some("∇"), &meta));
    checkpoint(g, 7, Some("损失 cid"), vec![("参数/exp_avg", vec![0, 255])], 1767225600)
}

fn u64_extremes(rng: &mut Lcg, step: u64, timestamp: u64) -> GradientCheckpoint {
    let mut g = ComputationGraphStore::default();
    add_node(&mut g, node(&uuid_v4(rng), "identity", &[], None, None, &[]));
    checkpoint(g, step, None, vec![("u64_max", u64::MAX.to_le_bytes().to_vec())], timestamp)
}

fn large_blob(rng: &mut Lcg) -> GradientCheckpoint {
    let mut g = ComputationGraphStore::default();
    add_node(&mut g, node(&uuid_v4(rng), "linear", &[], Some(&pseudo_cid(rng)), None, &[("dtype", "f32")]));
    let mut big = Vec::with_capacity(1 << 20);
    while big.len() < 1 << 20 {
        big.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    checkpoint(g, 1000, None, vec![("linear.weight/exp_avg", big), ("linear.weight/step", 1000u64.to_le_bytes().to_vec())], 1767225600)
}

/// 10,000 nodes: a chain where every node consumes its predecessor's output, every 10th node also
/// consumes an earlier output (skip connection), every 100th node is a side branch consuming the
/// chain but feeding nothing, and every 7th node has a gradient.
fn large_graph(rng: &mut Lcg) -> GradientCheckpoint {
    const N: usize = 10_000;
    let ops = ["matmul", "relu", "add", "layer_norm", "softmax", "gelu", "dropout"];
    let ids: Vec<String> = (0..N).map(|_| uuid_v4(rng)).collect();
    let outs: Vec<String> = (0..N).map(|_| pseudo_cid(rng)).collect();
    let mut g = ComputationGraphStore::default();
    // Index output cid -> producer so building stays linear; equivalent to add_node's scan because
    // every cid has exactly one producer here.
    let mut producer_of = std::collections::HashMap::new();
    let mut last_chain = None::<usize>;
    for i in 0..N {
        let mut inputs = Vec::new();
        let side_branch = i % 100 == 99;
        if let Some(prev) = last_chain {
            inputs.push(outs[prev].clone());
        }
        if i % 10 == 0 && i >= 20 {
            let back = 2 + (rng.next_u64() % 15) as usize;
            inputs.push(outs[i - back].clone());
        }
        let gradient = if i % 7 == 0 { Some(pseudo_cid(rng)) } else { None };
        let meta = [("dtype", "f32".to_string()), ("shape", format!("[{}, 64]", 1 + i % 128)), ("layer", format!("{}", i / 10))];
        let n = ComputationNode {
            id: ids[i].clone(),
            op: ops[i % ops.len()].to_string(),
            input_cids: inputs,
            output_cid: Some(outs[i].clone()),
            gradient_cid: gradient,
            metadata: meta.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        };
        // add_node visits producers in map iteration order: by id for the BTreeMap mirror.
        let mut producers: Vec<&String> = n.input_cids.iter().filter_map(|c| producer_of.get(c)).map(|&p: &usize| &ids[p]).collect();
        producers.sort();
        producers.dedup();
        for p in producers {
            g.edges.push((p.clone(), ids[i].clone()));
        }
        producer_of.insert(outs[i].clone(), i);
        g.nodes.insert(n.id.clone(), n);
        if !side_branch {
            last_chain = Some(i);
        }
    }
    checkpoint(g, 123_456, Some(&outs[N - 1].clone()), vec![("global/step", 123_456u64.to_le_bytes().to_vec())], 1767225600)
}

pub fn all_checkpoints() -> Vec<(&'static str, GradientCheckpoint)> {
    let mut rng = Lcg::new(0x1bf5);
    vec![
        ("worked_example", worked_example()),
        ("crate_test_mirror", crate_test_mirror(&mut rng)),
        ("empty", checkpoint(ComputationGraphStore::default(), 0, None, vec![], 1767225600)),
        ("no_loss", no_loss(&mut rng)),
        ("unicode_metadata", unicode_metadata(&mut rng)),
        ("u64_max_step", u64_extremes(&mut rng, u64::MAX, 0)),
        ("u64_2p53_plus_1", u64_extremes(&mut rng, (1u64 << 53) + 1, u64::MAX)),
        ("large_blob", large_blob(&mut rng)),
        ("graph_10000", large_graph(&mut rng)),
    ]
}

pub fn to_hashed(c: GradientCheckpoint) -> hashed::GradientCheckpoint {
    let nodes = c
        .graph
        .nodes
        .into_iter()
        .map(|(k, n)| {
            let node = hashed::ComputationNode {
                id: n.id,
                op: n.op,
                input_cids: n.input_cids,
                output_cid: n.output_cid,
                gradient_cid: n.gradient_cid,
                metadata: n.metadata.into_iter().collect(),
            };
            (k, node)
        })
        .collect();
    hashed::GradientCheckpoint {
        graph: hashed::ComputationGraphStore { nodes, edges: c.graph.edges },
        step: c.step,
        loss_cid: c.loss_cid,
        optimizer_state: c.optimizer_state.into_iter().collect(),
        timestamp: c.timestamp,
    }
}

/// What a reader must find in a checkpoint (independent of map order).
pub fn describe(c: &hashed::GradientCheckpoint) -> Value {
    let mut blobs: Vec<(&String, &Vec<u8>)> = c.optimizer_state.iter().collect();
    blobs.sort();
    let mut state = Map::new();
    for (k, v) in blobs {
        state.insert(k.clone(), json!({"len": v.len(), "fnv1a64": format!("{:016x}", crate::summary::fnv1a64(crate::summary::FNV_OFFSET, v))}));
    }
    let metadata_entries: usize = c.graph.nodes.values().map(|n| n.metadata.len()).sum();
    let gradients = c.graph.nodes.values().filter(|n| n.gradient_cid.is_some()).count();
    let keys_match_ids = c.graph.nodes.iter().all(|(k, n)| *k == n.id);
    json!({
        "nodes": c.graph.nodes.len(),
        "edges": c.graph.edges.len(),
        "first_edge": c.graph.edges.first(),
        "last_edge": c.graph.edges.last(),
        "nodes_with_gradient": gradients,
        "metadata_entries": metadata_entries,
        "keys_match_ids": keys_match_ids,
        "step": c.step,
        "loss_cid": c.loss_cid,
        "timestamp": c.timestamp,
        "optimizer_state": Value::Object(state),
    })
}
