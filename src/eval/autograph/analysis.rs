//! What autograph needs to know about a block before it converts it: the
//! names it binds, whether a name is used outside a statement, how a block
//! definitely exits, and where `break`/`continue`/`return` appear.

use crate::syntax::ast::*;

/// How a block definitely ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exit {
    /// It can fall through.
    None,
    /// Every path ends in `return`.
    Return,
    /// Every path ends in `break`.
    Break,
    /// Every path ends in `continue`.
    Continue,
}

/// How `stmts` definitely end: the first statement that ends every path.
pub fn exit(stmts: &[Stmt]) -> Exit {
    for s in stmts {
        let e = match &s.kind {
            StmtKind::Return(_) => Exit::Return,
            StmtKind::Break => Exit::Break,
            StmtKind::Continue => Exit::Continue,
            StmtKind::If { body, orelse, .. } => {
                let (a, b) = (exit(body), exit(orelse));
                if a == b {
                    a
                } else {
                    Exit::None
                }
            }
            StmtKind::With { body, .. } => exit(body),
            _ => Exit::None,
        };
        if e != Exit::None {
            return e;
        }
    }
    Exit::None
}

/// Whether `stmts` hold a `return` (`loops`: or a `break`/`continue` of
/// this level), outside nested functions and classes (and, for
/// `break`/`continue`, outside nested loops).
pub fn has_exit(stmts: &[Stmt], returns: bool, loops: bool) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => returns,
        StmtKind::Break | StmtKind::Continue => loops,
        StmtKind::For { body, orelse, .. }
        | StmtKind::AsyncFor { body, orelse, .. }
        | StmtKind::While { body, orelse, .. } => {
            has_exit(body, returns, false) || has_exit(orelse, returns, loops)
        }
        StmtKind::FunctionDef(_) | StmtKind::ClassDef(_) => false,
        _ => {
            let mut found = false;
            for_each_block(s, &mut |b| found |= has_exit(b, returns, loops));
            found
        }
    })
}

/// Calls `f` on each block directly inside `s`.
fn for_each_block<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a [Stmt])) {
    match &s.kind {
        StmtKind::If { body, orelse, .. }
        | StmtKind::While { body, orelse, .. }
        | StmtKind::For { body, orelse, .. }
        | StmtKind::AsyncFor { body, orelse, .. } => {
            f(body);
            f(orelse);
        }
        StmtKind::With { body, .. } => f(body),
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
            ..
        } => {
            f(body);
            for h in handlers {
                f(&h.body);
            }
            f(orelse);
            f(finalbody);
        }
        StmtKind::Match { cases, .. } => {
            for c in cases {
                f(&c.body);
            }
        }
        StmtKind::FunctionDef(d) => f(&d.body),
        StmtKind::ClassDef(c) => f(&c.body),
        _ => {}
    }
}

/// Calls `f` on each expression directly in `s` (not in its blocks).
fn for_each_expr<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
        StmtKind::Assign { targets, value } => {
            targets.iter().for_each(&mut *f);
            f(value);
        }
        StmtKind::AugAssign { target, value, .. } => {
            f(target);
            f(value);
        }
        StmtKind::AnnAssign { target, value, .. } => {
            f(target);
            if let Some(v) = value {
                f(v);
            }
        }
        StmtKind::Delete(ts) => ts.iter().for_each(f),
        StmtKind::If { test, .. } | StmtKind::While { test, .. } => f(test),
        StmtKind::For { target, iter, .. } | StmtKind::AsyncFor { target, iter, .. } => {
            f(target);
            f(iter);
        }
        StmtKind::With { items, .. } => {
            for it in items {
                f(&it.context_expr);
                if let Some(t) = &it.optional_vars {
                    f(t);
                }
            }
        }
        StmtKind::Try { handlers, .. } => {
            for h in handlers {
                h.type_.iter().for_each(&mut *f);
                h.name.iter().for_each(&mut *f);
            }
        }
        StmtKind::Raise { exc, cause } => {
            exc.iter().for_each(&mut *f);
            cause.iter().for_each(f);
        }
        StmtKind::Assert { test, msg } => {
            f(test);
            msg.iter().for_each(f);
        }
        StmtKind::Match { subject, cases } => {
            f(subject);
            for c in cases {
                c.guard.iter().for_each(&mut *f);
            }
        }
        StmtKind::FunctionDef(d) => {
            d.decorators.iter().for_each(&mut *f);
            d.args.defaults.iter().for_each(&mut *f);
        }
        StmtKind::ClassDef(c) => {
            c.decorators.iter().for_each(&mut *f);
            c.bases.iter().for_each(&mut *f);
        }
        _ => {}
    }
}

