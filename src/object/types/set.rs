//! `set` and `frozenset`: constructors and methods, and the set algebra the
//! operators (`|`, `&`, `-`, `^`, `<=` …) share with the methods. Each
//! operation also runs on CPython's simulated table ([`SetTable`]) as
//! `Objects/setobject.c` does it, so results iterate in CPython's order.

use std::rc::Rc;

use indexmap::IndexSet;

use crate::object::types::{alloc_vec, memory_error, type_error};
use crate::object::{native, Member};
use crate::syntax::ast::{Expr, ExprKind};
use crate::value::dict::{
    find_key, key_set_insert, keys_clone, keys_insert, keys_reserve, keys_subset, set_add,
    set_algebra, set_discard, vm_compared, KeySet, SetObj, SetTable,
};
use crate::value::{ExcType, Key, PyErr, PyResult, Value, Vm};

/// A new set (or frozenset) value.
pub fn make_set(items: KeySet, frozen: bool) -> Value {
    Value::Set(Rc::new(SetObj::new(items, frozen)))
}

/// The elements of any iterable as set keys (TypeError for unhashable ones).
pub fn collect_keys(vm: &dyn Vm, v: &Value) -> PyResult<KeySet> {
    if let Value::Set(s) = v {
        return keys_clone(&s.items.borrow());
    }
    let items = vm.collect(v)?;
    let mut out = KeySet::default();
    keys_reserve(&mut out, items.len())?;
    for x in items {
        key_set_insert(vm, &mut out, x)?;
    }
    Ok(out)
}

/// The set algebra: `op` is one of `| & - ^`.
pub fn combine(vm: &dyn Vm, op: char, a: &KeySet, b: &KeySet) -> PyResult<KeySet> {
    set_algebra(vm, op, a, b)
}

/// The other operand of a set operation as CPython's code sees it.
enum Operand {
    /// A set or frozenset: its table.
    Set(SetTable),
    /// A dict: its keys in order.
    Dict(Vec<Key>),
    /// Any other iterable: its items in order.
    Iter(Vec<Key>),
}

impl Operand {
    /// None when the operand's elements have no reproducible CPython order.
    fn of(v: &Value, keys: &KeySet) -> PyResult<Option<Operand>> {
        let listed = || -> PyResult<Vec<Key>> {
            let mut out = alloc_vec(keys.len())?;
            out.extend(keys.iter().cloned());
            Ok(out)
        };
        Ok(match v {
            Value::Set(s) => s.table()?.map(Operand::Set),
            _ if !stable(keys) => None,
            Value::Dict(_) => Some(Operand::Dict(listed()?)),
            _ => Some(Operand::Iter(listed()?)),
        })
    }

    fn len(&self) -> usize {
        match self {
            Operand::Set(t) => t.len(),
            Operand::Dict(k) | Operand::Iter(k) => k.len(),
        }
    }

    fn keys(&self) -> Box<dyn Iterator<Item = &Key> + '_> {
        match self {
            Operand::Set(t) => Box::new(t.keys()),
            Operand::Dict(k) | Operand::Iter(k) => Box::new(k.iter()),
        }
    }
}

fn stable(keys: &KeySet) -> bool {
    keys.iter().all(SetTable::stable)
}

/// `set_update_internal`: adds the operand's elements.
fn update_table(t: &mut SetTable, o: &Operand) -> PyResult<()> {
    match o {
        Operand::Set(other) => t.merge(other),
        Operand::Dict(keys) => {
            t.presize(keys.len())?;
            keys.iter().try_for_each(|k| t.add(k.clone()))
        }
        Operand::Iter(keys) => keys.iter().try_for_each(|k| t.add(k.clone())),
    }
}

/// `set_copy`: a new table built from `t`.
fn copy_table(t: &SetTable) -> PyResult<SetTable> {
    let mut r = SetTable::default();
    r.merge(t)?;
    Ok(r)
}

