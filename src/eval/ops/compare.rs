//! Comparisons: `is`, `in`, and the rich comparisons with dunder dispatch
//! (reflected operands, subclass first), builtin equality and ordering of
//! numbers, strings, sequences, dicts and sets, and the recursion guard for
//! nested containers.

use std::rc::Rc;

use crate::eval::Interp;
use crate::object::descr::not_implemented;
use crate::object::types::num::{num, num_cmp};
use crate::object::types::ops::compare_error;
use crate::object::types::subclass::base_value;
use crate::syntax::ast::CmpOp;
use crate::value::dict::{find_key, key_eq, keys_subset};
use crate::value::{ExcType, PyErr, PyResult, Value};

impl Interp {
    /// Comparison operators (may return non-bools for tensors and user dunders).
    pub fn compare_op(&self, op: CmpOp, a: &Value, b: &Value) -> PyResult<Value> {
        match op {
            CmpOp::Is => Ok(Value::Bool(a.is(b))),
            CmpOp::IsNot => Ok(Value::Bool(!a.is(b))),
            CmpOp::In => Ok(Value::Bool(self.contains_value(b, a)?)),
            CmpOp::NotIn => Ok(Value::Bool(!self.contains_value(b, a)?)),
            _ => self.rich_compare(op, a, b),
        }
    }

    fn rich_compare(&self, op: CmpOp, a: &Value, b: &Value) -> PyResult<Value> {
        if let (Some(x), Some(y)) = (num(a), num(b)) {
            return Ok(Value::Bool(ord_matches(op, num_cmp(x, y))));
        }
        // Dunder methods and natives first (they may return tensors or NotImplemented).
        let (name, rname) = cmp_dunders(op);
        // The reflected method of a right operand whose class is a proper
        // subclass of the left's goes first.
        let reflect_first = matches!((a, b), (Value::Instance(x), Value::Instance(y))
            if !Rc::ptr_eq(&x.class, &y.class) && y.class.is_subclass_of(&x.class));
        let order = if reflect_first {
            [(b, a, rname), (a, b, name)]
        } else {
            [(a, b, name), (b, a, rname)]
        };
        for (this, other, n) in order {
            match this {
                Value::Instance(inst) => {
                    if let Some(m) = inst.class.lookup(n) {
                        let r =
                            self.call_value(&m, vec![this.clone(), other.clone()], Vec::new())?;
                        if !r.is(&not_implemented()) {
                            return Ok(r);
                        }
                    } else if op == CmpOp::NotEq && inst.builtin_base().is_none() {
                        // object.__ne__: the inverse of __eq__ unless that is NotImplemented.
                        if let Some(m) = inst.class.lookup("__eq__") {
                            let r =
                                self.call_value(&m, vec![this.clone(), other.clone()], Vec::new())?;
                            if !r.is(&not_implemented()) {
                                return Ok(Value::Bool(!self.is_true(&r)?));
                            }
                        }
                    }
                }
                Value::Native(nat) => {
                    let sym = if std::ptr::eq(this, a) {
                        op
                    } else {
                        swapped(op)
                    };
                    if let Some(r) = nat.compare(this, sym, other, self)? {
                        return Ok(r);
                    }
                }
                Value::Tensor(_) => {
                    let sym = if std::ptr::eq(this, a) {
                        op
                    } else {
                        swapped(op)
                    };
                    if let Some(r) = crate::object::tensor::tensor_compare(self, this, sym, other)?
                    {
                        return Ok(r);
                    }
                }
                _ => {}
            }
        }
        // A subclass of a builtin type compares as its value underneath;
        // a refusal names the operands' own types (`'collections.OrderedDict'`).
        let (x, y) = (base_value(a), base_value(b));
        if x.is_some() || y.is_some() {
            let x = x.unwrap_or_else(|| a.clone());
            let y = y.unwrap_or_else(|| b.clone());
            return self.rich_compare(op, &x, &y).map_err(|e| {
                // The refusal of these two values, not of items inside them.
                let ours = crate::object::types::ops::compare_error(op.symbol(), &x, &y);
                let refused = e.is(ExcType::TypeError)
                    && matches!((e.args().first(), ours.args().first()), (Some(Value::Str(m)), Some(Value::Str(o))) if m == o);
                if refused {
                    crate::object::types::ops::compare_error(op.symbol(), a, b)
                } else {
                    e
                }
            });
        }
        if let (Value::Set(x), Value::Set(y)) = (a, b) {
            // As CPython's set_richcompare: sizes first, then one subset
            // test (clones: an __eq__ may change the sets).
            let (xs, ys) = (
                crate::value::dict::keys_clone(&x.items.borrow())?,
                crate::value::dict::keys_clone(&y.items.borrow())?,
            );
            let (nx, ny) = (xs.len(), ys.len());
            let r = match op {
                CmpOp::Eq => nx == ny && keys_subset(self, &xs, &ys)?,
                CmpOp::NotEq => !(nx == ny && keys_subset(self, &xs, &ys)?),
                CmpOp::Lt => nx < ny && keys_subset(self, &xs, &ys)?,
                CmpOp::LtE => nx <= ny && keys_subset(self, &xs, &ys)?,
                CmpOp::Gt => nx > ny && keys_subset(self, &ys, &xs)?,
                _ => nx >= ny && keys_subset(self, &ys, &xs)?,
            };
            return Ok(Value::Bool(r));
        }
        match op {
            CmpOp::Eq => Ok(Value::Bool(self.builtin_eq(a, b)?)),
            CmpOp::NotEq => Ok(Value::Bool(!self.builtin_eq(a, b)?)),
            _ => {
                let ord = self.builtin_order(a, b)?;
                match ord {
                    Some(o) => Ok(Value::Bool(ord_matches(op, Some(o)))),
                    None => Err(compare_error(op.symbol(), a, b)),
                }
            }
        }
    }

