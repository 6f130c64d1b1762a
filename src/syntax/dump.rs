//! A compact S-expression dump of the AST, for parser tests and the golden
//! files' `## ast` sections. One statement per line, bodies indented by two
//! spaces; expressions inline. Spans, slots and scopes are not shown.
//!
//! ```text
//! (Assign [x] (+ 1 (call f a k=2)))
//! (If (< a b)
//!   (Pass)
//!  else
//!   (Return None))
//! ```

use std::fmt::Write;

use super::ast::{
    Arguments, Comprehension, Constant, Expr, ExprKind, FStringPart, FunctionDef, Keyword, Module,
    Pattern, PatternKind, Stmt, StmtKind, UnaryOp,
};

/// Dumps a module, one top-level statement per line.
pub fn dump(m: &Module) -> String {
    let mut out = String::new();
    for s in &m.body {
        stmt(&mut out, s, 0);
    }
    out
}

/// Dumps one expression.
pub fn dump_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(&mut out, e);
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push_str("  ");
    }
}

fn body(out: &mut String, label: Option<&str>, b: &[Stmt], level: usize) {
    if let Some(l) = label {
        indent(out, level);
        out.push(' ');
        out.push_str(l);
        out.push('\n');
    }
    for s in b {
        stmt(out, s, level + 1);
    }
}

/// Closes the statement opened on the current line: replaces the last newline.
fn close(out: &mut String) {
    if out.ends_with('\n') {
        out.pop();
    }
    out.push_str(")\n");
}

/// Writes `(head e1 e2 …)`: the head, then each expression after a space.
fn node<'e>(out: &mut String, head: &str, es: impl IntoIterator<Item = &'e Expr>) {
    out.push('(');
    out.push_str(head);
    for e in es {
        out.push(' ');
        expr(out, e);
    }
    out.push(')');
}

/// A statement that is one [`node`] on its own line.
fn line<'e>(out: &mut String, head: &str, es: impl IntoIterator<Item = &'e Expr>) {
    node(out, head, es);
    out.push('\n');
}

/// The body of a compound statement, its `else` block if any, and the
/// closing parenthesis.
fn body_else(out: &mut String, b: &[Stmt], orelse: &[Stmt], level: usize) {
    body(out, None, b, level);
    if !orelse.is_empty() {
        body(out, Some("else"), orelse, level);
    }
    close(out);
}

fn exprs(out: &mut String, es: &[Expr]) {
    for (i, e) in es.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        expr(out, e);
    }
}

