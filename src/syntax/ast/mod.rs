//! The abstract syntax tree. Node names follow Python's `ast` module
//! (<https://docs.python.org/3/library/ast.html>); every node carries a span.
//! `lower.rs` builds it from pest pairs; `resolve` fills in the [`Slot`] of
//! every name and the [`Scope`] of every function-like node; `eval` walks it.

use std::cell::Cell;
use std::rc::Rc;

use dist_macros::Codec;

use super::span::Span;

mod ops;
pub use ops::{BinOp, BoolOp, CmpOp, UnaryOp};

/// An identifier with the span where it was written.
#[derive(Clone, Debug, Codec)]
pub struct Ident {
    /// The name.
    pub name: Rc<str>,
    /// Where it was written.
    pub span: Span,
}

/// Where a name lives at run time, decided by the resolver (its `Codec` is
/// by hand: a global slot is renumbered as it is read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Slot {
    /// Not resolved yet (the lowering output).
    #[default]
    Unresolved,
    /// A plain local of the current function frame.
    Local(u32),
    /// A cell of the current frame: a local captured by an inner function, or
    /// a free variable captured from an enclosing function (after the frame's own cells).
    Cell(u32),
    /// A module-level name: index into the interpreter's global table.
    Global(u32),
    /// A name inside a class body: looked up in the class namespace by name,
    /// then as the global with this index.
    ClassBody(u32),
    /// A name a standard-library function reads without binding it: the
    /// builtin with this index (the stdlib never sees the script's globals:
    /// a script's `list = [...]` does not change what `list` is in Keras).
    Builtin(u32),
    /// [`Slot::ClassBody`] in a standard-library class: the class namespace,
    /// then the builtin with this index.
    ClassBuiltin(u32),
}

/// A name reference (a `Name` node's payload and binding targets).
#[derive(Debug, Codec)]
pub struct Name {
    /// The identifier.
    pub id: Rc<str>,
    /// Filled in by the resolver.
    pub slot: Cell<Slot>,
}

/// What the resolver records about a function-like scope (def, lambda, comprehension).
#[derive(Clone, Debug, Default, Codec)]
pub struct Scope {
    /// Number of plain local slots.
    pub num_locals: u32,
    /// Number of cells the frame owns (captured locals), including parameter cells.
    pub num_cells: u32,
    /// For each parameter (in binding order), where it is stored.
    pub param_slots: Vec<Slot>,
    /// Free variables: for each, the slot in the *enclosing* scope whose cell is
    /// captured when the function object is created. In the inner frame they are
    /// cells `num_cells..num_cells + free.len()`.
    pub free: Vec<Slot>,
    /// Names of the scope's locals, cells and free variables (for messages).
    pub local_names: Vec<Rc<str>>,
    /// The same names with their slots (for `locals()`, `vars()`, `dir()`).
    pub local_slots: Vec<(Rc<str>, Slot)>,
}

/// A whole source file.
#[derive(Debug, Codec)]
pub struct Module {
    /// The statements.
    pub body: Vec<Stmt>,
}

/// A statement with its span.
#[derive(Debug, Codec)]
pub struct Stmt {
    /// What kind of statement.
    pub kind: StmtKind,
    /// Covers the whole statement (the first line for compound statements' headers is `header`).
    pub span: Span,
}

