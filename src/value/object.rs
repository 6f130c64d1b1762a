//! The object model: classes (user classes, builtin types and exception
//! classes share one representation), instances, functions implemented in
//! the language, functions implemented in Rust, and bound methods.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::error::{ExcType, PyResult};
use super::layout::{Attrs, Layout};
use super::native::Vm;
use super::signature::{Args, Signature};
use super::value::{Value, ValueType};
use crate::object::types::type_error;
use crate::syntax::ast::FunctionDef;
use crate::syntax::SourceFile;

/// What a class is underneath.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// Defined by a `class` statement (its nearest builtin base decides the rest).
    User,
    /// A builtin exception class.
    Exception(ExcType),
    /// A builtin type (`int`, `str`, `list`, `type`, `object` …).
    Builtin(ValueType),
    /// The type of a native object (`MirroredStrategy`, `PerReplica` …).
    Native,
}

/// A class object.
pub struct Class {
    /// `__name__`.
    pub name: Rc<str>,
    /// `__qualname__`.
    pub qualname: Rc<str>,
    /// `__module__`.
    pub module: Rc<str>,
    /// The first base class (`__base__`), None only for `object`.
    pub base: Option<Rc<Class>>,
    /// All direct base classes (`__bases__`), in order.
    pub bases: Vec<Rc<Class>>,
    /// The method resolution order after this class (C3 linearization of
    /// the bases): `__mro__` is this class followed by these.
    pub mro_tail: Vec<Rc<Class>>,
    /// The class namespace: methods, class attributes. Read it with
    /// `dict.borrow()`; every change goes through [`Class::dict_mut`] (or
    /// `set_attr`/`remove_attr`), which gives the class a new version.
    pub dict: ClassDict,
    /// The version tag of the class's namespace and of its bases' (see
    /// `value::typecache`): unique among all classes ever made, replaced
    /// whenever this class or a class in its MRO changes, so a cache keyed
    /// by it can never see a stale lookup.
    pub version: Cell<u64>,
    /// What the class is underneath.
    pub kind: ClassKind,
    /// Which attribute hooks the class or one of its bases defines
    /// ([`Class::HOOK_GETATTRIBUTE`], [`Class::HOOK_SLOTS`]): decided when the
    /// class is made, so attribute access on ordinary instances tests one
    /// field instead of searching the MRO for `__getattribute__`.
    pub hooks: Cell<u8>,
    /// Direct subclasses made so far (`__subclasses__()`), weakly held.
    pub subclasses: RefCell<Vec<std::rc::Weak<Class>>>,
    /// The slots of its instances' attributes (see `value::layout`).
    pub layout: RefCell<Layout>,
    /// Its metaclass when that is not `type` (a user subclass of `type`):
    /// None for ordinary classes, so every metaclass check on them is one
    /// test of this field.
    pub meta: Option<Rc<Class>>,
}

impl Class {
    /// The class (or a base) defines its own `__getattribute__`.
    pub const HOOK_GETATTRIBUTE: u8 = 1;
    /// Every user class in the MRO declares `__slots__` (no `__dict__`).
    pub const HOOK_SLOTS: u8 = 2;
    /// The class (or a base) defines `__del__`.
    pub const HOOK_DEL: u8 = 4;
    /// A stdlib class standing for one CPython writes in C (`deque`): its
    /// own body sets `__dist_c_type__`, and messages name its instances'
    /// type `collections.deque`, as CPython's `tp_name` does. Not inherited.
    pub const HOOK_C_TYPE: u8 = 8;
    /// A native class that scripts may change as CPython's equivalent is a
    /// Python class (a `namedtuple`'s: `Point.norm = ...`).
    pub const HOOK_OPEN: u8 = 16;
    /// The class is or derives from a builtin exception class (set when it
    /// is made: its MRO never changes).
    pub const HOOK_EXCEPTION: u8 = 32;
    /// The class is or derives from a builtin type other than `object`, or
    /// a native class (its instances stand on a builtin value).
    pub const HOOK_BUILTIN_BASE: u8 = 64;

