//! Names → slots. After parsing, one pass decides for every name where it
//! lives (a frame local, a cell shared with closures, a module global, a class
//! namespace entry) with Python's scoping rules, so evaluation never looks a
//! local up by string. Also rejects what Python rejects at compile time
//! (`nonlocal` without a binding, `return` outside a function is the parser's).

mod walk;

use std::rc::Rc;

use indexmap::IndexMap;

use crate::syntax::ast::Module;
use crate::syntax::SyntaxError;

/// The interpreter's table of module-level names. Indices are stable for the
/// life of the interpreter (the REPL adds names as it goes).
#[derive(Default, Debug)]
pub struct GlobalNames {
    names: IndexMap<Rc<str>, ()>,
}

impl GlobalNames {
    /// The slot index of a global name, adding it if new.
    pub fn intern(&mut self, name: &Rc<str>) -> u32 {
        if let Some(i) = self.names.get_index_of(name) {
            return i as u32;
        }
        self.names.insert(name.clone(), ());
        (self.names.len() - 1) as u32
    }

    /// The index of a name, if it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.names.get_index_of(name).map(|i| i as u32)
    }

    /// The name of a slot.
    pub fn name(&self, idx: u32) -> Rc<str> {
        self.names
            .get_index(idx as usize)
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| "?".into())
    }

    /// Every name, in slot order.
    pub fn names(&self) -> Vec<Rc<str>> {
        self.names.keys().cloned().collect()
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Resolves every name of a module in place (the AST's `Cell`s), interning
/// module-level names into `globals`.
pub fn resolve_module(module: &Module, globals: &mut GlobalNames) -> Result<(), SyntaxError> {
    walk::Resolver::new(globals, false).module(module)
}

/// [`resolve_module`] for a standard-library module: a name its functions
/// and classes read without binding (or declaring `global`) is a builtin
/// ([`Slot::Builtin`](crate::syntax::ast::Slot)), so a script's globals
/// never shadow the builtins the library uses.
pub fn resolve_stdlib_module(
    module: &Module,
    globals: &mut GlobalNames,
) -> Result<(), SyntaxError> {
    walk::Resolver::new(globals, true).module(module)
}