/// [Statements](https://docs.python.org/3/library/ast.html#statements).
// `repr(u8)`: a tag byte of its own, so the evaluator's dispatch is one
// load and a jump table (with the tag folded into a field's niche, each
// `match` first decoded it: a subtract, a compare and a select).
#[derive(Debug, Codec)]
#[repr(u8)]
pub enum StmtKind {
    /// An expression statement.
    Expr(Expr),
    /// `a = b = value`: one or more targets.
    Assign {
        /// Targets, left to right.
        targets: Vec<Expr>,
        /// The assigned value.
        value: Expr,
    },
    /// `x += 1`.
    AugAssign {
        /// A Name, Attribute or Subscript.
        target: Expr,
        /// The operator.
        op: BinOp,
        /// The right-hand side.
        value: Expr,
    },
    /// `x: int = 1` (the annotation is evaluated for nothing and ignored).
    AnnAssign {
        /// The target.
        target: Expr,
        /// The annotation.
        annotation: Expr,
        /// The value, if any.
        value: Option<Expr>,
    },
    /// `def` (possibly decorated).
    FunctionDef(Rc<FunctionDef>),
    /// `class` (possibly decorated).
    ClassDef(Rc<ClassDef>),
    /// `return [value]`.
    Return(Option<Expr>),
    /// `del a, b[0]`.
    Delete(Vec<Expr>),
    /// `if test: body else: orelse` (`elif` nests in orelse).
    If {
        /// Condition.
        test: Expr,
        /// Then-branch.
        body: Vec<Stmt>,
        /// Else-branch (may be empty).
        orelse: Vec<Stmt>,
    },
    /// `for target in iter: body else: orelse`.
    For {
        /// Loop target.
        target: Expr,
        /// Iterated expression.
        iter: Expr,
        /// Loop body.
        body: Vec<Stmt>,
        /// Runs when the loop ends without `break`.
        orelse: Vec<Stmt>,
    },
    /// `while test: body else: orelse`.
    While {
        /// Condition.
        test: Expr,
        /// Loop body.
        body: Vec<Stmt>,
        /// Runs when the loop ends without `break`.
        orelse: Vec<Stmt>,
    },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `pass`.
    Pass,
    /// `async for target in iter: body else: orelse` (in an `async def`).
    AsyncFor {
        /// Loop target.
        target: Expr,
        /// The asynchronous iterable.
        iter: Expr,
        /// Loop body.
        body: Vec<Stmt>,
        /// Runs when the loop ends without `break`.
        orelse: Vec<Stmt>,
    },
    /// `with a as x, b: body`.
    With {
        /// The context managers.
        items: Vec<WithItem>,
        /// The body.
        body: Vec<Stmt>,
        /// `async with` (in an `async def`): `__aenter__`/`__aexit__`, awaited.
        is_async: bool,
    },
    /// `try/except/else/finally`.
    Try {
        /// Guarded body.
        body: Vec<Stmt>,
        /// Except clauses.
        handlers: Vec<ExceptHandler>,
        /// Runs when the body raised nothing.
        orelse: Vec<Stmt>,
        /// Always runs.
        finalbody: Vec<Stmt>,
        /// `except*` clauses (Python's `TryStar` node): the handlers match
        /// the leaves of an exception group, each one the part it matches.
        star: bool,
    },
    /// `raise [exc [from cause]]`.
    Raise {
        /// The exception (None: re-raise).
        exc: Option<Expr>,
        /// The `from` cause.
        cause: Option<Expr>,
    },
    /// `assert test, msg`.
    Assert {
        /// Condition.
        test: Expr,
        /// Message.
        msg: Option<Expr>,
    },
    /// `import a.b as c, d`.
    Import(Vec<Alias>),
    /// `from a.b import c as d, e`.
    ImportFrom {
        /// The dotted module name.
        module: Rc<str>,
        /// Imported names (none for `*`).
        names: Vec<Alias>,
        /// `from m import *`: the span of the `*` (module level only).
        star: Option<Span>,
    },
    /// `match subject: case pattern if guard: body ...`.
    Match {
        /// The subject (evaluated once).
        subject: Expr,
        /// The `case` clauses, in order.
        cases: Vec<MatchCase>,
    },
    /// `global a, b`.
    Global(Vec<Ident>),
    /// `nonlocal a, b`.
    Nonlocal(Vec<Ident>),
}

/// A `with` item.
#[derive(Debug, Codec)]
pub struct WithItem {
    /// The context manager expression.
    pub context_expr: Expr,
    /// `as` target.
    pub optional_vars: Option<Expr>,
}

/// An `except` clause.
#[derive(Debug, Codec)]
pub struct ExceptHandler {
    /// The exception type expression (None: bare `except:`).
    pub type_: Option<Expr>,
    /// `as name` target (a Name expression).
    pub name: Option<Expr>,
    /// Handler body.
    pub body: Vec<Stmt>,
    /// Span of the `except ...:` header.
    pub span: Span,
}

