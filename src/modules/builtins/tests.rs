//! Tests of the builtin functions with the test VM; expectations from CPython 3.11.

use super::lookup;
use crate::object::types::testvm::TestVm;
use crate::value::{Value, Vm};

fn call(vm: &TestVm, name: &str, args: Vec<Value>, kw: Vec<(&str, Value)>) -> String {
    let f = lookup(name).expect("builtin exists");
    let kw = kw.into_iter().map(|(k, v)| (k.into(), v)).collect();
    vm.r(&vm.call(&f, args, kw))
}

fn ints(xs: &[i64]) -> Value {
    Value::list(xs.iter().map(|i| Value::Int(*i)).collect())
}

#[test]
fn iterable_builtins() {
    let vm = TestVm::default();
    let c = |n: &str, a: Vec<Value>| call(&vm, n, a, vec![]);
    assert_eq!(
        c("max", vec![]),
        "TypeError: max expected at least 1 argument, got 0"
    );
    assert_eq!(
        c("max", vec![ints(&[])]),
        "ValueError: max() arg is an empty sequence"
    );
    assert_eq!(
        call(
            &vm,
            "min",
            vec![ints(&[])],
            vec![("default", Value::Int(5))]
        ),
        "5"
    );
    assert_eq!(
        call(
            &vm,
            "max",
            vec![Value::Int(1), Value::Int(2)],
            vec![("default", Value::Int(3))]
        ),
        "TypeError: Cannot specify a default for max() with multiple positional arguments"
    );
    assert_eq!(c("max", vec![ints(&[1, 3, 2])]), "3");
    let len = lookup("len").expect("len");
    assert_eq!(
        call(
            &vm,
            "max",
            vec![Value::str("a"), Value::str("bb")],
            vec![("key", len)]
        ),
        "'bb'"
    );
    assert_eq!(
        c(
            "sum",
            vec![Value::list(vec![Value::str("a")]), Value::str("")]
        ),
        "TypeError: sum() can't sum strings [use ''.join(seq) instead]"
    );
    assert_eq!(c("sum", vec![ints(&[1, 2]), Value::Int(10)]), "13");
    assert_eq!(
        c("sum", vec![Value::list(vec![Value::Float(0.1); 10])]),
        "0.9999999999999999"
    );
    // CPython: sum([2**63 - 1, 1]) grows past 64 bits.
    assert_eq!(c("sum", vec![ints(&[i64::MAX, 1])]), "9223372036854775808");
    assert_eq!(
        call(
            &vm,
            "sorted",
            vec![ints(&[3, 1, 2])],
            vec![("reverse", Value::Bool(true))]
        ),
        "[3, 2, 1]"
    );
    assert_eq!(
        c(
            "sorted",
            vec![Value::list(vec![Value::Int(1), Value::str("a")])]
        ),
        "TypeError: '<' not supported between instances of 'str' and 'int'"
    );
    assert_eq!(c("all", vec![ints(&[])]), "True");
    assert_eq!(
        c(
            "any",
            vec![Value::list(vec![Value::Int(0), Value::str("")])]
        ),
        "False"
    );
    let zip = lookup("zip").expect("zip");
    let z = vm.call(
        &zip,
        vec![ints(&[1]), ints(&[1, 2])],
        vec![("strict".into(), Value::Bool(true))],
    );
    let listed = z.and_then(|z| vm.collect(&z));
    assert_eq!(
        vm.r(&listed.map(Value::list)),
        "ValueError: zip() argument 2 is longer than argument 1"
    );
    let e = lookup("enumerate").expect("enumerate");
    let en = vm
        .call(&e, vec![Value::str("ab"), Value::Int(1)], vec![])
        .and_then(|v| vm.collect(&v));
    assert_eq!(vm.r(&en.map(Value::list)), "[(1, 'a'), (2, 'b')]");
    let r = lookup("range").expect("range");
    let rg = vm.call(
        &r,
        vec![Value::Int(10), Value::Int(0), Value::Int(-3)],
        vec![],
    );
    assert_eq!(vm.r(&rg), "range(10, 0, -3)");
    assert_eq!(
        vm.r(&rg.clone().and_then(|v| vm.collect(&v)).map(Value::list)),
        "[10, 7, 4, 1]"
    );
    assert_eq!(c("len", vec![rg.clone().unwrap_or_default()]), "4");
    let it = c("iter", vec![ints(&[])]);
    assert!(it.starts_with("<list_iterator object at 0x"), "{it}");
    assert_eq!(
        c("next", vec![vm.iter(&ints(&[])).unwrap_or_default()]),
        "StopIteration"
    );
    assert_eq!(
        c(
            "next",
            vec![vm.iter(&ints(&[])).unwrap_or_default(), Value::Int(7)]
        ),
        "7"
    );
}

