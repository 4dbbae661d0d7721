// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//! Golden-file generator for the C++ JSON codec (core/codec/json.cpp): asks serde_json itself how it
//! formats floats and strings, how it lays out pretty/compact output, and what it says about
//! malformed input. Run once: `cargo run --release -- ../data/json` (see tests/data/json/README.md).
//! Everything is written as hex so the golden files need no escaping rules of their own.

use serde::Serialize;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        write!(s, "{:02x}", x).unwrap();
    }
    s
}

/// xorshift64*: deterministic, no crate needed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
}

fn f64_values() -> Vec<f64> {
    let mut v: Vec<f64> = vec![
        0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.5, 2.5, 100.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.00001234,
        0.0001234, 0.001234, 1.234e-5, 1.234e-6, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 9007199254740992.0,
        9007199254740993.0, 9999999999999998.0, 1234567890123456.0, 12345678901234567.0,
        1234567890123456.7, 123456789012345680000.0, 1.2345678901234568e20, 5e-324, 1e-323,
        2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308,
        f32::MAX as f64, f32::MIN_POSITIVE as f64, 0.1f32 as f64, 3.141592653589793, 2.718281828459045,
        1e100, 1e-100, 1.5e300, 4.9e-322, 123.456, -123.456, 1e7, 1e8, 12345678.9, 0.5, 0.25, 0.125,
        f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 18446744073709551615.0, 9.999999999999999e15,
        1e-5 * 9.99, 0.000099, 0.00099,
    ];
    for e in -30..=30 {
        v.push(10f64.powi(e));
        v.push(1.5 * 10f64.powi(e));
        v.push(1.2345678901234567 * 10f64.powi(e));
    }
    let mut r = Rng(0x9E3779B97F4A7C15);
    for _ in 0..3000 {
        v.push(f64::from_bits(r.next()));
    }
    for _ in 0..1000 {
        let m = (r.next() % 1_000_000_000) as f64;
        let e = (r.next() % 50) as i32 - 25;
        v.push(m * 10f64.powi(e));
    }
    v
}

fn f32_values() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.5, 100.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e12, 1e13, 1e14,
        1e15, 1e16, 1e17, 1.1e12, 1.1e13, 9999999.0, 16777216.0, 16777217.0, 123456789.0, 1234567.8,
        f32::MAX, -f32::MAX, f32::MIN_POSITIVE, 1e-45, 1.4e-45, 2.8e-45, 1e-40, 1.17549435e-38,
        3.4028235e38, 0.001, 0.01, 0.00001234, 3.1415927, f32::NAN, f32::INFINITY, f32::NEG_INFINITY,
        0.5, 0.25, 1e10, 1e11, 123456.79, 4294967296.0,
    ];
    for e in -40..=38 {
        v.push(10f32.powi(e));
        v.push(1.5f32 * 10f32.powi(e));
        v.push(1.2345678f32 * 10f32.powi(e));
    }
    let mut r = Rng(0xD1B54A32D192ED03);
    for _ in 0..3000 {
        v.push(f32::from_bits(r.next() as u32));
    }
    for _ in 0..1000 {
        let m = (r.next() % 10_000_000) as f32;
        let e = (r.next() % 30) as i32 - 15;
        v.push(m * 10f32.powi(e));
    }
    v
}

fn strings() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for c in 0u32..0x80 {
        v.push(format!("a{}b", char::from_u32(c).unwrap()));
    }
    let all_ctrl: String = (0u32..0x20).map(|c| char::from_u32(c).unwrap()).collect();
    v.push(all_ctrl);
    for s in [
        "", "plain", "with \"quotes\" and \\backslash\\", "slash / not escaped", "DEL\u{7f}raw",
        "caf\u{e9}", "\u{4e2d}\u{6587}", "emoji \u{1F600}\u{1F9EA}", "line\u{2028}sep\u{2029}", "\u{feff}bom inside",
        "\u{10FFFF}", "tab\tnew\nline\r\u{c}\u{8}", "mixed \u{1}\u{1f}\u{7f}\u{80}\u{ff}",
    ] {
        v.push(s.to_string());
    }
    v
}