/// `set_intersection`: the smaller set is walked when both are sets.
fn intersect_table(so: &SetTable, o: &Operand) -> PyResult<SetTable> {
    let mut r = SetTable::default();
    match o {
        Operand::Set(other) if other.len() > so.len() => {
            for k in so.keys().filter(|k| other.contains(k)) {
                r.add(k.clone())?;
            }
        }
        _ => {
            for k in o.keys().filter(|k| so.contains(k)) {
                r.add(k.clone())?;
            }
        }
    }
    Ok(r)
}

/// `set_difference_update_internal`: discards, then a resize when more than
/// a quarter of the table is dummies.
fn difference_update_table(t: &mut SetTable, o: &Operand) -> PyResult<()> {
    for k in o.keys() {
        t.discard(k);
    }
    t.shrink_dummies()
}

/// `set_difference`: a copy that discards (when the other is small or not
/// a set/dict), else the elements of `so` not in the other, added anew.
fn difference_table(so: &SetTable, o: &Operand) -> PyResult<SetTable> {
    let small = matches!(o, Operand::Iter(_)) || (so.len() >> 2) > o.len();
    if small {
        let mut r = copy_table(so)?;
        difference_update_table(&mut r, o)?;
        return Ok(r);
    }
    let mut theirs: IndexSet<&Key> = IndexSet::new();
    theirs.try_reserve(o.len()).map_err(|_| memory_error())?;
    theirs.extend(o.keys());
    let mut r = SetTable::default();
    for k in so.keys() {
        if !theirs.contains(k) {
            r.add(k.clone())?;
        }
    }
    Ok(r)
}

/// `set_symmetric_difference_update`.
fn symdiff_update_table(t: &mut SetTable, o: &Operand) -> PyResult<()> {
    let mut walk: Vec<Key> = alloc_vec(o.len())?;
    match o {
        Operand::Iter(keys) => walk.extend(SetTable::from_keys(keys.iter())?.keys().cloned()),
        _ => walk.extend(o.keys().cloned()),
    }
    for k in walk {
        if !t.discard(&k) {
            t.add(k)?;
        }
    }
    Ok(())
}

/// The table of `op` (`| & - ^`) on a set's table and an operand.
fn op_table(op: char, so: &SetTable, o: &Operand, same: bool) -> PyResult<SetTable> {
    match op {
        '&' | '|' if same => copy_table(so),
        '|' => {
            let mut r = copy_table(so)?;
            update_table(&mut r, o)?;
            Ok(r)
        }
        '&' => intersect_table(so, o),
        '-' => difference_table(so, o),
        _ => {
            // A copy of the other operand, updated with `so`.
            let mut r = SetTable::default();
            update_table(&mut r, o)?;
            symdiff_update_table(&mut r, &Operand::Set(so.try_clone()?))?;
            Ok(r)
        }
    }
}

/// The other operand of a set operation on `a` (elements `mine`), for the
/// simulated tables. These compare elements by builtin equality (instances
/// by identity), so when an element's equality calls `__eq__`, each element
/// of the operand that `==` finds in `a` is replaced by `a`'s own (same
/// hash): then identity agrees with `==`.
fn operand(vm: &dyn Vm, mine: &KeySet, b: &Value, keys: &KeySet) -> PyResult<Option<Operand>> {
    if !mine.iter().any(vm_compared) && !keys.iter().any(vm_compared) {
        return Operand::of(b, keys);
    }
    let canonical = |k: &Key| -> PyResult<Key> {
        let found = find_key(vm, k, |p| mine.get_index_of(p))?;
        Ok(found
            .and_then(|i| mine.get_index(i).cloned())
            .unwrap_or_else(|| k.clone()))
    };
    if let Value::Set(s) = b {
        let Some(mut t) = s.table()? else {
            return Ok(None);
        };
        t.try_map_keys(canonical)?;
        return Ok(Some(Operand::Set(t)));
    }
    let mut canon = KeySet::default();
    keys_reserve(&mut canon, keys.len())?;
    for k in keys {
        keys_insert(&mut canon, canonical(k)?)?;
    }
    Operand::of(b, &canon)
}