    /// The flags a class inherits from its bases and its kind
    /// ([`Class::HOOK_EXCEPTION`], [`Class::HOOK_BUILTIN_BASE`]).
    fn kind_hooks(kind: ClassKind, bases: &[Rc<Class>]) -> u8 {
        let inherited = Class::HOOK_EXCEPTION | Class::HOOK_BUILTIN_BASE;
        let mut hooks = bases.iter().fold(0, |h, b| h | (b.hooks.get() & inherited));
        match kind {
            ClassKind::Exception(_) => hooks |= Class::HOOK_EXCEPTION,
            ClassKind::Native => hooks |= Class::HOOK_BUILTIN_BASE,
            ClassKind::Builtin(t) if t != ValueType::Object => hooks |= Class::HOOK_BUILTIN_BASE,
            _ => {}
        }
        hooks
    }

    /// Whether `setattr`/`delattr` may change this class: a class statement's,
    /// or a native one marked [`Class::HOOK_OPEN`].
    pub fn is_mutable(&self) -> bool {
        self.kind == ClassKind::User || self.hooks.get() & Class::HOOK_OPEN != 0
    }

    /// A builtin class (exceptions, builtin types, native types).
    pub fn new_builtin(
        name: &str,
        module: &str,
        base: Option<Rc<Class>>,
        kind: ClassKind,
    ) -> Rc<Class> {
        Class::new_builtin_bases(name, module, base.into_iter().collect(), kind)
    }

    /// A native class with several bases (TensorFlow's `PerReplica` is a
    /// `values.DistributedValues`, a `CompositeTensor` and a
    /// `types.distribute.PerReplica`): its MRO is the C3 linearization of
    /// `bases`, as for a class statement. Bases with no consistent order
    /// (a mistake in the caller's static table) fall back to the first
    /// base's chain.
    pub fn new_builtin_bases(
        name: &str,
        module: &str,
        bases: Vec<Rc<Class>>,
        kind: ClassKind,
    ) -> Rc<Class> {
        let mro_tail = c3_merge(&bases).unwrap_or_else(|_| match bases.first() {
            Some(b) => b.mro(),
            None => Vec::new(),
        });
        Rc::new(Class {
            name: name.into(),
            qualname: name.into(),
            module: module.into(),
            base: bases.first().cloned(),
            hooks: Cell::new(Class::kind_hooks(kind, &bases)),
            bases,
            mro_tail,
            dict: ClassDict(RefCell::new(Default::default())),
            version: Cell::new(next_version()),
            kind,
            subclasses: RefCell::new(Vec::new()),
            layout: RefCell::new(Layout::default()),
            meta: None,
        })
    }

