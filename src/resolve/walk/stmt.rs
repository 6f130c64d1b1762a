//! The walk over statements: blocks, every statement kind, `match`
//! patterns, and `def` (decorators, defaults and annotations in the
//! enclosing scope, the body in a scope of its own). Expressions are walked
//! in `expr.rs`.

use std::rc::Rc;

use super::{Kind, Resolver};
use crate::syntax::ast::*;
use crate::syntax::SyntaxError;

impl<'a, 'g> Resolver<'a, 'g> {
    // ---- the walk -------------------------------------------------------------

    pub(super) fn stmts(&mut self, body: &'a [Stmt]) -> Result<(), SyntaxError> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &'a Stmt) -> Result<(), SyntaxError> {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e)?,
            StmtKind::Assign { targets, value } => {
                self.expr(value)?;
                for t in targets {
                    self.expr(t)?;
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.expr(value)?;
                self.expr(target)?;
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                self.expr(annotation)?;
                if let Some(v) = value {
                    self.expr(v)?;
                }
                self.expr(target)?;
            }
            StmtKind::FunctionDef(f) => self.function(f)?,
            StmtKind::ClassDef(c) => {
                for d in &c.decorators {
                    self.expr(d)?;
                }
                for b in &c.bases {
                    self.expr(b)?;
                }
                for k in &c.keywords {
                    self.expr(&k.value)?;
                }
                self.push(Kind::Class, None);
                self.scan_block(&c.body)?;
                self.stmts(&c.body)?;
                self.pop();
                self.name(&c.target);
            }
            StmtKind::Return(v) => {
                if let Some(v) = v {
                    self.expr(v)?;
                }
            }
            StmtKind::Delete(ts) => {
                for t in ts {
                    self.expr(t)?;
                }
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.expr(test)?;
                self.stmts(body)?;
                self.stmts(orelse)?;
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
                self.expr(iter)?;
                self.expr(target)?;
                self.stmts(body)?;
                self.stmts(orelse)?;
            }
            StmtKind::With { items, body, .. } => {
                for it in items {
                    self.expr(&it.context_expr)?;
                    if let Some(t) = &it.optional_vars {
                        self.expr(t)?;
                    }
                }
                self.stmts(body)?;
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                self.stmts(body)?;
                for h in handlers {
                    if let Some(t) = &h.type_ {
                        self.expr(t)?;
                    }
                    if let Some(n) = &h.name {
                        self.expr(n)?;
                    }
                    self.stmts(&h.body)?;
                }
                self.stmts(orelse)?;
                self.stmts(finalbody)?;
            }
            StmtKind::Raise { exc, cause } => {
                if let Some(e) = exc {
                    self.expr(e)?;
                }
                if let Some(c) = cause {
                    self.expr(c)?;
                }
            }
            StmtKind::Assert { test, msg } => {
                self.expr(test)?;
                if let Some(m) = msg {
                    self.expr(m)?;
                }
            }
            StmtKind::Import(aliases) | StmtKind::ImportFrom { names: aliases, .. } => {
                for a in aliases {
                    self.name(&a.target);
                }
            }
            StmtKind::Match { subject, cases } => {
                self.expr(subject)?;
                for c in cases {
                    self.pattern(&c.pattern)?;
                    if let Some(g) = &c.guard {
                        self.expr(g)?;
                    }
                    self.stmts(&c.body)?;
                }
            }
            StmtKind::Nonlocal(names) => {
                for n in names {
                    if !self.enclosing_has(&n.name) {
                        return Err(SyntaxError::new(
                            format!("no binding for nonlocal '{}' found", n.name),
                            n.span,
                        ));
                    }
                }
            }
            StmtKind::Global(names) => {
                // The walk runs in source order: a name this scope already
                // resolved was used before the declaration.
                for n in names {
                    let cur = self.cur;
                    if self.uses.iter().any(|(u, sc)| *sc == cur && u.id == n.name) {
                        let what = if self.scopes[cur].kind == Kind::Module
                            && self.scopes[cur].assigned.contains(&n.name)
                        {
                            "assigned to before"
                        } else {
                            "used prior to"
                        };
                        return Err(SyntaxError::new(
                            format!("name '{}' is {what} global declaration", n.name),
                            n.span,
                        ));
                    }
                }
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Pass => {}
        }
        Ok(())
    }