    /// `a == b` as a bool.
    pub fn values_eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Ok(x == y),
            (Value::Str(x), Value::Str(y)) => Ok(x == y),
            _ => {
                let r = self.rich_compare(CmpOp::Eq, a, b)?;
                self.is_true(&r)
            }
        }
    }

    fn builtin_eq(&self, a: &Value, b: &Value) -> PyResult<bool> {
        Ok(match (a, b) {
            (Value::List(x), Value::List(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_eq(&x, &y)?
            }
            (Value::Tuple(x), Value::Tuple(y)) => self.seq_eq(x, y)?,
            (Value::Dict(x), Value::Dict(y)) => {
                let (x, y) = (x.borrow().try_clone()?, y.borrow().try_clone()?);
                if x.len() != y.len() {
                    return Ok(false);
                }
                for (k, v) in x.map.iter() {
                    match find_key(self, k, |p| y.map.get(p).cloned())? {
                        Some(w) => {
                            if !self.values_eq(v, &w)? {
                                return Ok(false);
                            }
                        }
                        None => return Ok(false),
                    }
                }
                true
            }
            _ => key_eq(a, b),
        })
    }

    fn seq_eq(&self, x: &[Value], y: &[Value]) -> PyResult<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        self.guard_depth(|| {
            for (p, q) in x.iter().zip(y) {
                if !p.is(q) && !self.values_eq(p, q)? {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }

    /// Runs `f` one level deeper (guards recursion through nested containers).
    pub fn guard_depth<T>(&self, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
        self.check_stack()?;
        let d = self.depth.get();
        if d >= self.recursion_limit.get() {
            return Err(PyErr::new(
                ExcType::RecursionError,
                "maximum recursion depth exceeded in comparison",
            ));
        }
        self.depth.set(d + 1);
        let r = f();
        self.depth.set(d);
        r
    }

    fn builtin_order(&self, a: &Value, b: &Value) -> PyResult<Option<std::cmp::Ordering>> {
        Ok(match (a, b) {
            (Value::Str(x), Value::Str(y)) => Some(x.as_str().cmp(y.as_str())),
            (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
            (Value::List(x), Value::List(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_order(&x, &y)?
            }
            (Value::Tuple(x), Value::Tuple(y)) => self.seq_order(x, y)?,
            _ => None,
        })
    }

    fn seq_order(&self, x: &[Value], y: &[Value]) -> PyResult<Option<std::cmp::Ordering>> {
        for (p, q) in x.iter().zip(y) {
            if p.is(q) || self.values_eq(p, q)? {
                continue;
            }
            let lt = self.rich_compare(CmpOp::Lt, p, q)?;
            return Ok(Some(if self.is_true(&lt)? {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }));
        }
        Ok(Some(x.len().cmp(&y.len())))
    }
}

fn ord_matches(op: CmpOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, ord) {
        (CmpOp::NotEq, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Equal,
        (CmpOp::NotEq, Some(o)) => o != Equal,
        (CmpOp::Lt, Some(o)) => o == Less,
        (CmpOp::LtE, Some(o)) => o != Greater,
        (CmpOp::Gt, Some(o)) => o == Greater,
        (CmpOp::GtE, Some(o)) => o != Less,
        _ => false,
    }
}

fn cmp_dunders(op: CmpOp) -> (&'static str, &'static str) {
    match op {
        CmpOp::Eq => ("__eq__", "__eq__"),
        CmpOp::NotEq => ("__ne__", "__ne__"),
        CmpOp::Lt => ("__lt__", "__gt__"),
        CmpOp::LtE => ("__le__", "__ge__"),
        CmpOp::Gt => ("__gt__", "__lt__"),
        CmpOp::GtE => ("__ge__", "__le__"),
        _ => ("", ""),
    }
}

fn swapped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::LtE => CmpOp::GtE,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::GtE => CmpOp::LtE,
        other => other,
    }
}
