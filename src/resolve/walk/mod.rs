//! The resolver's walk. Each function-like scope (def, lambda, comprehension)
//! is pre-scanned for its bindings before its body is walked, so a name
//! assigned anywhere in a function is local everywhere in it. References to
//! enclosing functions' locals turn those locals into cells. Class bodies run
//! in the enclosing frame (their own names go to the class namespace), so a
//! class scope is transparent to the scopes around it. Slots are assigned
//! after the whole module is walked, when every cell is known.
//!
//! This module holds the scopes, the resolution of each name occurrence and
//! the slot assignment; the pre-scan is in `scan.rs`, the walk in `stmt.rs`
//! and `expr.rs`.

mod expr;
mod scan;
mod stmt;

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use indexmap::IndexMap;

use super::GlobalNames;
use crate::syntax::ast::*;
use crate::syntax::SyntaxError;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Module,
    Function,
    Class,
}

#[derive(Default, Clone, Copy)]
struct Var {
    is_cell: bool,
    is_param: bool,
}

struct ScopeData<'a> {
    kind: Kind,
    parent: Option<usize>,
    /// Names bound in this scope (function: locals; class: class namespace).
    locals: IndexMap<Rc<str>, Var>,
    /// Parameters in binding order.
    params: Vec<Rc<str>>,
    globals: HashSet<Rc<str>>,
    nonlocals: HashSet<Rc<str>>,
    /// Free variables (captured from an enclosing function), in order.
    free: IndexMap<Rc<str>, ()>,
    out: Option<&'a RefCell<Scope>>,
    /// A comprehension's implicit function scope.
    comp: bool,
    /// Every name bound so far in this scope (also at module level).
    assigned: HashSet<Rc<str>>,
}

impl<'a> ScopeData<'a> {
    fn new(kind: Kind, parent: Option<usize>, out: Option<&'a RefCell<Scope>>) -> Self {
        ScopeData {
            kind,
            parent,
            locals: IndexMap::new(),
            params: Vec::new(),
            globals: HashSet::new(),
            nonlocals: HashSet::new(),
            free: IndexMap::new(),
            out,
            comp: false,
            assigned: HashSet::new(),
        }
    }
}

pub(super) struct Resolver<'a, 'g> {
    globals: &'g mut GlobalNames,
    scopes: Vec<ScopeData<'a>>,
    /// Every name occurrence and the scope it is resolved in.
    uses: Vec<(&'a Name, usize)>,
    cur: usize,
    /// Resolving a standard-library module: names its functions and classes
    /// read without binding are builtins, never globals.
    builtins_only: bool,
}

enum Binding {
    Local,
    Global,
    Free,
}

impl<'a, 'g> Resolver<'a, 'g> {
    pub(super) fn new(globals: &'g mut GlobalNames, builtins_only: bool) -> Self {
        Resolver {
            globals,
            scopes: vec![ScopeData::new(Kind::Module, None, None)],
            uses: Vec::new(),
            cur: 0,
            builtins_only,
        }
    }

    pub(super) fn module(mut self, m: &'a Module) -> Result<(), SyntaxError> {
        self.scan_block(&m.body)?;
        self.stmts(&m.body)?;
        self.finish();
        Ok(())
    }

    fn push(&mut self, kind: Kind, out: Option<&'a RefCell<Scope>>) -> usize {
        self.scopes.push(ScopeData::new(kind, Some(self.cur), out));
        let id = self.scopes.len() - 1;
        self.cur = id;
        id
    }

    fn pop(&mut self) {
        self.cur = self.scopes[self.cur].parent.unwrap_or(0);
    }

    /// Records a name occurrence in the current scope, marking closures.
    fn name(&mut self, n: &'a Name) {
        let scope = self.effective_scope(&n.id);
        if let Binding::Free = self.binding(scope, &n.id) {
            self.capture(scope, &n.id);
        }
        self.uses.push((n, scope));
    }

    /// Class scopes are transparent for names they do not bind.
    fn effective_scope(&self, name: &Rc<str>) -> usize {
        let mut s = self.cur;
        while self.scopes[s].kind == Kind::Class && !self.scopes[s].locals.contains_key(name) {
            s = self.scopes[s].parent.unwrap_or(0);
        }
        s
    }