    /// The expressions of a pattern (values, classes, keys) and its captures.
    fn pattern(&mut self, p: &'a Pattern) -> Result<(), SyntaxError> {
        match &p.kind {
            PatternKind::MatchValue(e) => self.expr(e)?,
            PatternKind::MatchSingleton(_) => {}
            PatternKind::MatchSequence(items) | PatternKind::MatchOr(items) => {
                for i in items {
                    self.pattern(i)?;
                }
            }
            PatternKind::MatchStar(n) => {
                if let Some(n) = n {
                    self.name(n);
                }
            }
            PatternKind::MatchMapping {
                keys,
                patterns,
                rest,
            } => {
                for k in keys {
                    self.expr(k)?;
                }
                for v in patterns {
                    self.pattern(v)?;
                }
                if let Some(n) = rest {
                    self.name(n);
                }
            }
            PatternKind::MatchClass {
                cls,
                patterns,
                kwd_patterns,
                ..
            } => {
                self.expr(cls)?;
                for v in patterns.iter().chain(kwd_patterns) {
                    self.pattern(v)?;
                }
            }
            PatternKind::MatchAs { pattern, name } => {
                if let Some(sub) = pattern {
                    self.pattern(sub)?;
                }
                if let Some(n) = name {
                    self.name(n);
                }
            }
        }
        Ok(())
    }

    fn enclosing_has(&self, name: &Rc<str>) -> bool {
        let mut p = self.scopes[self.cur].parent;
        while let Some(i) = p {
            let s = &self.scopes[i];
            if s.kind == Kind::Function
                && (s.locals.contains_key(name) || s.nonlocals.contains(name))
            {
                return true;
            }
            p = s.parent;
        }
        false
    }

    fn function(&mut self, f: &'a FunctionDef) -> Result<(), SyntaxError> {
        for d in &f.decorators {
            self.expr(d)?;
        }
        self.function_scope(f)?;
        self.name(&f.target);
        Ok(())
    }

    /// The defaults (in the enclosing scope), then the parameters and body in
    /// the function's own scope: shared by `def` and `lambda`.
    pub(super) fn function_scope(&mut self, f: &'a FunctionDef) -> Result<(), SyntaxError> {
        self.arg_defaults(&f.args)?;
        if let Some(r) = &f.returns {
            self.expr(r)?;
        }
        self.push(Kind::Function, Some(&f.scope));
        for p in params_in_order(&f.args) {
            self.declare(p);
            self.scopes[self.cur].params.push(p.clone());
            if let Some(v) = self.scopes[self.cur].locals.get_mut(p) {
                v.is_param = true;
            }
        }
        self.scan_block(&f.body)?;
        self.stmts(&f.body)?;
        self.pop();
        Ok(())
    }

    fn arg_defaults(&mut self, a: &'a Arguments) -> Result<(), SyntaxError> {
        for d in &a.defaults {
            self.expr(d)?;
        }
        for d in a.kw_defaults.iter().flatten() {
            self.expr(d)?;
        }
        for arg in a
            .posonlyargs
            .iter()
            .chain(&a.args)
            .chain(&a.kwonlyargs)
            .chain(&a.vararg)
            .chain(&a.kwarg)
        {
            if let Some(ann) = &arg.annotation {
                self.expr(ann)?;
            }
        }
        Ok(())
    }
}

fn params_in_order(a: &Arguments) -> Vec<&Rc<str>> {
    let mut out: Vec<&Rc<str>> = Vec::new();
    out.extend(a.posonlyargs.iter().map(|p| &p.name));
    out.extend(a.args.iter().map(|p| &p.name));
    if let Some(v) = &a.vararg {
        out.push(&v.name);
    }
    out.extend(a.kwonlyargs.iter().map(|p| &p.name));
    if let Some(k) = &a.kwarg {
        out.push(&k.name);
    }
    out
}