/// Whether the expression mentions the name `id`.
fn expr_mentions(e: &Expr, id: &str) -> bool {
    if let ExprKind::Name(n) = &e.kind {
        return &*n.id == id;
    }
    if let ExprKind::Lambda(d) = &e.kind {
        let a = &d.args;
        let shadowed = a
            .posonlyargs
            .iter()
            .chain(&a.args)
            .chain(&a.kwonlyargs)
            .chain(&a.vararg)
            .chain(&a.kwarg)
            .any(|p| &*p.name == id);
        if a.defaults.iter().any(|x| expr_mentions(x, id)) {
            return true;
        }
        if shadowed {
            return false;
        }
        if let [s] = &d.body[..] {
            if stmt_mentions(s, id, None) {
                return true;
            }
        }
    }
    let mut found = false;
    let _ = e.kind.for_each_child(|c| {
        found |= expr_mentions(c, id);
        Ok::<(), ()>(())
    });
    found
}

/// Whether `s` mentions the name `id` outside the statement `skip`.
fn stmt_mentions(s: &Stmt, id: &str, skip: Option<*const Stmt>) -> bool {
    if skip == Some(s as *const Stmt) {
        return false;
    }
    let mut found = false;
    for_each_expr(s, &mut |e| found |= expr_mentions(e, id));
    for_each_block(s, &mut |b| {
        found |= b.iter().any(|x| stmt_mentions(x, id, skip));
    });
    found
}

/// Whether the expression `e` mentions the name `id`.
pub fn mentions(e: &Expr, id: &str) -> bool {
    expr_mentions(e, id)
}

/// What a run of statements does to a name, as a liveness analysis sees it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Read on some path before it is bound again.
    Read,
    /// Bound again on every path (or every path leaves) before any read.
    Killed,
    /// Neither: control goes on past the statements with it untouched.
    Open,
}

/// Whether `e` binds exactly `id` (an assignment target that is the bare
/// name, or a tuple/list of targets holding it).
fn binds(e: &Expr, id: &str) -> bool {
    match &e.kind {
        ExprKind::Name(n) => &*n.id == id,
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().any(|x| binds(x, id)),
        ExprKind::Starred(x) => binds(x, id),
        _ => false,
    }
}

/// Whether the target `e` reads `id` (a subscript or attribute of it, an
/// index expression), as opposed to binding it.
fn target_reads(e: &Expr, id: &str) -> bool {
    match &e.kind {
        ExprKind::Name(_) => false,
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().any(|x| target_reads(x, id)),
        ExprKind::Starred(x) => target_reads(x, id),
        _ => expr_mentions(e, id),
    }
}

/// What `stmts`, run in order, do to `id`.
fn scan(stmts: &[Stmt], id: &str) -> Use {
    for s in stmts {
        match effect(s, id) {
            Use::Open => {}
            u => return u,
        }
    }
    Use::Open
}

/// What one statement does to `id` (conservative: anything it cannot tell
/// apart from a read is one).
fn effect(s: &Stmt, id: &str) -> Use {
    let read = |e: &Expr| expr_mentions(e, id);
    let block = |b: &[Stmt]| scan(b, id);
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            if read(value) || targets.iter().any(|t| target_reads(t, id)) {
                Use::Read
            } else if targets.iter().any(|t| binds(t, id)) {
                Use::Killed
            } else {
                Use::Open
            }
        }
        StmtKind::AnnAssign { target, value, .. } => match value {
            Some(v) if read(v) || target_reads(target, id) => Use::Read,
            Some(_) if binds(target, id) => Use::Killed,
            _ => Use::Open,
        },
        StmtKind::Return(v) => match v {
            Some(v) if read(v) => Use::Read,
            _ => Use::Killed,
        },
        StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => Use::Open,
        StmtKind::If { test, body, orelse } => {
            if read(test) {
                return Use::Read;
            }
            match (block(body), block(orelse)) {
                (Use::Read, _) | (_, Use::Read) => Use::Read,
                (Use::Killed, Use::Killed) => Use::Killed,
                _ => Use::Open,
            }
        }
        StmtKind::While { test, body, orelse } => {
            if read(test) || block(body) == Use::Read || block(orelse) == Use::Read {
                Use::Read
            } else {
                Use::Open
            }
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            if read(iter) || target_reads(target, id) {
                Use::Read
            } else if binds(target, id) {
                // the loop's header binds its target (autograph's CFG)
                Use::Killed
            } else if block(body) == Use::Read || block(orelse) == Use::Read {
                Use::Read
            } else {
                Use::Open
            }
        }
        StmtKind::Import(a) | StmtKind::ImportFrom { names: a, .. }
            if a.iter().any(|a| &*a.target.id == id) =>
        {
            Use::Killed
        }
        StmtKind::Break | StmtKind::Continue => Use::Open,
        _ => {
            if stmt_mentions(s, id, None) {
                Use::Read
            } else {
                Use::Open
            }
        }
    }
}