/// Documents (compact or any layout) that serde_json parses into a Value (preserve_order keeps
/// key order) and prints pretty and compact.
fn documents() -> Vec<&'static [u8]> {
    vec![
        b"null", b"true", b"false", b"0", b"-1", b"18446744073709551615", b"-9223372036854775808",
        b"18446744073709551616", b"-9223372036854775809", b"1.5", b"-0", b"-0.0", b"1e2", b"1E-2", b"0.1",
        b"123456789012345678901234567890", b"1e-400", b"\"\"", b"\"a\\u00e9\\ud83d\\ude00\\/\"",
        b"[]", b"{}", b"[[]]", b"[{}]", b"{\"a\":[]}", b"{\"a\":{}}", b"[1,2,3]", b"[[1,2],[3,[4,[5]]]]",
        b"{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\",\"f\":[{\"g\":[]}]}}",
        b"{\"z\":1,\"a\":2,\"m\":{\"y\":[1.0,2.5e-8,1e300],\"b\":-3}}",
        b"  [ 1 , \"two\" , { \"three\" : 3 } ]  ",
        b"{\"bytes\":[0,1,2,255],\"shape\":[2,2],\"dtype\":\"U8\"}",
        b"{\"bytes\":[],\"shape\":[0]}",
        b"{\"bytes\":[1,256],\"x\":[0,1]}",
        b"{\"bytes\":[1,-1]}", b"{\"bytes\":[1.0,2]}", b"{\"bytes\":[\"a\"]}",
        b"{\"nested\":{\"bytes\":[7,8,9]}}",
        b"{\"unicode\":\"\xe4\xb8\xad\xf0\x9f\x98\x80\",\"ctrl\":\"\\u0001\\u001f\\t\"}",
        b"[1e16,1e15,123456789012345680000.0,5e-324,1.7976931348623157e308,0.000001,0.0000001]",
        b"\t\r\n [\n1\r\n]\n",
    ]
}

/// Malformed (and a few valid) inputs for the reader's accept/reject rules and error positions.
fn error_inputs() -> Vec<&'static [u8]> {
    vec![
        b"", b" ", b"\n\n  ", b"\xef\xbb\xbf{}", b"\xef\xbb\xbf", b"x", b"[", b"{", b"[1", b"[1,", b"[1,]",
        b"[1 2]", b"{\"a\"", b"{\"a\":", b"{\"a\":1", b"{\"a\":1,", b"{\"a\":1,}", b"{\"a\" 1}", b"{1:2}",
        b"{\"a\":1 \"b\":2}", b"{,}", b"[,]", b"[,1]", b"]", b"}", b"{]", b"[}", b"1 2", b"[] x",
        b"{} {}", b"\"abc", b"\"abc\\", b"\"\\x\"", b"\"\\u12\"", b"\"\\u12G4\"", b"\"\\uD800\"",
        b"\"\\uD800x\"", b"\"\\uD800\\n\"", b"\"\\uD800\\u0041\"", b"\"\\uDC00\"", b"\"\\uD83D\\uDE00\"",
        b"\"\\uD800\\u", b"\"\\uD800", b"\"\\uD800\\", b"\"a\x01b\"", b"\"a\nb\"", b"\"a\x1fb\"",
        b"\"a\x7fb\"", b"\"\xff\"", b"\"\xc3\"", b"\"\xc3(\"", b"\"\xe2\x82\"", b"\"\xed\xa0\x80\"",
        b"\"\xf4\x90\x80\x80\"", b"\"\xc0\xaf\"", b"\"\xe0\x80\xaf\"", b"\"\xf0\x80\x80\xaf\"",
        b"\"\xf5\x80\x80\x80\"", b"\"\xff\\n\"", b"\"\xc3\\n\"", b"\"\xff\x01\"", b"\"\xff", b"[\"\xff\" x",
        b"01", b"-01", b"00", b"-", b"-a", b"+1", b".5", b"1.", b"1.e5", b"1.5e", b"1e+", b"1e-", b"1ea",
        b"1.x", b"-.5", b"--1", b"1e400", b"-1e400", b"1e-400", b"1e99999999999", b"0e99999999999",
        b"1e-99999999999", b"NaN", b"nan", b"Infinity", b"-Infinity", b"inf", b"tru", b"true1", b"truex",
        b"nul", b"nulx", b"fals", b"falsy", b"t", b"[tru]", b"'a'", b"[1,2,]", b"{\"a\":1,,\"b\":2}",
        b"/* c */ 1", b"1 // c", b"[1]\n\n  x", b"{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2,\n  ]\n}",
        b"{\n  \"a\": tru\n}", b"[\r\n1,\r\n x]", b"\"\\u00e9\"", b"[1.0e5, 2E-3, -0.0, 0]",
        b"18446744073709551615", b"18446744073709551616", b"-9223372036854775808", b"-9223372036854775809",
        b"1.7976931348623157e308", b"1.7976931348623159e308", b"2.4703282292062328e-324",
        b"123.456e-789", b"0.0000000000000000000000000000001e310", b"[1]]", b"{\"a\":1}}",
        b"\x00", b"[\x00]", b" \x0b1", b"\x0c1", b"1\x0c", b"\xc2\xa0 1", b"{\"a\":1,\"a\":2}",
        b"[[[[[[[[[[]]]]]]]]]]",
    ]
}

