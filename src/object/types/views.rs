//! Dict views: `dict_keys`, `dict_values`, `dict_items`. They read the dict
//! live, iterate, support `len` and `in`, print like CPython
//! (`dict_items([('a', 1)])`), and keys/items views combine like sets.

use std::cell::RefCell;
use std::rc::Rc;

use super::iter::{dict_iter, DictPart, IterObj, IterState};
use super::set::{collect_keys, combine, make_set, set_from, set_op_in_place};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::dict::dict_get;
use crate::value::{Dict, NativeObject, PyResult, Value, Vm};

/// A live view of a dict.
pub struct DictView {
    /// The dict.
    pub dict: Rc<RefCell<Dict>>,
    /// Which part it shows.
    pub part: DictPart,
}

impl DictView {
    /// `reversed(view)`: an iterator over the view's items, last first.
    pub fn reversed_iter(&self) -> Value {
        let mut items = self.snapshot();
        items.reverse();
        let name = match self.part {
            DictPart::Keys => "dict_reversekeyiterator",
            DictPart::Values => "dict_reversevalueiterator",
            DictPart::Items => "dict_reverseitemiterator",
        };
        IterObj::value(name, IterState::Values(Rc::new(items), 0))
    }

    /// The items the view shows now.
    pub fn snapshot(&self) -> Vec<Value> {
        let d = self.dict.borrow();
        match self.part {
            DictPart::Keys => d.keys(),
            DictPart::Values => d.map.values().cloned().collect(),
            DictPart::Items => d
                .items()
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![k, v]))
                .collect(),
        }
    }
}

impl NativeObject for DictView {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(match self.part {
            DictPart::Keys => &DICT_KEYS,
            DictPart::Values => &DICT_VALUES,
            DictPart::Items => &DICT_ITEMS,
        })
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "{}({})",
            self.type_name(),
            vm.repr(&Value::list(self.snapshot()))?
        ))
    }

    fn iter(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(dict_iter(&self.dict, self.part)))
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(self.dict.borrow().len()))
    }

    fn hashable(&self) -> bool {
        false
    }

    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        match self.part {
            DictPart::Keys => Ok(Some(dict_get(vm, &self.dict, item)?.is_some())),
            DictPart::Items => {
                let Value::Tuple(t) = item else {
                    return Ok(Some(false));
                };
                if t.len() != 2 {
                    return Ok(Some(false));
                }
                let found = dict_get(vm, &self.dict, &t[0])?;
                match found {
                    Some(v) => Ok(Some(v.is(&t[1]) || vm.eq(&v, &t[1])?)),
                    None => Ok(Some(false)),
                }
            }
            DictPart::Values => {
                for v in self.snapshot() {
                    if v.is(item) || vm.eq(&v, item)? {
                        return Ok(Some(true));
                    }
                }
                Ok(Some(false))
            }
        }
    }

    fn binop(
        &self,
        this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        if self.part == DictPart::Values {
            return Ok(None);
        }
        let c = match op {
            BinOp::BitOr => '|',
            BinOp::BitAnd => '&',
            BinOp::Sub => '-',
            BinOp::BitXor => '^',
            _ => return Ok(None),
        };
        if c == '&' {
            let mine = collect_keys(vm, &Value::list(self.snapshot()))?;
            let theirs = collect_keys(vm, other)?;
            let r = if reflected {
                combine(vm, c, &theirs, &mine)?
            } else {
                combine(vm, c, &mine, &theirs)?
            };
            return Ok(Some(make_set(r, false)));
        }
        // CPython's dictviews_or/sub/xor: a set of the left operand (of the
        // dict itself for a keys view), updated in place with the right one.
        let (left, right) = if reflected {
            (other.clone(), this.clone())
        } else {
            (this.clone(), other.clone())
        };
        let left = match left.downcast::<DictView>() {
            Some(v) if v.part == DictPart::Keys => Value::Dict(v.dict.clone()),
            _ => left,
        };
        let acc = set_from(vm, &left, false)?;
        let keys = collect_keys(vm, &right)?;
        set_op_in_place(vm, c, &acc, &right, &keys)?;
        Ok(Some(Value::Set(Rc::new(acc))))
    }

    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        if self.part == DictPart::Values {
            return Ok(None);
        }
        let other_items = match (other, other.downcast::<DictView>()) {
            (Value::Set(_), _) => collect_keys(vm, other)?,
            (_, Some(v)) if v.part != DictPart::Values => {
                collect_keys(vm, &Value::list(v.snapshot()))?
            }
            _ => return Ok(None),
        };
        let mine = collect_keys(vm, &Value::list(self.snapshot()))?;
        // Set comparisons: equality and (proper) subset / superset.
        let (m, o) = (mine.len(), other_items.len());
        Ok(Some(Value::Bool(match op {
            CmpOp::Eq => m == o && mine.is_subset(&other_items),
            CmpOp::NotEq => !(m == o && mine.is_subset(&other_items)),
            CmpOp::Lt => m < o && mine.is_subset(&other_items),
            CmpOp::LtE => m <= o && mine.is_subset(&other_items),
            CmpOp::Gt => m > o && other_items.is_subset(&mine),
            CmpOp::GtE => m >= o && other_items.is_subset(&mine),
            _ => return Ok(None),
        })))
    }
}

/// The class `dict_keys`.
pub static DICT_KEYS: ClassSpec = ClassSpec {
    name: "dict_keys",
    module: "builtins",
    bases: &[],
    members: &[Member::Method(isdisjoint::DEF)],
};

/// The class `dict_values`.
pub static DICT_VALUES: ClassSpec = ClassSpec::plain("dict_values", "builtins");

/// The class `dict_items`.
pub static DICT_ITEMS: ClassSpec = ClassSpec {
    name: "dict_items",
    module: "builtins",
    bases: &[],
    members: &[Member::Method(
        isdisjoint::DEF.renamed("dict_items.isdisjoint(self, other, /)"),
    )],
};

impl NativeClass for DictView {
    const SPEC: &'static ClassSpec = &DICT_KEYS;
}

/// True if the view and the iterable have no item in common.
#[native("dict_keys.isdisjoint(self, other, /)", c)]
fn isdisjoint(vm: &dyn Vm, this: &DictView, other: &Value) -> PyResult<bool> {
    for x in vm.collect(other)? {
        if this.contains(&x, vm)? == Some(true) {
            return Ok(false);
        }
    }
    Ok(true)
}