fn stmt(out: &mut String, s: &Stmt, level: usize) {
    indent(out, level);
    match &s.kind {
        StmtKind::Expr(e) => line(out, "Expr", [e]),
        StmtKind::Assign { targets, value } => {
            out.push_str("(Assign [");
            exprs(out, targets);
            out.push_str("] ");
            expr(out, value);
            out.push_str(")\n");
        }
        StmtKind::AugAssign { target, op, value } => {
            out.push_str("(AugAssign ");
            expr(out, target);
            let _ = write!(out, " {}= ", op.symbol());
            expr(out, value);
            out.push_str(")\n");
        }
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            line(
                out,
                "AnnAssign",
                [target, annotation].into_iter().chain(value),
            );
        }
        StmtKind::FunctionDef(f) => {
            function(out, f, level);
        }
        StmtKind::ClassDef(c) => {
            let _ = write!(out, "(ClassDef {} qualname={}", c.name, c.qualname);
            if !c.bases.is_empty() {
                out.push_str(" bases=[");
                exprs(out, &c.bases);
                out.push(']');
            }
            for k in &c.keywords {
                out.push(' ');
                keyword(out, k);
            }
            decorators(out, &c.decorators);
            out.push('\n');
            body(out, None, &c.body, level);
            close(out);
        }
        StmtKind::Return(v) => line(out, "Return", v),
        StmtKind::Delete(ts) => line(out, "Delete", ts),
        StmtKind::If {
            test,
            body: b,
            orelse,
        } => {
            out.push_str("(If ");
            expr(out, test);
            out.push('\n');
            body_else(out, b, orelse, level);
        }
        StmtKind::For {
            target,
            iter,
            body: b,
            orelse,
        }
        | StmtKind::AsyncFor {
            target,
            iter,
            body: b,
            orelse,
        } => {
            out.push_str(if matches!(s.kind, StmtKind::AsyncFor { .. }) {
                "(AsyncFor "
            } else {
                "(For "
            });
            expr(out, target);
            out.push_str(" in ");
            expr(out, iter);
            out.push('\n');
            body_else(out, b, orelse, level);
        }
        StmtKind::While {
            test,
            body: b,
            orelse,
        } => {
            out.push_str("(While ");
            expr(out, test);
            out.push('\n');
            body_else(out, b, orelse, level);
        }
        StmtKind::Break => out.push_str("(Break)\n"),
        StmtKind::Continue => out.push_str("(Continue)\n"),
        StmtKind::Pass => out.push_str("(Pass)\n"),
        StmtKind::With {
            items,
            body: b,
            is_async,
        } => {
            out.push_str(if *is_async { "(AsyncWith" } else { "(With" });
            for it in items {
                out.push(' ');
                expr(out, &it.context_expr);
                if let Some(v) = &it.optional_vars {
                    out.push_str(" as ");
                    expr(out, v);
                }
                out.push(',');
            }
            out.pop();
            out.push('\n');
            body(out, None, b, level);
            close(out);
        }
        StmtKind::Try {
            body: b,
            handlers,
            orelse,
            finalbody,
            star,
        } => {
            out.push_str("(Try\n");
            body(out, None, b, level);
            for h in handlers {
                indent(out, level);
                out.push_str(if *star { " except*" } else { " except" });
                if let Some(t) = &h.type_ {
                    out.push(' ');
                    expr(out, t);
                }
                if let Some(n) = &h.name {
                    out.push_str(" as ");
                    expr(out, n);
                }
                out.push('\n');
                body(out, None, &h.body, level);
            }
            if !orelse.is_empty() {
                body(out, Some("else"), orelse, level);
            }
            if !finalbody.is_empty() {
                body(out, Some("finally"), finalbody, level);
            }
            close(out);
        }
        StmtKind::Raise { exc, cause } => {
            out.push_str("(Raise");
            if let Some(e) = exc {
                out.push(' ');
                expr(out, e);
            }
            if let Some(c) = cause {
                out.push_str(" from ");
                expr(out, c);
            }
            out.push_str(")\n");
        }
        StmtKind::Assert { test, msg } => line(out, "Assert", std::iter::once(test).chain(msg)),
        StmtKind::Import(names) => {
            out.push_str("(Import");
            for a in names {
                let _ = write!(out, " {}", a.name);
                if let Some(n) = &a.asname {
                    let _ = write!(out, " as {n}");
                }
                let _ = write!(out, " ->{}", a.target.id);
                out.push(',');
            }
            out.pop();
            out.push_str(")\n");
        }
        StmtKind::ImportFrom {
            module,
            names,
            star,
        } => {
            let _ = write!(out, "(ImportFrom {module}");
            if star.is_some() {
                out.push_str(" *,");
            }
            for a in names {
                let _ = write!(out, " {}", a.name);
                if let Some(n) = &a.asname {
                    let _ = write!(out, " as {n}");
                }
                out.push(',');
            }
            out.pop();
            out.push_str(")\n");
        }
        StmtKind::Match { subject, cases } => {
            out.push_str("(Match ");
            expr(out, subject);
            out.push('\n');
            for c in cases {
                let mut label = String::from("case ");
                pattern(&mut label, &c.pattern);
                if let Some(g) = &c.guard {
                    label.push_str(" if ");
                    expr(&mut label, g);
                }
                body(out, Some(&label), &c.body, level);
            }
            close(out);
        }
        StmtKind::Global(names) | StmtKind::Nonlocal(names) => {
            let kw = if matches!(s.kind, StmtKind::Global(_)) {
                "Global"
            } else {
                "Nonlocal"
            };
            let _ = write!(out, "({kw}");
            for n in names {
                let _ = write!(out, " {}", n.name);
            }
            out.push_str(")\n");
        }
    }
}