/// `a op b` for a set `a` and any iterable `b` (the operators check that
/// `b` is a set first): elements in CPython's order.
pub fn set_op(vm: &dyn Vm, op: char, a: &SetObj, b: &Value, keys: &KeySet) -> PyResult<SetObj> {
    let mine = keys_clone(&a.items.borrow())?;
    let plain = combine(vm, op, &mine, keys)?;
    let table = match (a.table()?, operand(vm, &mine, b, keys)?) {
        (Some(t), Some(o)) => Some(op_table(
            op,
            &t,
            &o,
            matches!(b, Value::Set(s) if std::ptr::eq(&**s, a)),
        )?),
        _ => None,
    };
    SetObj::with_table(table, plain, a.frozen)
}

/// `a op= b` on a mutable set, in place.
pub fn set_op_in_place(
    vm: &dyn Vm,
    op: char,
    a: &SetObj,
    b: &Value,
    keys: &KeySet,
) -> PyResult<()> {
    if matches!(b, Value::Set(o) if std::ptr::eq(&**o, a)) {
        // With itself: `|=` changes nothing, `&=` copies, `-=`/`^=` clear.
        match (op, a.table()?) {
            ('|', _) => {}
            ('&', Some(t)) => a.set_table(copy_table(&t)?.keep_finger(&t))?,
            ('&', None) => {}
            _ => a.clear(),
        }
        return Ok(());
    }
    let mine = keys_clone(&a.items.borrow())?;
    let table = match (a.table()?, operand(vm, &mine, b, keys)?) {
        (Some(mut t), Some(o)) => Some(match op {
            '|' => {
                update_table(&mut t, &o)?;
                t
            }
            '&' => intersect_table(&t, &o)?.keep_finger(&t),
            '-' => {
                difference_update_table(&mut t, &o)?;
                t
            }
            _ => {
                symdiff_update_table(&mut t, &o)?;
                t
            }
        }),
        _ => None,
    };
    match table {
        Some(t) => a.set_table(t)?,
        None => {
            let new = combine(vm, op, &mine, keys)?;
            a.replace_items(new);
        }
    }
    Ok(())
}

/// Whether CPython's AST optimizer folds the expression to a constant
/// (literals, signs and arithmetic on them, tuples of them).
fn folded_constant(e: &Expr) -> bool {
    fold_const(e).is_some()
}

/// A constant CPython's AST optimizer folds: an int's value (ints are
/// folded under limits, see [`fold_int_op`]), or `Other` for the rest.
enum Folded {
    Int(num_bigint::BigInt),
    Other,
}

fn fold_const(e: &Expr) -> Option<Folded> {
    use crate::syntax::ast::{Constant, UnaryOp};
    Some(match &e.kind {
        ExprKind::Constant(Constant::Int(i)) => Folded::Int((*i).into()),
        ExprKind::Constant(Constant::Long(n)) => Folded::Int((**n).clone()),
        ExprKind::Constant(Constant::Bool(b)) => Folded::Int((*b as i64).into()),
        ExprKind::Constant(_) => Folded::Other,
        ExprKind::UnaryOp { op, operand } => match (op, fold_const(operand)?) {
            (UnaryOp::USub, Folded::Int(n)) => Folded::Int(-n),
            (UnaryOp::Invert, Folded::Int(n)) => Folded::Int(!n),
            (UnaryOp::UAdd, i @ Folded::Int(_)) => i,
            _ => Folded::Other,
        },
        ExprKind::BinOp { left, op, right } => match (fold_const(left)?, fold_const(right)?) {
            (Folded::Int(a), Folded::Int(b)) => fold_int_op(*op, &a, &b)?,
            _ => Folded::Other,
        },
        ExprKind::Tuple(items) => {
            for item in items {
                fold_const(item)?;
            }
            Folded::Other
        }
        _ => return None,
    })
}

