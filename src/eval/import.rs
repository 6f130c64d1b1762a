//! Imports: the module cache, the module table (`modules::MODULES`: native and stdlib modules), the
//! `builtins` module, submodules reached through a native module's
//! attributes, and the modules written in the language itself (`stdlib/`),
//! each run as a function whose locals become the module's namespace.

use super::{Echo, Interp};
use crate::syntax::SourceFile;
use crate::value::{ExcType, PyErr, PyResult, Value};

impl Interp {
    /// `import a.b.c` where `a` is a native module whose attribute chain
    /// holds modules (`tensorflow.distribute`, `os.path`). A name that
    /// TensorFlow or numpy has and dist lacks is a NotImplementedError.
    fn import_submodule(&self, name: &str) -> PyResult<Value> {
        let missing = || {
            PyErr::new(
                ExcType::ModuleNotFoundError,
                format!("No module named '{}'", name),
            )
        };
        let Some((parent, last)) = name.rsplit_once('.') else {
            return Err(missing());
        };
        let p = self.import(parent)?;
        match self.lookup_attribute(&p, last) {
            Ok(Some(m)) if m.downcast::<crate::object::module::ModuleObj>().is_some() => Ok(m),
            Err(e) if e.is(ExcType::NotImplementedError) => Err(e),
            _ => Err(crate::object::tf_api::not_implemented(parent, last).unwrap_or_else(missing)),
        }
    }

    /// Imports a module by dotted name (cached).
    pub fn import(&self, name: &str) -> PyResult<Value> {
        if let Some(m) = self.modules.borrow().get(name) {
            return Ok(m.clone());
        }
        let native = match crate::modules::find(name) {
            Some(crate::modules::Source::Native(build)) => build(self),
            Some(crate::modules::Source::Alias(target)) => {
                let m = self.import(target)?;
                self.modules
                    .borrow_mut()
                    .insert(name.to_string(), m.clone());
                return Ok(m);
            }
            _ => None,
        };
        if let Some(m) = &native {
            // cached first: its companion written in the language imports it
            self.modules
                .borrow_mut()
                .insert(name.to_string(), m.clone());
            if let Err(e) = self.attach_companion(name, m) {
                self.modules.borrow_mut().remove(name);
                return Err(e);
            }
        }
        let m = match native {
            Some(m) => m,
            None if name == "builtins" => {
                // The builtin scope, as a module (`builtins.len`).
                let mut names: Vec<_> = self.builtins.iter().collect();
                names.sort_by_key(|(n, _)| **n);
                let mut b = crate::modules::ModuleBuilder::new("builtins");
                for (n, v) in names {
                    b.value(n, v.clone());
                }
                b.build()
            }
            None => match stdlib_source(name) {
                Some(source) => {
                    let m = self.load_stdlib(name, source)?;
                    // A submodule written in the language (`collections.abc`)
                    // is also an attribute of its package, as after CPython's
                    // import: set now when the package is loaded, else found
                    // in the cache when the package's attribute is first read
                    // (`lazy_submodule`), so a package may import its own
                    // submodules while it loads.
                    if let Some((parent, last)) = name.rsplit_once('.') {
                        let p = self.modules.borrow().get(parent).cloned();
                        if let Some(pm) = p
                            .as_ref()
                            .and_then(|p| p.downcast::<crate::modules::ModuleObj>())
                        {
                            pm.dict.borrow_mut().insert(last.into(), m.clone());
                        }
                    }
                    m
                }
                None => self.import_submodule(name)?,
            },
        };
        self.modules
            .borrow_mut()
            .insert(name.to_string(), m.clone());
        Ok(m)
    }
}

impl Interp {
    /// Adds to the native module `name` what its companion written in the
    /// language defines (`NAME.__py__` in the module table, when there is
    /// one): each name its `__dist_module__` returns, a dotted one into
    /// that namespace of the module (`tf.Module` is written in Python, as
    /// in TensorFlow).
    fn attach_companion(&self, name: &str, m: &Value) -> PyResult<()> {
        let companion = format!("{name}.__py__");
        let Some(source) = stdlib_source(&companion) else {
            return Ok(());
        };
        let c = self.load_stdlib(&companion, source)?;
        let Some(c) = c.downcast::<crate::modules::ModuleObj>() else {
            return Ok(());
        };
        let items: Vec<(String, Value)> = c
            .dict
            .borrow()
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        for (key, value) in items {
            let mut target = m.clone();
            let mut parts: Vec<&str> = key.split('.').collect();
            let last = parts.pop().unwrap_or_default();
            for part in parts {
                target = self.get_attribute(&target, part)?;
            }
            if let Some(t) = target.downcast::<crate::modules::ModuleObj>() {
                t.dict.borrow_mut().insert(last.into(), value);
            }
        }
        Ok(())
    }
}

impl Interp {
    /// `package.name` when the package's namespace lacks `name` but the
    /// module table (or the cache) has a submodule of that name: imported
    /// on first access, as CPython's packages hold the submodules imported
    /// so far (`keras.layers` after `import keras`).
    pub(super) fn lazy_submodule(&self, package: &str, name: &str) -> PyResult<Option<Value>> {
        let full = format!("{package}.{name}");
        if let Some(m) = self.modules.borrow().get(&full) {
            return Ok(Some(m.clone()));
        }
        if crate::modules::find(&full).is_none() && stdlib_source(&full).is_none() {
            return Ok(None);
        }
        self.import(&full).map(Some)
    }
}