/// A pattern: `_`, `x`, `(as p x)`, `[p *rest]`, `{k: p **rest}`,
/// `(class C p attr=q)`, `(| p q)`, or the value/singleton itself.
fn pattern(out: &mut String, p: &Pattern) {
    let list = |out: &mut String, ps: &[Pattern]| {
        for (i, q) in ps.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            pattern(out, q);
        }
    };
    match &p.kind {
        PatternKind::MatchValue(e) => expr(out, e),
        PatternKind::MatchSingleton(c) => constant(out, c),
        PatternKind::MatchSequence(items) => {
            out.push('[');
            list(out, items);
            out.push(']');
        }
        PatternKind::MatchStar(n) => {
            let _ = write!(out, "*{}", n.as_ref().map_or("_", |n| &*n.id));
        }
        PatternKind::MatchMapping {
            keys,
            patterns,
            rest,
        } => {
            out.push('{');
            for (i, (k, v)) in keys.iter().zip(patterns).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                expr(out, k);
                out.push_str(": ");
                pattern(out, v);
            }
            if let Some(r) = rest {
                if !keys.is_empty() {
                    out.push(' ');
                }
                let _ = write!(out, "**{}", r.id);
            }
            out.push('}');
        }
        PatternKind::MatchClass {
            cls,
            patterns,
            kwd_attrs,
            kwd_patterns,
        } => {
            out.push_str("(class ");
            expr(out, cls);
            for q in patterns {
                out.push(' ');
                pattern(out, q);
            }
            for (a, q) in kwd_attrs.iter().zip(kwd_patterns) {
                let _ = write!(out, " {}=", a.name);
                pattern(out, q);
            }
            out.push(')');
        }
        PatternKind::MatchAs { pattern: sub, name } => {
            let name = name.as_ref().map_or("_", |n| &*n.id);
            match sub {
                None => out.push_str(name),
                Some(q) => {
                    out.push_str("(as ");
                    pattern(out, q);
                    let _ = write!(out, " {name})");
                }
            }
        }
        PatternKind::MatchOr(alts) => {
            out.push_str("(| ");
            list(out, alts);
            out.push(')');
        }
    }
}

fn decorators(out: &mut String, ds: &[Expr]) {
    if !ds.is_empty() {
        out.push_str(" decorators=[");
        exprs(out, ds);
        out.push(']');
    }
}

fn function(out: &mut String, f: &FunctionDef, level: usize) {
    let _ = write!(out, "(FunctionDef {} qualname={} ", f.name, f.qualname);
    arguments(out, &f.args);
    decorators(out, &f.decorators);
    if f.is_async {
        out.push_str(" async");
    } else if f.is_generator {
        out.push_str(" generator");
    }
    out.push('\n');
    body(out, None, &f.body, level);
    close(out);
}

fn arguments(out: &mut String, a: &Arguments) {
    out.push('(');
    let mut items: Vec<String> = Vec::new();
    let npos = a.posonlyargs.len() + a.args.len();
    let first_default = npos.saturating_sub(a.defaults.len());
    for (i, arg) in a.posonlyargs.iter().chain(&a.args).enumerate() {
        let mut s = arg.name.to_string();
        if let Some(ann) = &arg.annotation {
            s.push(':');
            s.push_str(&dump_expr(ann));
        }
        if i >= first_default {
            if let Some(d) = a.defaults.get(i - first_default) {
                s.push('=');
                s.push_str(&dump_expr(d));
            }
        }
        items.push(s);
        if i + 1 == a.posonlyargs.len() {
            items.push("/".to_string());
        }
    }
    if let Some(v) = &a.vararg {
        items.push(format!("*{}", v.name));
    } else if !a.kwonlyargs.is_empty() {
        items.push("*".to_string());
    }
    for (arg, d) in a.kwonlyargs.iter().zip(&a.kw_defaults) {
        let mut s = arg.name.to_string();
        if let Some(d) = d {
            s.push('=');
            s.push_str(&dump_expr(d));
        }
        items.push(s);
    }
    if let Some(k) = &a.kwarg {
        items.push(format!("**{}", k.name));
    }
    out.push_str(&items.join(" "));
    out.push(')');
}

fn keyword(out: &mut String, k: &Keyword) {
    match &k.arg {
        Some(a) => {
            let _ = write!(out, "{}=", a.name);
        }
        None => out.push_str("**"),
    }
    expr(out, &k.value);
}

fn constant(out: &mut String, c: &Constant) {
    match c {
        Constant::None => out.push_str("None"),
        Constant::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Constant::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Constant::Long(i) => {
            let _ = write!(out, "{i}");
        }
        Constant::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Constant::Imaginary(f) => {
            let _ = write!(out, "{f:?}j");
        }
        Constant::Str(s) => {
            let _ = write!(out, "{:?}", &**s);
        }
        Constant::Bytes(b) => {
            out.push_str("b\"");
            for &c in b.iter() {
                match c {
                    b'"' | b'\\' => {
                        out.push('\\');
                        out.push(c as char);
                    }
                    b'\n' => out.push_str("\\n"),
                    b'\t' => out.push_str("\\t"),
                    b'\r' => out.push_str("\\r"),
                    0x20..=0x7e => out.push(c as char),
                    _ => {
                        let _ = write!(out, "\\x{c:02x}");
                    }
                }
            }
            out.push('"');
        }
        Constant::Ellipsis => out.push_str("..."),
    }
}