/// CPython 3.11's `safe_multiply`, `safe_power`, `safe_lshift` (results
/// past 128 bits are left to run time) and the folding of the other int
/// operators (an error leaves the expression unfolded).
fn fold_int_op(
    op: crate::syntax::ast::BinOp,
    a: &num_bigint::BigInt,
    b: &num_bigint::BigInt,
) -> Option<Folded> {
    use crate::syntax::ast::BinOp;
    use num_traits::{Signed, ToPrimitive, Zero};
    const MAX_INT_SIZE: u64 = 128;
    let nonzero = !a.is_zero() && !b.is_zero();
    match op {
        BinOp::Mult if nonzero && a.bits() + b.bits() > MAX_INT_SIZE => return None,
        BinOp::Pow if !a.is_zero() && b.is_positive() => {
            let w = b.to_u64()?;
            if a.bits() > MAX_INT_SIZE / w {
                return None;
            }
        }
        BinOp::Pow if b.is_negative() => return Some(Folded::Other),
        BinOp::LShift if nonzero => {
            let w = b.to_u64()?;
            if w > MAX_INT_SIZE || a.bits() > MAX_INT_SIZE - w {
                return None;
            }
        }
        BinOp::Div => return (!b.is_zero()).then_some(Folded::Other),
        BinOp::MatMult => return None,
        _ => {}
    }
    match super::long::big_binop(op, a, b).ok()? {
        Value::Int(i) => Some(Folded::Int(i.into())),
        Value::Long(n) => Some(Folded::Int((*n).clone())),
        _ => Some(Folded::Other),
    }
}

/// The set a display `{a, b, c}` makes. With more than two constant
/// elements CPython compiles a frozenset constant (built twice over: once
/// from the literal, once again when the compiler merges constants) and
/// copies it into a new set; otherwise the elements are added in order.
pub fn literal_set(items: &[Expr], keys: KeySet) -> PyResult<SetObj> {
    let constant = items.len() > 2 && items.iter().all(folded_constant) && stable(&keys);
    if !constant {
        return Ok(SetObj::new(keys, false));
    }
    let first = SetTable::from_keys(keys.iter())?;
    let merged = SetTable::from_keys(first.keys())?;
    SetObj::with_table(Some(copy_table(&merged)?), keys, false)
}

/// `set(iterable)` / `frozenset(iterable)`: a set's or dict's elements come
/// in through CPython's merge paths.
pub fn set_from(vm: &dyn Vm, v: &Value, frozen: bool) -> PyResult<SetObj> {
    let keys = collect_keys(vm, v)?;
    let table = match Operand::of(v, &keys)? {
        Some(o) => {
            let mut t = SetTable::default();
            update_table(&mut t, &o)?;
            Some(t)
        }
        None => None,
    };
    SetObj::with_table(table, keys, frozen)
}

/// A set's receiver that must be mutable: CPython's message for a frozenset.
fn unfrozen<'a>(s: &'a Rc<SetObj>, name: &str) -> PyResult<&'a Rc<SetObj>> {
    if s.frozen {
        return Err(type_error(format!(
            "descriptor '{name}' for 'set' objects doesn't apply to a 'frozenset' object"
        )));
    }
    Ok(s)
}

/// `set`'s constructor, `__init__` and methods.
pub static SET_MEMBERS: &[Member] = &[
    Member::Attr("__init__", || super::subclass::set_init::DEF.value()),
    Member::New(set_new::DEF),
    Member::Method(union::DEF),
    Member::Method(intersection::DEF),
    Member::Method(difference::DEF),
    Member::Method(symmetric_difference::DEF),
    Member::Method(issubset::DEF),
    Member::Method(issuperset::DEF),
    Member::Method(isdisjoint::DEF),
    Member::Method(copy::DEF),
    Member::Method(add::DEF),
    Member::Method(remove::DEF),
    Member::Method(discard::DEF),
    Member::Method(pop::DEF),
    Member::Method(clear::DEF),
    Member::Method(update::DEF),
    Member::Method(intersection_update::DEF),
    Member::Method(difference_update::DEF),
    Member::Method(symmetric_difference_update::DEF),
];

