//! Format-spec cases generated with CPython 3.11: each line of
//! `tests/data/format_specs.tsv` is `value<TAB>spec<TAB>outcome<TAB>text`.

use super::*;

fn parse_value(enc: &str) -> Value {
    let (tag, body) = enc.split_at(2);
    match tag {
        "b:" => Value::Bool(body == "True"),
        "i:" => Value::Int(body.parse().expect("int")),
        "f:" => Value::Float(body.parse().expect("float")),
        _ => Value::str(body),
    }
}

#[test]
fn format_specs_match_cpython() {
    let data = include_str!("../../tests/data/format_specs.tsv");
    let mut failures = Vec::new();
    for line in data.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let (v, spec, kind, want) = (parse_value(cols[0]), cols[1], cols[2], cols[3]);
        let got = match format_builtin(&v, spec) {
            Ok(s) => ("ok".to_string(), s),
            Err(e) => {
                let msg = match e.args().first() {
                    Some(Value::Str(s)) => s.to_string(),
                    _ => String::new(),
                };
                (e.class().name.to_string(), msg)
            }
        };
        if got.0 != kind || got.1 != want {
            failures.push(format!(
                "format({v:?}, {spec:?}) = {got:?}, want ({kind:?}, {want:?})"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
