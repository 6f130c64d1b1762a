//! The rooms of the house stay rooms: each folder of `src/` is a layer, and
//! a layer may use only the layers below it (ARCHITECTURE.md, "Layers").
//! This reads every `src/**/*.rs` and fails on a `crate::<layer>` path
//! (in a `use` or inline) that points up or sideways. Test-only files
//! (`tests.rs`, `testvm.rs`) may use the interpreter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each layer and the layers it may use (itself always allowed).
const RULES: &[(&str, &[&str])] = &[
    ("syntax", &[]),
    ("resolve", &["syntax"]),
    ("runtime", &[]),
    ("value", &["syntax", "runtime", "object"]),
    ("object", &["syntax", "runtime", "value"]),
    ("distribute", &["syntax", "runtime", "value", "object"]),
    (
        "modules",
        &["syntax", "runtime", "value", "object", "distribute"],
    ),
    (
        "eval",
        &[
            "syntax",
            "resolve",
            "runtime",
            "value",
            "object",
            "distribute",
            "modules",
        ],
    ),
    ("diag", &["syntax", "runtime", "value", "object"]),
];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The layers a line of code names with `crate::<layer>`.
fn named_layers(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        out.push(name);
        rest = after;
    }
    out
}

#[test]
fn no_layer_uses_a_layer_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&root, &mut files);
    let mut bad: BTreeMap<String, usize> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&root).expect("under src");
        let Some(layer) = rel.iter().next().and_then(|c| c.to_str()) else {
            continue;
        };
        let Some((_, allowed)) = RULES.iter().find(|(l, _)| *l == layer) else {
            continue; // the top: lib.rs, main.rs, cli, repl, doctest
        };
        let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "tests.rs" || name == "testvm.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("read");
        for line in text.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for used in named_layers(line) {
                if used == layer || allowed.contains(&used.as_str()) {
                    continue;
                }
                let top = matches!(used.as_str(), "repl" | "cli" | "doctest");
                if RULES.iter().all(|(l, _)| *l != used) && !top {
                    continue; // not a layer (a crate-root item such as `crate::Options`)
                }
                *bad.entry(format!("{} -> {used}", rel.display()))
                    .or_default() += 1;
            }
        }
    }
    let report: Vec<String> = bad.iter().map(|(k, n)| format!("{k} ({n})")).collect();
    assert!(
        report.is_empty(),
        "imports across layers:\n{}",
        report.join("\n")
    );
}
