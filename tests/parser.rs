//! Parser tests: the AST shape of every construct, through the S-expression
//! dump (`dist::syntax::dump`). Each case was checked against CPython 3.11's
//! `ast.dump` by hand when written.

use dist::syntax::{dump, parse_module};

/// Parses `src` and compares its dump with `expected`.
fn check(src: &str, expected: &str) {
    match parse_module(src) {
        Ok(m) => assert_eq!(dump(&m), expected, "source: {src:?}"),
        Err(e) => panic!("{src:?} failed to parse: {e} at {:?}", e.span),
    }
}

#[test]
fn statements() {
    check("x = 1", "(Assign [x] 1)\n");
    check("a, *b = x", "(Assign [(tuple a (* b))] x)\n");
    check(
        "(a, b), c = 1, 2",
        "(Assign [(tuple (tuple a b) c)] (tuple 1 2))\n",
    );
    check("a = b = 1", "(Assign [a b] 1)\n");
    check("x.y[0] += 2", "(AugAssign (sub (. x y) 0) += 2)\n");
    check("x: int = 5", "(AnnAssign x int 5)\n");
    check("import a.b as c, d.e", "(Import a.b as c ->c, d.e ->d)\n");
    check("from a.b import c as d, e", "(ImportFrom a.b c as d, e)\n");
    check("from a import (e, f,)", "(ImportFrom a e, f)\n");
    check(
        "def f(a, b=1, /, c=2, *args, d, e=3, **kw) -> int:\n\treturn a",
        "(FunctionDef f qualname=f (a b=1 / c=2 *args d e=3 **kw)\n  (Return a))\n",
    );
    check(
        "@dec\n@x.y(1, k=2)\ndef g(): pass",
        "(FunctionDef g qualname=g () decorators=[dec (call (. x y) 1 k=2)]\n  (Pass))\n",
    );
    check(
        "if a:\n    pass\nelif b:\n    x = 1\nelse:\n    y = 2",
        "(If a\n  (Pass)\n else\n  (If b\n    (Assign [x] 1)\n   else\n    (Assign [y] 2)))\n",
    );
    check(
        "for i, j in enumerate(x):\n\tif i: break\n\tcontinue\nelse:\n\tpass",
        "(For (tuple i j) in (call enumerate x)\n  (If i\n    (Break))\n  (Continue)\n else\n  (Pass))\n",
    );
    check(
        "while x < 10:\n    x += 1\nelse:\n    pass",
        "(While (cmp x < 10)\n  (AugAssign x += 1)\n else\n  (Pass))\n",
    );
    check(
        "with open(f) as g, h as (i, j):\n    pass",
        "(With (call open f) as g, h as (tuple i j)\n  (Pass))\n",
    );
    check(
        "with (a as b, c as d):\n    pass",
        "(With a as b, c as d\n  (Pass))\n",
    );
    check(
        "try:\n    x\nexcept (A, B) as e:\n    pass\nexcept C:\n    pass\nexcept:\n    raise\nelse:\n    pass\nfinally:\n    pass",
        "(Try\n  (Expr x)\n except (tuple A B) as e\n  (Pass)\n except C\n  (Pass)\n except\n  (Raise)\n else\n  (Pass)\n finally\n  (Pass))\n",
    );
    check("raise X from Y", "(Raise X from Y)\n");
    check("assert x, \"msg\"", "(Assert x \"msg\")\n");
    check("del a, b[0], c.d", "(Delete a (sub b 0) (. c d))\n");
    check("global a, b", "(Global a b)\n");
    check(
        "def f():\n    nonlocal x",
        "(FunctionDef f qualname=f ()\n  (Nonlocal x))\n",
    );
    check(
        "class C(B, metaclass2=M):\n    \"\"\"doc\"\"\"\n    def m(self):\n        def g(): return lambda: 0\n        return g",
        "(ClassDef C qualname=C bases=[B] metaclass2=M\n  (Expr \"doc\")\n  (FunctionDef m qualname=C.m (self)\n    (FunctionDef g qualname=C.m.<locals>.g ()\n      (Return (lambda qualname=C.m.<locals>.g.<locals>.<lambda> () 0)))\n    (Return g)))\n",
    );
    check(
        "x = -2**2; y = 2**-1; z = not a == b < c",
        "(Assign [x] (neg (** 2 2)))\n(Assign [y] (** 2 (neg 1)))\n(Assign [z] (not (cmp a == b < c)))\n",
    );
    check("x = a if b else c", "(Assign [x] (if b a c))\n");
    check("f(a, *b, k=1, **c,)", "(Expr (call f a (* b) k=1 **c))\n");
    check(
        "a[::2], a[1:2, ::-1], a[..., None], a[1:2:3], a[:]",
        "(Expr (tuple (sub a (slice _ _ 2)) (sub a (tuple (slice 1 2 _) (slice _ _ (neg 1)))) (sub a (tuple ... None)) (sub a (slice 1 2 3)) (sub a (slice _ _ _))))\n",
    );
    check("x = 1, 2", "(Assign [x] (tuple 1 2))\n");
    check(
        "x = (), (1,), [], {}, {1}, {1: 2, **d}, [*a, *b], {*a}",
        "(Assign [x] (tuple (tuple) (tuple 1) (list) (dict) (set 1) (dict (1 2) (** d)) (list (* a) (* b)) (set (* a))))\n",
    );
    check(
        "[x for x in y if x if z for w in x]",
        "(Expr (listcomp x (for x in y if x if z) (for w in x)))\n",
    );
}