    /// A class made by a `class` statement (or `type(name, bases, dict)`),
    /// with its metaclass when that is not `type`: its MRO is the C3
    /// linearization of `bases` (CPython's errors for duplicate or
    /// inconsistent bases).
    pub fn new_user(
        name: Rc<str>,
        qualname: Rc<str>,
        module: Rc<str>,
        bases: Vec<Rc<Class>>,
        dict: crate::value::Namespace,
        kind: ClassKind,
        meta: Option<Rc<Class>>,
    ) -> PyResult<Rc<Class>> {
        for (i, b) in bases.iter().enumerate() {
            if bases[..i].iter().any(|o| Rc::ptr_eq(o, b)) {
                return Err(type_error(format!("duplicate base class {}", b.name)));
            }
        }
        let mro_tail = c3_merge(&bases)?;
        let mut hooks = Class::kind_hooks(kind, &bases);
        if matches!(dict.get("__getattribute__"), Some(Value::Function(_)))
            || bases
                .iter()
                .any(|b| b.hooks.get() & Class::HOOK_GETATTRIBUTE != 0)
        {
            hooks |= Class::HOOK_GETATTRIBUTE;
        }
        if matches!(dict.get("__del__"), Some(Value::Function(_)))
            || bases.iter().any(|b| b.hooks.get() & Class::HOOK_DEL != 0)
        {
            hooks |= Class::HOOK_DEL;
        }
        // Instances lose their `__dict__` only when every user class in
        // the MRO declares `__slots__`.
        let slotted_bases = mro_tail
            .iter()
            .filter(|c| c.kind == ClassKind::User)
            .all(|c| c.dict.borrow().contains_key("__slots__"));
        if dict.contains_key("__slots__") && slotted_bases {
            hooks |= Class::HOOK_SLOTS;
        }
        if dict.contains_key("__dist_c_type__") {
            hooks |= Class::HOOK_C_TYPE;
        }
        let cls = Rc::new(Class {
            name,
            qualname,
            module,
            base: bases.first().cloned(),
            bases,
            mro_tail,
            dict: ClassDict(RefCell::new(dict)),
            version: Cell::new(next_version()),
            kind,
            hooks: Cell::new(hooks),
            subclasses: RefCell::new(Vec::new()),
            layout: RefCell::new(Layout::default()),
            meta,
        });
        for b in &cls.bases {
            let mut subs = b.subclasses.borrow_mut();
            subs.retain(|w| w.strong_count() > 0);
            subs.push(Rc::downgrade(&cls));
        }
        Ok(cls)
    }

    /// The method resolution order: this class, then its bases' linearization.
    pub fn mro(self: &Rc<Class>) -> Vec<Rc<Class>> {
        let mut out = Vec::with_capacity(self.mro_tail.len() + 1);
        out.push(self.clone());
        out.extend(self.mro_tail.iter().cloned());
        out
    }

    /// Looks an attribute up along the MRO.
    pub fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.dict.borrow().get(name) {
            return Some(v.clone());
        }
        for c in &self.mro_tail {
            if let Some(v) = c.dict.borrow().get(name) {
                return Some(v.clone());
            }
        }
        None
    }

    /// The class along the MRO whose own namespace holds `name`.
    pub fn lookup_owner(self: &Rc<Class>, name: &str) -> Option<Rc<Class>> {
        if self.dict.borrow().contains_key(name) {
            return Some(self.clone());
        }
        self.mro_tail
            .iter()
            .find(|c| c.dict.borrow().contains_key(name))
            .cloned()
    }

    /// `issubclass(self, other)`.
    pub fn is_subclass_of(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.mro_tail.iter().any(|c| Rc::ptr_eq(c, other))
    }

    /// The builtin exception type this class is or derives from, if any.
    pub fn exception_type(self: &Rc<Class>) -> Option<ExcType> {
        if let ClassKind::Exception(t) = self.kind {
            return Some(t);
        }
        self.mro_tail.iter().find_map(|c| match c.kind {
            ClassKind::Exception(t) => Some(t),
            _ => None,
        })
    }

    /// A method (or other attribute) of this class's metaclass, when the
    /// class has a metaclass other than `type`.
    #[inline]
    pub fn meta_lookup(&self, name: &str) -> Option<Value> {
        match &self.meta {
            None => None,
            Some(m) => m.lookup(name),
        }
    }

    /// Sets a class attribute.
    pub fn set_attr(&self, name: &str, value: Value) {
        // Only a function written in the language is a hook (`object`'s own
        // native `__getattribute__` is the default lookup).
        let hook = match (name, &value) {
            ("__getattribute__", Value::Function(_)) => Class::HOOK_GETATTRIBUTE,
            ("__del__", Value::Function(_)) => Class::HOOK_DEL,
            _ => 0,
        };
        self.hooks.set(self.hooks.get() | hook);
        let old = self.dict_mut().insert(name.into(), value);
        // Dropped after the borrow ends (its `__del__` may read the class).
        drop(old);
    }

    /// Deletes a class attribute, returning it.
    pub fn remove_attr(&self, name: &str) -> Option<Value> {
        self.dict_mut().shift_remove(name)
    }

    /// The class namespace for a change: the class and every subclass get a
    /// new version first (see [`Class::version`]).
    pub fn dict_mut(&self) -> std::cell::RefMut<'_, crate::value::Namespace> {
        self.modified();
        self.dict.0.borrow_mut()
    }

    /// Gives this class and its subclasses (recursively) new version tags,
    /// as CPython's `PyType_Modified` does: lookups cached under the old
    /// ones no longer match.
    pub fn modified(&self) {
        self.version.set(next_version());
        let subs: Vec<Rc<Class>> = self
            .subclasses
            .borrow()
            .iter()
            .filter_map(|w| w.upgrade())
            .collect();
        for s in subs {
            s.modified();
        }
    }
}