/// Whether the name `id` may be read after the statement `s` of the
/// function body `body` completes, before it is bound again: autograph's
/// liveness, which decides which names a converted `if` or loop outputs.
/// A loop around `s` reaches its own body's start again.
pub fn live_after(body: &[Stmt], s: &Stmt, id: &str) -> bool {
    fn walk(stmts: &[Stmt], s: *const Stmt, id: &str) -> Option<Use> {
        for (i, x) in stmts.iter().enumerate() {
            let rest = &stmts[i + 1..];
            if std::ptr::eq(x, s) {
                return Some(scan(rest, id));
            }
            if matches!(x.kind, StmtKind::FunctionDef(_) | StmtKind::ClassDef(_)) {
                continue;
            }
            let mut inner = None;
            for_each_block(x, &mut |b| {
                if inner.is_none() {
                    inner = walk(b, s, id);
                }
            });
            let Some(mut u) = inner else { continue };
            if u == Use::Open {
                // a loop's next iteration: its test (or iterable) and body
                u = match &x.kind {
                    StmtKind::While { test, body, .. } => {
                        if expr_mentions(test, id) || scan(body, id) == Use::Read {
                            Use::Read
                        } else {
                            Use::Open
                        }
                    }
                    StmtKind::For { target, body, .. }
                    | StmtKind::AsyncFor { target, body, .. }
                        if !binds(target, id) =>
                    {
                        if scan(body, id) == Use::Read {
                            Use::Read
                        } else {
                            Use::Open
                        }
                    }
                    _ => Use::Open,
                };
            }
            return Some(match u {
                Use::Open => scan(rest, id),
                u => u,
            });
        }
        None
    }
    walk(body, s, id) == Some(Use::Read)
}

/// Whether the loop body `body` may read `id` before binding it (a value
/// from before the loop or from the previous iteration).
pub fn read_first(body: &[Stmt], id: &str) -> bool {
    scan(body, id) == Use::Read
}

/// The names `stmts` bind (outside nested functions' and classes' bodies),
/// each once, in order.
pub fn assigned<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Name>) {
    fn target<'a>(e: &'a Expr, out: &mut Vec<&'a Name>) {
        match &e.kind {
            ExprKind::Name(n) => push(n, out),
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| target(x, out)),
            ExprKind::Starred(x) => target(x, out),
            _ => {}
        }
    }
    fn push<'a>(n: &'a Name, out: &mut Vec<&'a Name>) {
        if !out.iter().any(|m| m.id == n.id) {
            out.push(n);
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
            StmtKind::AugAssign { target: t, .. } => target(t, out),
            StmtKind::AnnAssign {
                target: t,
                value: Some(_),
                ..
            } => target(t, out),
            StmtKind::For { target: t, .. } | StmtKind::AsyncFor { target: t, .. } => {
                target(t, out)
            }
            StmtKind::With { items, .. } => {
                for it in items {
                    if let Some(t) = &it.optional_vars {
                        target(t, out);
                    }
                }
            }
            StmtKind::FunctionDef(d) => push(&d.target, out),
            StmtKind::ClassDef(c) => push(&c.target, out),
            StmtKind::Import(a) | StmtKind::ImportFrom { names: a, .. } => {
                a.iter().for_each(|a| push(&a.target, out))
            }
            StmtKind::Try { handlers, .. } => {
                for h in handlers {
                    if let Some(n) = &h.name {
                        target(n, out);
                    }
                }
            }
            _ => {}
        }
        if !matches!(s.kind, StmtKind::FunctionDef(_) | StmtKind::ClassDef(_)) {
            for_each_block(s, &mut |b| assigned(b, out));
        }
    }
}

/// Whether the statement `target` is inside `stmts` with no loop between
/// (None: not inside them at all).
pub fn loop_between(stmts: &[Stmt], target: *const Stmt) -> Option<bool> {
    for s in stmts {
        if std::ptr::eq(s, target) {
            return Some(false);
        }
        let is_loop = matches!(
            s.kind,
            StmtKind::For { .. } | StmtKind::AsyncFor { .. } | StmtKind::While { .. }
        );
        if matches!(s.kind, StmtKind::FunctionDef(_) | StmtKind::ClassDef(_)) {
            continue;
        }
        let mut found = None;
        for_each_block(s, &mut |b| {
            if found.is_none() {
                found = loop_between(b, target);
            }
        });
        if let Some(between) = found {
            return Some(between || is_loop);
        }
    }
    None
}
