//! Robustness: nesting limits (no stack overflow on a default 2 MiB test
//! thread, debug build included), linear time on large inputs, no panic on
//! mangled input, and the REPL's `incomplete` flag.

use std::time::Instant;

use dist::syntax::{parse_module, SyntaxError};

fn err(src: &str) -> SyntaxError {
    match parse_module(src) {
        Ok(_) => panic!("{:?}… parsed", &src[..src.len().min(40)]),
        Err(e) => e,
    }
}

fn ok(src: &str) {
    if let Err(e) = parse_module(src) {
        panic!("{:?}… failed: {e}", &src[..src.len().min(40)]);
    }
}

#[test]
fn bracket_nesting_limit_is_cpythons() {
    ok(&format!("x = {}1{}", "(".repeat(200), ")".repeat(200)));
    ok(&format!("x = {}{}", "[".repeat(200), "]".repeat(200)));
    ok(&format!("x = {}1{}", "{1:".repeat(150), "}".repeat(150)));
    ok(&format!("x = {}{}", "{".repeat(150), "}".repeat(150)));
    ok(&format!("x = {}b{}", "a[".repeat(150), "]".repeat(150)));
    ok(&format!("x = {}1{}", "f(a, ".repeat(150), ")".repeat(150)));
    ok(&format!(
        "x = {}1{}",
        "(lambda: ".repeat(190),
        ")".repeat(190)
    ));
    ok(&format!(
        "x = {}y{}",
        "[x for x in ".repeat(190),
        "]".repeat(190)
    ));
    let e = err(&format!("x = {}1{}", "(".repeat(201), ")".repeat(201)));
    assert_eq!(e.message, "too many nested parentheses");
    assert_eq!(e.span.start, 4 + 200);
    let e = err(&format!("x = {}", "[".repeat(100_000)));
    assert_eq!(e.message, "too many nested parentheses");
}

#[test]
fn operator_chains_are_bounded() {
    for (unit, tail) in [
        ("-", "1"),
        ("not ", "1"),
        ("~", "1"),
        ("1+", "1"),
        ("2**", "1"),
        ("a.", "a"),
        ("lambda: ", "1"),
        ("1 if 1 else ", "1"),
    ] {
        ok(&format!("x = {}{tail}", unit.repeat(900)));
        let e = err(&format!("x = {}{tail}", unit.repeat(100_000)));
        assert!(
            e.message.starts_with("expression is nested too deeply"),
            "{unit}: {e}"
        );
    }
    let e = err(&format!("x = f{}", "()".repeat(100_000)));
    assert!(e.message.starts_with("expression is nested too deeply"));
    let e = err(&format!("x = a{}", "[0]".repeat(100_000)));
    assert!(e.message.starts_with("expression is nested too deeply"));
    // Flat sequences are not nesting.
    ok(&format!("x = [{}1]", "1, ".repeat(100_000)));
    ok(&format!("x = a{}", " and a".repeat(10_000)));
    ok(&format!("x = a{}", " < a".repeat(10_000)));
}

#[test]
fn indentation_limit_is_cpythons() {
    let nest = |n: usize| {
        let mut s = String::new();
        for i in 0..n {
            s.push_str(&" ".repeat(i));
            s.push_str("if x:\n");
        }
        s.push_str(&" ".repeat(n));
        s.push_str("pass\n");
        s
    };
    ok(&nest(98));
    let e = err(&nest(100));
    assert_eq!(e.message, "too many levels of indentation");
}

/// Seconds to parse `n` copies of a few typical statements.
fn time_statements(n: usize) -> f64 {
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!(
            "x{} = foo(a, b[{}], k='s') + {i}.5\nif x{}:\n    y = [z for z in w]\n",
            i % 7,
            i % 10,
            i % 3
        ));
    }
    let t = Instant::now();
    ok(&src);
    t.elapsed().as_secs_f64()
}

#[test]
fn large_inputs_parse_in_linear_time() {
    let small = time_statements(500);
    let large = time_statements(4_000);
    // 8x the input: allow generous noise, but not quadratic behaviour.
    assert!(
        large < small * 24.0 + 0.5,
        "500 statements: {small:.3}s, 4000: {large:.3}s"
    );
}

#[test]
fn mangled_input_never_panics() {
    let sample = "@d(1)\ndef f(a, b=2, *c, d: int = 3, **e) -> None:\n\t\"\"\"doc\"\"\"\n\tx = [i ** 2 for i in range(10) if i % 2]\n\ty = {'k': f'{a!r:>{b}}', **e}\n\twith open(p) as h, (g := 1):\n\t\ttry:\n\t\t\treturn a[1:2, ::3], -b, not c\n\t\texcept (E, F) as err:\n\t\t\traise X from err\n\t\tfinally:\n\t\t\tdel h\nclass C(B, k=1):\n    lambda *a, **k: (yield)\nprint(0x1f, 1e-3, 1_000, b'\\x41', r'\\d', \"\\u00e9\")\n";
    // Every char boundary gets a few insertions in turn (all of them over
    // the whole sample would be slow in a debug build).
    let inserts = [
        "(", ")", "]", "{", "'", "\"", "\"\"\"", ":", "\n", "\n  ", "\t", "é", "€", "\\", "#", ",",
        "=", "*", "f'{", "}", "if ", "not ", ".", "0x", "\r", "\x01", "@", ";", "\\\n",
    ];
    let bounds: Vec<usize> = sample
        .char_indices()
        .map(|(i, _)| i)
        .chain([sample.len()])
        .collect();
    for (k, &i) in bounds.iter().enumerate() {
        let _ = parse_module(&sample[..i]);
        for ins in inserts.iter().cycle().skip(k % inserts.len()).take(3) {
            let _ = parse_module(&format!("{}{ins}{}", &sample[..i], &sample[i..]));
        }
    }
}

#[test]
fn incomplete_input_is_flagged_for_the_repl() {
    for src in [
        "if x:",
        "if x:\n    pass\nelse:",
        "def f(a,",
        "foo(",
        "x = [1,\n 2,",
        "s = \"\"\"abc",
        "x = 1 + \\",
        "for i in r:\n",
        "class C:\n",
        "try:\n    x",
        "@dec",
    ] {
        let e = err(src);
        assert!(e.incomplete, "{src:?}: {e} should be incomplete");
    }
    for src in ["x = ", "x = 1 2", "if x\n", "'abc", "a = (1]", "x +"] {
        let e = err(src);
        assert!(!e.incomplete, "{src:?}: {e} should not be incomplete");
    }
}

/// The size target: 5 MB of simple statements well under a few seconds.
/// Run it in release: `cargo test --release --test parser_limits -- --ignored`.
#[test]
#[ignore = "timing; meaningful in release builds only"]
fn five_megabytes_in_release() {
    let line = "x = foo(a, b[1]) + 2\n";
    let src = line.repeat(5_000_000 / line.len());
    let t = Instant::now();
    ok(&src);
    let secs = t.elapsed().as_secs_f64();
    assert!(secs < 10.0, "5 MB took {secs:.2}s");
}
