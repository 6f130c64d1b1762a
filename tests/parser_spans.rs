//! Span tests: every node's span is the byte range of its own text.

use dist::syntax::ast::{Expr, ExprKind, FStringPart, Stmt, StmtKind};
use dist::syntax::parse_module;

fn text(src: &str, e: &Expr) -> String {
    src[e.span.range()].to_string()
}

/// The texts of an expression and all its sub-expressions, outermost first.
fn walk(src: &str, e: &Expr, out: &mut Vec<String>) {
    out.push(text(src, e));
    match &e.kind {
        ExprKind::Attribute { value, .. }
        | ExprKind::Starred(value)
        | ExprKind::YieldFrom(value)
        | ExprKind::Await(value) => walk(src, value, out),
        ExprKind::Yield(value) => value.iter().for_each(|v| walk(src, v, out)),
        ExprKind::Subscript { value, slice } => {
            walk(src, value, out);
            walk(src, slice, out);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                walk(src, x, out);
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            walk(src, left, out);
            walk(src, right, out);
        }
        ExprKind::UnaryOp { operand, .. } => walk(src, operand, out),
        ExprKind::BoolOp { values, .. }
        | ExprKind::Tuple(values)
        | ExprKind::List(values)
        | ExprKind::Set(values) => values.iter().for_each(|v| walk(src, v, out)),
        ExprKind::Compare {
            left, comparators, ..
        } => {
            walk(src, left, out);
            comparators.iter().for_each(|v| walk(src, v, out));
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            walk(src, func, out);
            args.iter().for_each(|v| walk(src, v, out));
            for k in keywords {
                out.push(src[k.span.range()].to_string());
                walk(src, &k.value, out);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            walk(src, body, out);
            walk(src, test, out);
            walk(src, orelse, out);
        }
        ExprKind::Dict { keys, values } => {
            for (k, v) in keys.iter().zip(values) {
                if let Some(k) = k {
                    walk(src, k, out);
                }
                walk(src, v, out);
            }
        }
        ExprKind::Comp(c) => {
            walk(src, &c.elt, out);
            for g in &c.generators {
                walk(src, &g.target, out);
                walk(src, &g.iter, out);
                g.ifs.iter().for_each(|v| walk(src, v, out));
            }
        }
        ExprKind::JoinedStr(parts) => {
            for p in parts {
                if let FStringPart::Expr { expr, .. } = p {
                    walk(src, expr, out);
                }
            }
        }
        ExprKind::NamedExpr { target, value } => {
            walk(src, target, out);
            walk(src, value, out);
        }
        ExprKind::Lambda(f) => {
            if let Some(Stmt {
                kind: StmtKind::Return(Some(b)),
                ..
            }) = f.body.first()
            {
                walk(src, b, out);
            }
        }
        ExprKind::Constant(_) | ExprKind::Name(_) => {}
    }
}

/// The texts of the value of the single expression statement in `src`.
fn spans(src: &str) -> Vec<String> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
    let Some(Stmt {
        kind: StmtKind::Expr(e),
        ..
    }) = m.body.first()
    else {
        panic!("{src:?}: not an expression statement");
    };
    let mut out = Vec::new();
    walk(src, e, &mut out);
    out
}

#[test]
fn expression_spans() {
    assert_eq!(spans("a + b * c"), ["a + b * c", "a", "b * c", "b", "c"]);
    assert_eq!(spans("-x ** 2"), ["-x ** 2", "x ** 2", "x", "2"]);
    assert_eq!(spans("(a)"), ["a"]);
    assert_eq!(spans("(a, b)"), ["(a, b)", "a", "b"]);
    assert_eq!(spans("a, b,"), ["a, b,", "a", "b"]);
    assert_eq!(
        spans("f(x, k=1)(y)"),
        ["f(x, k=1)(y)", "f(x, k=1)", "f", "x", "k=1", "1", "y"]
    );
    assert_eq!(spans("a.b[1:2]"), ["a.b[1:2]", "a.b", "a", "1:2", "1", "2"]);
    assert_eq!(spans("a < b < c"), ["a < b < c", "a", "b", "c"]);
    assert_eq!(spans("x if c else y"), ["x if c else y", "x", "c", "y"]);
    assert_eq!(spans("not a or b"), ["not a or b", "not a", "a", "b"]);
    assert_eq!(
        spans("[i for i in r if i]"),
        ["[i for i in r if i]", "i", "i", "r", "i"]
    );
    assert_eq!(spans("{1: 2}"), ["{1: 2}", "1", "2"]);
    assert_eq!(spans("(y := 1)"), ["y := 1", "y", "1"]);
    assert_eq!(spans("lambda: x"), ["lambda: x", "x"]);
    assert_eq!(spans("'a' \"b\""), ["'a' \"b\""]);
    assert_eq!(spans("f'{x + 1}!'"), ["f'{x + 1}!'", "x + 1", "x", "1"]);
    assert_eq!(
        spans("f'''{\nx}''' f\"{y!r:{w}}\""),
        ["f'''{\nx}''' f\"{y!r:{w}}\"", "x", "y"]
    );
    // As CPython's ast: the minus applied to the literal 2**63.
    assert_eq!(
        spans("-9223372036854775808"),
        ["-9223372036854775808", "9223372036854775808"]
    );
}