    fn binding(&self, scope: usize, name: &Rc<str>) -> Binding {
        let s = &self.scopes[scope];
        match s.kind {
            Kind::Module => return Binding::Global,
            Kind::Class => return Binding::Local,
            Kind::Function => {}
        }
        if s.globals.contains(name) {
            return Binding::Global;
        }
        if s.nonlocals.contains(name) {
            return Binding::Free;
        }
        if s.locals.contains_key(name) {
            return Binding::Local;
        }
        // Free if some enclosing function binds it.
        let mut p = s.parent;
        while let Some(i) = p {
            let e = &self.scopes[i];
            match e.kind {
                Kind::Module => return Binding::Global,
                Kind::Class => {}
                Kind::Function => {
                    if e.globals.contains(name) {
                        return Binding::Global;
                    }
                    if e.locals.contains_key(name) || e.nonlocals.contains(name) {
                        return Binding::Free;
                    }
                }
            }
            p = e.parent;
        }
        Binding::Global
    }

    /// Makes `name` a free variable of `scope` and of every function scope up
    /// to the one that owns it, which gets a cell.
    fn capture(&mut self, scope: usize, name: &Rc<str>) {
        let mut s = scope;
        loop {
            if self.scopes[s].kind == Kind::Function {
                let owns = self.scopes[s].locals.contains_key(name)
                    && !self.scopes[s].nonlocals.contains(name);
                if owns {
                    if let Some(v) = self.scopes[s].locals.get_mut(name) {
                        v.is_cell = true;
                    }
                    return;
                }
                self.scopes[s].free.entry(name.clone()).or_default();
            }
            match self.scopes[s].parent {
                Some(p) => s = p,
                None => return,
            }
        }
    }

    // ---- slot assignment --------------------------------------------------------

    fn finish(mut self) {
        // Assign slots per function scope.
        let mut slot_maps: Vec<IndexMap<Rc<str>, Slot>> = Vec::with_capacity(self.scopes.len());
        for s in &self.scopes {
            let mut map = IndexMap::new();
            if s.kind == Kind::Function {
                let (mut nl, mut nc) = (0u32, 0u32);
                for (name, var) in &s.locals {
                    let slot = if var.is_cell {
                        nc += 1;
                        Slot::Cell(nc - 1)
                    } else {
                        nl += 1;
                        Slot::Local(nl - 1)
                    };
                    map.insert(name.clone(), slot);
                }
                for (i, name) in s.free.keys().enumerate() {
                    map.insert(name.clone(), Slot::Cell(nc + i as u32));
                }
                if let Some(out) = s.out {
                    let mut o = out.borrow_mut();
                    o.num_locals = nl;
                    o.num_cells = nc;
                    o.param_slots = s
                        .params
                        .iter()
                        .map(|p| map.get(p).copied().unwrap_or_default())
                        .collect();
                    o.local_names = map.keys().cloned().collect();
                    o.local_slots = map.iter().map(|(k, v)| (k.clone(), *v)).collect();
                }
            }
            slot_maps.push(map);
        }
        // Free-variable sources: the slot in the parent function scope.
        for (i, s) in self.scopes.iter().enumerate() {
            if let Some(out) = s.out {
                let mut parent = s.parent;
                while let Some(p) = parent {
                    if self.scopes[p].kind == Kind::Function {
                        break;
                    }
                    parent = self.scopes[p].parent;
                }
                let free = s
                    .free
                    .keys()
                    .map(|n| {
                        parent
                            .and_then(|p| slot_maps[p].get(n).copied())
                            .unwrap_or_default()
                    })
                    .collect();
                out.borrow_mut().free = free;
                let _ = i;
            }
        }
        let uses = std::mem::take(&mut self.uses);
        for (name, scope) in uses {
            let s = &self.scopes[scope];
            let slot = match s.kind {
                Kind::Module => Slot::Global(self.globals.intern(&name.id)),
                Kind::Class if self.builtins_only => {
                    Slot::ClassBuiltin(self.globals.intern(&name.id))
                }
                Kind::Class => Slot::ClassBody(self.globals.intern(&name.id)),
                Kind::Function => match slot_maps[scope].get(&name.id) {
                    Some(slot) if !s.globals.contains(&name.id) => *slot,
                    _ if self.builtins_only && !s.globals.contains(&name.id) => {
                        Slot::Builtin(self.globals.intern(&name.id))
                    }
                    _ => Slot::Global(self.globals.intern(&name.id)),
                },
            };
            name.slot.set(slot);
        }
    }
}
