// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! ckpt-interop: writes genuine Burn 0.21 / Ruda TrainingRecord files and ipfrs GradientCheckpoint
//! files with the real serializer crates, and reads files (ours or theirs) back with typed serde
//! decoding. See tests/interop/README.md.

mod bench;
mod burnpack;
mod gc;
mod hostile;
mod record;
mod scenarios;
mod summary;
mod train;
mod transformer;
mod verdict;

use record::*;
use verdict::verdict_line;
use scenarios::Scenario;
use serde_json::{json, Map, Value};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage:
  ckpt-interop write OUTDIR [--scenario NAME]
  ckpt-interop read FILE [--scenario NAME] [--optimizer O --scheduler S]
  ckpt-interop reencode FILE OUT [--scenario NAME] [--optimizer O --scheduler S]
  ckpt-interop gradient-checkpoint OUTDIR [--sorted]
  ckpt-interop hostile OUTDIR   (records typed decoding refuses: a duplicate struct field, 4096 zero bytes as bincode)
  ckpt-interop read-gc FILE
  ckpt-interop verdict FILE... --scenario NAME   (would Burn/Ruda load it? one JSON line per file)
  ckpt-interop transformer OUT_FILE --mib N [--seed S]   (transformer-shaped NamedMpk full-precision record of about N MiB, N 1..4096)
  ckpt-interop burnpack OUT_DIR   (Burn 0.22 .bpk files, CBOR heads by ciborium-ll, and burnpack.json)
  ckpt-interop bench-load FILE | bench-save IN OUT | bench-inflate FILE.gz | bench-gc FILE   (tests/bench)
scenarios: adam adamw_amsgrad sgd exponential noam linear step_fresh spec_example model_state
           utf8_map module_array map_keys tensor_ranks
(not written by default: transformer, the layout of the transformer command's files)
(the scenario defaults to the file name up to its last '-', e.g. adam-full.mpk -> adam)
read-only scenario ckpt-train: records of the reference trainer (app/train); --optimizer sgd|adam|adamw
and --scheduler constant|step|linear|cosine|exponential|noam select its layout, else every layout is tried";

/// A typed record layout: what `read` and `reencode` decode. Every `Scenario` is one; the
/// ckpt-train layouts (train.rs) are read-only layouts without a `build`.
pub trait Typed {
    const NAME: &'static str;
    type Item: serde::Serialize + serde::de::DeserializeOwned;
}
impl<T: Scenario> Typed for T {
    const NAME: &'static str = <T as Scenario>::NAME;
    type Item = <T as Scenario>::Item;
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ckpt-interop: {e}");
            ExitCode::from(1)
        }
    }
}

