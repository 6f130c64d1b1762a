//! Unit tests of the builtin types through their natives, with the test VM.
//! Every expected value was checked with CPython 3.11.

use super::testvm::TestVm;
use crate::value::{Value, ValueType, Vm};

fn s(x: &str) -> Value {
    Value::str(x)
}

#[test]
fn str_methods() {
    let vm = TestVm::default();
    let m = |recv: &str, name: &str, args: Vec<Value>| vm.r(&vm.method(&s(recv), name, args));
    assert_eq!(m("a,b,,c", "split", vec![s(",")]), "['a', 'b', '', 'c']");
    assert_eq!(
        m("  a b  c  ", "split", vec![Value::None, Value::Int(1)]),
        "['a', 'b  c  ']"
    );
    assert_eq!(
        m("  a b  c  ", "rsplit", vec![Value::None, Value::Int(1)]),
        "['  a b', 'c']"
    );
    assert_eq!(
        m("a.b.c", "rsplit", vec![s("."), Value::Int(1)]),
        "['a.b', 'c']"
    );
    assert_eq!(m("x", "split", vec![s("")]), "ValueError: empty separator");
    assert_eq!(m("a\nb\r\nc", "splitlines", vec![]), "['a', 'b', 'c']");
    assert_eq!(
        m("a\nb\r\n", "splitlines", vec![Value::Bool(true)]),
        "['a\\n', 'b\\r\\n']"
    );
    assert_eq!(m("xxhixx", "strip", vec![s("x")]), "'hi'");
    assert_eq!(m("hello world", "title", vec![]), "'Hello World'");
    assert_eq!(m("they're bill's", "title", vec![]), "\"They'Re Bill'S\"");
    assert_eq!(m("hELLO", "capitalize", vec![]), "'Hello'");
    assert_eq!(m("héllo", "find", vec![s("l")]), "2");
    assert_eq!(m("abc", "find", vec![s(""), Value::Int(4)]), "-1");
    assert_eq!(m("abcabc", "rfind", vec![s("b")]), "4");
    assert_eq!(
        m("abc", "index", vec![s("z")]),
        "ValueError: substring not found"
    );
    assert_eq!(m("aaaa", "count", vec![s("aa")]), "2");
    assert_eq!(m("abc", "count", vec![s("")]), "4");
    assert_eq!(m("abc", "replace", vec![s(""), s("-")]), "'-a-b-c-'");
    assert_eq!(
        m("aaa", "replace", vec![s("a"), s("b"), Value::Int(2)]),
        "'bba'"
    );
    assert_eq!(
        m(
            "file.txt",
            "endswith",
            vec![Value::tuple(vec![s(".py"), s(".txt")])]
        ),
        "True"
    );
    assert_eq!(
        m("x", "startswith", vec![Value::Int(1)]),
        "TypeError: startswith first arg must be str or a tuple of str, not int"
    );
    assert_eq!(m("a=b=c", "partition", vec![s("=")]), "('a', '=', 'b=c')");
    assert_eq!(m("a=b=c", "rpartition", vec![s("=")]), "('a=b', '=', 'c')");
    assert_eq!(m("abc", "rpartition", vec![s("=")]), "('', '', 'abc')");
    assert_eq!(m("-42", "zfill", vec![Value::Int(6)]), "'-00042'");
    assert_eq!(m("ab", "center", vec![Value::Int(5), s("*")]), "'**ab*'");
    assert_eq!(m("abc", "center", vec![Value::Int(6)]), "' abc  '");
    assert_eq!(
        m("ab", "ljust", vec![Value::Int(4), s("xy")]),
        "TypeError: The fill character must be exactly one character long"
    );
    assert_eq!(
        m("a\tbc\td", "expandtabs", vec![Value::Int(4)]),
        "'a   bc  d'"
    );
    assert_eq!(m("123", "isdigit", vec![]), "True");
    assert_eq!(m("", "isdigit", vec![]), "False");
    assert_eq!(m("ABC1", "isupper", vec![]), "True");
    assert_eq!(m("Hello World", "istitle", vec![]), "True");
    assert_eq!(m("test_x", "removeprefix", vec![s("test_")]), "'x'");
    assert_eq!(m("Straße", "casefold", vec![]), "'strasse'");
    assert_eq!(m("é", "encode", vec![]), "b'\\xc3\\xa9'");
    let join = vm.method(
        &s(", "),
        "join",
        vec![Value::list(vec![s("a"), Value::Int(1)])],
    );
    assert_eq!(
        vm.r(&join),
        "TypeError: sequence item 1: expected str instance, int found"
    );
}

