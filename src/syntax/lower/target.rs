//! Checks on assignment, deletion and loop targets, with CPython's messages.

use super::{Lowerer, R};
use crate::syntax::ast::{CompKind, Constant, Expr, ExprKind};
use crate::syntax::error::SyntaxError;

/// Where a target appears.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TargetCtx {
    /// The only target of `x = value`.
    AssignSingle,
    /// A target of a chained or nested assignment.
    Assign,
    /// `for x in` (and comprehensions).
    For,
    /// `with ... as x`.
    With,
    /// `del x`.
    Del,
    /// `x += 1`.
    Aug,
    /// `x: T = v`.
    Ann,
}

/// The name CPython gives an expression kind in "cannot assign to ..." messages.
pub(super) fn expr_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Attribute { .. } => "attribute",
        ExprKind::Subscript { .. } => "subscript",
        ExprKind::Starred(_) => "starred",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "yield expression",
        ExprKind::Await(_) => "await expression",
        ExprKind::Name(_) => "name",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Lambda(_) => "lambda",
        ExprKind::Call { .. } => "function call",
        ExprKind::BoolOp { .. } | ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } => "expression",
        ExprKind::Comp(c) => match c.kind {
            CompKind::Generator => "generator expression",
            CompKind::List => "list comprehension",
            CompKind::Set => "set comprehension",
            CompKind::Dict => "dict comprehension",
        },
        ExprKind::Dict { .. } => "dict literal",
        ExprKind::Set(_) => "set display",
        ExprKind::JoinedStr(_) => "f-string expression",
        ExprKind::Constant(Constant::None) => "None",
        ExprKind::Constant(Constant::Bool(true)) => "True",
        ExprKind::Constant(Constant::Bool(false)) => "False",
        ExprKind::Constant(Constant::Ellipsis) => "ellipsis",
        ExprKind::Constant(_) => "literal",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::NamedExpr { .. } => "named expression",
        ExprKind::Slice { .. } => "slice",
    }
}

impl Lowerer<'_> {
    /// Checks that `e` can be assigned to (or deleted) in `ctx`.
    pub(super) fn check_target(&self, e: &Expr, ctx: TargetCtx) -> R<()> {
        match ctx {
            TargetCtx::Aug => match e.kind {
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
                    Ok(())
                }
                _ => Err(SyntaxError::new(
                    format!(
                        "'{}' is an illegal expression for augmented assignment",
                        expr_name(e)
                    ),
                    e.span,
                )),
            },
            TargetCtx::Ann => match e.kind {
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
                    Ok(())
                }
                ExprKind::Tuple(_) => Err(SyntaxError::new(
                    "only single target (not tuple) can be annotated",
                    e.span,
                )),
                ExprKind::List(_) => Err(SyntaxError::new(
                    "only single target (not list) can be annotated",
                    e.span,
                )),
                _ => Err(SyntaxError::new("illegal target for annotation", e.span)),
            },
            TargetCtx::Del => match &e.kind {
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
                    Ok(())
                }
                ExprKind::Tuple(elts) | ExprKind::List(elts) => {
                    elts.iter().try_for_each(|x| self.check_target(x, ctx))
                }
                _ => Err(SyntaxError::new(
                    format!("cannot delete {}", expr_name(e)),
                    e.span,
                )),
            },
            _ => self.check_store(e, ctx, true),
        }
    }

    fn check_store(&self, e: &Expr, ctx: TargetCtx, top: bool) -> R<()> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
            ExprKind::Starred(inner) => {
                if top {
                    return Err(SyntaxError::new(
                        "starred assignment target must be in a list or tuple",
                        e.span,
                    ));
                }
                self.check_store(inner, ctx, false)
            }
            ExprKind::Tuple(elts) | ExprKind::List(elts) => {
                let stars = elts
                    .iter()
                    .filter(|x| matches!(x.kind, ExprKind::Starred(_)))
                    .count();
                if stars > 1 {
                    return Err(SyntaxError::new(
                        "multiple starred expressions in assignment",
                        e.span,
                    ));
                }
                elts.iter()
                    .try_for_each(|x| self.check_store(x, ctx, false))
            }
            _ => {
                let name = expr_name(e);
                let suggest = top
                    && ctx == TargetCtx::AssignSingle
                    && !matches!(
                        e.kind,
                        ExprKind::Constant(Constant::None | Constant::Bool(_))
                    )
                    && !matches!(&e.kind, ExprKind::Comp(c) if c.kind == CompKind::Generator);
                let msg = if suggest {
                    format!("cannot assign to {name} here. Maybe you meant '==' instead of '='?")
                } else {
                    format!("cannot assign to {name}")
                };
                Err(SyntaxError::new(msg, e.span))
            }
        }
    }
}
