//! The walk over expressions: every expression kind, walrus targets (bound
//! in the nearest function scope), f-strings, and comprehensions (each a
//! function scope of its own). Statements are walked in `stmt.rs`.

use super::{Kind, Resolver};
use crate::syntax::ast::*;
use crate::syntax::SyntaxError;

impl<'a, 'g> Resolver<'a, 'g> {
    pub(super) fn expr(&mut self, e: &'a Expr) -> Result<(), SyntaxError> {
        match &e.kind {
            ExprKind::Name(n) => self.name(n),
            ExprKind::Lambda(f) => self.function_scope(f)?,
            ExprKind::Comp(c) => self.comprehension(c)?,
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
            kind => kind.for_each_child(|c| self.expr(c))?,
        }
        Ok(())
    }

    fn is_comprehension(&self, scope: usize) -> bool {
        self.scopes[scope].comp
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
}