/// A [`case`](https://docs.python.org/3/library/ast.html#ast.match_case) clause.
#[derive(Debug, Codec)]
pub struct MatchCase {
    /// The pattern.
    pub pattern: Pattern,
    /// The `if` guard.
    pub guard: Option<Expr>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// A pattern with its span.
#[derive(Debug, Codec)]
pub struct Pattern {
    /// What kind of pattern.
    pub kind: PatternKind,
    /// Where it was written.
    pub span: Span,
}

/// [Patterns](https://docs.python.org/3/library/ast.html#ast.MatchValue) (PEP 634).
#[derive(Debug, Codec)]
pub enum PatternKind {
    /// A literal or dotted value, compared with `==`.
    MatchValue(Expr),
    /// `None`, `True` or `False`, compared with `is`.
    MatchSingleton(Constant),
    /// `[p, *rest]` / `(p, q)`: matches lists, tuples and ranges, not str/bytes.
    MatchSequence(Vec<Pattern>),
    /// `*name` (None: `*_`) inside a sequence pattern.
    MatchStar(Option<Name>),
    /// `{key: p, **rest}`.
    MatchMapping {
        /// Keys: literals or dotted values.
        keys: Vec<Expr>,
        /// One pattern per key.
        patterns: Vec<Pattern>,
        /// `**rest`.
        rest: Option<Name>,
    },
    /// `Cls(p, attr=q)`.
    MatchClass {
        /// The class (a name or dotted name).
        cls: Expr,
        /// Positional sub-patterns (named by `__match_args__`).
        patterns: Vec<Pattern>,
        /// Keyword attribute names.
        kwd_attrs: Vec<Ident>,
        /// One pattern per keyword attribute.
        kwd_patterns: Vec<Pattern>,
    },
    /// `p as name`, a capture `name` (no pattern) or the wildcard `_` (neither).
    MatchAs {
        /// The sub-pattern.
        pattern: Option<Box<Pattern>>,
        /// The captured name.
        name: Option<Name>,
    },
    /// `p | q | r`.
    MatchOr(Vec<Pattern>),
}

/// `import x.y as z` / `from m import x as z`.
#[derive(Debug, Codec)]
pub struct Alias {
    /// The dotted name (for `import`) or the imported name (for `from`).
    pub name: Rc<str>,
    /// The `as` name.
    pub asname: Option<Rc<str>>,
    /// The binding target the resolver resolves: `asname`, else the first
    /// component of `name` for `import a.b`, else `name`.
    pub target: Name,
    /// Where the alias was written.
    pub span: Span,
}

/// A function definition, a lambda (body is one `Return`), or the implicit
/// function of a comprehension.
#[derive(Debug, Codec)]
pub struct FunctionDef {
    /// Function name (`<lambda>`, `<listcomp>` …).
    pub name: Rc<str>,
    /// Qualified name (`C.method`, `f.<locals>.g`), used in error messages.
    pub qualname: Rc<str>,
    /// Parameters.
    pub args: Arguments,
    /// The return annotation (`-> T`).
    pub returns: Option<Expr>,
    /// Body statements.
    pub body: Body,
    /// Decorators, outermost first.
    pub decorators: Vec<Expr>,
    /// The binding of the function name in the enclosing scope.
    pub target: Name,
    /// Filled in by the resolver.
    pub scope: std::cell::RefCell<Scope>,
    /// Whether the body contains `yield`: calling the function makes a generator.
    pub is_generator: bool,
    /// `async def`: calling it makes a coroutine (`is_generator` is set too,
    /// the body running as a generator's does).
    pub is_async: bool,
    /// Span of the `def name(...)` header (or the whole lambda).
    pub span: Span,
}

/// A function's body statements (they deref to a slice). A body read from
/// a standard-library tree is read on first use (`syntax::codec`): most of
/// a module's functions never run in a given script.
pub struct Body {
    stmts: std::cell::OnceCell<Vec<Stmt>>,
    unread: Cell<Option<super::codec::Unread>>,
}

impl Body {
    /// A body of these statements.
    pub fn new(stmts: Vec<Stmt>) -> Body {
        Body {
            stmts: std::cell::OnceCell::from(stmts),
            unread: Cell::new(None),
        }
    }

