//! Op markers: one enum variant per kernel with its TensorFlow op name, shared
//! by every backend and by error messages (`[Op:AddV2]`), so a name is never
//! typed out twice.

/// Element-wise ops of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// `x * x`.
    Square,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`.
    Log1p,
    /// `exp(x) - 1`.
    Expm1,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Hyperbolic tangent.
    Tanh,
    /// Logistic sigmoid.
    Sigmoid,
    /// `max(x, 0)`.
    Relu,
    /// Round down.
    Floor,
    /// Round up.
    Ceil,
    /// Round half to even.
    Round,
    /// -1, 0 or 1.
    Sign,
    /// `1 / x`.
    Reciprocal,
    /// Boolean not.
    LogicalNot,
}

impl UnaryOp {
    /// TensorFlow's op name.
    pub const fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "Neg",
            UnaryOp::Abs => "Abs",
            UnaryOp::Square => "Square",
            UnaryOp::Sqrt => "Sqrt",
            UnaryOp::Rsqrt => "Rsqrt",
            UnaryOp::Exp => "Exp",
            UnaryOp::Log => "Log",
            UnaryOp::Log1p => "Log1p",
            UnaryOp::Expm1 => "Expm1",
            UnaryOp::Sin => "Sin",
            UnaryOp::Cos => "Cos",
            UnaryOp::Tanh => "Tanh",
            UnaryOp::Sigmoid => "Sigmoid",
            UnaryOp::Relu => "Relu",
            UnaryOp::Floor => "Floor",
            UnaryOp::Ceil => "Ceil",
            UnaryOp::Round => "Round",
            UnaryOp::Sign => "Sign",
            UnaryOp::Reciprocal => "Reciprocal",
            UnaryOp::LogicalNot => "LogicalNot",
        }
    }

    /// True for ops only defined on floats (TensorFlow rejects integer inputs).
    pub const fn float_only(self) -> bool {
        matches!(
            self,
            UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Exp
                | UnaryOp::Log
                | UnaryOp::Log1p
                | UnaryOp::Expm1
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tanh
                | UnaryOp::Sigmoid
                | UnaryOp::Floor
                | UnaryOp::Ceil
        )
    }
}

/// Element-wise ops of two broadcast inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `x + y` (`AddV2`).
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y` on floats (`RealDiv`).
    RealDiv,
    /// Integer division truncating toward zero (`TruncateDiv`, C semantics).
    TruncateDiv,
    /// `x // y`, rounding toward negative infinity.
    FloorDiv,
    /// `x % y` with the sign of `y`.
    FloorMod,
    /// `x ** y`.
    Pow,
    /// Element-wise maximum (NaN propagates).
    Maximum,
    /// Element-wise minimum (NaN propagates).
    Minimum,
    /// `x == y`.
    Equal,
    /// `x != y`.
    NotEqual,
    /// `x < y`.
    Less,
    /// `x <= y`.
    LessEqual,
    /// `x > y`.
    Greater,
    /// `x >= y`.
    GreaterEqual,
    /// Boolean and.
    LogicalAnd,
    /// Boolean or.
    LogicalOr,
}

impl BinaryOp {
    /// TensorFlow's op name.
    pub const fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "AddV2",
            BinaryOp::Sub => "Sub",
            BinaryOp::Mul => "Mul",
            BinaryOp::RealDiv => "RealDiv",
            BinaryOp::TruncateDiv => "TruncateDiv",
            BinaryOp::FloorDiv => "FloorDiv",
            BinaryOp::FloorMod => "FloorMod",
            BinaryOp::Pow => "Pow",
            BinaryOp::Maximum => "Maximum",
            BinaryOp::Minimum => "Minimum",
            BinaryOp::Equal => "Equal",
            BinaryOp::NotEqual => "NotEqual",
            BinaryOp::Less => "Less",
            BinaryOp::LessEqual => "LessEqual",
            BinaryOp::Greater => "Greater",
            BinaryOp::GreaterEqual => "GreaterEqual",
            BinaryOp::LogicalAnd => "LogicalAnd",
            BinaryOp::LogicalOr => "LogicalOr",
        }
    }

    /// True when the result is `bool` whatever the input type.
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Equal
                | BinaryOp::NotEqual
                | BinaryOp::Less
                | BinaryOp::LessEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterEqual
        )
    }

    /// True for the boolean connectives.
    pub const fn is_logical(self) -> bool {
        matches!(self, BinaryOp::LogicalAnd | BinaryOp::LogicalOr)
    }
}

/// Reductions over axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `reduce_sum` (`Sum`).
    Sum,
    /// `reduce_prod` (`Prod`).
    Prod,
    /// `reduce_max` (`Max`).
    Max,
    /// `reduce_min` (`Min`).
    Min,
    /// `reduce_mean` (`Mean`).
    Mean,
    /// `reduce_any` (`Any`).
    Any,
    /// `reduce_all` (`All`).
    All,
}

impl ReduceOp {
    /// TensorFlow's op name.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "Sum",
            ReduceOp::Prod => "Prod",
            ReduceOp::Max => "Max",
            ReduceOp::Min => "Min",
            ReduceOp::Mean => "Mean",
            ReduceOp::Any => "Any",
            ReduceOp::All => "All",
        }
    }
}

/// Index-of-extreme reductions along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// `argmax` (`ArgMax`).
    ArgMax,
    /// `argmin` (`ArgMin`).
    ArgMin,
}

impl ArgOp {
    /// TensorFlow's op name.
    pub const fn name(self) -> &'static str {
        match self {
            ArgOp::ArgMax => "ArgMax",
            ArgOp::ArgMin => "ArgMin",
        }
    }
}

/// Which library's semantics a kernel follows where TensorFlow and numpy differ
/// (integer division by zero, float floor division).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Semantics {
    /// TensorFlow: integer division by zero is an error.
    #[default]
    Tf,
    /// numpy: integer division by zero gives 0 (numpy warns on stderr).
    Numpy,
}
