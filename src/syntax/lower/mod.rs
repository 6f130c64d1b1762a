//! Lowering: pest pairs to the typed AST. This module tree is the only code
//! that touches pest `Pair`s; it also turns pest failures into CPython's
//! syntax error messages (`errors`), and checks what the grammar leaves
//! permissive on purpose (assignment targets, argument order: `target`,
//! `params`). Names are left `Slot::Unresolved` for the resolver.
//!
//! Split: `stmt` (statements), `expr` (expressions, the Pratt parser),
//! `params` (parameters and call arguments), `literal` (numbers, strings,
//! f-strings), `target` (assignment and deletion targets), `pattern`
//! (`match` statements), `errors`.

mod atom;
mod errors;
mod expr;
mod literal;
mod params;
mod pattern;
mod stmt;
mod target;

pub(crate) use literal::intern_constant;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use pest::iterators::Pair;
use pest::Parser;

use super::ast::{Expr, ExprKind, Module, Name, Slot};
use super::error::SyntaxError;
use super::layout::{self, Layout};
use super::parser::{DistParser, Rule};
use super::span::Span;

/// Result of a lowering step.
type R<T> = Result<T, SyntaxError>;

/// Parses a whole source file into a [`Module`].
///
/// Every node's span is the byte range of its text in `source`. Names are
/// left unresolved and scopes empty (the resolver fills them in).
pub fn parse_module(source: &str) -> Result<Module, SyntaxError> {
    // pest and the lowering recurse once per nesting level (brackets, `not`,
    // lambdas...). The layout pass bounds the depth, and the parse runs on a
    // stack segment of its own when the caller's thread has less than that
    // left (a 2 MiB test thread in a debug build). Only then: the
    // interpreter's thread has room, and a segment is an mmap that fails
    // (stacker panics) once a script's data fills the address space, so a
    // REPL line after a MemoryError could not be parsed.
    stacker::maybe_grow(PARSE_STACK, PARSE_STACK, || parse_module_inner(source))
}

/// Size in bytes of the pieces of a file parsed at once.
const CHUNK: usize = 16 << 10;

/// Stack reserved for one parse (only the pages used are committed).
const PARSE_STACK: usize = 64 << 20;

fn parse_module_inner(source: &str) -> Result<Module, SyntaxError> {
    let layout = layout::layout(source)?;
    let scopes = RefCell::new(vec![ScopeCtx {
        kind: ScopeKind::Module,
        qualname: Rc::from(""),
        loops: 0,
        yields: false,
        is_async: false,
        star_loops: None,
    }]);
    let strings = RefCell::new(std::collections::HashMap::new());
    let mut body = Vec::new();
    // Top-level statements are parsed a few at a time: pest's token queue for
    // a whole large file would cost far more memory than the AST.
    let cuts = layout.chunks();
    let mut start = 0;
    for (i, &end) in cuts.iter().enumerate().skip(1) {
        let last = i + 1 == cuts.len();
        if !last && end - start < CHUNK {
            continue;
        }
        let chunk = &layout.text[start..end];
        let pairs = match DistParser::parse(Rule::file, chunk) {
            Ok(pairs) => pairs,
            Err(_) => {
                let e = parse_detailed(Rule::file, chunk);
                return Err(errors::classify(source, &layout, &e, start));
            }
        };
        let lowerer = Lowerer {
            src: source,
            map: Map::Layout(&layout, start),
            scopes: &scopes,
            strings: &strings,
            async_def: std::cell::Cell::new(false),
        };
        for file in pairs {
            lowerer.statements(file.into_inner(), &mut body)?;
        }
        start = end;
    }
    Ok(Module { body })
}

/// Parses again, known to fail, with pest's token-level error tracking on:
/// it records the furthest offset any literal was tried at, which is where
/// CPython reports "invalid syntax". (Off for the first parse: it is slow.)
fn parse_detailed(rule: Rule, text: &str) -> pest::error::Error<Rule> {
    // The setting is process-wide; only holders of this lock change it, so
    // a detailed parse always runs with it on.
    static DETAIL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = DETAIL.lock().unwrap_or_else(|p| p.into_inner());
    pest::set_error_detail(true);
    let result = DistParser::parse(rule, text);
    pest::set_error_detail(false);
    match result {
        Err(e) => e,
        Ok(_) => pest::error::Error::new_from_pos(
            pest::error::ErrorVariant::CustomError {
                message: "parse succeeded on retry".into(),
            },
            pest::Position::from_start(text),
        ),
    }
}

/// How offsets in the parsed text map to source offsets.
#[derive(Clone, Copy)]
enum Map<'a> {
    /// The main parse of the layout text from this offset on (through the
    /// layout's inserted markers).
    Layout(&'a Layout, usize),
    /// An f-string field: parsed from a copy that starts at this source offset.
    Offset(usize),
}