/// A class's namespace: readable by anyone, changed only through
/// [`Class::dict_mut`], so no change can miss giving the class a new version.
pub struct ClassDict(RefCell<crate::value::Namespace>);

impl ClassDict {
    /// The namespace, for reading.
    #[inline]
    pub fn borrow(&self) -> std::cell::Ref<'_, crate::value::Namespace> {
        self.0.borrow()
    }
}

thread_local! {
    /// The last version tag given to a class (0 is never given: a cache
    /// entry with it matches no class). A counter, not interpreter state:
    /// tags only need to be unique.
    static VERSION: Cell<u64> = const { Cell::new(0) };
}

/// A version tag no class has had before.
fn next_version() -> u64 {
    VERSION.with(|v| {
        let n = v.get() + 1;
        v.set(n);
        n
    })
}

/// The C3 linearization of `bases` (the MRO of a class with these bases,
/// after the class itself).
fn c3_merge(bases: &[Rc<Class>]) -> PyResult<Vec<Rc<Class>>> {
    let mut seqs: Vec<Vec<Rc<Class>>> = bases.iter().map(|b| b.mro()).collect();
    seqs.push(bases.to_vec());
    let mut out: Vec<Rc<Class>> = Vec::new();
    loop {
        seqs.retain(|s| !s.is_empty());
        if seqs.is_empty() {
            return Ok(out);
        }
        // The first head that is in no other sequence's tail.
        let head = seqs
            .iter()
            .map(|s| s[0].clone())
            .find(|h| !seqs.iter().any(|s| s[1..].iter().any(|c| Rc::ptr_eq(c, h))));
        let Some(head) = head else {
            let mut names: Vec<&str> = Vec::new();
            for s in &seqs {
                if !names.contains(&&*s[0].name) {
                    names.push(&s[0].name);
                }
            }
            return Err(type_error(format!(
                "Cannot create a consistent method resolution\norder (MRO) for bases {}",
                names.join(", ")
            )));
        };
        for s in seqs.iter_mut() {
            if Rc::ptr_eq(&s[0], &head) {
                s.remove(0);
            }
        }
        out.push(head);
    }
}

thread_local! {
    static OBJECT: Rc<Class> = Class::new_builtin(
        "object",
        "builtins",
        None,
        ClassKind::Builtin(ValueType::Object),
    );
}

/// The class `object`, root of every MRO (created once per thread; the
/// builtin types' module registers its methods).
pub fn object_class() -> Rc<Class> {
    OBJECT.with(|c| c.clone())
}

impl std::fmt::Debug for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<class '{}'>", self.name)
    }
}

/// An instance of a user class (or of an exception class).
#[derive(Debug)]
pub struct Instance {
    /// Its class.
    pub class: Rc<Class>,
    /// Instance attributes, by slot of the class's layout (empty once they
    /// moved to `live`).
    attrs: RefCell<Attrs>,
    /// The `__dict__` a script holds: the first read of `obj.__dict__` (or
    /// `vars(obj)`) moves the attributes into a real dict, shared with the
    /// script, so `obj.__dict__.update(...)` and `obj.__dict__[k] = v` change
    /// the object. Until then attributes live in `attrs`, keyed without
    /// hashing a Python value.
    pub live: RefCell<Option<Rc<RefCell<crate::value::Dict>>>>,
    /// Its `__del__` has been scheduled (it runs once).
    pub finalized: Cell<bool>,
    /// For an instance of a subclass of a builtin type (`class Stack(list)`):
    /// the builtin value it is underneath (the list, the str), set when the
    /// instance is made. Operations the class does not define itself act on
    /// it, as CPython's inherited slots do.
    pub base: std::cell::OnceCell<Value>,
}