/// The source of a module written in the language itself (`stdlib/`),
/// and its syntax tree as the build wrote it (`syntax::codec`).
/// For work on the stdlib, `DIST_STDLIB_DIR=stdlib` reads `NAME.dist`
/// (dots as underscores) from that folder first, so a module can be
/// edited, or a new one tried, without rebuilding (it is parsed then).
fn stdlib_source(name: &str) -> Option<(&'static str, Option<&'static [u8]>)> {
    if let Some(dir) = std::env::var_os("DIST_STDLIB_DIR") {
        let path = std::path::Path::new(&dir).join(format!("{}.dist", name.replace('.', "_")));
        if let Ok(text) = std::fs::read_to_string(path) {
            // Read once per module per process (the importer caches it).
            return Some((Box::leak(text.into_boxed_str()), None));
        }
    }
    match crate::modules::find(name)? {
        crate::modules::Source::Stdlib(text, tree) => Some((text, Some(tree))),
        crate::modules::Source::Native(_) | crate::modules::Source::Alias(_) => None,
    }
}

impl Interp {
    /// Runs a `stdlib/` module: its file defines `__dist_module__`, whose
    /// returned dict becomes the module's namespace (its functions are that
    /// function's locals, so the importing script's globals stay untouched).
    /// The module's tree is read from the bytes the build wrote when there
    /// are some (they always read back, `syntax::codec`'s test says so;
    /// the source is parsed otherwise).
    fn load_stdlib(
        &self,
        name: &str,
        (text, tree): (&'static str, Option<&'static [u8]>),
    ) -> PyResult<Value> {
        let source = SourceFile::new(format!("<stdlib {name}>"), text);
        let decoded = tree.and_then(|t| self.decode_resolved(t));
        let module = match decoded {
            Some(m) => Ok(m),
            None => self.compile_stdlib(&source),
        }
        .map_err(|e| {
            PyErr::new(
                ExcType::SyntaxError,
                format!("stdlib module {name}: {}", e.message),
            )
        })?;
        let outer = self.get_global("__dist_module__");
        self.exec_module(&source, &module, Echo::Off)?;
        let factory = self.get_global("__dist_module__");
        match outer {
            Some(v) => self.set_global("__dist_module__", v),
            None => self.del_global("__dist_module__"),
        }
        let Some(factory) = factory else {
            return Err(PyErr::new(
                ExcType::ImportError,
                format!("stdlib module {name} defines no __dist_module__"),
            ));
        };
        let ns = self.call_value(&factory, Vec::new(), Vec::new())?;
        let Value::Dict(d) = ns else {
            return Err(PyErr::new(
                ExcType::ImportError,
                format!("stdlib module {name}: __dist_module__ must return a dict"),
            ));
        };
        let m = crate::modules::ModuleObj {
            name: name.into(),
            dict: Default::default(),
            on_setattr: None,
        };
        for (k, v) in d.borrow().items() {
            if let Value::Str(k) = k {
                m.dict.borrow_mut().insert(k.as_str().into(), v);
            }
        }
        Ok(Value::native(m))
    }
}

#[cfg(test)]
mod tests {
    /// Every name a standard-library module reads as a builtin (a name its
    /// functions and classes use without binding it: `Slot::Builtin`, never the
    /// script's globals) is one the interpreter has: a typo or a name the module
    /// forgot to import would be a NameError only when that line runs.
    #[test]
    fn stdlib_reads_only_real_builtins() {
        use std::cell::RefCell;
        use std::rc::Rc;
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        let out: Rc<RefCell<Vec<u8>>> = Rc::new(RefCell::new(Vec::new()));
        let interp = super::Interp::new(out, Arc::new(AtomicBool::new(false)));
        let builtins: std::collections::HashSet<String> =
            interp.builtin_names().into_iter().collect();
        let mut checked = 0;
        for (name, source) in crate::modules::MODULES {
            let crate::modules::Source::Stdlib(text, _) = source else {
                continue;
            };
            let module = crate::syntax::parse_module(text).expect("a stdlib module parses");
            let mut globals = crate::resolve::GlobalNames::default();
            crate::resolve::resolve_stdlib_module(&module, &mut globals).expect("resolves");
            // the resolved tree's names as its Debug form writes them
            let tree = format!("{module:?}");
            for part in tree.split("Name { id: \"").skip(1) {
                let Some((id, rest)) = part.split_once('"') else {
                    continue;
                };
                let slot = rest.split_once("value: ").map_or("", |(_, s)| s);
                if slot.starts_with("Builtin(") || slot.starts_with("ClassBuiltin(") {
                    let is_class = slot.starts_with("ClassBuiltin(");
                    // (a class body's own names are found in its namespace first)
                    assert!(
                        builtins.contains(id) || is_class,
                        "stdlib module {name} reads '{id}', which is not a builtin"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} builtin reads found");
    }
}