/// What kind of scope encloses the code being lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Function,
    Lambda,
    Class,
    Comprehension,
}

/// One enclosing scope, for qualnames and for `return`/`break` checks.
struct ScopeCtx {
    kind: ScopeKind,
    qualname: Rc<str>,
    /// How many loops enclose the current statement inside this scope.
    loops: u32,
    /// Whether a `yield` was lowered directly in this scope.
    yields: bool,
    /// An `async def`'s body (where `await` may appear).
    is_async: bool,
    /// Inside an `except*` block: the loop depth at its start (a `break` or
    /// `continue` must stay inside a loop of the block, and `return` is
    /// refused: CPython's compile-time rule).
    star_loops: Option<u32>,
}

/// The lowering state. Methods take `&self` (state lives in cells) so that
/// the Pratt parser's closures can all borrow it.
struct Lowerer<'a> {
    src: &'a str,
    map: Map<'a>,
    scopes: &'a RefCell<Vec<ScopeCtx>>,
    /// The module's string constants: equal literals are one object, as
    /// CPython's compiler makes them (`a = "hi"; b = "hi"; a is b`).
    strings: &'a RefCell<std::collections::HashMap<Rc<str>, Rc<String>>>,
    /// Set while the `def` of an `async def` is lowered.
    async_def: std::cell::Cell<bool>,
}

impl<'a> Lowerer<'a> {
    /// Source offset of a parsed-text offset.
    fn pos(&self, t: usize) -> usize {
        match self.map {
            Map::Layout(l, base) => l.to_source(base + t),
            Map::Offset(base) => base + t,
        }
    }

    /// Source span of a pair. pest lets a rule end after the whitespace it
    /// skipped before a trailing optional element; that is trimmed off.
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        let text = s.as_str();
        let trimmed = text.trim_end_matches([' ', '\t', '\x0c', '\n', '\x01', '\x02']);
        let end = s.start() + trimmed.len();
        Span::new(self.pos(s.start()), self.pos(end))
    }

    /// A comma-separated list, each item lowered by `item`: the one item
    /// itself when there is one and no trailing comma, else a Tuple of them.
    fn tuple_or_one<'i>(
        &self,
        span: Span,
        pairs: impl IntoIterator<Item = Pair<'i, Rule>>,
        item: impl Fn(Pair<'i, Rule>) -> R<Expr>,
    ) -> R<Expr> {
        let mut elts = Vec::new();
        let mut comma = false;
        for c in pairs {
            if c.as_rule() == Rule::trailing_comma {
                comma = true;
            } else {
                elts.push(item(c)?);
            }
        }
        if elts.len() == 1 && !comma {
            return elts.pop().ok_or_else(|| shape(span, "expression"));
        }
        Ok(Expr {
            kind: ExprKind::Tuple(elts),
            span,
        })
    }

    /// A fresh unresolved name.
    fn name(id: &str) -> Name {
        Name {
            id: Rc::from(id),
            slot: Cell::new(Slot::Unresolved),
        }
    }

    /// Python's private name mangling: inside a class (at any depth of
    /// nested functions), `__x` (not ending in `__`) becomes `_Class__x`.
    fn mangle(&self, id: &str) -> Rc<str> {
        if !id.starts_with("__") || id.ends_with("__") || id.contains('.') {
            return Rc::from(id);
        }
        let scopes = self.scopes.borrow();
        let class = scopes.iter().rev().find(|s| s.kind == ScopeKind::Class);
        let Some(class) = class else {
            return Rc::from(id);
        };
        let cname = class.qualname.rsplit('.').next().unwrap_or("");
        let stripped = cname.trim_start_matches('_');
        if stripped.is_empty() {
            return Rc::from(id);
        }
        Rc::from(format!("_{stripped}{id}"))
    }

    /// A fresh unresolved name, mangled when private (see [`Self::mangle`]).
    fn mangled_name(&self, id: &str) -> Name {
        Name {
            id: self.mangle(id),
            slot: Cell::new(Slot::Unresolved),
        }
    }

    /// The qualname a new def/class/lambda named `name` gets here.
    fn qualname_for(&self, name: &str) -> Rc<str> {
        let scopes = self.scopes.borrow();
        let Some(top) = scopes.last() else {
            return Rc::from(name);
        };
        match top.kind {
            // A `stdlib/` module's body is its `__dist_module__` function:
            // what it defines is named as at a module's top level.
            ScopeKind::Module => Rc::from(name),
            ScopeKind::Function if &*top.qualname == "__dist_module__" => Rc::from(name),
            ScopeKind::Class | ScopeKind::Comprehension => {
                Rc::from(format!("{}.{name}", top.qualname))
            }
            ScopeKind::Function | ScopeKind::Lambda => {
                Rc::from(format!("{}.<locals>.{name}", top.qualname))
            }
        }
    }

    /// Runs `f` inside a new scope.
    fn in_scope<T>(&self, kind: ScopeKind, qualname: Rc<str>, f: impl FnOnce() -> R<T>) -> R<T> {
        self.in_scope_async(kind, qualname, false, f)
            .map(|(out, _)| out)
    }

    /// Runs `f` inside a new scope (an `async def`'s body when `is_async`);
    /// also says whether the scope's own code holds a `yield` (which makes a
    /// function a generator).
    fn in_scope_async<T>(
        &self,
        kind: ScopeKind,
        qualname: Rc<str>,
        is_async: bool,
        f: impl FnOnce() -> R<T>,
    ) -> R<(T, bool)> {
        self.scopes.borrow_mut().push(ScopeCtx {
            kind,
            qualname,
            loops: 0,
            yields: false,
            is_async,
            star_loops: None,
        });
        let out = f();
        let yields = self.scopes.borrow_mut().pop().is_some_and(|s| s.yields);
        out.map(|o| (o, yields))
    }

    /// Runs `f` with one more enclosing loop.
    fn in_loop<T>(&self, f: impl FnOnce() -> R<T>) -> R<T> {
        self.adjust_loops(1);
        let out = f();
        self.adjust_loops(-1);
        out
    }

    /// Runs `f` (the body of an `except*` clause) with `break`, `continue`
    /// and `return` that would leave it refused.
    fn in_except_star<T>(&self, f: impl FnOnce() -> R<T>) -> R<T> {
        let saved = self.scopes.borrow_mut().last_mut().map(|top| {
            let saved = top.star_loops;
            top.star_loops = Some(top.loops);
            saved
        });
        let out = f();
        if let (Some(saved), Some(top)) = (saved, self.scopes.borrow_mut().last_mut()) {
            top.star_loops = saved;
        }
        out
    }

    /// Whether a `break`/`continue` (`jump`) or `return` here would leave
    /// an `except*` block.
    fn leaves_except_star(&self, jump: bool) -> bool {
        self.scopes
            .borrow()
            .last()
            .is_some_and(|s| match s.star_loops {
                Some(n) => !jump || s.loops == n,
                None => false,
            })
    }

    fn adjust_loops(&self, by: i32) {
        if let Some(top) = self.scopes.borrow_mut().last_mut() {
            top.loops = top.loops.saturating_add_signed(by);
        }
    }

    /// Whether the innermost scope is an `async def`'s body.
    fn in_async(&self) -> bool {
        self.scopes.borrow().last().is_some_and(|s| s.is_async)
    }

    fn scope_kind(&self) -> ScopeKind {
        self.scopes
            .borrow()
            .last()
            .map_or(ScopeKind::Module, |s| s.kind)
    }

    fn loops(&self) -> u32 {
        self.scopes.borrow().last().map_or(0, |s| s.loops)
    }
}

