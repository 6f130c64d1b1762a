//! Parses every `stdlib/*.dist` module at build time and writes its syntax
//! tree (`src/syntax/codec.rs`) to `$OUT_DIR/stdlib/NAME.ast`, which
//! `src/modules/mod.rs` embeds beside the module's source: importing a
//! stdlib module then reads a tree instead of parsing (ARCHITECTURE.md,
//! "The standard library ships parsed").
//!
//! The parser is the crate's own `src/syntax`, compiled into this script by
//! path, so the trees are exactly what the binary's parser would build. A
//! stdlib module that does not parse fails the build with its error.

use std::path::Path;

// The lints that skip a library's exported API see this copy as private.
#[allow(dead_code, unused_imports, clippy::enum_variant_names)]
#[path = "src/syntax/mod.rs"]
mod syntax;

#[allow(dead_code)]
#[path = "src/resolve/mod.rs"]
mod resolve;

fn main() {
    println!("cargo:rerun-if-changed=stdlib");
    println!("cargo:rerun-if-changed=src/syntax");
    println!("cargo:rerun-if-changed=src/resolve");
    println!("cargo:rerun-if-changed=grammar");
    println!("cargo:rerun-if-changed=build.rs");
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("stdlib");
    std::fs::create_dir_all(&out).expect("create $OUT_DIR/stdlib");
    let mut files: Vec<_> = std::fs::read_dir("stdlib")
        .expect("read stdlib/")
        .map(|e| e.expect("stdlib/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "dist"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read a stdlib module");
        let mut globals = resolve::GlobalNames::default();
        let parsed = syntax::parse_module(&text)
            .and_then(|m| resolve::resolve_stdlib_module(&m, &mut globals).map(|()| m));
        let module = match parsed {
            Ok(m) => m,
            Err(e) => {
                let line = text[..(e.span.start as usize).min(text.len())]
                    .lines()
                    .count();
                panic!("{}:{line}: SyntaxError: {}", path.display(), e.message);
            }
        };
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name");
        let bytes = syntax::codec::encode_module(&module, &globals.names());
        std::fs::write(out.join(format!("{stem}.ast")), bytes).expect("write a stdlib tree");
    }
}