fn nested(depth: usize, open: u8, close: u8) -> Vec<u8> {
    let mut v = vec![open; depth];
    v.extend(std::iter::repeat(close).take(depth));
    v
}

#[derive(Serialize)]
struct TensorDataLike {
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    shape: Vec<usize>,
    dtype: &'static str,
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: json-oracle OUTPUT_DIR");
    let dir = Path::new(&dir);

    let mut out = String::new();
    for f in f64_values() {
        writeln!(out, "{:016x}\t{}", f.to_bits(), serde_json::to_string(&f).unwrap()).unwrap();
    }
    fs::write(dir.join("f64.txt"), &out).unwrap();

    out.clear();
    for f in f32_values() {
        writeln!(out, "{:08x}\t{}", f.to_bits(), serde_json::to_string(&f).unwrap()).unwrap();
    }
    fs::write(dir.join("f32.txt"), &out).unwrap();

    out.clear();
    for s in strings() {
        writeln!(out, "{}\t{}", hex(s.as_bytes()), hex(serde_json::to_string(&s).unwrap().as_bytes())).unwrap();
    }
    fs::write(dir.join("strings.txt"), &out).unwrap();

    out.clear();
    for d in documents() {
        let v: serde_json::Value = serde_json::from_slice(d).unwrap();
        let pretty = serde_json::to_vec_pretty(&v).unwrap();
        let compact = serde_json::to_vec(&v).unwrap();
        writeln!(out, "{}\t{}\t{}", hex(d), hex(&pretty), hex(&compact)).unwrap();
    }
    fs::write(dir.join("documents.txt"), &out).unwrap();

    out.clear();
    let mut inputs: Vec<Vec<u8>> = error_inputs().into_iter().map(|b| b.to_vec()).collect();
    for depth in [126usize, 127, 128, 129, 1000] {
        inputs.push(nested(depth, b'[', b']'));
    }
    let mut objs = Vec::new();
    for _ in 0..130 {
        objs.extend_from_slice(b"{\"k\":");
    }
    inputs.push(objs);
    for input in inputs {
        match serde_json::from_slice::<serde_json::Value>(&input) {
            Ok(v) => writeln!(out, "{}\tok\t{}", hex(&input), hex(&serde_json::to_vec(&v).unwrap())).unwrap(),
            Err(e) => {
                let full = e.to_string();
                let what = match full.rfind(" at line ") {
                    Some(p) => full[..p].to_string(),
                    None => full.clone(),
                };
                writeln!(out, "{}\terr\t{}\t{}\t{}", hex(&input), what, e.line(), e.column()).unwrap()
            }
        }
    }
    fs::write(dir.join("errors.txt"), &out).unwrap();

    out.clear();
    let tensors = vec![
        TensorDataLike { bytes: vec![], shape: vec![0], dtype: "U8" },
        TensorDataLike { bytes: vec![0, 1, 127, 128, 255], shape: vec![5], dtype: "U8" },
        TensorDataLike { bytes: 0.1f32.to_le_bytes().to_vec(), shape: vec![1], dtype: "F32" },
    ];
    for t in tensors {
        writeln!(out, "{}\t{}\t{}", hex(&t.bytes), hex(&serde_json::to_vec_pretty(&t).unwrap()),
            hex(&serde_json::to_vec(&t).unwrap())).unwrap();
    }
    fs::write(dir.join("serde_bytes.txt"), &out).unwrap();
}