#[test]
fn str_format_method() {
    let vm = TestVm::default();
    let f = |fmt: &str, args: Vec<Value>| vm.r(&vm.method(&s(fmt), "format", args));
    assert_eq!(f("{} {}", vec![Value::Int(1), Value::Int(2)]), "'1 2'");
    assert_eq!(f("{0} {0}", vec![s("a")]), "'a a'");
    assert_eq!(f("{:>5}|", vec![Value::Int(1)]), "'    1|'");
    assert_eq!(
        f(
            "{0[1]}",
            vec![Value::list(vec![Value::Int(1), Value::Int(2)])]
        ),
        "'2'"
    );
    assert_eq!(f("{!r}", vec![s("a")]), "\"'a'\"");
    assert_eq!(f("{:{}}", vec![s("a"), s(">3")]), "'  a'");
    assert_eq!(f("{{}}", vec![]), "'{}'");
    assert_eq!(
        f("{", vec![]),
        "ValueError: Single '{' encountered in format string"
    );
    assert_eq!(
        f("}", vec![]),
        "ValueError: Single '}' encountered in format string"
    );
    assert_eq!(
        f("{0}{}", vec![Value::Int(1), Value::Int(2)]),
        "ValueError: cannot switch from manual field specification to automatic field numbering"
    );
    assert_eq!(
        f("{1}", vec![Value::Int(1)]),
        "IndexError: Replacement index 1 out of range for positional args tuple"
    );
    assert_eq!(f("{x}", vec![]), "KeyError: 'x'");
    assert_eq!(
        f("{!x}", vec![Value::Int(1)]),
        "ValueError: Unknown conversion specifier x"
    );
    assert_eq!(
        f("{:d}", vec![Value::Float(1.5)]),
        "ValueError: Unknown format code 'd' for object of type 'float'"
    );
    assert_eq!(
        f("{0.}", vec![Value::Int(1)]),
        "ValueError: Empty attribute in format string"
    );
    assert_eq!(f("{:,}", vec![Value::Int(1234567)]), "'1,234,567'");
}

#[test]
fn percent_formatting() {
    let vm = TestVm::default();
    let p = |fmt: &str, args: Value| match crate::value::format::percent_format(&*vm, fmt, &args) {
        Ok(t) => t,
        Err(e) => super::testvm::err_text(&e),
    };
    let t = |v: Vec<Value>| Value::tuple(v);
    assert_eq!(
        p(
            "%d items, %.2f, %s, %r, %5s, %-5d|, %x, %%",
            t(vec![
                Value::Int(3),
                Value::Float(2.34567),
                s("a"),
                s("b"),
                s("c"),
                Value::Int(7),
                Value::Int(255)
            ])
        ),
        "3 items, 2.35, a, 'b',     c, 7    |, ff, %"
    );
    let mut d = crate::value::Dict::new();
    d.insert_str("a", Value::Int(1)).unwrap();
    d.insert_str("b", s("x")).unwrap();
    assert_eq!(p("%(a)s %(b)r", Value::dict(d)), "1 'x'");
    assert_eq!(p("%5.3d", t(vec![Value::Int(7)])), "  007");
    assert_eq!(p("%05d", t(vec![Value::Int(-3)])), "-0003");
    assert_eq!(p("%+.2e", t(vec![Value::Float(12345.678)])), "+1.23e+04");
    assert_eq!(p("%#010x", t(vec![Value::Int(255)])), "0x000000ff");
    assert_eq!(p("%*d", t(vec![Value::Int(5), Value::Int(3)])), "    3");
    assert_eq!(
        p("%.*f", t(vec![Value::Int(2), Value::Float(2.34567)])),
        "2.35"
    );
    assert_eq!(p("%d", t(vec![Value::Float(3.9)])), "3");
    assert_eq!(p("%a", t(vec![s("é")])), "'\\xe9'");
    assert_eq!(p("%c%c", t(vec![Value::Int(65), s("z")])), "Az");
    assert_eq!(
        p("%010f", t(vec![Value::Float(f64::INFINITY)])),
        "0000000inf"
    );
    assert_eq!(p("%s", s("abc")), "abc");
    assert_eq!(
        p("%s %s", t(vec![Value::Int(1)])),
        "TypeError: not enough arguments for format string"
    );
    assert_eq!(
        p("%s", t(vec![Value::Int(1), Value::Int(2)])),
        "TypeError: not all arguments converted during string formatting"
    );
    assert_eq!(
        p("%(a)s", t(vec![Value::Int(1)])),
        "TypeError: format requires a mapping"
    );
    assert_eq!(
        p("%q", t(vec![Value::Int(1)])),
        "ValueError: unsupported format character 'q' (0x71) at index 1"
    );
    assert_eq!(p("%", t(vec![])), "ValueError: incomplete format");
    assert_eq!(
        p("%d", t(vec![s("a")])),
        "TypeError: %d format: a real number is required, not str"
    );
    assert_eq!(
        p("%x", t(vec![Value::Float(1.5)])),
        "TypeError: %x format: an integer is required, not float"
    );
    assert_eq!(
        p("%f", t(vec![s("a")])),
        "TypeError: must be real number, not str"
    );
    assert_eq!(
        p("%s", t(vec![Value::list(vec![Value::Int(1), s("a")])])),
        "[1, 'a']"
    );
}

