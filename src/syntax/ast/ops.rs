//! The operators of expressions: binary, unary, boolean and comparison.

use dist_macros::Codec;

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Codec)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mult,
    /// `@`
    MatMult,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
}

impl BinOp {
    /// The operator as written (`+`, `//` …).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::MatMult => "@",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }

    /// The dunder method name (`__add__`).
    pub fn dunder(self) -> &'static str {
        match self {
            BinOp::Add => "__add__",
            BinOp::Sub => "__sub__",
            BinOp::Mult => "__mul__",
            BinOp::MatMult => "__matmul__",
            BinOp::Div => "__truediv__",
            BinOp::FloorDiv => "__floordiv__",
            BinOp::Mod => "__mod__",
            BinOp::Pow => "__pow__",
            BinOp::LShift => "__lshift__",
            BinOp::RShift => "__rshift__",
            BinOp::BitOr => "__or__",
            BinOp::BitXor => "__xor__",
            BinOp::BitAnd => "__and__",
        }
    }

    /// The reflected dunder method name (`__radd__`).
    pub fn rdunder(self) -> &'static str {
        match self {
            BinOp::Add => "__radd__",
            BinOp::Sub => "__rsub__",
            BinOp::Mult => "__rmul__",
            BinOp::MatMult => "__rmatmul__",
            BinOp::Div => "__rtruediv__",
            BinOp::FloorDiv => "__rfloordiv__",
            BinOp::Mod => "__rmod__",
            BinOp::Pow => "__rpow__",
            BinOp::LShift => "__rlshift__",
            BinOp::RShift => "__rrshift__",
            BinOp::BitOr => "__ror__",
            BinOp::BitXor => "__rxor__",
            BinOp::BitAnd => "__rand__",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Codec)]
pub enum UnaryOp {
    /// `~`
    Invert,
    /// `not`
    Not,
    /// `+`
    UAdd,
    /// `-`
    USub,
}

/// Boolean operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Codec)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Codec)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `is`
    Is,
    /// `is not`
    IsNot,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}