#[test]
fn spans_survive_layout_markers() {
    // INDENT/DEDENT markers are inserted into the parsed text; spans must not move.
    let src = "if a:\n\tif b:\n\t\tx = y + 1\nz = 'é' + w\n";
    let m = parse_module(src).unwrap();
    let StmtKind::If { body, .. } = &m.body[0].kind else {
        panic!()
    };
    let StmtKind::If { body: inner, .. } = &body[0].kind else {
        panic!()
    };
    assert_eq!(&src[inner[0].span.range()], "x = y + 1");
    let StmtKind::Assign { value, .. } = &inner[0].kind else {
        panic!()
    };
    assert_eq!(text(src, value), "y + 1");
    assert_eq!(&src[m.body[1].span.range()], "z = 'é' + w");
    let StmtKind::Assign { value, .. } = &m.body[1].kind else {
        panic!()
    };
    let mut out = Vec::new();
    walk(src, value, &mut out);
    assert_eq!(out, ["'é' + w", "'é'", "w"]);
}

#[test]
fn statement_spans() {
    let src = "@dec\ndef f(a, b=1) -> int:\n    return a  # done\n\n# tail\nclass C(B):\n    x = 1\nfor i in r:\n    pass\nelse:\n    pass\n";
    let m = parse_module(src).unwrap();
    let texts: Vec<&str> = m.body.iter().map(|s| &src[s.span.range()]).collect();
    assert_eq!(
        texts,
        [
            "@dec\ndef f(a, b=1) -> int:\n    return a",
            "class C(B):\n    x = 1",
            "for i in r:\n    pass\nelse:\n    pass",
        ]
    );
    let StmtKind::FunctionDef(f) = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(&src[f.span.range()], "def f(a, b=1) -> int");
    assert_eq!(&src[f.args.args[1].span.range()], "b");
    let StmtKind::ClassDef(c) = &m.body[1].kind else {
        panic!()
    };
    assert_eq!(&src[c.span.range()], "class C(B)");
}

#[test]
fn handler_alias_and_keyword_spans() {
    let src = "try:\n    import a.b as c\nexcept (E, F) as e:\n    f(k=1, **m)\n";
    let m = parse_module(src).unwrap();
    let StmtKind::Try { body, handlers, .. } = &m.body[0].kind else {
        panic!()
    };
    let StmtKind::Import(names) = &body[0].kind else {
        panic!()
    };
    assert_eq!(&src[names[0].span.range()], "a.b as c");
    assert_eq!(&*names[0].target.id, "c");
    assert_eq!(&src[handlers[0].span.range()], "except (E, F) as e:");
    let StmtKind::Expr(Expr {
        kind: ExprKind::Call { keywords, .. },
        ..
    }) = &handlers[0].body[0].kind
    else {
        panic!()
    };
    let kw: Vec<&str> = keywords.iter().map(|k| &src[k.span.range()]).collect();
    assert_eq!(kw, ["k=1", "**m"]);
}

#[test]
fn crlf_and_continuations() {
    let src = "x = (1 +\r\n     2)\r\ny = 3 \\\r\n  + 4\r\n";
    let m = parse_module(src).unwrap();
    let texts: Vec<&str> = m.body.iter().map(|s| &src[s.span.range()]).collect();
    assert_eq!(texts, ["x = (1 +\r\n     2)", "y = 3 \\\r\n  + 4"]);
}