/// Whether a rule is punctuation or a keyword that lowering skips.
fn is_token(r: Rule) -> bool {
    matches!(
        r,
        Rule::NEWLINE
            | Rule::INDENT
            | Rule::DEDENT
            | Rule::EOI
            | Rule::assign_eq
            | Rule::FALSE
            | Rule::NONE
            | Rule::TRUE
            | Rule::AND
            | Rule::AS
            | Rule::ASSERT
            | Rule::AWAIT
            | Rule::BREAK
            | Rule::CLASS
            | Rule::CONTINUE
            | Rule::DEF
            | Rule::DEL
            | Rule::ELIF
            | Rule::ELSE
            | Rule::EXCEPT
            | Rule::FINALLY
            | Rule::FOR
            | Rule::FROM
            | Rule::GLOBAL
            | Rule::IF
            | Rule::IMPORT
            | Rule::IN
            | Rule::IS
            | Rule::LAMBDA
            | Rule::NONLOCAL
            | Rule::NOT
            | Rule::OR
            | Rule::PASS
            | Rule::RAISE
            | Rule::RETURN
            | Rule::TRY
            | Rule::WHILE
            | Rule::WITH
            | Rule::YIELD
            | Rule::MATCH_KW
            | Rule::CASE_KW
    )
}

/// The meaningful children of a pair (tokens and keywords skipped).
fn kids<'i>(p: Pair<'i, Rule>) -> impl Iterator<Item = Pair<'i, Rule>> {
    p.into_inner().filter(|c| !is_token(c.as_rule()))
}

/// An internal error: the grammar produced a shape lowering does not expect.
#[cold]
fn shape(span: Span, what: &str) -> SyntaxError {
    SyntaxError::new(
        format!("invalid syntax (internal: unexpected {what})"),
        span,
    )
}
