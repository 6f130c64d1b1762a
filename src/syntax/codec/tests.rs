use super::{decode_module, encode_module};
use crate::syntax::parse_module;

/// Every `.dist` file under `dir`, recursively.
fn dist_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            dist_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "dist") {
            out.push(p);
        }
    }
}

/// Every stdlib module, script and golden test that parses reads back as
/// the same tree, node for node (spans, names, constants).
#[test]
fn trees_read_back_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["stdlib", "scripts", "tests/golden"] {
        dist_files(&root.join(d), &mut files);
    }
    let mut checked = 0;
    for f in &files {
        // Files in other encodings (the encoding tests) are skipped.
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(m) = parse_module(&text) else {
            continue;
        };
        let bytes = encode_module(&m);
        let back = decode_module(&bytes)
            .unwrap_or_else(|| panic!("{}: the encoded tree does not read back", f.display()));
        assert_eq!(format!("{m:?}"), format!("{back:?}"), "{}", f.display());
        checked += 1;
    }
    assert!(checked > 500, "only {checked} files checked");
}

/// Damaged bytes (cut short, a byte changed, bytes appended) read as `None`
/// or as some tree, never a panic or a huge allocation.
#[test]
fn damaged_bytes_are_refused_or_harmless() {
    let src = "def f(x, *a, k=1, **kw):\n    return [y * 2.5 for y in x if y] + {'a': b'\\x00'}\nclass C(f):\n    s = f'{1!r:>{2}}'\n";
    let bytes = encode_module(&parse_module(src).unwrap());
    for cut in 0..bytes.len() {
        assert!(decode_module(&bytes[..cut]).is_none(), "cut at {cut}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(decode_module(&long).is_none());
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] = v;
            let _ = decode_module(&b);
        }
    }
}