thread_local! {
    /// Instances with `__del__` dropped since the last safe point: moved
    /// here by `Drop` (resurrected, as CPython does while a finalizer runs),
    /// their `__del__` run by the interpreter at its next safe point.
    static FINALIZE: RefCell<Vec<Instance>> = const { RefCell::new(Vec::new()) };
    /// Whether anything waits for finalization: instances here, or dropped
    /// suspended generators (one cheap read at each safe point).
    static PENDING: Cell<bool> = const { Cell::new(false) };
}

/// Whether objects dropped since the last safe point wait to be finalized.
#[inline(always)]
pub fn finalizers_pending() -> bool {
    PENDING.with(|c| c.get())
}

/// Marks (or clears) that objects wait to be finalized.
pub fn set_finalizers_pending(on: bool) {
    let _ = PENDING.try_with(|c| c.set(on));
}

/// The next instance whose `__del__` should run.
pub fn take_finalizable() -> Option<Instance> {
    FINALIZE.with(|q| q.borrow_mut().pop())
}

impl Drop for Instance {
    fn drop(&mut self) {
        crate::object::weakref::instance_freed(self as *const Instance as usize);
        if self.finalized.get() || self.class.hooks.get() & Class::HOOK_DEL == 0 {
            return;
        }
        let again = Instance {
            class: self.class.clone(),
            attrs: RefCell::new(std::mem::take(self.attrs.get_mut())),
            live: RefCell::new(self.live.get_mut().take()),
            finalized: Cell::new(true),
            base: std::mem::take(&mut self.base),
        };
        // At thread exit (or inside the queue's own borrow) it is dropped unfinalized.
        let _ = FINALIZE.try_with(|q| {
            if let Ok(mut q) = q.try_borrow_mut() {
                q.push(again);
                set_finalizers_pending(true);
            }
        });
    }
}

impl Instance {
    /// A fresh instance with an empty `__dict__`.
    pub fn new(class: Rc<Class>) -> Instance {
        Instance {
            class,
            attrs: RefCell::new(Attrs::default()),
            live: RefCell::new(None),
            finalized: Cell::new(false),
            base: std::cell::OnceCell::new(),
        }
    }

    /// The builtin value underneath an instance of a builtin type's
    /// subclass (see [`Instance::base`]).
    #[inline]
    pub fn builtin_base(&self) -> Option<&Value> {
        self.base.get()
    }

