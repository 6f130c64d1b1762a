//! TensorFlow's int-valued Python enums (`tf.VariableAggregation`,
//! `tf.data.experimental.AutoShardPolicy` …): one object per member, held
//! by its class (so `x is Enum.MEMBER` holds and every replica returning a
//! member regroups to the member itself). A plain `enum.Enum` member shows
//! as `Enum.MEMBER` and equals only itself; an `enum.IntEnum` member is
//! also its int (`str`, `==`, hashing, arithmetic, `int()`), as in Python.
//! `enum_class!` declares a class: its members, `_member_names_`, `name`,
//! `value`, and the call `Enum(value)` that looks a member up by value.

use crate::distribute::classes::{getters, native_class};
use crate::object::ClassSpec;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// One enum class: its class, its members (name, value) in order, and
/// whether it is an `IntEnum`.
pub struct EnumDef {
    /// The class.
    pub spec: &'static ClassSpec,
    /// The members, in definition order.
    pub members: &'static [(&'static str, i64)],
    /// `enum.IntEnum` (members are ints) rather than `enum.Enum`.
    pub int: bool,
}

impl EnumDef {
    /// The member named `name` (the one object its class holds).
    pub fn member(&'static self, name: &str) -> Value {
        self.spec.class().lookup(name).unwrap_or(Value::None)
    }

    /// The member whose value is `value`.
    pub fn member_by_value(&'static self, value: i64) -> Option<Value> {
        let (name, _) = self.members.iter().find(|(_, v)| *v == value)?;
        Some(self.member(name))
    }
}

/// A member of an enum class.
pub struct EnumMember {
    /// Its class.
    pub def: &'static EnumDef,
    /// Its name.
    pub name: &'static str,
    /// Its value.
    pub value: i64,
}

impl EnumMember {
    /// The member of `def` named `name`, made once when its class is built.
    pub fn make(def: &'static EnumDef, name: &str) -> Value {
        let &(name, value) = def
            .members
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or(&def.members[0]);
        Value::native(EnumMember { def, name, value })
    }

    /// Whether this member belongs to `def`.
    pub fn of(&self, def: &'static EnumDef) -> bool {
        std::ptr::eq(self.def, def)
    }
}

/// The member of `def` that `value` names, as `Enum(value)` finds it: a
/// member is itself, otherwise the member whose value equals `value`.
pub fn enum_call(vm: &dyn Vm, def: &'static EnumDef, value: &Value) -> PyResult<Value> {
    if let Some(m) = value.downcast::<EnumMember>() {
        if m.of(def) {
            return Ok(value.clone());
        }
    }
    for &(name, v) in def.members {
        if vm.eq(value, &Value::Int(v))? {
            return Ok(def.member(name));
        }
    }
    Err(PyErr::new(
        ExcType::ValueError,
        format!("{} is not a valid {}", vm.repr(value)?, def.spec.name),
    ))
}

/// Declares an enum class: `enum_class!(pub SPEC, DEF, mod_name, "Name",
/// "module", int: bool, [("A", 0), ("B", 1)])` makes the `ClassSpec`
/// `SPEC`, the `EnumDef` `DEF`, and a module `mod_name` holding the
/// class's `__new__` (a member looked up by value).
macro_rules! enum_class {
    ($vis:vis $spec:ident, $def:ident, $call:ident, $name:literal, $module:expr, int: $int:expr,
     [$(($m:literal, $v:expr)),+ $(,)?]) => {
        #[doc = concat!("The members of `", $name, "`.")]
        $vis static $def: $crate::distribute::enums::EnumDef = $crate::distribute::enums::EnumDef {
            spec: &$spec,
            members: &[$(($m, $v)),+],
            int: $int,
        };

        #[doc = concat!("`", $name, "(value)`: a member of the enum by its value.")]
        $vis mod $call {
            use $crate::value::{PyResult, Value, Vm};
            #[doc = concat!("The member of `", $name, "` with this value.")]
            #[$crate::object::native("EnumType.__call__(value)")]
            pub fn call(vm: &dyn Vm, value: &Value) -> PyResult<Value> {
                $crate::distribute::enums::enum_call(vm, &super::$def, value)
            }
        }

        #[doc = concat!("`", $name, "`, an enum.")]
        $vis static $spec: $crate::object::ClassSpec = $crate::object::ClassSpec {
            name: $name,
            module: $module,
            bases: &[],
            members: &[
                $($crate::object::Member::Attr($m, || {
                    $crate::distribute::enums::EnumMember::make(&$def, $m)
                }),)+
                $crate::object::Member::Attr("_member_names_", || {
                    $crate::distribute::classes::member_names(&[$($m),+])
                }),
                $crate::object::Member::New($call::call::DEF),
                $crate::object::Member::ClassMethod($crate::distribute::enums::enum_getitem::DEF),
                $crate::object::Member::Getter($crate::distribute::enums::enum_name::DEF),
                $crate::object::Member::Getter($crate::distribute::enums::enum_value::DEF),
            ],
        };
    };
}
pub(crate) use enum_class;

