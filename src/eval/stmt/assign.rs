//! Assignment and deletion: every target form (names in each kind of
//! slot, attributes, subscripts, tuple and list unpacking with a starred
//! target), augmented assignment, and `del`.

use crate::eval::frame::{ClassNs, Frame};
use crate::eval::Interp;
use std::rc::Rc;

use crate::eval::expr::leaf_int;
use crate::eval::ops::int_arith;
use crate::object::types::long_ops;
use crate::object::types::num::num;
use crate::object::types::{type_error, value_error};
use crate::syntax::ast::*;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

impl Interp {
    /// Binds a value to an assignment target.
    pub fn assign(&self, f: &mut Frame, target: &Expr, v: Value) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => self.store_name(f, n, v),
            ExprKind::Attribute { value, attr } => {
                let obj = self.eval_hot(f, value)?;
                self.store_attr(&obj, &attr.name, v)
            }
            ExprKind::Subscript { value, slice } => {
                let obj = self.eval_hot(f, value)?;
                let key = self.eval_hot(f, slice)?;
                self.set_item(&obj, &key, v)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => self.unpack(f, items, v),
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcType::SyntaxError,
                "starred assignment target must be in a list or tuple",
            )),
            _ => Err(PyErr::new(
                ExcType::SyntaxError,
                "cannot assign to expression",
            )),
        }
        .map_err(|e| self.locate(f, target.span, e))
    }

    fn unpack(&self, f: &mut Frame, targets: &[Expr], v: Value) -> PyResult<()> {
        let items = match &v {
            Value::Tuple(t) => t.to_vec(),
            Value::List(l) => l.borrow().clone(),
            _ => {
                if !self.is_iterable(&v) {
                    return Err(type_error(format!(
                        "cannot unpack non-iterable {} object",
                        v.type_name()
                    )));
                }
                self.collect(&v)?
            }
        };
        let star = targets
            .iter()
            .position(|t| matches!(t.kind, ExprKind::Starred(_)));
        match star {
            None => {
                if items.len() != targets.len() {
                    return Err(if items.len() > targets.len() {
                        value_error(format!(
                            "too many values to unpack (expected {})",
                            targets.len()
                        ))
                    } else {
                        value_error(format!(
                            "not enough values to unpack (expected {}, got {})",
                            targets.len(),
                            items.len()
                        ))
                    });
                }
                for (t, item) in targets.iter().zip(items) {
                    self.assign(f, t, item)?;
                }
            }
            Some(si) => {
                let after = targets.len() - si - 1;
                if items.len() < targets.len() - 1 {
                    return Err(value_error(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        targets.len() - 1,
                        items.len()
                    )));
                }
                let mut items = items;
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(si);
                for (t, item) in targets[..si].iter().zip(items) {
                    self.assign(f, t, item)?;
                }
                if let ExprKind::Starred(inner) = &targets[si].kind {
                    self.assign(f, inner, Value::list(middle))?;
                }
                for (t, item) in targets[si + 1..].iter().zip(tail) {
                    self.assign(f, t, item)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn aug_assign(
        &self,
        f: &mut Frame,
        target: &Expr,
        op: BinOp,
        value: &Expr,
    ) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => {
                let local = match n.slot.get() {
                    Slot::Local(i) => Some(i as usize),
                    _ => None,
                };
                // `s += i`: a local int and an int leaf, computed in the slot.
                if let (Some(i), Some(y)) = (local, leaf_int(f, value)) {
                    if let Some(Value::Int(x)) = &mut f.locals[i] {
                        if let Some(r) = int_arith(op, *x, y) {
                            *x = r;
                            return Ok(());
                        }
                    }
                }
                let cur = self.load_fast(f, n, target.span)?;
                let rhs = self.eval_hot(f, value)?;
                let new = match (&cur, &rhs) {
                    (Value::Int(x), Value::Int(y)) => match int_arith(op, *x, *y) {
                        Some(r) => Value::Int(r),
                        None => self.inplace_op(op, &cur, &rhs)?,
                    },
                    (Value::Long(_), _) if local.is_some() && long_ops::assignable(op, &rhs) => {
                        let i = local.unwrap_or_default();
                        return long_local_assign(f, i, op, cur, &rhs);
                    }
                    _ => self.inplace_op(op, &cur, &rhs)?,
                };
                if let Some(i) = local {
                    if let Some(old) = f.locals[i].replace(new) {
                        old.discard();
                    }
                    return Ok(());
                }
                self.store_name(f, n, new)
            }
            ExprKind::Attribute { value: obj, attr } => {
                let o = self.eval_hot(f, obj)?;
                let cur = self.load_attr(&o, &attr.name)?;
                let rhs = self.eval_hot(f, value)?;
                let new = self.inplace_op(op, &cur, &rhs)?;
                self.store_attr(&o, &attr.name, new)
            }
            ExprKind::Subscript { value: obj, slice } => {
                let o = self.eval(f, obj)?;
                let k = self.eval(f, slice)?;
                let cur = self.get_item(&o, &k)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace_op(op, &cur, &rhs)?;
                self.set_item(&o, &k, new)
            }
            _ => Err(PyErr::new(
                ExcType::SyntaxError,
                "illegal expression for augmented assignment",
            )),
        }
    }

    pub(in crate::eval) fn delete(&self, f: &mut Frame, target: &Expr) -> PyResult<()> {
        match &target.kind {
            ExprKind::Name(n) => self.delete_name(f, n, target.span),
            ExprKind::Attribute { value, attr } => {
                let o = self.eval(f, value)?;
                self.del_attribute(&o, &attr.name)
            }
            ExprKind::Subscript { value, slice } => {
                let o = self.eval(f, value)?;
                let k = self.eval(f, slice)?;
                self.del_item(&o, &k)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.delete(f, i)?;
                }
                Ok(())
            }
            _ => Err(PyErr::new(ExcType::SyntaxError, "cannot delete expression")),
        }
    }

    /// Stores `v` under `Rc<str>` name in the given frame (used by class bodies and imports).
    pub fn store_name(&self, f: &mut Frame, n: &Name, v: Value) -> PyResult<()> {
        match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize] = Some(v),
            Slot::Cell(i) => *f.cells[i as usize].borrow_mut() = Some(v),
            Slot::Global(i) => self.store_global(i, v),
            Slot::ClassBody(i) | Slot::ClassBuiltin(i) => match f.class_ns.last() {
                Some(ClassNs {
                    mapping: Some(m), ..
                }) => self.set_item(m, &Value::str(&*n.id), v)?,
                Some(ns) => {
                    ns.ns.borrow_mut().insert(n.id.clone(), v);
                }
                None if matches!(n.slot.get(), Slot::ClassBody(_)) => self.store_global(i, v),
                None => return Err(unresolved(&n.id)),
            },
            // (a name a function binds is its local: never a builtin slot)
            Slot::Builtin(_) => return Err(unresolved(&n.id)),
            Slot::Unresolved => return Err(unresolved(&n.id)),
        }
        Ok(())
    }

    fn delete_name(&self, f: &mut Frame, n: &Name, span: crate::syntax::Span) -> PyResult<()> {
        let existed = match n.slot.get() {
            Slot::Local(i) => f.locals[i as usize].take().is_some(),
            Slot::Cell(i) => f.cells[i as usize].borrow_mut().take().is_some(),
            Slot::Global(i) => self.take_global(i),
            Slot::ClassBody(i) | Slot::ClassBuiltin(i) => match f.class_ns.last() {
                Some(ClassNs {
                    mapping: Some(m), ..
                }) => {
                    self.del_item(m, &Value::str(&*n.id))?;
                    true
                }
                Some(ns) => ns.ns.borrow_mut().shift_remove(&n.id).is_some(),
                None if matches!(n.slot.get(), Slot::ClassBody(_)) => self.take_global(i),
                None => false,
            },
            Slot::Builtin(_) | Slot::Unresolved => false,
        };
        let _ = span;
        if !existed {
            return Err(match n.slot.get() {
                Slot::Local(_) => crate::eval::expr::unbound_local(&n.id),
                _ => PyErr::new(
                    ExcType::NameError,
                    format!("name '{}' is not defined", n.id),
                ),
            });
        }
        Ok(())
    }
}

/// `x op= y` for a local `x` holding an int past 64 bits (`cur`, loaded
/// before `y` was evaluated) and an int `y`: when the slot still holds that
/// int, the slot lets go of it first, so an int nothing else refers to is
/// updated in its own storage (`den *= k` in a loop copies nothing). On
/// error the variable keeps its value.
fn long_local_assign(f: &mut Frame, i: usize, op: BinOp, cur: Value, rhs: &Value) -> PyResult<()> {
    let same = matches!((&f.locals[i], &cur),
        (Some(Value::Long(s)), Value::Long(c)) if Rc::ptr_eq(s, c));
    if same {
        f.locals[i] = None;
    }
    let mut cur = cur;
    let r = match num(rhs) {
        Some(y) => long_ops::long_assign_op(op, &mut cur, y),
        None => Err(PyErr::new(
            ExcType::SystemError,
            "augmented assignment: not an int",
        )),
    };
    if r.is_ok() || same {
        f.locals[i] = Some(cur);
    }
    r
}

/// The error for a store to a name the resolver did not bind.
#[cold]
fn unresolved(name: &str) -> PyErr {
    PyErr::new(
        ExcType::RuntimeError,
        format!("internal error: unresolved name '{name}'"),
    )
}
