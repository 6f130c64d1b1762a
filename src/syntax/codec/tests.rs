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
        let bytes = encode_module(&m, &[]);
        let back = decode_module(&bytes, &mut |_| unreachable!("no globals"))
            .unwrap_or_else(|| panic!("{}: the encoded tree does not read back", f.display()));
        assert_eq!(format!("{m:?}"), format!("{back:?}"), "{}", f.display());
        checked += 1;
    }
    assert!(checked > 500, "only {checked} files checked");
}

/// A resolved tree reads back resolved as the reader's interpreter would
/// have resolved it: every slot, scope and free variable the same, global
/// slots renumbered into the reader's table (here one that already holds
/// other names, so every global moves).
#[test]
fn resolved_trees_read_back_renumbered() {
    use crate::resolve::{resolve_module, GlobalNames};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    dist_files(&root.join("stdlib"), &mut files);
    dist_files(&root.join("scripts"), &mut files);
    let mut checked = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let (Ok(written), Ok(expected)) = (parse_module(&text), parse_module(&text)) else {
            continue;
        };
        // the stdlib as build.rs resolves it (its free names are builtins)
        let resolve = if f.starts_with(root.join("stdlib")) {
            crate::resolve::resolve_stdlib_module
        } else {
            resolve_module
        };
        let mut own = GlobalNames::default();
        if resolve(&written, &mut own).is_err() {
            continue;
        }
        let mut reader = GlobalNames::default();
        for pad in ["print", "__name__", "x", "len"] {
            reader.intern(&std::rc::Rc::from(pad));
        }
        let bytes = encode_module(&written, &own.names());
        let back = decode_module(&bytes, &mut |n| reader.intern(n))
            .unwrap_or_else(|| panic!("{}: the resolved tree does not read back", f.display()));
        let mut direct = GlobalNames::default();
        for pad in ["print", "__name__", "x", "len"] {
            direct.intern(&std::rc::Rc::from(pad));
        }
        for n in own.names() {
            direct.intern(&n);
        }
        resolve(&expected, &mut direct).expect("resolved once already");
        assert_eq!(
            format!("{expected:?}"),
            format!("{back:?}"),
            "{}",
            f.display()
        );
        // read as the importer reads the embedded trees: bodies on first use
        let lasting: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let mut late = GlobalNames::default();
        for pad in ["print", "__name__", "x", "len"] {
            late.intern(&std::rc::Rc::from(pad));
        }
        let deferred = super::decode_lasting_module(lasting, &mut |n| late.intern(n))
            .unwrap_or_else(|| panic!("{}: the lasting tree does not read back", f.display()));
        assert_eq!(
            format!("{expected:?}"),
            format!("{deferred:?}"),
            "{}",
            f.display()
        );
        checked += 1;
    }
    assert!(checked > 100, "only {checked} files checked");
}

/// A global slot past the written table is refused.
#[test]
fn a_global_slot_outside_the_table_is_refused() {
    let m = parse_module("x = 1\nprint(x)\n").unwrap();
    let mut own = crate::resolve::GlobalNames::default();
    crate::resolve::resolve_module(&m, &mut own).unwrap();
    let names = own.names();
    assert!(decode_module(&encode_module(&m, &names), &mut |_| 7).is_some());
    assert!(decode_module(&encode_module(&m, &names[..1]), &mut |_| 7).is_none());
}

/// Damaged bytes (cut short, a byte changed, bytes appended) read as `None`
/// or as some tree, never a panic or a huge allocation.
#[test]
fn damaged_bytes_are_refused_or_harmless() {
    let src = "def f(x, *a, k=1, **kw):\n    return [y * 2.5 for y in x if y] + {'a': b'\\x00'}\nclass C(f):\n    s = f'{1!r:>{2}}'\n";
    let m = parse_module(src).unwrap();
    let mut own = crate::resolve::GlobalNames::default();
    crate::resolve::resolve_module(&m, &mut own).unwrap();
    let bytes = encode_module(&m, &own.names());
    let mut intern = |_: &std::rc::Rc<str>| 0;
    for cut in 0..bytes.len() {
        assert!(
            decode_module(&bytes[..cut], &mut intern).is_none(),
            "cut at {cut}"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(decode_module(&long, &mut intern).is_none());
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] = v;
            let _ = decode_module(&b, &mut intern);
        }
    }
}