#[test]
fn expressions_and_literals() {
    check(
        "{k: v for k, v in d.items()}",
        "(Expr (dictcomp k: v (for (tuple k v) in (call (. d items)))))\n",
    );
    check("{x for x in y}", "(Expr (setcomp x (for x in y)))\n");
    check(
        "sum(x for x in y)",
        "(Expr (call sum (genexpr x (for x in y))))\n",
    );
    check("(y := f(x))", "(Expr (:= y (call f x)))\n");
    check(
        "lambda a, b=1, *c, d, **e: a",
        "(Expr (lambda qualname=<lambda> (a b=1 *c d **e) a))\n",
    );
    check("lambda: 0", "(Expr (lambda qualname=<lambda> () 0))\n");
    check(
        "x = a or b or c and d and e",
        "(Assign [x] (or a b (and c d e)))\n",
    );
    check("a < b < c", "(Expr (cmp a < b < c))\n");
    check("(a < b) < c", "(Expr (cmp (cmp a < b) < c))\n");
    check(
        "a is not b, a not in b",
        "(Expr (tuple (cmp a is not b) (cmp a not in b)))\n",
    );
    check(
        "x = 1_000 + 0x1f + 0o17 + 0b101 + 1. + .5 + 1e-3 + 1_0.5",
        "(Assign [x] (+ (+ (+ (+ (+ (+ (+ 1000 31) 15) 5) 1.0) 0.5) 0.001) 10.5))\n",
    );
    check(
        "s = 'a' \"b\" '''c''' \"\"\"d\ne\"\"\"",
        "(Assign [s] \"abcd\\ne\")\n",
    );
    check(
        "f\"{x!r:>10} {y=} {{}} {z:{w}.{p}f}\" 'plain'",
        "(Expr (f {x !r : \">10\"} \" \" {y debug=\"y=\" !r} \" {} \" {z : {w} \".\" {p} \"f\"} \"plain\"))\n",
    );
    check("f\"{n:>8,}\"", "(Expr (f {n : \">8,\"}))\n");
    check("f'{a[\"k\"]}'", "(Expr (f {(sub a \"k\")}))\n");
    check("x = ...\n", "(Assign [x] ...)\n");
    check(
        "x = a if b else c if d else e",
        "(Assign [x] (if b a (if d c e)))\n",
    );
    check(
        "lambda *, k=1: k",
        "(Expr (lambda qualname=<lambda> (* k=1) k))\n",
    );
    check(
        "lambda a, /, b: a",
        "(Expr (lambda qualname=<lambda> (a / b) a))\n",
    );
    check(
        "f(*a, *b, **c, **d)",
        "(Expr (call f (* a) (* b) **c **d))\n",
    );
    check(
        "x = [*a, 1]; y = {**a, 'k': 1}",
        "(Assign [x] (list (* a) 1))\n(Assign [y] (dict (** a) (\"k\" 1)))\n",
    );
    check(
        "a @ b // c % d ^ e & f | g << h >> i",
        "(Expr (| (^ (% (// (@ a b) c) d) (& e f)) (>> (<< g h) i)))\n",
    );
    check("~a + +b - -c", "(Expr (- (+ (~ a) (pos b)) (neg c)))\n");
    check(
        "not a and not b or c",
        "(Expr (or (and (not a) (not b)) c))\n",
    );
    check(
        "a in b not in c is d is not e",
        "(Expr (cmp a in b not in c is d is not e))\n",
    );
    check("x = y = z = 0", "(Assign [x y z] 0)\n");
    check(
        "a[1:2], a[1:], a[:2], a[::], a[i, j], a[i,], a[*b]",
        "(Expr (tuple (sub a (slice 1 2 _)) (sub a (slice 1 _ _)) (sub a (slice _ 2 _)) (sub a (slice _ _ _)) (sub a (tuple i j)) (sub a (tuple i)) (sub a (* b))))\n",
    );
    check("x = (yield_ := 1)", "(Assign [x] (:= yield_ 1))\n");
    check(
        "if (n := len(a)) > 10: pass",
        "(If (cmp (:= n (call len a)) > 10)\n  (Pass))\n",
    );
    check(
        "print(f\"{x!r}\", f\"{x!s}\", f\"{x!a}\", f'{x:>{w}}', f\"{'a'}{x}b\", f\"{x = }\", f\"{x=:.2f}\")",
        "(Expr (call print (f {x !r}) (f {x !s}) (f {x !a}) (f {x : \">\" {w}}) (f {\"a\"} {x} \"b\") (f {x debug=\"x = \" !r}) (f {x debug=\"x=\" : \".2f\"})))\n",
    );
}