    /// A body read from its bytes on first use.
    pub(crate) fn unread(bytes: super::codec::Unread) -> Body {
        Body {
            stmts: std::cell::OnceCell::new(),
            unread: Cell::new(Some(bytes)),
        }
    }

    /// The statements (read now if they were not yet).
    pub fn stmts(&self) -> &[Stmt] {
        self.stmts
            .get_or_init(|| self.unread.take().map(|u| u.read()).unwrap_or_default())
    }
}

impl std::ops::Deref for Body {
    type Target = [Stmt];
    fn deref(&self) -> &[Stmt] {
        self.stmts()
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.stmts().fmt(f)
    }
}

/// A class definition.
#[derive(Debug, Codec)]
pub struct ClassDef {
    /// Class name.
    pub name: Rc<str>,
    /// Qualified name.
    pub qualname: Rc<str>,
    /// Base class expressions.
    pub bases: Vec<Expr>,
    /// Keywords in the class header (`metaclass=M`, and others passed to `__init_subclass__`).
    pub keywords: Vec<Keyword>,
    /// Class body.
    pub body: Vec<Stmt>,
    /// Decorators, outermost first.
    pub decorators: Vec<Expr>,
    /// The binding of the class name in the enclosing scope.
    pub target: Name,
    /// Span of the `class Name(...)` header.
    pub span: Span,
}

/// [Function parameters](https://docs.python.org/3/library/ast.html#ast.arguments).
#[derive(Debug, Default, Codec)]
pub struct Arguments {
    /// Positional-only parameters (before `/`).
    pub posonlyargs: Vec<Arg>,
    /// Positional-or-keyword parameters.
    pub args: Vec<Arg>,
    /// `*args`.
    pub vararg: Option<Arg>,
    /// Keyword-only parameters.
    pub kwonlyargs: Vec<Arg>,
    /// Defaults of keyword-only parameters (None: required).
    pub kw_defaults: Vec<Option<Expr>>,
    /// `**kwargs`.
    pub kwarg: Option<Arg>,
    /// Defaults of the last `defaults.len()` positional parameters.
    pub defaults: Vec<Expr>,
}

/// One parameter.
#[derive(Debug, Codec)]
pub struct Arg {
    /// Parameter name.
    pub name: Rc<str>,
    /// Annotation (evaluated when `def` runs, into `__annotations__`).
    pub annotation: Option<Expr>,
    /// Where it was written.
    pub span: Span,
}

/// An expression with its span.
#[derive(Debug, Codec)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// A literal constant.
#[derive(Clone, Debug)]
pub enum Constant {
    /// `None`.
    None,
    /// `True`/`False`.
    Bool(bool),
    /// An integer literal that fits in 64 bits.
    Int(i64),
    /// An integer literal past 64 bits (`2**64` written out).
    Long(Rc<num_bigint::BigInt>),
    /// A float literal (also `1e5`, `.5`, `1.`).
    Float(f64),
    /// An imaginary literal (`2j`): the complex number `0+2j`.
    Imaginary(f64),
    /// A string literal (adjacent literals already concatenated, escapes decoded).
    /// Held as the `Rc<String>` a `str` value holds, so evaluating it is a clone.
    Str(Rc<String>),
    /// A bytes literal.
    Bytes(Rc<[u8]>),
    /// `...`.
    Ellipsis,
}

/// [Expressions](https://docs.python.org/3/library/ast.html#expressions).
// `repr(u8)`: see `StmtKind`.
#[derive(Debug, Codec)]
#[repr(u8)]
pub enum ExprKind {
    /// A literal.
    Constant(Constant),
    /// A name.
    Name(Name),
    /// `value.attr`.
    Attribute {
        /// The object.
        value: Box<Expr>,
        /// Attribute name.
        attr: Ident,
    },
    /// `value[slice]` (a tuple index `a[1, 2]` is a Tuple slice).
    Subscript {
        /// The object.
        value: Box<Expr>,
        /// The index: an expression, a Slice, or a Tuple of them.
        slice: Box<Expr>,
    },
    /// `lower:upper:step` (only inside a subscript).
    Slice {
        /// Start.
        lower: Option<Box<Expr>>,
        /// Stop.
        upper: Option<Box<Expr>>,
        /// Step.
        step: Option<Box<Expr>>,
    },
    /// `*value` in a call, display or assignment target.
    Starred(Box<Expr>),
    /// `yield` / `yield value` (only in a generator function's body).
    Yield(Option<Box<Expr>>),
    /// `yield from iterable`.
    YieldFrom(Box<Expr>),
    /// `await x` (inside an `async def`).
    Await(Box<Expr>),
    /// `left op right`.
    BinOp {
        /// Left operand.
        left: Box<Expr>,
        /// Operator.
        op: BinOp,
        /// Right operand.
        right: Box<Expr>,
    },
    /// `op operand`.
    UnaryOp {
        /// Operator.
        op: UnaryOp,
        /// Operand.
        operand: Box<Expr>,
    },
    /// `a and b and c`.
    BoolOp {
        /// `and` or `or`.
        op: BoolOp,
        /// Two or more operands.
        values: Vec<Expr>,
    },
    /// `a < b <= c`.
    Compare {
        /// First operand.
        left: Box<Expr>,
        /// Operators.
        ops: Vec<CmpOp>,
        /// The other operands.
        comparators: Vec<Expr>,
    },
    /// A call.
    Call {
        /// The callee.
        func: Box<Expr>,
        /// Positional arguments (may contain Starred).
        args: Vec<Expr>,
        /// Keyword arguments (`arg: None` is `**mapping`).
        keywords: Vec<Keyword>,
    },
    /// `body if test else orelse`.
    IfExp {
        /// Condition.
        test: Box<Expr>,
        /// Value when true.
        body: Box<Expr>,
        /// Value when false.
        orelse: Box<Expr>,
    },
    /// `lambda args: body` (the FunctionDef's body is one Return).
    Lambda(Rc<FunctionDef>),
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{k: v, **m}` (a None key is `**m`).
    Dict {
        /// Keys.
        keys: Vec<Option<Expr>>,
        /// Values.
        values: Vec<Expr>,
    },
    /// `{a, b}`.
    Set(Vec<Expr>),
    /// `[elt for ...]`, `{elt for ...}`, `(elt for ...)`, `{k: v for ...}`.
    Comp(Rc<Comprehension>),
    /// An f-string.
    JoinedStr(Vec<FStringPart>),
    /// `(name := value)`.
    NamedExpr {
        /// A Name.
        target: Box<Expr>,
        /// The value.
        value: Box<Expr>,
    },
}

impl ExprKind {
    /// Calls `f` on each sub-expression evaluated where this expression is,
    /// in evaluation order (a dict's keys before its values; an f-string's
    /// fields and the fields of their format specs). For `x := v` that is
    /// `v`; for a lambda its defaults; for a comprehension its element,
    /// value, iterables and conditions, not its targets.
    pub fn for_each_child<'a, E>(
        &'a self,
        mut f: impl FnMut(&'a Expr) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            ExprKind::Constant(_) | ExprKind::Name(_) => {}
            ExprKind::Attribute { value, .. }
            | ExprKind::Starred(value)
            | ExprKind::YieldFrom(value)
            | ExprKind::Await(value)
            | ExprKind::UnaryOp { operand: value, .. }
            | ExprKind::NamedExpr { value, .. } => f(value)?,
            ExprKind::Yield(v) => v.iter().try_for_each(|v| f(v))?,
            ExprKind::Subscript { value, slice: b }
            | ExprKind::BinOp {
                left: value,
                right: b,
                ..
            } => {
                f(value)?;
                f(b)?;
            }
            ExprKind::Slice { lower, upper, step } => {
                for x in [lower, upper, step].into_iter().flatten() {
                    f(x)?;
                }
            }
            ExprKind::BoolOp { values: items, .. }
            | ExprKind::Tuple(items)
            | ExprKind::List(items)
            | ExprKind::Set(items) => items.iter().try_for_each(f)?,
            ExprKind::Compare {
                left, comparators, ..
            } => {
                f(left)?;
                comparators.iter().try_for_each(f)?;
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                f(func)?;
                args.iter().try_for_each(&mut f)?;
                keywords.iter().try_for_each(|k| f(&k.value))?;
            }
            ExprKind::IfExp { test, body, orelse } => {
                f(test)?;
                f(body)?;
                f(orelse)?;
            }
            ExprKind::Lambda(def) => {
                let a = &def.args;
                a.defaults
                    .iter()
                    .chain(a.kw_defaults.iter().flatten())
                    .try_for_each(f)?;
            }
            ExprKind::Dict { keys, values } => {
                keys.iter().flatten().try_for_each(&mut f)?;
                values.iter().try_for_each(f)?;
            }
            ExprKind::Comp(c) => {
                f(&c.elt)?;
                c.value.iter().try_for_each(&mut f)?;
                for g in &c.generators {
                    f(&g.iter)?;
                    g.ifs.iter().try_for_each(&mut f)?;
                }
            }
            ExprKind::JoinedStr(parts) => fstring_fields(parts, &mut f)?,
        }
        Ok(())
    }
}

/// The field expressions of an f-string, with those of their format specs.
fn fstring_fields<'a, E>(
    parts: &'a [FStringPart],
    f: &mut impl FnMut(&'a Expr) -> Result<(), E>,
) -> Result<(), E> {
    for p in parts {
        if let FStringPart::Expr {
            expr, format_spec, ..
        } = p
        {
            f(expr)?;
            if let Some(spec) = format_spec {
                fstring_fields(spec, f)?;
            }
        }
    }
    Ok(())
}

/// The kind of a comprehension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Codec)]
pub enum CompKind {
    /// `[...]`.
    List,
    /// `{...}` with one element.
    Set,
    /// `{k: v ...}`.
    Dict,
    /// `(...)`.
    Generator,
}

/// A comprehension: its own function scope, like Python's.
#[derive(Debug, Codec)]
pub struct Comprehension {
    /// Which display it builds.
    pub kind: CompKind,
    /// The element (the key for Dict).
    pub elt: Expr,
    /// The value (Dict only).
    pub value: Option<Expr>,
    /// The `for`/`if` clauses, outermost first. The first iterator is
    /// evaluated in the enclosing scope, as in Python.
    pub generators: Vec<CompFor>,
    /// Filled in by the resolver (the implicit function's scope).
    pub scope: std::cell::RefCell<Scope>,
}

/// One `for target in iter if cond...` clause.
#[derive(Debug, Codec)]
pub struct CompFor {
    /// Loop target.
    pub target: Expr,
    /// Iterated expression.
    pub iter: Expr,
    /// Filters.
    pub ifs: Vec<Expr>,
}

/// A piece of an f-string.
#[derive(Debug, Codec)]
pub enum FStringPart {
    /// Literal text (escapes and `{{`/`}}` already decoded).
    Literal(Rc<str>),
    /// `{expr!conv:spec}`.
    Expr {
        /// The expression.
        expr: Box<Expr>,
        /// Debug text for `{expr=}` (the source text including `=` and spaces).
        debug: Option<Rc<str>>,
        /// `!r`, `!s` or `!a`.
        conversion: Option<char>,
        /// The format spec, itself an f-string.
        format_spec: Option<Vec<FStringPart>>,
    },
}

/// A keyword argument; `arg: None` means `**value`.
#[derive(Debug, Codec)]
pub struct Keyword {
    /// The keyword.
    pub arg: Option<Ident>,
    /// The value.
    pub value: Expr,
    /// Where it was written.
    pub span: Span,
}