/// Splits `--flag [value]` options from positional arguments.
struct Args {
    positional: Vec<String>,
    scenario: Option<String>,
    sorted: bool,
    optimizer: Option<String>,
    scheduler: Option<String>,
    mib: Option<String>,
    seed: Option<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args { positional: vec![], scenario: None, sorted: false, optimizer: None, scheduler: None, mib: None, seed: None };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--scenario" => out.scenario = Some(it.next().ok_or("--scenario needs a name")?.clone()),
            "--sorted" => out.sorted = true,
            "--optimizer" => out.optimizer = Some(it.next().ok_or("--optimizer needs a name")?.clone()),
            "--scheduler" => out.scheduler = Some(it.next().ok_or("--scheduler needs a name")?.clone()),
            "--mib" => out.mib = Some(it.next().ok_or("--mib needs a number")?.clone()),
            "--seed" => out.seed = Some(it.next().ok_or("--seed needs a number")?.clone()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{USAGE}")),
            _ => out.positional.push(a.clone()),
        }
    }
    Ok(out)
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let cmd = args.first().ok_or(USAGE)?;
    let a = parse(&args[1..])?;
    let need = |n: usize| -> Result<(), String> {
        if a.positional.len() == n {
            Ok(())
        } else {
            Err(format!("{cmd}: expected {n} argument(s)\n{USAGE}"))
        }
    };
    match cmd.as_str() {
        "write" => {
            need(1)?;
            let dir = PathBuf::from(&a.positional[0]);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let names: Vec<&str> = match &a.scenario {
                Some(s) => vec![s.as_str()],
                None => scenarios::SCENARIO_NAMES.to_vec(),
            };
            for name in names {
                with_scenario!(name, write_scenario(&dir), Err(format!("unknown scenario {name}")))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        "read" => {
            need(1)?;
            let file = Path::new(&a.positional[0]);
            let name = scenario_for(file, &a.scenario)?;
            let line = if name == train_layout_name() {
                read_train(file, &a)?
            } else {
                with_scenario!(name.as_str(), read_file(file), Err(format!("unknown scenario {name}")))?
            };
            println!("{line}");
            Ok(ExitCode::SUCCESS)
        }
        "reencode" => {
            need(2)?;
            let file = Path::new(&a.positional[0]);
            let name = scenario_for(file, &a.scenario)?;
            let out = Path::new(&a.positional[1]);
            let (identical, line) = if name == train_layout_name() {
                let (o, s) = explicit_train_layout(&a)?;
                with_train_layout!(o, s, reencode_file(file, out), Err(format!("unknown ckpt-train layout {o}/{s}")))?
            } else {
                with_scenario!(name.as_str(), reencode_file(file, out), Err(format!("unknown scenario {name}")))?
            };
            println!("{line}");
            Ok(if identical { ExitCode::SUCCESS } else { ExitCode::from(3) })
        }
        "gradient-checkpoint" => {
            need(1)?;
            write_gradient_checkpoints(Path::new(&a.positional[0]), a.sorted)?;
            Ok(ExitCode::SUCCESS)
        }
        "hostile" => {
            need(1)?;
            hostile::write(Path::new(&a.positional[0]))?;
            Ok(ExitCode::SUCCESS)
        }
        "verdict" => {
            let name = a.scenario.clone().ok_or("verdict needs --scenario NAME")?;
            for f in &a.positional {
                let line = with_scenario!(name.as_str(), verdict_line(Path::new(f)), Err(format!("unknown scenario {name}")))?;
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "read-gc" => {
            need(1)?;
            let file = Path::new(&a.positional[0]);
            let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let c: gc::hashed::GradientCheckpoint =
                serde_json::from_slice(&bytes).map_err(|e| format!("{}: serde_json: {e}", file.display()))?;
            println!("{}", gc::describe(&c));
            Ok(ExitCode::SUCCESS)
        }
        "transformer" => {
            need(1)?;
            let mib: u64 = a.mib.as_deref().ok_or("transformer needs --mib N")?.parse().map_err(|e| format!("--mib: {e}"))?;
            let seed: u64 = match &a.seed {
                Some(s) => s.parse().map_err(|e| format!("--seed: {e}"))?,
                None => 1,
            };
            println!("{}", transformer::write(Path::new(&a.positional[0]), mib, seed)?);
            Ok(ExitCode::SUCCESS)
        }
        "burnpack" => {
            need(1)?;
            burnpack::write(Path::new(&a.positional[0]))?;
            Ok(ExitCode::SUCCESS)
        }
        "bench-load" => {
            need(1)?;
            println!("{}", bench::load(Path::new(&a.positional[0]))?);
            Ok(ExitCode::SUCCESS)
        }
        "bench-save" => {
            need(2)?;
            println!("{}", bench::save(Path::new(&a.positional[0]), Path::new(&a.positional[1]))?);
            Ok(ExitCode::SUCCESS)
        }
        "bench-inflate" => {
            need(1)?;
            println!("{}", bench::inflate(Path::new(&a.positional[0]))?);
            Ok(ExitCode::SUCCESS)
        }
        "bench-gc" => {
            need(1)?;
            println!("{}", bench::gradient_checkpoint(Path::new(&a.positional[0]))?);
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(format!("unknown command {cmd}\n{USAGE}")),
    }
}

fn train_layout_name() -> &'static str {
    <train::CkptTrain<record::AdamState, ()> as Typed>::NAME
}

/// `--optimizer` and `--scheduler`, both required (reencode must not guess: the bytes it writes depend on the types).
fn explicit_train_layout(a: &Args) -> Result<(&str, &str), String> {
    match (&a.optimizer, &a.scheduler) {
        (Some(o), Some(s)) => Ok((o.as_str(), s.as_str())),
        _ => Err(format!("the ckpt-train layout needs --optimizer {} and --scheduler {}", train::OPTIMIZERS.join("|"), train::SCHEDULERS.join("|"))),
    }
}

/// Typed read of a ckpt-train record: the given layout, or every layout in turn (the first that
/// decodes wins; all that decode are listed, since bincode cannot tell i32 from usize or Adam from AdamW).
fn read_train(file: &Path, a: &Args) -> Result<String, String> {
    let with_layout = |line: String, layout: &str, candidates: Vec<String>| -> Result<String, String> {
        let mut v: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        if let Value::Object(o) = &mut v {
            o.insert("layout".into(), json!(layout));
            o.insert("layouts_that_decode".into(), json!(candidates));
        }
        Ok(v.to_string())
    };
    if a.optimizer.is_some() || a.scheduler.is_some() {
        let (o, s) = explicit_train_layout(a)?;
        let line = with_train_layout!(o, s, read_file(file), Err(format!("unknown ckpt-train layout {o}/{s}")))?;
        let layout = format!("{o}/{s}");
        return with_layout(line, &layout, vec![layout.clone()]);
    }
    let mut first: Option<(String, String)> = None;
    let mut candidates = Vec::new();
    let mut errors = Vec::new();
    // One scheduler name per record type: (), i32, usize, f64.
    for o in train::OPTIMIZERS {
        for s in ["constant", "step", "linear", "exponential"] {
            let layout = format!("{o}/{s}");
            match with_train_layout!(o, s, read_file(file), Err(format!("unknown ckpt-train layout {layout}"))) {
                Ok(line) => {
                    candidates.push(layout.clone());
                    if first.is_none() {
                        first = Some((layout, line));
                    }
                }
                Err(e) => errors.push(format!("{layout}: {e}")),
            }
        }
    }
    match first {
        Some((layout, line)) => with_layout(line, &layout, candidates),
        None => Err(format!("no ckpt-train layout decodes the file:\n  {}", errors.join("\n  "))),
    }
}

/// `--scenario`, else the file name up to its last '-' (`adam-full.mpk` → `adam`).
fn scenario_for(file: &Path, explicit: &Option<String>) -> Result<String, String> {
    if let Some(s) = explicit {
        return Ok(s.clone());
    }
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.split('.').next().unwrap_or("");
    match stem.rfind('-') {
        Some(i) => Ok(stem[..i].to_string()),
        None => Err(format!("{}: cannot infer the scenario from the file name; pass --scenario NAME", file.display())),
    }
}

fn recorder_for(file: &Path) -> Result<Recorder, String> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    Recorder::from_file_name(name)
        .ok_or_else(|| format!("{}: unknown extension (expected .mpk .mpk.gz .json .json.gz .bin .bin.gz)", file.display()))
}

/// The typed record as an order-preserving JSON tree (the NamedMpk layout).
fn record_value<I: serde::Serialize>(r: &BurnRecord<I>) -> Result<Value, String> {
    serde_json::to_value(r).map_err(|e| format!("to_value: {e}"))
}

fn decode_and_summarize<S: Typed>(file: &Path) -> Result<(Recorder, Precision, summary::RecordSummary, BurnRecord<S::Item>), String> {
    let rec = recorder_for(file)?;
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let record: BurnRecord<S::Item> = rec.decode(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let p = Precision::from_settings(&record.metadata.settings)
        .ok_or_else(|| format!("{}: unknown metadata.settings {:?}", file.display(), record.metadata.settings))?;
    let s = summary::summarize(&record_value(&record)?).map_err(|e| format!("{}: {e}", file.display()))?;
    s.check_precision(p).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((rec, p, s, record))
}

fn read_file<S: Typed>(file: &Path) -> Result<String, String> {
    let (rec, p, s, _) = decode_and_summarize::<S>(file)?;
    let mut o = Map::new();
    o.insert("file".into(), json!(file.file_name().and_then(|n| n.to_str())));
    o.insert("scenario".into(), json!(S::NAME));
    o.insert("recorder".into(), json!(format!("{rec:?}")));
    o.insert("precision".into(), json!(p.name()));
    o.insert("metadata".into(), s.metadata.clone());
    s.totals(&mut o);
    o.insert("scheduler".into(), s.scheduler.clone());
    o.insert("state".into(), s.state.clone());
    Ok(Value::Object(o).to_string())
}

/// Typed decode, re-encode with the same recorder, compare serializer payloads (gunzipped for .gz).
fn reencode_file<S: Typed>(file: &Path, out: &Path) -> Result<(bool, String), String> {
    let (rec, _, _, record) = decode_and_summarize::<S>(file)?;
    let bytes = rec.encode(&record)?;
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    let original = rec.payload(&std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?)?;
    let again = rec.payload(&bytes)?;
    let first_difference = original.iter().zip(&again).position(|(a, b)| a != b).or(if original.len() == again.len() { None } else { Some(original.len().min(again.len())) });
    let line = json!({
        "file": file.file_name().and_then(|n| n.to_str()),
        "recorder": format!("{rec:?}"),
        "identical": first_difference.is_none(),
        "payload_bytes": original.len(),
        "reencoded_payload_bytes": again.len(),
        "first_difference": first_difference,
    });
    Ok((first_difference.is_none(), line.to_string()))
}

/// Writes the 18 files of a scenario and `<scenario>.expected.json`, then reads every file back
/// with typed decoding and checks it against the expectation (and that re-encoding is identical).
fn write_scenario<S: Scenario>(dir: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    let mut precisions = Map::new();
    let mut state = Value::Null;
    let mut scheduler = Value::Null;
    for p in ALL_PRECISIONS {
        let mut expected_tensors: Option<Vec<summary::TensorSummary>> = None;
        for rec in ALL_RECORDERS {
            let record = BurnRecord { metadata: rec.metadata(p), item: S::build(p), _b: PhantomData };
            let file_name = format!("{}-{}.{}", S::NAME, p.name(), rec.ext());
            let path = dir.join(&file_name);
            let bytes = rec.encode(&record)?;
            std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;

            let s = summary::summarize(&record_value(&record)?)?;
            if expected_tensors.is_none() {
                let mut o = Map::new();
                o.insert("settings".into(), json!(p.settings()));
                o.insert("float".into(), json!(p.float_name()));
                o.insert("int".into(), json!(p.int_name()));
                s.totals(&mut o);
                o.insert("tensors".into(), Value::Array(s.tensors.iter().map(|t| t.to_json()).collect()));
                precisions.insert(p.name().into(), Value::Object(o));
                state = s.state.clone();
                scheduler = s.scheduler.clone();
                expected_tensors = Some(s.tensors.clone());
            }
            files.push(json!({"file": file_name, "recorder": format!("{rec:?}"), "precision": p.name(), "bytes": bytes.len(), "metadata": s.metadata}));

            // Self-check: the file decodes with the typed mirror and yields exactly what was written.
            let (_, p_read, back, decoded) = decode_and_summarize::<S>(&path)?;
            if p_read != p || back.metadata != s.metadata || back.state != state || back.scheduler != scheduler {
                return Err(format!("{file_name}: read back differs in metadata, scheduler or caller state"));
            }
            if Some(&back.tensors) != expected_tensors.as_ref() {
                return Err(format!("{file_name}: read back differs in its tensors"));
            }
            let payload = rec.payload(&bytes)?;
            if rec.encode_payload(&decoded)? != payload {
                return Err(format!("{file_name}: decode + re-encode is not byte-identical"));
            }
            // The oracle must be able to say no: a truncated payload and trailing bytes are errors.
            let raw_decode = |data: Vec<u8>| -> Result<BurnRecord<S::Item>, String> {
                let plain = match rec {
                    Recorder::NamedMpkGz => Recorder::NamedMpk,
                    Recorder::JsonGz | Recorder::PrettyJson => Recorder::PrettyJson,
                    Recorder::BinGz => Recorder::Bin,
                    other => other,
                };
                plain.decode(&data)
            };
            for cut in [payload.len() / 2, payload.len() - 1] {
                if raw_decode(payload[..cut].to_vec()).is_ok() {
                    return Err(format!("{file_name}: a payload truncated to {cut} bytes still decodes"));
                }
            }
            let mut longer = payload.clone();
            longer.push(b'x');
            if raw_decode(longer).is_ok() {
                return Err(format!("{file_name}: a payload with a trailing byte still decodes"));
            }
        }
    }
    let expected = json!({
        "scenario": S::NAME,
        "description": S::DESCRIPTION,
        "burn_version": "0.21.0",
        "summary_rules": "tensors in NamedMpk file order; sum/l2 = sequential f64 sums over the finite stored values (f16 widened exactly), nan/pos_inf/neg_inf counted apart; fnv1a64 over the stored bytes",
        "scheduler": scheduler,
        "state": state,
        "precisions": Value::Object(precisions),
        "files": files,
    });
    let path = dir.join(format!("{}.expected.json", S::NAME));
    let text = serde_json::to_string_pretty(&expected).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}: 18 files written and read back", S::NAME);
    Ok(())
}

/// Writes every GradientCheckpoint with `serde_json::to_vec_pretty` (what `save` does) and
/// `gc.expected.json`; each file is read back with the HashMap types and compared.
fn write_gradient_checkpoints(dir: &Path, sorted: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut expected = Map::new();
    for (name, c) in gc::all_checkpoints() {
        // The reference description comes from the in-memory value, independent of the file.
        let reference = gc::describe(&gc::to_hashed(c.clone()));
        let bytes = if sorted {
            serde_json::to_vec_pretty(&c).map_err(|e| e.to_string())?
        } else {
            serde_json::to_vec_pretty(&gc::to_hashed(c)).map_err(|e| e.to_string())?
        };
        let file_name = format!("{name}.json");
        let path = dir.join(&file_name);
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let back: gc::hashed::GradientCheckpoint =
            serde_json::from_slice(&bytes).map_err(|e| format!("{file_name}: read back: {e}"))?;
        let d = gc::describe(&back);
        if d != reference {
            return Err(format!("{file_name}: read back differs: {d} vs {reference}"));
        }
        expected.insert(file_name, d);
    }
    let text = serde_json::to_string_pretty(&Value::Object(expected)).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("gc.expected.json"), text).map_err(|e| e.to_string())?;
    println!("gradient checkpoints written to {} ({})", dir.display(), if sorted { "sorted maps" } else { "HashMap order" });
    Ok(())
}
