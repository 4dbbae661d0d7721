// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! Records a typed decoder must refuse although every byte comes from the real serializer crates
//! (issue 29): what `verdict` answers for them is what Burn's loading would.

use crate::record::*;
use crate::scenarios::{Scenario, SpecExample};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::marker::PhantomData;
use std::path::Path;

/// spec_example's module (a bare Linear) with its `weight` field written twice, as a hand-written
/// `Serialize` can do: serde's derived `Deserialize` rejects it ("duplicate field `weight`").
struct DuplicateWeight<'a>(&'a LinearItem);
impl Serialize for DuplicateWeight<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("LinearRecordItem", 3)?;
        st.serialize_field("weight", &self.0.weight)?;
        st.serialize_field("weight", &self.0.weight)?;
        st.serialize_field("bias", &self.0.bias)?;
        st.end()
    }
}

/// Writes `duplicate_weight-full.{mpk,json}` (scenario spec_example with the duplicate field),
/// `bool_keys-full.{mpk,bin}` (spec_example with an `IndexMap<bool, u64>` caller state: a regression
/// case, not a refusal) and `zeros-full.bin` (4096 zero bytes: bincode reads them as a record of empty
/// strings, empty maps and rank-0 F64 tensors with no bytes, which loading rejects: a rank-0 tensor
/// holds one element).
pub fn write(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let p = Precision::Full;
    let (module, optim, scheduler, gradients, state) = SpecExample::build(p);
    for rec in [Recorder::NamedMpk, Recorder::PrettyJson] {
        let record = BurnRecord { metadata: rec.metadata(p), item: (DuplicateWeight(&module), &optim, scheduler, &gradients, state), _b: PhantomData };
        let path = dir.join(format!("duplicate_weight-full.{}", rec.ext()));
        std::fs::write(&path, rec.encode(&record)?).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // Bool map keys: a MessagePack twin shows them as bools, bincode writes one byte each. serde_json
    // cannot write bool keys (1.0.87), so only the MessagePack and bincode files exist.
    let mut by_flag = indexmap::IndexMap::new();
    by_flag.insert(true, u64::MAX);
    by_flag.insert(false, 300u64);
    let (m, o, sch, g, _) = SpecExample::build(p);
    for rec in [Recorder::NamedMpk, Recorder::Bin] {
        let record = BurnRecord { metadata: rec.metadata(p), item: (&m, &o, sch, &g, &by_flag), _b: PhantomData };
        let bytes = rec.encode(&record)?;
        let back: BurnRecord<(LinearItem, OptimItem<AdamState>, i32, GradientsParamsRecord, indexmap::IndexMap<bool, u64>)> = rec.decode(&bytes)?;
        if back.item.4 != by_flag {
            return Err("bool_keys: the caller state does not read back".to_string());
        }
        let path = dir.join(format!("bool_keys-full.{}", rec.ext()));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let zeros = dir.join("zeros-full.bin");
    std::fs::write(&zeros, vec![0u8; 4096]).map_err(|e| format!("{}: {e}", zeros.display()))?;
    println!("hostile records written to {}", dir.display());
    Ok(())
}
