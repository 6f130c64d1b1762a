//! The pre-scan of a scope's bindings: before a function-like scope's body
//! is walked, every name it assigns (targets, `for`, `with ... as`, `import`,
//! `def`, `class`, `except ... as`, `match` captures, walrus targets) is
//! declared local to it, and `global`/`nonlocal` are checked. The walk
//! itself is in `stmt.rs` and `expr.rs`.

use std::convert::Infallible;
use std::rc::Rc;

use super::{Kind, Resolver};
use crate::syntax::ast::*;
use crate::syntax::SyntaxError;

impl<'a, 'g> Resolver<'a, 'g> {
    // ---- pre-scan of bindings -------------------------------------------------

    pub(super) fn declare(&mut self, name: &Rc<str>) {
        let s = &mut self.scopes[self.cur];
        s.assigned.insert(name.clone());
        if s.kind == Kind::Module || s.globals.contains(name) || s.nonlocals.contains(name) {
            return;
        }
        s.locals.entry(name.clone()).or_default();
    }

    pub(super) fn scan_block(&mut self, body: &'a [Stmt]) -> Result<(), SyntaxError> {
        for s in body {
            self.scan_stmt(s)?;
        }
        Ok(())
    }

    fn scan_stmt(&mut self, s: &'a Stmt) -> Result<(), SyntaxError> {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                targets.iter().for_each(|t| self.scan_target(t));
                self.scan_walrus(value);
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.scan_target(target);
                self.scan_walrus(value);
            }
            StmtKind::AnnAssign { target, value, .. } => {
                self.scan_target(target);
                if let Some(v) = value {
                    self.scan_walrus(v);
                }
            }
            StmtKind::Return(Some(e)) => self.scan_walrus(e),
            StmtKind::Expr(e) => self.scan_walrus(e),
            StmtKind::FunctionDef(f) => self.declare(&f.target.id),
            StmtKind::ClassDef(c) => self.declare(&c.target.id),
            StmtKind::Delete(ts) => ts.iter().for_each(|t| self.scan_target(t)),
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.scan_walrus(test);
                self.scan_block(body)?;
                self.scan_block(orelse)?;
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            }
            | StmtKind::AsyncFor {
                target,
                iter,
                body,
                orelse,
            } => {
                self.scan_walrus(iter);
                self.scan_target(target);
                self.scan_block(body)?;
                self.scan_block(orelse)?;
            }
            StmtKind::With { items, body, .. } => {
                for it in items {
                    self.scan_walrus(&it.context_expr);
                    if let Some(t) = &it.optional_vars {
                        self.scan_target(t);
                    }
                }
                self.scan_block(body)?;
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                self.scan_block(body)?;
                for h in handlers {
                    if let Some(n) = &h.name {
                        self.scan_target(n);
                    }
                    self.scan_block(&h.body)?;
                }
                self.scan_block(orelse)?;
                self.scan_block(finalbody)?;
            }
            StmtKind::ImportFrom {
                star: Some(span), ..
            } if self.scopes[self.cur].kind != Kind::Module => {
                return Err(SyntaxError::new(
                    "import * only allowed at module level",
                    *span,
                ));
            }
            StmtKind::Import(aliases) | StmtKind::ImportFrom { names: aliases, .. } => {
                for a in aliases {
                    self.declare(&a.target.id);
                }
            }
            StmtKind::Match { subject, cases } => {
                self.scan_walrus(subject);
                for c in cases {
                    for_each_capture(&c.pattern, &mut |n| self.declare(&n.id));
                    if let Some(g) = &c.guard {
                        self.scan_walrus(g);
                    }
                    self.scan_block(&c.body)?;
                }
            }
            StmtKind::Global(names) => {
                for n in names {
                    if self.scopes[self.cur].params.contains(&n.name) {
                        return Err(SyntaxError::new(
                            format!("name '{}' is parameter and global", n.name),
                            n.span,
                        ));
                    }
                    if self.scopes[self.cur].locals.contains_key(&n.name)
                        && self.scopes[self.cur].kind != Kind::Module
                    {
                        return Err(SyntaxError::new(
                            format!("name '{}' is assigned to before global declaration", n.name),
                            n.span,
                        ));
                    }
                    self.scopes[self.cur].globals.insert(n.name.clone());
                }
            }
            StmtKind::Nonlocal(names) => {
                for n in names {
                    if self.scopes[self.cur].params.contains(&n.name) {
                        return Err(SyntaxError::new(
                            format!("name '{}' is parameter and nonlocal", n.name),
                            n.span,
                        ));
                    }
                    if self.assigned_before(&n.name) {
                        return Err(SyntaxError::new(
                            format!(
                                "name '{}' is assigned to before nonlocal declaration",
                                n.name
                            ),
                            n.span,
                        ));
                    }
                    if self.scopes[self.cur].kind == Kind::Module {
                        return Err(SyntaxError::new(
                            "nonlocal declaration not allowed at module level",
                            s.span,
                        ));
                    }
                    if self.scopes[self.cur].locals.contains_key(&n.name) {
                        return Err(SyntaxError::new(
                            format!(
                                "name '{}' is assigned to before nonlocal declaration",
                                n.name
                            ),
                            n.span,
                        ));
                    }
                    self.scopes[self.cur].nonlocals.insert(n.name.clone());
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether `name` was bound earlier in the current scope (module scopes
    /// record bindings in `assigned` since they have no locals).
    fn assigned_before(&self, name: &Rc<str>) -> bool {
        let s = &self.scopes[self.cur];
        s.locals.contains_key(name) || s.assigned.contains(name)
    }

    pub(super) fn scan_target(&mut self, t: &'a Expr) {
        match &t.kind {
            ExprKind::Name(n) => self.declare(&n.id),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                items.iter().for_each(|i| self.scan_target(i))
            }
            ExprKind::Starred(inner) => self.scan_target(inner),
            _ => {}
        }
    }

    /// `(x := v)` binds `x` in the enclosing function scope, even inside a
    /// comprehension, wherever it appears in an expression (`if (x := f()) > 0`,
    /// a `case` guard); a lambda's body is a scope of its own.
    fn scan_walrus(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::NamedExpr { target, value } => {
                self.scan_target(target);
                self.scan_walrus(value);
            }
            kind => {
                let Ok(()) = kind.for_each_child(|c| {
                    self.scan_walrus(c);
                    Ok::<(), Infallible>(())
                });
            }
        }
    }
}

/// Calls `f` on every name a pattern captures.
fn for_each_capture<'a>(p: &'a Pattern, f: &mut impl FnMut(&'a Name)) {
    match &p.kind {
        PatternKind::MatchValue(_) | PatternKind::MatchSingleton(_) => {}
        PatternKind::MatchSequence(items) | PatternKind::MatchOr(items) => {
            items.iter().for_each(|i| for_each_capture(i, f))
        }
        PatternKind::MatchStar(n) => {
            if let Some(n) = n {
                f(n);
            }
        }
        PatternKind::MatchMapping { patterns, rest, .. } => {
            patterns.iter().for_each(|v| for_each_capture(v, f));
            if let Some(n) = rest {
                f(n);
            }
        }
        PatternKind::MatchClass {
            patterns,
            kwd_patterns,
            ..
        } => patterns
            .iter()
            .chain(kwd_patterns)
            .for_each(|v| for_each_capture(v, f)),
        PatternKind::MatchAs { pattern, name } => {
            if let Some(sub) = pattern {
                for_each_capture(sub, f);
            }
            if let Some(n) = name {
                f(n);
            }
        }
    }
}