#[test]
fn numeric_builtins() {
    let vm = TestVm::default();
    let c = |n: &str, a: Vec<Value>| call(&vm, n, a, vec![]);
    assert_eq!(
        c("abs", vec![Value::str("a")]),
        "TypeError: bad operand type for abs(): 'str'"
    );
    assert_eq!(c("abs", vec![Value::Int(i64::MIN)]), "9223372036854775808");
    assert_eq!(
        c("round", vec![Value::str("a")]),
        "TypeError: type str doesn't define __round__ method"
    );
    assert_eq!(c("round", vec![Value::Float(2.5)]), "2");
    assert_eq!(c("round", vec![Value::Float(2.675), Value::Int(2)]), "2.67");
    assert_eq!(c("round", vec![Value::Int(5), Value::Int(-1)]), "0");
    assert_eq!(c("divmod", vec![Value::Int(7), Value::Int(-2)]), "(-4, -1)");
    assert_eq!(
        c("divmod", vec![Value::Float(-7.5), Value::Int(2)]),
        "(-4.0, 0.5)"
    );
    assert_eq!(
        c("divmod", vec![Value::Float(1.0), Value::Int(0)]),
        "ZeroDivisionError: float divmod()"
    );
    assert_eq!(
        c("pow", vec![Value::Int(2), Value::Int(10), Value::Int(1000)]),
        "24"
    );
    assert_eq!(
        c("pow", vec![Value::Int(3), Value::Int(-1), Value::Int(7)]),
        "5"
    );
    assert_eq!(c("pow", vec![Value::Int(2), Value::Int(-1)]), "0.5");
    assert_eq!(
        c("pow", vec![Value::Int(10), Value::Int(20)]),
        "100000000000000000000"
    );
    assert_eq!(
        c("chr", vec![Value::Int(-1)]),
        "ValueError: chr() arg not in range(0x110000)"
    );
    assert_eq!(
        c("ord", vec![Value::str("ab")]),
        "TypeError: ord() expected a character, but string of length 2 found"
    );
    assert_eq!(c("hex", vec![Value::Int(-31)]), "'-0x1f'");
    assert_eq!(c("bin", vec![Value::Int(-5)]), "'-0b101'");
    assert_eq!(
        c("hex", vec![Value::Float(1.5)]),
        "TypeError: 'float' object cannot be interpreted as an integer"
    );
}

#[test]
fn object_builtins() {
    let vm = TestVm::default();
    let c = |n: &str, a: Vec<Value>| call(&vm, n, a, vec![]);
    let int = lookup("int").expect("int");
    let str_ = lookup("str").expect("str");
    let both = Value::tuple(vec![str_, Value::tuple(vec![int.clone()])]);
    assert_eq!(c("isinstance", vec![Value::Int(1), both]), "True");
    assert_eq!(
        c("isinstance", vec![Value::Bool(true), int.clone()]),
        "True"
    );
    assert_eq!(
        c("isinstance", vec![Value::Int(1), Value::Int(1)]),
        "TypeError: isinstance() arg 2 must be a type, a tuple of types, or a union"
    );
    assert_eq!(
        c("issubclass", vec![lookup("bool").expect("bool"), int]),
        "True"
    );
    assert_eq!(
        c("getattr", vec![Value::Int(1), Value::str("x")]),
        "AttributeError: 'int' object has no attribute 'x'"
    );
    assert_eq!(
        c(
            "getattr",
            vec![Value::Int(1), Value::str("x"), Value::Int(5)]
        ),
        "5"
    );
    assert_eq!(
        c("hasattr", vec![Value::Int(1), Value::Int(1)]),
        "TypeError: attribute name must be string, not 'int'"
    );
    assert_eq!(c("callable", vec![lookup("len").expect("len")]), "True");
    assert_eq!(
        c("repr", vec![lookup("NotImplemented").expect("NI")]),
        "'NotImplemented'"
    );
    assert_eq!(c("ascii", vec![Value::str("é")]), "\"'\\\\xe9'\"");
    assert_eq!(
        c("format", vec![Value::Float(2.34567), Value::str(".2f")]),
        "'2.35'"
    );
    assert_eq!(
        c("hash", vec![ints(&[])]),
        "TypeError: unhashable type: 'list'"
    );
    assert_eq!(
        call(
            &vm,
            "print",
            vec![Value::Int(1)],
            vec![("sep", Value::Int(1))]
        ),
        "TypeError: sep must be None or a string, not int"
    );
    call(
        &vm,
        "print",
        vec![Value::Int(1), Value::str("a")],
        vec![("sep", Value::str("-")), ("end", Value::str("!\n"))],
    );
    assert_eq!(vm.out().as_str(), "1-a!\n");
}