/// `Enum[name]`: the member named `name`.
#[crate::object::native("EnumType.__class_getitem__(cls, name)")]
pub fn enum_getitem(vm: &dyn Vm, cls: &Value, name: &Value) -> PyResult<Value> {
    if let (Value::Class(c), Value::Str(s)) = (cls, name) {
        if let Some(m) = c.lookup(s) {
            if m.downcast::<EnumMember>()
                .is_some_and(|e| std::ptr::eq(&*e.def.spec.class(), &**c))
            {
                return Ok(m);
            }
        }
    }
    let _ = vm;
    Err(PyErr::with_args(ExcType::KeyError, vec![name.clone()]))
}

getters! { this: &EnumMember;
    /// The member's name.
    pub fn enum_name("Enum.name(self)") -> &'static str { this.name }
    /// The member's value.
    pub fn enum_value("Enum.value(self)") -> i64 { this.value }
}

/// Any enum's class, for natives that take a `&EnumMember`.
static ENUM: ClassSpec = ClassSpec::plain("Enum", "enum");
native_class!(EnumMember: ENUM);

impl EnumMember {
    /// The member as the int it is (an `IntEnum`), else None.
    fn as_int(&self) -> Option<Value> {
        self.def.int.then_some(Value::Int(self.value))
    }
}

impl NativeObject for EnumMember {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.def.spec)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.{}: {}>",
            self.def.spec.name, self.name, self.value
        ))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        // Python 3.11's IntEnum prints as its int
        Ok(match self.def.int {
            true => self.value.to_string(),
            false => format!("{}.{}", self.def.spec.name, self.name),
        })
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        if let Some(o) = other.downcast::<EnumMember>() {
            if o.of(self.def) || sibling(o.def.spec.name, self.def.spec.name) {
                return Ok(Some(o.value == self.value));
            }
            if !(self.def.int && o.def.int) {
                return Ok(Some(false));
            }
        }
        match self.as_int() {
            Some(i) => vm.eq(&i, other).map(Some),
            None => Ok(None),
        }
    }

    fn compare(
        &self,
        this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(i) = self.as_int() else {
            let same = match op {
                CmpOp::Eq | CmpOp::NotEq => self.equals(this, other, vm)?,
                _ => None,
            };
            return Ok(same.map(|s| Value::Bool(s == (op == CmpOp::Eq))));
        };
        let other = match other.downcast::<EnumMember>().and_then(EnumMember::as_int) {
            Some(o) => o,
            None => other.clone(),
        };
        let r = match op {
            CmpOp::Eq => vm.eq(&i, &other)?,
            CmpOp::NotEq => !vm.eq(&i, &other)?,
            CmpOp::Lt => vm.lt(&i, &other)?,
            CmpOp::Gt => vm.gt(&i, &other)?,
            CmpOp::LtE => vm.lt(&i, &other)? || vm.eq(&i, &other)?,
            CmpOp::GtE => vm.gt(&i, &other)? || vm.eq(&i, &other)?,
            _ => return Ok(None),
        };
        Ok(Some(Value::Bool(r)))
    }

    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(i) = self.as_int() else {
            return Ok(None);
        };
        let other = match other.downcast::<EnumMember>().and_then(EnumMember::as_int) {
            Some(o) => o,
            None => other.clone(),
        };
        let (a, b) = if reflected { (other, i) } else { (i, other) };
        vm.binop(op, &a, &b).map(Some)
    }

    fn unary(&self, _this: &Value, op: UnaryOp, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(i) = self.as_int() else {
            return Ok(None);
        };
        Ok(match op {
            UnaryOp::UAdd => Some(i),
            UnaryOp::USub => Some(vm.binop(BinOp::Sub, &Value::Int(0), &i)?),
            UnaryOp::Invert => Some(Value::Int(!self.value)),
            UnaryOp::Not => None,
        })
    }

    fn hash_as(&self) -> Option<Value> {
        self.as_int()
    }

    fn to_number(&self, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(self.as_int())
    }
}

/// Whether two enum classes are one enum under two names that compare
/// member by member (`VariableAggregation` and `VariableAggregationV2`).
fn sibling(a: &str, b: &str) -> bool {
    a != b && a.trim_end_matches("V2") == b.trim_end_matches("V2")
}

/// A member argument of an option or a call: `value` when it is a member of
/// `def`, else None.
pub fn member_of<'a>(value: &'a Value, def: &'static EnumDef) -> Option<&'a EnumMember> {
    value.downcast::<EnumMember>().filter(|m| m.of(def))
}