    /// Reads an instance attribute (not the class's).
    #[inline]
    pub fn get_attr(&self, name: &str) -> Option<Value> {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow().get_str(name);
        }
        let layout = self.class.layout.borrow();
        self.attrs.borrow().get(&layout, name).cloned()
    }

    /// Reads an instance attribute whose slot in the class's layout is
    /// `slot` (None: it has none), as the type cache found it.
    #[inline]
    pub fn get_attr_at(&self, slot: Option<usize>, name: &str) -> Option<Value> {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow().get_str(name);
        }
        self.attrs.borrow().get_at(slot, name).cloned()
    }

    /// Whether the instance itself has the attribute whose slot in the
    /// class's layout is `slot`.
    #[inline]
    pub fn has_attr_at(&self, slot: Option<usize>, name: &str) -> bool {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow().get_str(name).is_some();
        }
        self.attrs.borrow().get_at(slot, name).is_some()
    }

    /// Sets an instance attribute whose slot in the class's layout is
    /// `slot` (None: it has none yet), as the type cache found it.
    #[inline]
    pub fn set_attr_at(&self, slot: Option<usize>, name: &str, value: Value) {
        let Some(i) = slot else {
            return self.set_attr(name, value);
        };
        if let Some(d) = &*self.live.borrow() {
            d.borrow_mut().set_name(name, value);
            return;
        }
        let layout = self.class.layout.borrow();
        self.attrs.borrow_mut().set_at(&layout, i, name, value);
    }

    /// Sets an instance attribute.
    pub fn set_attr(&self, name: &str, value: Value) {
        if let Some(d) = &*self.live.borrow() {
            d.borrow_mut().set_name(name, value);
            return;
        }
        let mut layout = self.class.layout.borrow_mut();
        self.attrs.borrow_mut().set(&mut layout, name, value);
    }

    /// Whether the instance itself has the attribute.
    pub fn has_attr(&self, name: &str) -> bool {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow().get_str(name).is_some();
        }
        let layout = self.class.layout.borrow();
        self.attrs.borrow().get(&layout, name).is_some()
    }

    /// Removes an instance attribute, returning it.
    pub fn remove_attr(&self, name: &str) -> Option<Value> {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow_mut().remove(&Value::str(name)).ok().flatten();
        }
        let layout = self.class.layout.borrow();
        self.attrs.borrow_mut().remove(&layout, name)
    }

    /// The names of the instance's own attributes, in insertion order.
    pub fn attr_names(&self) -> Vec<String> {
        if let Some(d) = &*self.live.borrow() {
            return d.borrow().str_keys();
        }
        self.attrs.borrow().names(&self.class.layout.borrow())
    }

    /// `obj.__dict__ = d`: `d` becomes the attributes.
    pub fn replace_dict(&self, d: Rc<RefCell<crate::value::Dict>>) {
        *self.attrs.borrow_mut() = Attrs::default();
        *self.live.borrow_mut() = Some(d);
    }

    /// `obj.__dict__`: the live dict of the instance's attributes.
    pub fn dict_value(&self) -> Value {
        if let Some(d) = &*self.live.borrow() {
            return Value::Dict(d.clone());
        }
        let mut d = crate::value::Dict::new();
        let layout = self.class.layout.borrow();
        for (k, v) in self.attrs.borrow_mut().drain(&layout) {
            d.set_name(&k, v);
        }
        let d = Rc::new(RefCell::new(d));
        *self.live.borrow_mut() = Some(d.clone());
        Value::Dict(d)
    }
}

/// A closure cell: a captured variable (None while unbound).
pub type CellRef = Rc<RefCell<Option<Value>>>;

/// A function defined in the language (`def` or `lambda`).
pub struct Function {
    /// The definition (body and resolved scope).
    pub def: Rc<FunctionDef>,
    /// The file it was defined in.
    pub source: Rc<SourceFile>,
    /// The signature with evaluated defaults (built when `def` ran).
    pub sig: Rc<Signature>,
    /// Captured cells of free variables, in `Scope::free` order.
    pub closure: Vec<CellRef>,
    /// Values assigned to the writable attributes CPython keeps in the
    /// function object itself, outside `__dict__` ([`Function::FIELDS`]:
    /// `__name__`, `__doc__` … set by `functools.wraps`); `__annotations__`
    /// is put here when `def` runs.
    pub fields: RefCell<crate::value::Namespace>,
    /// `__dict__` (function attributes such as `__wrapped__`), made on the
    /// first attribute set or `__dict__` read; the script shares it.
    pub dict: RefCell<Option<Rc<RefCell<crate::value::Dict>>>>,
    /// The class whose body defined this function (for zero-argument `super()`).
    pub class_cell: RefCell<Option<std::rc::Weak<Class>>>,
    /// Decided once when the function object is made: not a generator, every
    /// parameter is positional and lives in local slot `i` (no cells, no closure), so a
    /// call with exactly `sig.params.len()` positional arguments can store
    /// them straight into the new frame's first locals, without binding.
    pub plain: bool,
    /// Number of plain local slots of a frame of this function (from the
    /// resolved scope, copied here so a call needs no borrow of it).
    pub num_locals: u32,
}