#[test]
fn constructors_and_errors() {
    let vm = TestVm::default();
    let c = |t: ValueType, args: Vec<Value>| vm.r(&vm.construct(t, args));
    assert_eq!(c(ValueType::Int, vec![s(" 42 ")]), "42");
    assert_eq!(c(ValueType::Int, vec![s("1_000")]), "1000");
    assert_eq!(c(ValueType::Int, vec![s("ff"), Value::Int(16)]), "255");
    assert_eq!(c(ValueType::Int, vec![s("0x1f"), Value::Int(0)]), "31");
    assert_eq!(
        c(ValueType::Int, vec![s("abc")]),
        "ValueError: invalid literal for int() with base 10: 'abc'"
    );
    assert_eq!(
        c(ValueType::Int, vec![s("010"), Value::Int(0)]),
        "ValueError: invalid literal for int() with base 0: '010'"
    );
    assert_eq!(
        c(ValueType::Int, vec![Value::None]),
        "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
    );
    assert_eq!(
        c(ValueType::Int, vec![Value::Int(5), Value::Int(2)]),
        "TypeError: int() can't convert non-string with explicit base"
    );
    assert_eq!(c(ValueType::Int, vec![s(&"9".repeat(30))]), "9".repeat(30));
    assert_eq!(c(ValueType::Int, vec![Value::Float(-2.9)]), "-2");
    assert_eq!(
        c(ValueType::Int, vec![Value::Float(f64::INFINITY)]),
        "OverflowError: cannot convert float infinity to integer"
    );
    assert_eq!(c(ValueType::Float, vec![s(" -1.5e3 ")]), "-1500.0");
    assert_eq!(c(ValueType::Float, vec![s("inf")]), "inf");
    assert_eq!(c(ValueType::Float, vec![s("-Infinity")]), "-inf");
    assert_eq!(c(ValueType::Float, vec![s("1_0.5")]), "10.5");
    assert_eq!(
        c(ValueType::Float, vec![s("x")]),
        "ValueError: could not convert string to float: 'x'"
    );
    assert_eq!(
        c(ValueType::Float, vec![Value::list(vec![])]),
        "TypeError: float() argument must be a string or a real number, not 'list'"
    );
    assert_eq!(c(ValueType::Str, vec![Value::Float(0.1)]), "'0.1'");
    assert_eq!(c(ValueType::List, vec![s("ab")]), "['a', 'b']");
    assert_eq!(
        c(ValueType::Tuple, vec![Value::list(vec![Value::Int(1)])]),
        "(1,)"
    );
    assert_eq!(c(ValueType::Bool, vec![Value::list(vec![])]), "False");
    assert_eq!(c(ValueType::Set, vec![s("aba")]), "{'a', 'b'}");
    assert_eq!(c(ValueType::FrozenSet, vec![]), "frozenset()");
    assert_eq!(c(ValueType::Type, vec![Value::Int(1)]), "<class 'int'>");
    assert_eq!(
        c(
            ValueType::Bytes,
            vec![Value::list(vec![Value::Int(104), Value::Int(105)])]
        ),
        "b'hi'"
    );
    let pairs = Value::list(vec![Value::tuple(vec![s("a"), Value::Int(1)])]);
    let d = vm.call(
        &Value::Class(super::builtin_class(ValueType::Dict)),
        vec![pairs],
        vec![("b".into(), Value::Int(2))],
    );
    assert_eq!(vm.r(&d), "{'a': 1, 'b': 2}");
    let bad = Value::list(vec![Value::tuple(vec![
        Value::Int(1),
        Value::Int(2),
        Value::Int(3),
    ])]);
    assert_eq!(
        c(ValueType::Dict, vec![bad]),
        "ValueError: dictionary update sequence element #0 has length 3; 2 is required"
    );
}