#[test]
fn definitions_and_more() {
    check(
        "s = rb'\\x00\\n' Rb\"a\" BR'b' Br\"c\"",
        "(Assign [s] b\"\\\\x00\\\\nabc\")\n",
    );
    check(
        "s = '\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\0\\7\\77\\101\\x41\\u00e9\\U0001F600\\q'",
        "(Assign [s] \"\\u{7}\\u{8}\\u{c}\\n\\r\\t\\u{b}\\\\'\\\"\\0\\u{7}?AAé😀\\\\q\")\n",
    );
    check(
        "s = f'{{literal}}' f\"{a}\" \"{not a field}\"",
        "(Assign [s] (f \"{literal}\" {a} \"{not a field}\"))\n",
    );
    check(
        "s = \"\"\"multi\nline\\\ncontinued\"\"\"",
        "(Assign [s] \"multi\\nlinecontinued\")\n",
    );
    check("x = (1 +\n     2)", "(Assign [x] (+ 1 2))\n");
    check("x = 1 + \\\n    2", "(Assign [x] (+ 1 2))\n");
    check(
        "if x:\n    # comment\n\n    y = 1  # trailing\n        # odd comment indent\n    z = 2",
        "(If x\n  (Assign [y] 1)\n  (Assign [z] 2))\n",
    );
    check(
        "def f(a: int, b: str = \"x\", *args: int, c: float = 1.0, **kw: dict) -> None:\n    \"\"\"Doc.\"\"\"\n    return",
        "(FunctionDef f qualname=f (a:int b:str=\"x\" *args c=1.0 **kw)\n  (Expr \"Doc.\")\n  (Return))\n",
    );
    check(
        "def outer():\n    x = 1\n    def inner():\n        nonlocal x\n        x += 1\n        return x\n    return inner",
        "(FunctionDef outer qualname=outer ()\n  (Assign [x] 1)\n  (FunctionDef inner qualname=outer.<locals>.inner ()\n    (Nonlocal x)\n    (AugAssign x += 1)\n    (Return x))\n  (Return inner))\n",
    );
    check(
        "class A:\n    class B:\n        def m(self):\n            return [lambda: i for i in range(3)]",
        "(ClassDef A qualname=A\n  (ClassDef B qualname=A.B\n    (FunctionDef m qualname=A.B.m (self)\n      (Return (listcomp (lambda qualname=A.B.m.<locals>.<listcomp>.<lambda> () i) (for i in (call range 3)))))))\n",
    );
    check(
        "with a, b as c, d as (e, f): pass",
        "(With a, b as c, d as (tuple e f)\n  (Pass))\n",
    );
    check("for x, in y: pass", "(For (tuple x) in y\n  (Pass))\n");
    check(
        "for (a, b), *c in d: pass",
        "(For (tuple (tuple a b) (* c)) in d\n  (Pass))\n",
    );
    check(
        "while 1:\n    if x: continue\n    else: break",
        "(While 1\n  (If x\n    (Continue)\n   else\n    (Break)))\n",
    );
    check(
        "try:\n    pass\nfinally:\n    pass",
        "(Try\n  (Pass)\n finally\n  (Pass))\n",
    );
    check("raise", "(Raise)\n");
    check("del (a, b), [c]", "(Delete (tuple a b) (list c))\n");
    check("import a, b.c.d", "(Import a ->a, b.c.d ->b)\n");
    check(
        "from a.b.c import (d as e,\n    f)",
        "(ImportFrom a.b.c d as e, f)\n",
    );
    check("x: list[int]", "(AnnAssign x (sub list int))\n");
    check("obj.attr: int = 3", "(AnnAssign (. obj attr) int 3)\n");
    check(
        "x = 0xFF_FF + 0o7_7 + 0B1_0 + 1_000_000 + 1E10 + 1.5e+3 + 0.0 + 00 + 0_0",
        "(Assign [x] (+ (+ (+ (+ (+ (+ (+ (+ 65535 63) 2) 1000000) 10000000000.0) 1500.0) 0.0) 0) 0))\n",
    );
    check("x = 1 .real", "(Assign [x] (. 1 real))\n");
    check(
        "x = [i for i in range(10)]",
        "(Assign [x] (listcomp i (for i in (call range 10))))\n",
    );
    check(
        "x = {i: j for i, j in z if i if j}",
        "(Assign [x] (dictcomp i: j (for (tuple i j) in z if i if j)))\n",
    );
    check(
        "x = (i for i in y)",
        "(Assign [x] (genexpr i (for i in y)))\n",
    );
    check(
        "f(i for i in y)",
        "(Expr (call f (genexpr i (for i in y))))\n",
    );
    check(
        "x = [(a, b) for a in c for b in d]",
        "(Assign [x] (listcomp (tuple a b) (for a in c) (for b in d)))\n",
    );
    check(
        "@property\ndef x(self): return 1",
        "(FunctionDef x qualname=x (self) decorators=[property]\n  (Return 1))\n",
    );
    check(
        "@functools.wraps(f)\n@(lambda f: f)\nclass C: pass",
        "(ClassDef C qualname=C decorators=[(call (. functools wraps) f) (lambda qualname=<lambda> (f) f)]\n  (Pass))\n",
    );
    check("global x; x = 1", "(Global x)\n(Assign [x] 1)\n");
    check(
        "assert isinstance(x, int)",
        "(Assert (call isinstance x int))\n",
    );
    check("x = ()", "(Assign [x] (tuple))\n");
    check("x = (1)", "(Assign [x] 1)\n");
    check("x = ((1, 2),)", "(Assign [x] (tuple (tuple 1 2)))\n");
    check("x = not not a", "(Assign [x] (not (not a)))\n");
    check("x = -(-a)", "(Assign [x] (neg (neg a)))\n");
    check(
        "x = a.b.c(d)[e].f",
        "(Assign [x] (. (sub (call (. (. a b) c) d) e) f))\n",
    );
    check("x = 2 ** 3 ** 2", "(Assign [x] (** 2 (** 3 2)))\n");
    check("x = -2 ** -2", "(Assign [x] (neg (** 2 (neg 2))))\n");
    check("x = a < b == c", "(Assign [x] (cmp a < b == c))\n");
    check(
        "if a:\n\tif b:\n\t\tpass\n\telif c:\n\t\tpass\nelse:\n\tpass",
        "(If a\n  (If b\n    (Pass)\n   else\n    (If c\n      (Pass)))\n else\n  (Pass))\n",
    );
    check(
        "x = \"\"\"a\" 'b'\"\"\" + '''c''' + 'd\"e' + \"f'g\"",
        "(Assign [x] (+ (+ (+ \"a\\\" 'b'\" \"c\") \"d\\\"e\") \"f'g\"))\n",
    );
    check("x = 'é' + \"日本\"", "(Assign [x] (+ \"é\" \"日本\"))\n");
    check("s = u\"x\" U\"y\"", "(Assign [s] \"xy\")\n");
    check("x = f\"{a}\" f\"{b}\"", "(Assign [x] (f {a} {b}))\n");
    check(
        "x = f\"a{b!r:^{c}.{d}}e\"",
        "(Assign [x] (f \"a\" {b !r : \"^\" {c} \".\" {d}} \"e\"))\n",
    );
    check(
        "print(\"hello\",\n      end=\"\")\n",
        "(Expr (call print \"hello\" end=\"\"))\n",
    );
}