impl Function {
    /// The writable attributes kept outside `__dict__` (see `fields`).
    pub const FIELDS: [&'static str; 7] = [
        "__name__",
        "__qualname__",
        "__doc__",
        "__module__",
        "__defaults__",
        "__kwdefaults__",
        "__annotations__",
    ];

    /// An attribute set on the function (a field or a `__dict__` entry).
    pub fn get_attr(&self, name: &str) -> Option<Value> {
        if Self::FIELDS.contains(&name) {
            return self.fields.borrow().get(name).cloned();
        }
        let d = self.dict.borrow();
        let v = d.as_ref()?.borrow().get_str(name);
        v
    }

    /// `f.name = value`.
    pub fn set_attr(&self, name: &str, value: Value) {
        if Self::FIELDS.contains(&name) {
            self.fields.borrow_mut().insert(name.into(), value);
            return;
        }
        let old = match self.dict_value() {
            Value::Dict(d) => {
                let mut d = d.borrow_mut();
                let old = d.get_str(name);
                d.set_name(name, value);
                old
            }
            _ => None,
        };
        drop(old);
    }

    /// `del f.name`: whether there was one in `__dict__`.
    pub fn remove_attr(&self, name: &str) -> bool {
        let d = self.dict.borrow().clone();
        let old = d.and_then(|d| d.borrow_mut().remove(&Value::str(name)).ok().flatten());
        old.is_some()
    }

    /// `f.__dict__`: the live dict of the function's attributes.
    pub fn dict_value(&self) -> Value {
        let d = self
            .dict
            .borrow_mut()
            .get_or_insert_with(|| Rc::new(RefCell::new(crate::value::Dict::new())))
            .clone();
        Value::Dict(d)
    }
}

/// The Rust signature of every native function: the bound arguments in
/// parameter order (defaults filled in, `*args` as a tuple, `**kwargs` as a dict).
pub type NativeFn = fn(vm: &dyn Vm, args: &Args) -> PyResult<Value>;

/// A function implemented in Rust, possibly bound to a receiver.
pub struct NativeFunction {
    /// Its Python signature (the name in it is used in error messages, e.g.
    /// `OneDeviceStrategy.__init__`); a bound receiver fills the first parameter.
    pub sig: Rc<Signature>,
    /// The implementation.
    pub func: NativeFn,
    /// The receiver, for methods.
    pub bound: Option<Value>,
    /// User documentation (`help()`): one paragraph, then an example.
    pub doc: &'static str,
    /// `sig.params.len()` when every parameter is positional (see
    /// [`Signature::all_positional`]), else `usize::MAX`: set once here, so
    /// a call site tests its argument count against it without walking the
    /// parameters at every call.
    pub positional_arity: usize,
}

/// See [`NativeFunction::positional_arity`].
fn positional_arity(sig: &Signature) -> usize {
    if sig.all_positional() {
        sig.params.len()
    } else {
        usize::MAX
    }
}

impl NativeFunction {
    /// A function from a parsed signature.
    pub fn from_signature(sig: Signature, func: NativeFn, doc: &'static str) -> Rc<NativeFunction> {
        Rc::new(NativeFunction {
            positional_arity: positional_arity(&sig),
            sig: Rc::new(sig),
            func,
            bound: None,
            doc,
        })
    }

    /// The same function bound to a receiver.
    pub fn bind(self: &Rc<NativeFunction>, receiver: Value) -> Value {
        Value::NativeFunction(Rc::new(NativeFunction {
            sig: self.sig.clone(),
            func: self.func,
            bound: Some(receiver),
            doc: self.doc,
            positional_arity: self.positional_arity,
        }))
    }

    /// The function's name (last component of the signature name).
    pub fn name(&self) -> &str {
        self.sig.name.rsplit('.').next().unwrap_or(&self.sig.name)
    }
}

/// A function bound to a receiver (`obj.method`).
pub struct BoundMethod {
    /// The receiver (`__self__`).
    pub receiver: Value,
    /// The function (`__func__`).
    pub func: Value,
}
