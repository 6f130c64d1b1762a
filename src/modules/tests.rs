//! Tests of `math`, `os` and `time` through their natives (CPython 3.11 values).

use crate::object::types::testvm::TestVm;
use crate::value::{Value, Vm};

/// A native module from the module table.
fn load(vm: &dyn Vm, name: &str) -> Option<Value> {
    match super::find(name)? {
        super::Source::Native(build) => build(vm),
        super::Source::Stdlib(..) | super::Source::Alias(_) => None,
    }
}

fn call(vm: &TestVm, module: &str, name: &str, args: Vec<Value>) -> String {
    let m = load(&**vm, module).expect("module");
    let f = vm.getattr(&m, name).expect("function");
    vm.r(&vm.call(&f, args, Vec::new()))
}

#[test]
fn math_like_cpython() {
    let vm = TestVm::default();
    let c = |n: &str, a: Vec<Value>| call(&vm, "math", n, a);
    let f = Value::Float;
    assert_eq!(c("sqrt", vec![f(-1.0)]), "ValueError: math domain error");
    assert_eq!(
        c("sqrt", vec![Value::str("a")]),
        "TypeError: must be real number, not str"
    );
    assert_eq!(c("exp", vec![f(1000.0)]), "OverflowError: math range error");
    assert_eq!(
        c("log", vec![Value::Int(0)]),
        "ValueError: math domain error"
    );
    assert_eq!(c("log", vec![Value::Int(8), Value::Int(2)]), "3.0");
    assert_eq!(
        c("log", vec![Value::Int(1), Value::Int(1)]),
        "ZeroDivisionError: float division by zero"
    );
    assert_eq!(
        c("pow", vec![Value::Int(-1), f(0.5)]),
        "ValueError: math domain error"
    );
    assert_eq!(
        c("pow", vec![Value::Int(10), Value::Int(400)]),
        "OverflowError: math range error"
    );
    assert_eq!(
        c("floor", vec![f(f64::INFINITY)]),
        "OverflowError: cannot convert float infinity to integer"
    );
    assert_eq!(
        c("floor", vec![f(f64::NAN)]),
        "ValueError: cannot convert float NaN to integer"
    );
    assert_eq!(c("floor", vec![f(-2.5)]), "-3");
    assert_eq!(c("ceil", vec![f(2.1)]), "3");
    assert_eq!(
        c("factorial", vec![f(2.5)]),
        "TypeError: 'float' object cannot be interpreted as an integer"
    );
    assert_eq!(
        c("factorial", vec![Value::Int(-1)]),
        "ValueError: factorial() not defined for negative values"
    );
    assert_eq!(c("factorial", vec![Value::Int(20)]), "2432902008176640000");
    assert_eq!(c("factorial", vec![Value::Int(21)]), "51090942171709440000");
    assert_eq!(
        c("gcd", vec![Value::Int(12), Value::Int(18), Value::Int(8)]),
        "2"
    );
    assert_eq!(c("lcm", vec![Value::Int(4), Value::Int(6)]), "12");
    assert_eq!(c("comb", vec![Value::Int(5), Value::Int(2)]), "10");
    assert_eq!(c("perm", vec![Value::Int(5)]), "120");
    assert_eq!(
        c("comb", vec![Value::Int(5), Value::Int(-1)]),
        "ValueError: k must be a non-negative integer"
    );
    assert_eq!(c("fsum", vec![Value::list(vec![f(0.1); 10])]), "1.0");
    assert_eq!(c("asin", vec![f(2.0)]), "ValueError: math domain error");
    assert_eq!(
        c("cosh", vec![f(1000.0)]),
        "OverflowError: math range error"
    );
    assert_eq!(
        c("sin", vec![f(f64::INFINITY)]),
        "ValueError: math domain error"
    );
    assert_eq!(c("hypot", vec![Value::Int(3), Value::Int(4)]), "5.0");
    assert_eq!(
        c("fmod", vec![Value::Int(5), Value::Int(0)]),
        "ValueError: math domain error"
    );
    assert_eq!(c("fmod", vec![Value::Int(-5), Value::Int(3)]), "-2.0");
    assert_eq!(c("modf", vec![f(-2.5)]), "(-0.5, -2.0)");
    assert_eq!(c("frexp", vec![Value::Int(8)]), "(0.5, 4)");
    assert_eq!(
        c("ldexp", vec![Value::Int(1), Value::Int(1024)]),
        "OverflowError: math range error"
    );
    assert_eq!(c("ldexp", vec![f(0.5), Value::Int(3)]), "4.0");
    assert_eq!(c("tanh", vec![f(0.5)]), "0.46211715726000974");
    assert_eq!(c("log1p", vec![f(1e-10)]), "9.999999999500001e-11");
}

#[test]
fn os_environ_is_shared_and_writable() {
    let vm = TestVm::default();
    let os = load(&*vm, "os").expect("os");
    let environ = vm.getattr(&os, "environ").expect("environ");
    vm.setitem(
        &environ,
        &Value::str("DIST_TEST_VAR"),
        Value::str("{\"a\": 1}"),
    )
    .expect("set");
    assert_eq!(
        call(&vm, "os", "getenv", vec![Value::str("DIST_TEST_VAR")]),
        "'{\"a\": 1}'"
    );
    assert_eq!(
        super::os::env_get(&*vm, "DIST_TEST_VAR").as_deref(),
        Some("{\"a\": 1}")
    );
    let missing = vm.getitem(&environ, &Value::str("DIST_NOT_SET_X"));
    assert_eq!(vm.r(&missing), "KeyError: 'DIST_NOT_SET_X'");
    assert_eq!(
        call(
            &vm,
            "os",
            "getenv",
            vec![Value::str("DIST_NOT_SET_X"), Value::Int(3)]
        ),
        "3"
    );
    let bad = vm.setitem(&environ, &Value::str("X"), Value::Int(1));
    assert_eq!(
        vm.r(&bad.map(|_| Value::None)),
        "TypeError: str expected, not int"
    );
    let p =
        |n: &str, a: Vec<&str>| call(&vm, "os.path", n, a.into_iter().map(Value::str).collect());
    assert_eq!(p("join", vec!["a", "b", "/c", "d"]), "'/c/d'");
    assert_eq!(p("join", vec!["a/", "b"]), "'a/b'");
    assert_eq!(p("basename", vec!["a/b.txt"]), "'b.txt'");
    assert_eq!(p("dirname", vec!["/a"]), "'/'");
    assert_eq!(p("dirname", vec!["a//b"]), "'a'");
    assert_eq!(p("splitext", vec!["a/b.tar.gz"]), "('a/b.tar', '.gz')");
    assert_eq!(p("splitext", vec![".bashrc"]), "('.bashrc', '')");
    assert_eq!(p("exists", vec!["/definitely/not/here"]), "False");
    assert!(load(&*vm, "time").is_some());
    assert!(load(&*vm, "numpy").is_some());
    assert!(load(&*vm, "nosuchmodule").is_none());
}