#[test]
fn match_statements() {
    check(
        "match x:\n    case 1 | -2 | 'a' | b'b' | None | True:\n        pass",
        "(Match x\n case (| 1 -2 \"a\" b\"b\" None True)\n  (Pass))\n",
    );
    check(
        "match x, y:\n    case [a, *rest] | (a, *rest) if a > 0:\n        pass\n    case _:\n        pass",
        "(Match (tuple x y)\n case (| [a *rest] [a *rest]) if (cmp a > 0)\n  (Pass)\n case _\n  (Pass))\n",
    );
    check(
        "match p:\n    case Point(0, y=yy) as pt:\n        pass\n    case m.Cls():\n        pass\n    case {'k': v, C.K: _, **kw}:\n        pass\n    case (x,):\n        pass\n    case a, *_:\n        pass\n    case Color.RED:\n        pass\n    case (x):\n        pass",
        "(Match p\n case (as (class Point 0 y=yy) pt)\n  (Pass)\n case (class (. m Cls))\n  (Pass)\n case {\"k\": v (. C K): _ **kw}\n  (Pass)\n case [x]\n  (Pass)\n case [a *_]\n  (Pass)\n case (. Color RED)\n  (Pass)\n case x\n  (Pass))\n",
    );
    check(
        "match (n := f()):\n    case {}:\n        pass\n    case []:\n        pass\n    case ():\n        pass",
        "(Match (:= n (call f))\n case {}\n  (Pass)\n case []\n  (Pass)\n case []\n  (Pass))\n",
    );
}

#[test]
fn match_and_case_are_soft_keywords() {
    check(
        "match = 3\nmatch(x)\ncase = [match]\nmatch.x = case[0]\nmatch[1] = 2\nprint(match, case)",
        "(Assign [match] 3)\n(Expr (call match x))\n(Assign [case] (list match))\n(Assign [(. match x)] (sub case 0))\n(Assign [(sub match 1)] 2)\n(Expr (call print match case))\n",
    );
    check("match: int = 1", "(AnnAssign match int 1)\n");
    check(
        "match, case = 1, 2",
        "(Assign [(tuple match case)] (tuple 1 2))\n",
    );
    check("match * 2", "(Expr (* match 2))\n");
    check("match -x", "(Expr (- match x))\n");
    check("case.upper()", "(Expr (call (. case upper)))\n");
    check(
        "def match(case):\n    return case",
        "(FunctionDef match qualname=match (case)\n  (Return case))\n",
    );
    // Soft keywords as the subject and as capture names.
    check(
        "match match:\n    case [case, *match]:\n        pass",
        "(Match match\n case [case *match]\n  (Pass))\n",
    );
    // `match x:` on a line of its own with no case block is not a match statement.
    assert!(parse_module("match x:\n    pass").is_err());
}
