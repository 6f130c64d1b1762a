//! The resolver's walk. Each function-like scope (def, lambda, comprehension)
//! is pre-scanned for its bindings before its body is walked, so a name
//! assigned anywhere in a function is local everywhere in it. References to
//! enclosing functions' locals turn those locals into cells. Class bodies run
//! in the enclosing frame (their own names go to the class namespace), so a
//! class scope is transparent to the scopes around it. Slots are assigned
//! after the whole module is walked, when every cell is known.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use indexmap::IndexMap;

use super::GlobalNames;
use crate::syntax::ast::*;
use crate::syntax::SyntaxError;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Module,
    Function,
    Class,
}

#[derive(Default, Clone, Copy)]
struct Var {
    is_cell: bool,
    is_param: bool,
}

struct ScopeData<'a> {
    kind: Kind,
    parent: Option<usize>,
    /// Names bound in this scope (function: locals; class: class namespace).
    locals: IndexMap<Rc<str>, Var>,
    /// Parameters in binding order.
    params: Vec<Rc<str>>,
    globals: HashSet<Rc<str>>,
    nonlocals: HashSet<Rc<str>>,
    /// Free variables (captured from an enclosing function), in order.
    free: IndexMap<Rc<str>, ()>,
    out: Option<&'a RefCell<Scope>>,
    /// A comprehension's implicit function scope.
    comp: bool,
    /// Every name bound so far in this scope (also at module level).
    assigned: HashSet<Rc<str>>,
}

pub(super) struct Resolver<'a, 'g> {
    globals: &'g mut GlobalNames,
    scopes: Vec<ScopeData<'a>>,
    /// Every name occurrence and the scope it is resolved in.
    uses: Vec<(&'a Name, usize)>,
    cur: usize,
}

enum Binding {
    Local,
    Global,
    Free,
}

impl<'a, 'g> Resolver<'a, 'g> {
    pub(super) fn new(globals: &'g mut GlobalNames) -> Self {
        Resolver {
            globals,
            scopes: vec![ScopeData {
                kind: Kind::Module,
                parent: None,
                locals: IndexMap::new(),
                params: Vec::new(),
                globals: HashSet::new(),
                nonlocals: HashSet::new(),
                free: IndexMap::new(),
                out: None,
                comp: false,
                assigned: HashSet::new(),
            }],
            uses: Vec::new(),
            cur: 0,
        }
    }

    pub(super) fn module(mut self, m: &'a Module) -> Result<(), SyntaxError> {
        self.scan_block(&m.body)?;
        self.stmts(&m.body)?;
        self.finish();
        Ok(())
    }