fn comp(out: &mut String, c: &Comprehension) {
    let label = match c.kind {
        super::ast::CompKind::List => "listcomp",
        super::ast::CompKind::Set => "setcomp",
        super::ast::CompKind::Dict => "dictcomp",
        super::ast::CompKind::Generator => "genexpr",
    };
    let _ = write!(out, "({label} ");
    expr(out, &c.elt);
    if let Some(v) = &c.value {
        out.push_str(": ");
        expr(out, v);
    }
    for g in &c.generators {
        out.push_str(" (for ");
        expr(out, &g.target);
        out.push_str(" in ");
        expr(out, &g.iter);
        for i in &g.ifs {
            out.push_str(" if ");
            expr(out, i);
        }
        out.push(')');
    }
    out.push(')');
}

fn fstring_parts(out: &mut String, parts: &[FStringPart]) {
    for p in parts {
        out.push(' ');
        match p {
            FStringPart::Literal(s) => {
                let _ = write!(out, "{:?}", &**s);
            }
            FStringPart::Expr {
                expr: e,
                debug,
                conversion,
                format_spec,
            } => {
                out.push('{');
                expr(out, e);
                if let Some(d) = debug {
                    let _ = write!(out, " debug={:?}", &**d);
                }
                if let Some(c) = conversion {
                    let _ = write!(out, " !{c}");
                }
                if let Some(spec) = format_spec {
                    out.push_str(" :");
                    fstring_parts(out, spec);
                }
                out.push('}');
            }
        }
    }
}

fn opt(out: &mut String, e: &Option<Box<Expr>>) {
    match e {
        Some(e) => expr(out, e),
        None => out.push('_'),
    }
}

fn expr(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Constant(c) => constant(out, c),
        ExprKind::Name(n) => out.push_str(&n.id),
        ExprKind::Attribute { value, attr } => {
            out.push_str("(. ");
            expr(out, value);
            let _ = write!(out, " {})", attr.name);
        }
        ExprKind::Subscript { value, slice } => node(out, "sub", [&**value, slice]),
        ExprKind::Slice { lower, upper, step } => {
            out.push_str("(slice ");
            opt(out, lower);
            out.push(' ');
            opt(out, upper);
            out.push(' ');
            opt(out, step);
            out.push(')');
        }
        ExprKind::Starred(v) => node(out, "*", [&**v]),
        ExprKind::Yield(v) => node(out, "yield", v.as_deref()),
        ExprKind::YieldFrom(v) => node(out, "yield-from", [&**v]),
        ExprKind::Await(v) => node(out, "await", [&**v]),
        ExprKind::BinOp { left, op, right } => node(out, op.symbol(), [&**left, right]),
        ExprKind::UnaryOp { op, operand } => {
            let name = match op {
                UnaryOp::Invert => "~",
                UnaryOp::Not => "not",
                UnaryOp::UAdd => "pos",
                UnaryOp::USub => "neg",
            };
            node(out, name, [&**operand]);
        }
        ExprKind::BoolOp { op, values } => {
            let name = match op {
                super::ast::BoolOp::And => "and",
                super::ast::BoolOp::Or => "or",
            };
            node(out, name, values);
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            out.push_str("(cmp ");
            expr(out, left);
            for (op, c) in ops.iter().zip(comparators) {
                let _ = write!(out, " {} ", op.symbol());
                expr(out, c);
            }
            out.push(')');
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            out.push_str("(call ");
            expr(out, func);
            for a in args {
                out.push(' ');
                expr(out, a);
            }
            for k in keywords {
                out.push(' ');
                keyword(out, k);
            }
            out.push(')');
        }
        ExprKind::IfExp { test, body, orelse } => node(out, "if", [&**test, body, orelse]),
        ExprKind::Lambda(f) => {
            let _ = write!(out, "(lambda qualname={} ", f.qualname);
            arguments(out, &f.args);
            if let Some(Stmt {
                kind: StmtKind::Return(Some(b)),
                ..
            }) = f.body.first()
            {
                out.push(' ');
                expr(out, b);
            }
            out.push(')');
        }
        ExprKind::Tuple(es) => node(out, "tuple", es),
        ExprKind::List(es) => node(out, "list", es),
        ExprKind::Set(es) => node(out, "set", es),
        ExprKind::Dict { keys, values } => {
            out.push_str("(dict");
            for (k, v) in keys.iter().zip(values) {
                out.push_str(" (");
                match k {
                    Some(k) => {
                        expr(out, k);
                        out.push(' ');
                    }
                    None => out.push_str("** "),
                }
                expr(out, v);
                out.push(')');
            }
            out.push(')');
        }
        ExprKind::Comp(c) => comp(out, c),
        ExprKind::JoinedStr(parts) => {
            out.push_str("(f");
            fstring_parts(out, parts);
            out.push(')');
        }
        ExprKind::NamedExpr { target, value } => node(out, ":=", [&**target, value]),
    }
}