/// `frozenset`'s constructor and methods: `set`'s that do not change the
/// set, under `frozenset`'s name.
pub static FROZENSET_MEMBERS: &[Member] = &[
    Member::New(frozenset_new::DEF),
    Member::Method(union::DEF.renamed("frozenset.union(self, *others)")),
    Member::Method(intersection::DEF.renamed("frozenset.intersection(self, *others)")),
    Member::Method(difference::DEF.renamed("frozenset.difference(self, *others)")),
    Member::Method(
        symmetric_difference::DEF.renamed("frozenset.symmetric_difference(self, other, /)"),
    ),
    Member::Method(issubset::DEF.renamed("frozenset.issubset(self, other, /)")),
    Member::Method(issuperset::DEF.renamed("frozenset.issuperset(self, other, /)")),
    Member::Method(isdisjoint::DEF.renamed("frozenset.isdisjoint(self, other, /)")),
    Member::Method(copy::DEF.renamed("frozenset.copy(self)")),
];

/// A new set of the iterable's items: `set('aab') == {'a', 'b'}`.
#[native("set(iterable=(), /)", c_ctor)]
fn set_new(vm: &dyn Vm, iterable: &Value) -> PyResult<Value> {
    Ok(Value::Set(Rc::new(set_from(vm, iterable, false)?)))
}

/// An immutable set of the iterable's items.
#[native("frozenset(iterable=(), /)", c_ctor)]
fn frozenset_new(vm: &dyn Vm, iterable: &Value) -> PyResult<Value> {
    match iterable {
        Value::Set(s) if s.frozen => Ok(iterable.clone()),
        other => Ok(Value::Set(Rc::new(set_from(vm, other, true)?))),
    }
}

/// `union`/`intersection`/`difference` with any number of others, as
/// CPython's `set_union`, `set_intersection_multi`, `set_difference_multi`.
fn fold(vm: &dyn Vm, s: &Rc<SetObj>, others: &[Value], op: char) -> PyResult<Value> {
    let this = Value::Set(s.clone());
    let Some((first, rest)) = others.split_first() else {
        return Ok(Value::Set(Rc::new(set_from(vm, &this, s.frozen)?)));
    };
    let acc = match op {
        '|' => {
            let acc = set_from(vm, &this, s.frozen)?;
            for other in others {
                if !matches!(other, Value::Set(o) if Rc::ptr_eq(o, s)) {
                    set_op_in_place(vm, '|', &acc, other, &collect_keys(vm, other)?)?;
                }
            }
            return Ok(Value::Set(Rc::new(acc)));
        }
        _ => set_op(vm, op, s, first, &collect_keys(vm, first)?)?,
    };
    for other in rest {
        let keys = collect_keys(vm, other)?;
        if op == '&' {
            let next = set_op(vm, '&', &acc, other, &keys)?;
            acc.set_from_obj(next);
        } else {
            set_op_in_place(vm, op, &acc, other, &keys)?;
        }
    }
    Ok(Value::Set(Rc::new(acc)))
}

