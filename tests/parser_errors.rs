//! Syntax error tests: class, message, position (1-based line and column of
//! the span start) and the `incomplete` flag. The first table holds CPython
//! 3.11's exact messages (each checked with `compile(src, "f", "exec")` when
//! written); the second holds our messages for Python we do not support.

use dist::syntax::parse_module;

type Case = (&'static str, &'static str, &'static str, usize, usize, bool);

fn run(cases: &[Case]) {
    let mut failures = Vec::new();
    for &(src, class, message, line, col, incomplete) in cases {
        let e = match parse_module(src) {
            Ok(_) => {
                failures.push(format!("{src:?}: parsed, expected {class}: {message}"));
                continue;
            }
            Err(e) => e,
        };
        let s = e.span.start as usize;
        let got_line = src[..s].matches('\n').count() + 1;
        let ls = src[..s].rfind('\n').map_or(0, |i| i + 1);
        let got_col = src[ls..s].chars().count() + 1;
        let got = (
            e.kind.class_name(),
            e.message.as_str(),
            got_line,
            got_col,
            e.incomplete,
        );
        if got != (class, message, line, col, incomplete) {
            failures.push(format!("{src:?}: got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cpython_messages() {
    run(&[
    ("if x\n    pass", "SyntaxError", "expected ':'", 1, 5, false),
    ("if x y:\n    pass", "SyntaxError", "invalid syntax", 1, 6, false),
    ("for x in y\n    pass", "SyntaxError", "expected ':'", 1, 11, false),
    ("def f()\n    pass", "SyntaxError", "expected ':'", 1, 8, false),
    ("class C\n    pass", "SyntaxError", "expected ':'", 1, 8, false),
    ("while x\n  pass", "SyntaxError", "expected ':'", 1, 8, false),
    ("x = (1", "SyntaxError", "'(' was never closed", 1, 5, true),
    ("x = 1)", "SyntaxError", "unmatched ')'", 1, 6, false),
    ("x = (1]", "SyntaxError", "closing parenthesis ']' does not match opening parenthesis '('", 1, 7, false),
    ("x = 'abc", "SyntaxError", "unterminated string literal (detected at line 1)", 1, 5, false),
    ("x = \"\"\"abc\n", "SyntaxError", "unterminated triple-quoted string literal (detected at line 1)", 1, 5, true),
    ("f(a b)", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 3, false),
    ("x = [1 2]", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 6, false),
    ("f() = 1", "SyntaxError", "cannot assign to function call here. Maybe you meant '==' instead of '='?", 1, 1, false),
    ("1 = x", "SyntaxError", "cannot assign to literal here. Maybe you meant '==' instead of '='?", 1, 1, false),
    ("return 1", "SyntaxError", "'return' outside function", 1, 1, false),
    ("break", "SyntaxError", "'break' outside loop", 1, 1, false),
    ("continue", "SyntaxError", "'continue' not properly in loop", 1, 1, false),
    ("f(a=1, b)", "SyntaxError", "positional argument follows keyword argument", 1, 8, false),
    ("def f(a=1, b): pass", "SyntaxError", "non-default argument follows default argument", 1, 12, false),
    ("x = 1_", "SyntaxError", "invalid decimal literal", 1, 6, false),
    ("x = 1a", "SyntaxError", "invalid decimal literal", 1, 6, false),
    ("f(x=1, x=2)", "SyntaxError", "keyword argument repeated: x", 1, 8, false),
    ("def f(a, a): pass", "SyntaxError", "duplicate argument 'a' in function definition", 1, 10, false),
    ("print x", "SyntaxError", "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1, false),
    ("print \"hi\"", "SyntaxError", "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1, false),
    ("if x:\npass", "IndentationError", "expected an indented block after 'if' statement on line 1", 2, 1, false),
    ("if x:\n    a\n  b", "IndentationError", "unindent does not match any outer indentation level", 3, 1, false),
    (" x = 1", "IndentationError", "unexpected indent", 1, 1, false),
    ("if x:\n        a\n\tb", "TabError", "inconsistent use of tabs and spaces in indentation", 3, 1, false),
    ("x = \\", "SyntaxError", "unexpected EOF while parsing", 1, 5, true),
    ("if x:", "IndentationError", "expected an indented block after 'if' statement on line 1", 1, 6, true),
    ("x +", "SyntaxError", "invalid syntax", 1, 4, false),
    ("a, b += 1", "SyntaxError", "'tuple' is an illegal expression for augmented assignment", 1, 1, false),
    ("[a, *b, *c] = x", "SyntaxError", "multiple starred expressions in assignment", 1, 1, false),
    ("del f()", "SyntaxError", "cannot delete function call", 1, 5, false),
    ("x = yield", "SyntaxError", "'yield' outside function", 1, 5, false),
    ("def f(*): pass", "SyntaxError", "named arguments must follow bare *", 1, 7, false),
    ("f(**a, *b)", "SyntaxError", "iterable argument unpacking follows keyword argument unpacking", 1, 8, false),
    ("f(**a, b)", "SyntaxError", "positional argument follows keyword argument unpacking", 1, 8, false),
    ("f() += 1", "SyntaxError", "'function call' is an illegal expression for augmented assignment", 1, 1, false),
    ("x = 1 if 2", "SyntaxError", "expected 'else' after 'if' expression", 1, 5, false),
    ("else: pass", "SyntaxError", "invalid syntax", 1, 1, false),
    ("x = 0777", "SyntaxError", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", 1, 5, false),
    ("x = 0b2", "SyntaxError", "invalid digit '2' in binary literal", 1, 7, false),
    ("x = 0x", "SyntaxError", "invalid hexadecimal literal", 1, 7, false),
    ("x = 1__0", "SyntaxError", "invalid decimal literal", 1, 6, false),
    ("x = 1e", "SyntaxError", "invalid decimal literal", 1, 5, false),
    ("x = b\"é\"", "SyntaxError", "bytes can only contain ASCII literal characters", 1, 5, false),
    ("x = f\"{x!z}\"", "SyntaxError", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1, 10, false),
    ("x = f\"{}\"", "SyntaxError", "f-string: empty expression not allowed", 1, 8, false),
    ("x = f\"{x\"", "SyntaxError", "f-string: expecting '}'", 1, 9, false),
    ("x = f\"}\"", "SyntaxError", "f-string: single '}' is not allowed", 1, 7, false),
    // A module-level `nonlocal` is the resolver's error (tests/golden/errors/syntax).
    ("a := 1", "SyntaxError", "invalid syntax", 1, 3, false),
    ("True = 1", "SyntaxError", "cannot assign to True", 1, 1, false),
    ("None = 1", "SyntaxError", "cannot assign to None", 1, 1, false),
    ("f(x for x in y, 1)", "SyntaxError", "Generator expression must be parenthesized", 1, 3, false),
    ("x = 1 +", "SyntaxError", "invalid syntax", 1, 8, false),
    ("foo(", "SyntaxError", "'(' was never closed", 1, 4, true),
    ("\"\"\"", "SyntaxError", "unterminated triple-quoted string literal (detected at line 1)", 1, 1, true),
    ("x = 'a' 'b", "SyntaxError", "unterminated string literal (detected at line 1)", 1, 9, false),
    ("a = f() = 1", "SyntaxError", "cannot assign to function call", 1, 5, false),
    ("for f() in x: pass", "SyntaxError", "cannot assign to function call", 1, 5, false),
    ("with a as f(): pass", "SyntaxError", "cannot assign to function call", 1, 11, false),
    ("(a, f()) = 1", "SyntaxError", "cannot assign to function call", 1, 5, false),
    ("x + 1 = 2", "SyntaxError", "cannot assign to expression here. Maybe you meant '==' instead of '='?", 1, 1, false),
    ("*a = 1", "SyntaxError", "starred assignment target must be in a list or tuple", 1, 1, false),
    ("a = *b", "SyntaxError", "can't use starred expression here", 1, 5, false),
    ("print(*a for a in b)", "SyntaxError", "iterable unpacking cannot be used in comprehension", 1, 7, false),
    ("del x + 1", "SyntaxError", "cannot delete expression", 1, 5, false),
    ("f(a.b=1)", "SyntaxError", "expression cannot contain assignment, perhaps you meant \"==\"?", 1, 3, false),
    ("f(1=2)", "SyntaxError", "expression cannot contain assignment, perhaps you meant \"==\"?", 1, 3, false),
    ("def f(**k, a): pass", "SyntaxError", "arguments cannot follow var-keyword argument", 1, 12, false),
    ("def f(*a, *b): pass", "SyntaxError", "* argument may appear only once", 1, 11, false),
    ("def f(a, /, /): pass", "SyntaxError", "/ may appear only once", 1, 13, false),
    ("def f(/, a): pass", "SyntaxError", "at least one argument must precede /", 1, 7, false),
    ("lambda x=1, y: 0", "SyntaxError", "non-default argument follows default argument", 1, 13, false),
    ("try:\n    x\ny = 1", "SyntaxError", "expected 'except' or 'finally' block", 3, 1, false),
    ("try:\n    x", "SyntaxError", "expected 'except' or 'finally' block", 2, 6, true),
    ("if x:\n    a\nelif y\n    b", "SyntaxError", "expected ':'", 3, 7, false),
    ("else:\n  pass", "SyntaxError", "invalid syntax", 1, 1, false),
    ("for x in y:\n    pass\nelse:\npass", "IndentationError", "expected an indented block after 'else' statement on line 3", 4, 1, false),
    ("try:\n    x\nexcept:\npass", "IndentationError", "expected an indented block after 'except' statement on line 3", 4, 1, false),
    ("with x:\npass", "IndentationError", "expected an indented block after 'with' statement on line 1", 2, 1, false),
    ("def f():\npass", "IndentationError", "expected an indented block after function definition on line 1", 2, 1, false),
    ("class C:\npass", "IndentationError", "expected an indented block after class definition on line 1", 2, 1, false),
    ("while x:\npass", "IndentationError", "expected an indented block after 'while' statement on line 1", 2, 1, false),
    ("try:\npass", "IndentationError", "expected an indented block after 'try' statement on line 1", 2, 1, false),
    ("try:\n  x\nfinally:\npass", "IndentationError", "expected an indented block after 'finally' statement on line 3", 4, 1, false),
    ("f(x for x in y, )", "SyntaxError", "Generator expression must be parenthesized", 1, 3, false),
    ("x = `a`", "SyntaxError", "invalid syntax", 1, 5, false),
    ("x = $", "SyntaxError", "invalid syntax", 1, 5, false),
    ("x = a ? b", "SyntaxError", "invalid syntax", 1, 7, false),
    ("x = €", "SyntaxError", "invalid character '€' (U+20AC)", 1, 5, false),
    ("except ValueError, TypeError:\n    pass", "SyntaxError", "invalid syntax", 1, 1, false),
    ("try:\n  pass\nexcept ValueError, TypeError:\n    pass", "SyntaxError", "multiple exception types must be parenthesized", 3, 8, false),
    ("x = 1 if 2 else", "SyntaxError", "invalid syntax", 1, 16, false),
    ("if x = 1:\n   pass", "SyntaxError", "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 4, false),
    ("a == not b", "SyntaxError", "invalid syntax", 1, 6, false),
    ("-not b", "SyntaxError", "invalid syntax", 1, 2, false),
    ("x = [1, 2\ny = 3", "SyntaxError", "'[' was never closed", 1, 5, true),
    ("x = (1,", "SyntaxError", "'(' was never closed", 1, 5, true),
    ("x = {'a': 1 'b': 2}", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 11, false),
    ("f(a, b c)", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 6, false),
    ("f(a, \"x\" \"y\" z)", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 10, false),
    ("x = \"a\\xZZ\"", "SyntaxError", "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-2: truncated \\xXX escape", 1, 7, false),
    ("x = f\"{x:{y:{z}}}\"", "SyntaxError", "f-string: expressions nested too deeply", 1, 13, false),
    ("x = f\"{a b}\"", "SyntaxError", "f-string: invalid syntax. Perhaps you forgot a comma?", 1, 8, false),
    ("x = f\"{x\\n}\"", "SyntaxError", "f-string expression part cannot include a backslash", 1, 9, false),
    ("x = f\"{x#}\"", "SyntaxError", "f-string expression part cannot include '#'", 1, 9, false),
    ("x = 1 +* 2", "SyntaxError", "invalid syntax", 1, 8, false),
    ("if True:\n\tx = 1\n        y = 2", "TabError", "inconsistent use of tabs and spaces in indentation", 3, 1, false),
    ("if True:\n        x = 1\n\ty = 2", "TabError", "inconsistent use of tabs and spaces in indentation", 3, 1, false),
    ("def f(x):\n    return x\n  y = 1", "IndentationError", "unindent does not match any outer indentation level", 3, 1, false),
    ("x = [1, 2,", "SyntaxError", "'[' was never closed", 1, 5, true),
    ("class C:\n    def f(self)\n        pass", "SyntaxError", "expected ':'", 2, 16, false),
    ("x = (1 +\n     2))", "SyntaxError", "unmatched ')'", 2, 8, false),
    ("def f():\n    class C:\n        return 1", "SyntaxError", "'return' outside function", 3, 9, false),
    ("while True:\n    def g():\n        break", "SyntaxError", "'break' outside loop", 3, 9, false),
    ("x = {1: 2, 3}", "SyntaxError", "':' expected after dictionary key", 1, 12, false),
    ("x = {1, 2: 3}", "SyntaxError", "invalid syntax", 1, 10, false),
    ("import", "SyntaxError", "invalid syntax", 1, 7, false),
    ("from x import", "SyntaxError", "invalid syntax", 1, 14, false),
    ("x = 1\n  y = 2", "IndentationError", "unexpected indent", 2, 1, false),
    ("x = 5 6", "SyntaxError", "invalid syntax", 1, 7, false),
    ("if x:\n    pass\n  else:\n    pass", "IndentationError", "unindent does not match any outer indentation level", 3, 1, false),
    ("@", "SyntaxError", "invalid syntax", 1, 2, true),
    ("@dec", "SyntaxError", "invalid syntax", 1, 5, true),
    ("x = 'a' b'c'", "SyntaxError", "cannot mix bytes and nonbytes literals", 1, 5, false),
    ("x = (yield)", "SyntaxError", "'yield' outside function", 1, 6, false),
    ]);
}

#[test]
fn unsupported_python() {
    run(&[
        (
            "[(yield) for x in y]",
            "SyntaxError",
            "'yield' inside list comprehension",
            1,
            3,
            false,
        ),
        (
            "async def f(): pass",
            "SyntaxError",
            "'async def' is not supported",
            1,
            1,
            false,
        ),
        (
            "from x import *",
            "SyntaxError",
            "'from ... import *' is not supported",
            1,
            15,
            false,
        ),
        (
            "class C:\n    yield 1",
            "SyntaxError",
            "'yield' outside function",
            2,
            5,
            false,
        ),
        (
            "x = 1j",
            "SyntaxError",
            "complex numbers are not supported",
            1,
            5,
            false,
        ),
        (
            "x = 99999999999999999999",
            "SyntaxError",
            "integer literal too large: 99999999999999999999 (ints are 64-bit here)",
            1,
            5,
            false,
        ),
        (
            "match x:\n    case 1: pass",
            "SyntaxError",
            "'match' statements are not supported",
            1,
            1,
            false,
        ),
        (
            "from . import x",
            "SyntaxError",
            "relative imports are not supported",
            1,
            6,
            false,
        ),
        (
            "def f[T](): pass",
            "SyntaxError",
            "type parameters are not supported",
            1,
            6,
            false,
        ),
        (
            "x = \"\\N{DASH}\"",
            "SyntaxError",
            "\\N{...} escapes are not supported",
            1,
            6,
            false,
        ),
        (
            "await x",
            "SyntaxError",
            "'await' is not supported",
            1,
            1,
            false,
        ),
        (
            "x = [await y]",
            "SyntaxError",
            "'await' is not supported",
            1,
            6,
            false,
        ),
        (
            "async with x: pass\n",
            "SyntaxError",
            "'async with' is not supported",
            1,
            1,
            false,
        ),
    ]);
}
