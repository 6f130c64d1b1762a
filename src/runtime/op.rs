//! Op markers: one enum variant per kernel with its TensorFlow op name, shared
//! by every backend and by error messages (`[Op:AddV2]`), so a name is never
//! typed out twice.

/// Declares an op enum: each variant with its doc and TensorFlow op name,
/// `name()` giving the name and `ALL` listing the variants in order.
macro_rules! ops {
    ($(#[$doc:meta])* pub enum $name:ident { $($(#[$vdoc:meta])* $var:ident = $tf:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $var,)*
        }

        impl $name {
            /// Every op, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),*];

            /// TensorFlow's op name.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$var => $tf,)*
                }
            }
        }
    };
}

ops! {
    /// Element-wise ops of one input.
    pub enum UnaryOp {
        /// `-x`.
        Neg = "Neg",
        /// `|x|`.
        Abs = "Abs",
        /// `x * x`.
        Square = "Square",
        /// Square root.
        Sqrt = "Sqrt",
        /// `1 / sqrt(x)`.
        Rsqrt = "Rsqrt",
        /// `e^x`.
        Exp = "Exp",
        /// Natural logarithm.
        Log = "Log",
        /// `log(1 + x)`.
        Log1p = "Log1p",
        /// `exp(x) - 1`.
        Expm1 = "Expm1",
        /// The error function.
        Erf = "Erf",
        /// `1 - erf(x)`.
        Erfc = "Erfc",
        /// Sine.
        Sin = "Sin",
        /// Cosine.
        Cos = "Cos",
        /// Hyperbolic tangent.
        Tanh = "Tanh",
        /// Logistic sigmoid.
        Sigmoid = "Sigmoid",
        /// `max(x, 0)`.
        Relu = "Relu",
        /// Round down.
        Floor = "Floor",
        /// Round up.
        Ceil = "Ceil",
        /// Round half to even.
        Round = "Round",
        /// -1, 0 or 1.
        Sign = "Sign",
        /// `1 / x`.
        Reciprocal = "Reciprocal",
        /// Boolean not.
        LogicalNot = "LogicalNot",
        /// Tangent.
        Tan = "Tan",
        /// Arcsine.
        Asin = "Asin",
        /// Arccosine.
        Acos = "Acos",
        /// Arctangent.
        Atan = "Atan",
        /// Hyperbolic sine.
        Sinh = "Sinh",
        /// Hyperbolic cosine.
        Cosh = "Cosh",
        /// Inverse hyperbolic sine.
        Asinh = "Asinh",
        /// Inverse hyperbolic cosine.
        Acosh = "Acosh",
        /// Inverse hyperbolic tangent.
        Atanh = "Atanh",
    }
}

impl UnaryOp {
    /// Whether TensorFlow registers this float op for complex types too.
    pub const fn complex_too(self) -> bool {
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
                | UnaryOp::Tan
                | UnaryOp::Asin
                | UnaryOp::Acos
                | UnaryOp::Atan
                | UnaryOp::Sinh
                | UnaryOp::Cosh
                | UnaryOp::Asinh
                | UnaryOp::Acosh
                | UnaryOp::Atanh
        )
    }

    /// True for ops only defined on floats (TensorFlow rejects integer inputs).
    pub const fn float_only(self) -> bool {
        self.complex_too()
            || matches!(
                self,
                UnaryOp::Erf | UnaryOp::Erfc | UnaryOp::Floor | UnaryOp::Ceil
            )
    }
}

ops! {
    /// Element-wise ops of two broadcast inputs.
    pub enum BinaryOp {
        /// `x + y` (`AddV2`).
        Add = "AddV2",
        /// `x - y`.
        Sub = "Sub",
        /// `x * y`.
        Mul = "Mul",
        /// `x / y` on floats (`RealDiv`).
        RealDiv = "RealDiv",
        /// Integer division truncating toward zero (`TruncateDiv`, C semantics).
        TruncateDiv = "TruncateDiv",
        /// `x // y`, rounding toward negative infinity.
        FloorDiv = "FloorDiv",
        /// `x % y` with the sign of `y`.
        FloorMod = "FloorMod",
        /// `x ** y`.
        Pow = "Pow",
        /// Element-wise maximum (NaN propagates).
        Maximum = "Maximum",
        /// Element-wise minimum (NaN propagates).
        Minimum = "Minimum",
        /// `x == y`.
        Equal = "Equal",
        /// `x != y`.
        NotEqual = "NotEqual",
        /// `x < y`.
        Less = "Less",
        /// `x <= y`.
        LessEqual = "LessEqual",
        /// `x > y`.
        Greater = "Greater",
        /// `x >= y`.
        GreaterEqual = "GreaterEqual",
        /// Boolean and.
        LogicalAnd = "LogicalAnd",
        /// Boolean or.
        LogicalOr = "LogicalOr",
    }
}

impl BinaryOp {
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

ops! {
    /// Reductions over axes.
    pub enum ReduceOp {
        /// `reduce_sum` (`Sum`).
        Sum = "Sum",
        /// `reduce_prod` (`Prod`).
        Prod = "Prod",
        /// `reduce_max` (`Max`).
        Max = "Max",
        /// `reduce_min` (`Min`).
        Min = "Min",
        /// `reduce_mean` (`Mean`).
        Mean = "Mean",
        /// `reduce_any` (`Any`).
        Any = "Any",
        /// `reduce_all` (`All`).
        All = "All",
    }
}

ops! {
    /// Index-of-extreme reductions along one axis.
    pub enum ArgOp {
        /// `argmax` (`ArgMax`).
        ArgMax = "ArgMax",
        /// `argmin` (`ArgMin`).
        ArgMin = "ArgMin",
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