/// The items in this set or any of `others`.
#[native("set.union(self, *others)", c)]
fn union(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<Value> {
    fold(vm, this, others, '|')
}

/// The items in this set and all of `others`.
#[native("set.intersection(self, *others)", c)]
fn intersection(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<Value> {
    fold(vm, this, others, '&')
}

/// The items in this set and none of `others`.
#[native("set.difference(self, *others)", c)]
fn difference(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<Value> {
    fold(vm, this, others, '-')
}

/// The items in exactly one of the two.
#[native("set.symmetric_difference(self, other, /)", c)]
fn symmetric_difference(vm: &dyn Vm, this: &Rc<SetObj>, other: &Value) -> PyResult<Value> {
    let keys = collect_keys(vm, other)?;
    Ok(Value::Set(Rc::new(set_op(vm, '^', this, other, &keys)?)))
}

/// Whether every item is in `other`.
#[native("set.issubset(self, other, /)", c)]
fn issubset(vm: &dyn Vm, this: &Rc<SetObj>, other: &Value) -> PyResult<bool> {
    let o = collect_keys(vm, other)?;
    let mine = keys_clone(&this.items.borrow())?;
    keys_subset(vm, &mine, &o)
}

/// Whether every item of `other` is in this set.
#[native("set.issuperset(self, other, /)", c)]
fn issuperset(vm: &dyn Vm, this: &Rc<SetObj>, other: &Value) -> PyResult<bool> {
    let o = collect_keys(vm, other)?;
    let mine = keys_clone(&this.items.borrow())?;
    keys_subset(vm, &o, &mine)
}

/// Whether no item is in `other`.
#[native("set.isdisjoint(self, other, /)", c)]
fn isdisjoint(vm: &dyn Vm, this: &Rc<SetObj>, other: &Value) -> PyResult<bool> {
    let o = collect_keys(vm, other)?;
    let mine = keys_clone(&this.items.borrow())?;
    Ok(combine(vm, '&', &mine, &o)?.is_empty())
}

/// A shallow copy.
#[native("set.copy(self)", c)]
fn copy(vm: &dyn Vm, this: &Rc<SetObj>) -> PyResult<Value> {
    let v = Value::Set(this.clone());
    Ok(Value::Set(Rc::new(set_from(vm, &v, this.frozen)?)))
}

/// Adds an item.
#[native("set.add(self, object, /)", c)]
fn add(vm: &dyn Vm, this: &Rc<SetObj>, object: Value) -> PyResult<()> {
    set_add(vm, unfrozen(this, "add")?, object)
}

/// Removes an item (KeyError if absent).
#[native("set.remove(self, object, /)", c)]
fn remove(vm: &dyn Vm, this: &Rc<SetObj>, object: &Value) -> PyResult<()> {
    if set_discard(vm, unfrozen(this, "remove")?, object)? {
        Ok(())
    } else {
        Err(PyErr::with_args(ExcType::KeyError, vec![object.clone()]))
    }
}

/// Removes an item if present.
#[native("set.discard(self, object, /)", c)]
fn discard(vm: &dyn Vm, this: &Rc<SetObj>, object: &Value) -> PyResult<()> {
    set_discard(vm, unfrozen(this, "discard")?, object)?;
    Ok(())
}

/// Removes and returns an arbitrary item (KeyError if empty).
#[native("set.pop(self)", c)]
fn pop(this: &Rc<SetObj>) -> PyResult<Value> {
    unfrozen(this, "pop")?
        .pop_key()?
        .map(|k| k.0)
        .ok_or_else(|| PyErr::new(ExcType::KeyError, "pop from an empty set"))
}

/// Removes all items.
#[native("set.clear(self)", c)]
fn clear(this: &Rc<SetObj>) -> PyResult<()> {
    unfrozen(this, "clear")?.clear();
    Ok(())
}

fn update_with(
    vm: &dyn Vm,
    s: &Rc<SetObj>,
    others: &[Value],
    name: &str,
    op: char,
) -> PyResult<()> {
    let s = unfrozen(s, name)?;
    for other in others {
        let keys = collect_keys(vm, other)?;
        set_op_in_place(vm, op, s, other, &keys)?;
    }
    Ok(())
}

/// Adds the items of `others`.
#[native("set.update(self, *others)", c)]
fn update(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<()> {
    update_with(vm, this, others, "update", '|')
}

/// Keeps only items also in all `others`.
#[native("set.intersection_update(self, *others)", c)]
fn intersection_update(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<()> {
    update_with(vm, this, others, "intersection_update", '&')
}

/// Removes the items of `others`.
#[native("set.difference_update(self, *others)", c)]
fn difference_update(vm: &dyn Vm, this: &Rc<SetObj>, others: &[Value]) -> PyResult<()> {
    update_with(vm, this, others, "difference_update", '-')
}

/// Keeps items in exactly one of the two.
#[native("set.symmetric_difference_update(self, other, /)", c)]
fn symmetric_difference_update(vm: &dyn Vm, this: &Rc<SetObj>, other: &Value) -> PyResult<()> {
    update_with(
        vm,
        this,
        std::slice::from_ref(other),
        "symmetric_difference_update",
        '^',
    )
}