    fn push(&mut self, kind: Kind, out: Option<&'a RefCell<Scope>>) -> usize {
        self.scopes.push(ScopeData {
            kind,
            parent: Some(self.cur),
            locals: IndexMap::new(),
            params: Vec::new(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            free: IndexMap::new(),
            out,
            comp: false,
            assigned: HashSet::new(),
        });
        let id = self.scopes.len() - 1;
        self.cur = id;
        id
    }

    fn pop(&mut self) {
        self.cur = self.scopes[self.cur].parent.unwrap_or(0);
    }

    // ---- pre-scan of bindings -------------------------------------------------

    fn declare(&mut self, name: &Rc<str>) {
        let s = &mut self.scopes[self.cur];
        s.assigned.insert(name.clone());
        if s.kind == Kind::Module || s.globals.contains(name) || s.nonlocals.contains(name) {
            return;
        }
        s.locals.entry(name.clone()).or_default();
    }

    fn scan_block(&mut self, body: &'a [Stmt]) -> Result<(), SyntaxError> {
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

    fn scan_target(&mut self, t: &'a Expr) {
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
            ExprKind::Constant(_) | ExprKind::Name(_) => {}
            ExprKind::Lambda(f) => {
                for d in f
                    .args
                    .defaults
                    .iter()
                    .chain(f.args.kw_defaults.iter().flatten())
                {
                    self.scan_walrus(d);
                }
            }
            ExprKind::Attribute { value, .. }
            | ExprKind::Starred(value)
            | ExprKind::YieldFrom(value)
            | ExprKind::Await(value)
            | ExprKind::UnaryOp { operand: value, .. } => self.scan_walrus(value),
            ExprKind::Yield(v) => {
                if let Some(v) = v {
                    self.scan_walrus(v);
                }
            }
            ExprKind::Subscript { value, slice } => {
                self.scan_walrus(value);
                self.scan_walrus(slice);
            }
            ExprKind::Slice { lower, upper, step } => {
                for x in [lower, upper, step].into_iter().flatten() {
                    self.scan_walrus(x);
                }
            }
            ExprKind::BinOp { left, right, .. } => {
                self.scan_walrus(left);
                self.scan_walrus(right);
            }
            ExprKind::BoolOp { values: items, .. }
            | ExprKind::Tuple(items)
            | ExprKind::List(items)
            | ExprKind::Set(items) => items.iter().for_each(|i| self.scan_walrus(i)),
            ExprKind::Compare {
                left, comparators, ..
            } => {
                self.scan_walrus(left);
                comparators.iter().for_each(|c| self.scan_walrus(c));
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                self.scan_walrus(func);
                args.iter().for_each(|a| self.scan_walrus(a));
                keywords.iter().for_each(|k| self.scan_walrus(&k.value));
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.scan_walrus(test);
                self.scan_walrus(body);
                self.scan_walrus(orelse);
            }
            ExprKind::Dict { keys, values } => {
                keys.iter().flatten().for_each(|k| self.scan_walrus(k));
                values.iter().for_each(|v| self.scan_walrus(v));
            }
            ExprKind::Comp(c) => {
                self.scan_walrus(&c.elt);
                if let Some(v) = &c.value {
                    self.scan_walrus(v);
                }
                for g in &c.generators {
                    self.scan_walrus(&g.iter);
                    g.ifs.iter().for_each(|i| self.scan_walrus(i));
                }
            }
            ExprKind::JoinedStr(parts) => self.scan_walrus_fstring(parts),
        }
    }

    fn scan_walrus_fstring(&mut self, parts: &'a [FStringPart]) {
        for p in parts {
            if let FStringPart::Expr {
                expr, format_spec, ..
            } = p
            {
                self.scan_walrus(expr);
                if let Some(spec) = format_spec {
                    self.scan_walrus_fstring(spec);
                }
            }
        }
    }

    // ---- the walk -------------------------------------------------------------

    fn stmts(&mut self, body: &'a [Stmt]) -> Result<(), SyntaxError> {
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
    fn function_scope(&mut self, f: &'a FunctionDef) -> Result<(), SyntaxError> {
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

    fn expr(&mut self, e: &'a Expr) -> Result<(), SyntaxError> {
        match &e.kind {
            ExprKind::Constant(_) => {}
            ExprKind::Name(n) => self.name(n),
            ExprKind::Attribute { value, .. } => self.expr(value)?,
            ExprKind::Subscript { value, slice } => {
                self.expr(value)?;
                self.expr(slice)?;
            }
            ExprKind::Slice { lower, upper, step } => {
                for x in [lower, upper, step].into_iter().flatten() {
                    self.expr(x)?;
                }
            }
            ExprKind::Starred(v) | ExprKind::YieldFrom(v) | ExprKind::Await(v) => self.expr(v)?,
            ExprKind::Yield(v) => {
                if let Some(v) = v {
                    self.expr(v)?;
                }
            }
            ExprKind::BinOp { left, right, .. } => {
                self.expr(left)?;
                self.expr(right)?;
            }
            ExprKind::UnaryOp { operand, .. } => self.expr(operand)?,
            ExprKind::BoolOp { values, .. } => {
                for v in values {
                    self.expr(v)?;
                }
            }
            ExprKind::Compare {
                left, comparators, ..
            } => {
                self.expr(left)?;
                for c in comparators {
                    self.expr(c)?;
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                self.expr(func)?;
                for a in args {
                    self.expr(a)?;
                }
                for k in keywords {
                    self.expr(&k.value)?;
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test)?;
                self.expr(body)?;
                self.expr(orelse)?;
            }
            ExprKind::Lambda(f) => self.function_scope(f)?,
            ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Set(items) => {
                for i in items {
                    self.expr(i)?;
                }
            }
            ExprKind::Dict { keys, values } => {
                for k in keys.iter().flatten() {
                    self.expr(k)?;
                }
                for v in values {
                    self.expr(v)?;
                }
            }
            ExprKind::Comp(c) => self.comprehension(c)?,
            ExprKind::JoinedStr(parts) => self.fstring(parts)?,
            ExprKind::NamedExpr { target, value } => {
                self.expr(value)?;
                // The target binds in the nearest function (or module) scope.
                if let ExprKind::Name(n) = &target.kind {
                    let saved = self.cur;
                    while self.scopes[self.cur].out.is_some() && self.is_comprehension(self.cur) {
                        self.cur = self.scopes[self.cur].parent.unwrap_or(0);
                    }
                    let target_scope = self.cur;
                    self.cur = saved;
                    if target_scope != saved {
                        self.scopes[target_scope]
                            .locals
                            .entry(n.id.clone())
                            .or_default();
                    }
                    self.name(n);
                }
            }
        }
        Ok(())
    }

    fn is_comprehension(&self, scope: usize) -> bool {
        self.scopes[scope].comp
    }

    fn fstring(&mut self, parts: &'a [FStringPart]) -> Result<(), SyntaxError> {
        for p in parts {
            if let FStringPart::Expr {
                expr, format_spec, ..
            } = p
            {
                self.expr(expr)?;
                if let Some(spec) = format_spec {
                    self.fstring(spec)?;
                }
            }
        }
        Ok(())
    }

    fn comprehension(&mut self, c: &'a Comprehension) -> Result<(), SyntaxError> {
        // The first iterable is evaluated in the enclosing scope.
        let first = match c.generators.first() {
            Some(g) => g,
            None => return Ok(()),
        };
        self.expr(&first.iter)?;
        let id = self.push(Kind::Function, Some(&c.scope));
        self.scopes[id].comp = true;
        for g in &c.generators {
            self.scan_target(&g.target);
        }
        for (i, g) in c.generators.iter().enumerate() {
            if i > 0 {
                self.expr(&g.iter)?;
            }
            self.expr(&g.target)?;
            for cond in &g.ifs {
                self.expr(cond)?;
            }
        }
        self.expr(&c.elt)?;
        if let Some(v) = &c.value {
            self.expr(v)?;
        }
        self.pop();
        Ok(())
    }

    /// Records a name occurrence in the current scope, marking closures.
    fn name(&mut self, n: &'a Name) {
        let scope = self.effective_scope(&n.id);
        if let Binding::Free = self.binding(scope, &n.id) {
            self.capture(scope, &n.id);
        }
        self.uses.push((n, scope));
    }

    /// Class scopes are transparent for names they do not bind.
    fn effective_scope(&self, name: &Rc<str>) -> usize {
        let mut s = self.cur;
        while self.scopes[s].kind == Kind::Class && !self.scopes[s].locals.contains_key(name) {
            s = self.scopes[s].parent.unwrap_or(0);
        }
        s
    }

    fn binding(&self, scope: usize, name: &Rc<str>) -> Binding {
        let s = &self.scopes[scope];
        match s.kind {
            Kind::Module => return Binding::Global,
            Kind::Class => return Binding::Local,
            Kind::Function => {}
        }
        if s.globals.contains(name) {
            return Binding::Global;
        }
        if s.nonlocals.contains(name) {
            return Binding::Free;
        }
        if s.locals.contains_key(name) {
            return Binding::Local;
        }
        // Free if some enclosing function binds it.
        let mut p = s.parent;
        while let Some(i) = p {
            let e = &self.scopes[i];
            match e.kind {
                Kind::Module => return Binding::Global,
                Kind::Class => {}
                Kind::Function => {
                    if e.globals.contains(name) {
                        return Binding::Global;
                    }
                    if e.locals.contains_key(name) || e.nonlocals.contains(name) {
                        return Binding::Free;
                    }
                }
            }
            p = e.parent;
        }
        Binding::Global
    }

    /// Makes `name` a free variable of `scope` and of every function scope up
    /// to the one that owns it, which gets a cell.
    fn capture(&mut self, scope: usize, name: &Rc<str>) {
        let mut s = scope;
        loop {
            if self.scopes[s].kind == Kind::Function {
                let owns = self.scopes[s].locals.contains_key(name)
                    && !self.scopes[s].nonlocals.contains(name);
                if owns {
                    if let Some(v) = self.scopes[s].locals.get_mut(name) {
                        v.is_cell = true;
                    }
                    return;
                }
                self.scopes[s].free.entry(name.clone()).or_default();
            }
            match self.scopes[s].parent {
                Some(p) => s = p,
                None => return,
            }
        }
    }

    // ---- slot assignment --------------------------------------------------------

    fn finish(mut self) {
        // Assign slots per function scope.
        let mut slot_maps: Vec<IndexMap<Rc<str>, Slot>> = Vec::with_capacity(self.scopes.len());
        for s in &self.scopes {
            let mut map = IndexMap::new();
            if s.kind == Kind::Function {
                let (mut nl, mut nc) = (0u32, 0u32);
                for (name, var) in &s.locals {
                    let slot = if var.is_cell {
                        nc += 1;
                        Slot::Cell(nc - 1)
                    } else {
                        nl += 1;
                        Slot::Local(nl - 1)
                    };
                    map.insert(name.clone(), slot);
                }
                for (i, name) in s.free.keys().enumerate() {
                    map.insert(name.clone(), Slot::Cell(nc + i as u32));
                }
                if let Some(out) = s.out {
                    let mut o = out.borrow_mut();
                    o.num_locals = nl;
                    o.num_cells = nc;
                    o.param_slots = s
                        .params
                        .iter()
                        .map(|p| map.get(p).copied().unwrap_or_default())
                        .collect();
                    o.local_names = map.keys().cloned().collect();
                    o.local_slots = map.iter().map(|(k, v)| (k.clone(), *v)).collect();
                }
            }
            slot_maps.push(map);
        }
        // Free-variable sources: the slot in the parent function scope.
        for (i, s) in self.scopes.iter().enumerate() {
            if let Some(out) = s.out {
                let mut parent = s.parent;
                while let Some(p) = parent {
                    if self.scopes[p].kind == Kind::Function {
                        break;
                    }
                    parent = self.scopes[p].parent;
                }
                let free = s
                    .free
                    .keys()
                    .map(|n| {
                        parent
                            .and_then(|p| slot_maps[p].get(n).copied())
                            .unwrap_or_default()
                    })
                    .collect();
                out.borrow_mut().free = free;
                let _ = i;
            }
        }
        let uses = std::mem::take(&mut self.uses);
        for (name, scope) in uses {
            let s = &self.scopes[scope];
            let slot = match s.kind {
                Kind::Module => Slot::Global(self.globals.intern(&name.id)),
                Kind::Class => Slot::ClassBody(self.globals.intern(&name.id)),
                Kind::Function => match slot_maps[scope].get(&name.id) {
                    Some(slot) if !s.globals.contains(&name.id) => *slot,
                    _ => Slot::Global(self.globals.intern(&name.id)),
                },
            };
            name.slot.set(slot);
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
