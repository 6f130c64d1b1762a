//! `json` against CPython 3.11's output.

use super::*;
use crate::object::types::testvm::{err_text, TestVm};
use crate::value::{Dict, Vm};

fn dumps(vm: &TestVm, v: Value, kw: Vec<(&str, Value)>) -> String {
    let m = module();
    let f = vm.getattr(&m, "dumps").expect("dumps");
    let kw = kw.into_iter().map(|(k, v)| (k.into(), v)).collect();
    match vm.call(&f, vec![v], kw) {
        Ok(Value::Str(s)) => s.to_string(),
        Ok(other) => format!("{other:?}"),
        Err(e) => err_text(&e),
    }
}

fn loads(vm: &TestVm, s: &str) -> String {
    match loads_str(s) {
        Ok(v) => vm.repr(&v).unwrap_or_default(),
        Err(e) => err_text(&e),
    }
}

#[test]
fn dumps_like_cpython() {
    let vm = TestVm::default();
    let obj = loads_str(r#"{"a": 1, "b": [1, 2], "c": {}, "d": []}"#).expect("parses");
    assert_eq!(
        dumps(&vm, obj.clone(), vec![]),
        r#"{"a": 1, "b": [1, 2], "c": {}, "d": []}"#
    );
    assert_eq!(
        dumps(&vm, obj.clone(), vec![("indent", Value::Int(2))]),
        "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": {},\n  \"d\": []\n}"
    );
    let sep = Value::tuple(vec![Value::str(","), Value::str(":")]);
    assert_eq!(
        dumps(&vm, obj, vec![("separators", sep)]),
        r#"{"a":1,"b":[1,2],"c":{},"d":[]}"#
    );
    let items = Value::list(vec![
        Value::Float(1.0),
        Value::Float(f64::NAN),
        Value::Float(f64::INFINITY),
        Value::Float(1e100),
        Value::str("é\n\"\\\u{1}😀"),
        Value::None,
        Value::Bool(true),
        Value::tuple(vec![Value::Int(1), Value::Int(2)]),
    ]);
    assert_eq!(
        dumps(&vm, items, vec![]),
        r#"[1.0, NaN, Infinity, 1e+100, "\u00e9\n\"\\\u0001\ud83d\ude00", null, true, [1, 2]]"#
    );
    assert_eq!(
        dumps(
            &vm,
            Value::str("é😀"),
            vec![("ensure_ascii", Value::Bool(false))]
        ),
        "\"é😀\""
    );
    let mut d = Dict::new();
    d.insert_str("b", Value::Int(1)).unwrap();
    d.insert_str("a", Value::Int(2)).unwrap();
    assert_eq!(
        dumps(
            &vm,
            Value::dict(d),
            vec![
                ("sort_keys", Value::Bool(true)),
                ("indent", Value::str("\t"))
            ]
        ),
        "{\n\t\"a\": 2,\n\t\"b\": 1\n}"
    );
    let set = crate::object::types::set::make_set(Default::default(), false);
    assert_eq!(
        dumps(&vm, set, vec![]),
        "TypeError: Object of type set is not JSON serializable"
    );
    assert_eq!(
        dumps(
            &vm,
            Value::Float(f64::NAN),
            vec![("allow_nan", Value::Bool(false))]
        ),
        "ValueError: Out of range float values are not JSON compliant"
    );
}

#[test]
fn loads_like_cpython() {
    let vm = TestVm::default();
    assert_eq!(
        loads(
            &vm,
            r#"{"a": [1, 2.5, -3e2, true, false, null, "x\u00e9\ud83d\ude00"], "b": {}}"#
        ),
        "{'a': [1, 2.5, -300.0, True, False, None, 'xé😀'], 'b': {}}"
    );
    assert_eq!(loads(&vm, " 12 "), "12");
    assert_eq!(loads(&vm, "-Infinity"), "-inf");
    assert_eq!(loads(&vm, "1E2"), "100.0");
    for (doc, want) in [
        ("", "Expecting value: line 1 column 1 (char 0)"),
        ("[1,", "Expecting value: line 1 column 4 (char 3)"),
        (
            "{\"a\" 1}",
            "Expecting ':' delimiter: line 1 column 6 (char 5)",
        ),
        (
            "{a:1}",
            "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
        ("1 2", "Extra data: line 1 column 3 (char 2)"),
        (
            "\"abc",
            "Unterminated string starting at: line 1 column 1 (char 0)",
        ),
        (
            "{\"a\":1,}",
            "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)",
        ),
        ("\n  x", "Expecting value: line 2 column 3 (char 3)"),
        ("\"\\q\"", "Invalid \\escape: line 1 column 2 (char 1)"),
        (
            "\"a\u{1}\"",
            "Invalid control character at: line 1 column 3 (char 2)",
        ),
        (
            "\"\\u12\"",
            "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
        ),
        ("tru", "Expecting value: line 1 column 1 (char 0)"),
    ] {
        assert_eq!(
            loads(&vm, doc),
            format!("JSONDecodeError: {want}"),
            "{doc:?}"
        );
    }
    let err = loads_str("").expect_err("fails");
    assert!(err.is(ExcType::ValueError));
}
