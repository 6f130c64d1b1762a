//! What `tf.random`'s ops are to TensorFlow's op registry ([`OpDef`]):
//! their names, the attribute errors and kernel errors they raise, the
//! checks of their shape input, and the draw itself; the checks of an
//! integer range and of a float distribution's dtype.

use super::super::convert::runtime_err;
use crate::runtime::random::{self, Distribution, Philox};
use crate::runtime::{ops, DType, Device, Error, ErrorKind, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult};

/// What TensorFlow's op registry says about one random op: its name, the
/// name of its shape attribute, and the registration text its attribute
/// errors quote.
pub struct OpDef {
    pub name: &'static str,
    shape_attr: &'static str,
    registration: &'static str,
}

macro_rules! stateful_float_op {
    ($name:literal) => {
        OpDef {
            name: $name,
            shape_attr: "T",
            registration: concat!(
                "Op<name=",
                $name,
                "; signature=shape:T -> output:dtype; attr=seed:int,default=0; attr=seed2:int,default=0; attr=dtype:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]; attr=T:type,allowed=[DT_INT32, DT_INT64]; is_stateful=true>"
            ),
        }
    };
}

macro_rules! stateless_float_op {
    ($name:literal) => {
        OpDef {
            name: $name,
            shape_attr: "Tshape",
            registration: concat!(
                "Op<name=",
                $name,
                "; signature=shape:Tshape, key:uint64, counter:uint64, alg:int32 -> output:dtype; attr=dtype:type,default=DT_FLOAT,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>"
            ),
        }
    };
}

pub const RANDOM_UNIFORM: OpDef = stateful_float_op!("RandomUniform");
pub const RANDOM_NORMAL: OpDef = stateful_float_op!("RandomStandardNormal");
pub const TRUNCATED_NORMAL: OpDef = stateful_float_op!("TruncatedNormal");
pub const RANDOM_UNIFORM_INT: OpDef = OpDef {
    name: "RandomUniformInt",
    shape_attr: "T",
    registration: "Op<name=RandomUniformInt; signature=shape:T, minval:Tout, maxval:Tout -> output:Tout; attr=seed:int,default=0; attr=seed2:int,default=0; attr=Tout:type,allowed=[DT_INT32, DT_INT64]; attr=T:type,allowed=[DT_INT32, DT_INT64]; is_stateful=true>",
};
pub const STATELESS_UNIFORM: OpDef = stateless_float_op!("StatelessRandomUniformV2");
pub const STATELESS_NORMAL: OpDef = stateless_float_op!("StatelessRandomNormalV2");
pub const STATELESS_TRUNCATED: OpDef = stateless_float_op!("StatelessTruncatedNormalV2");
pub const STATELESS_UNIFORM_INT: OpDef = OpDef {
    name: "StatelessRandomUniformIntV2",
    shape_attr: "Tshape",
    registration: "Op<name=StatelessRandomUniformIntV2; signature=shape:Tshape, key:uint64, counter:uint64, alg:int32, minval:dtype, maxval:dtype -> output:dtype; attr=dtype:type,allowed=[DT_INT32, DT_INT64, DT_UINT32, DT_UINT64]; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>",
};
pub const STATELESS_FULL_INT: OpDef = OpDef {
    name: "StatelessRandomUniformFullIntV2",
    shape_attr: "Tshape",
    registration: "Op<name=StatelessRandomUniformFullIntV2; signature=shape:Tshape, key:uint64, counter:uint64, alg:int32 -> output:dtype; attr=dtype:type,default=DT_UINT64,allowed=[DT_INT32, DT_INT64, DT_UINT32, DT_UINT64]; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>",
};
pub const GET_KEY_COUNTER_REGISTRATION: &str = "Op<name=StatelessRandomGetKeyCounter; signature=seed:Tseed -> key:uint64, counter:uint64; attr=Tseed:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]>";

impl OpDef {
    /// TensorFlow's error for an attribute value the op does not accept.
    #[cold]
    pub fn attr_error(&self, attr: &str, got: DType, allowed: &str) -> PyErr {
        PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr '{attr}' of {} is not in the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {}}}}}; {} [Op:{}] name: ",
                got.kernel_name(),
                self.name,
                self.registration,
                self.name
            ),
        )
    }

    /// An error the op's kernel raises on `device`.
    #[cold]
    pub fn kernel_error(&self, kind: ErrorKind, device: Device, msg: &str) -> PyErr {
        runtime_err(Error::kernel(
            kind, self.name, &device, msg, self.name, " name: ",
        ))
    }

    /// The output dims from the shape input, checked as the kernel checks
    /// them (a vector of int32 or int64, no negative dimension), and the
    /// shape's dtype.
    pub fn dims(&self, shape: &Tensor, device: Device) -> PyResult<(Vec<usize>, DType)> {
        let sd = shape.dtype();
        if !matches!(sd, DType::Int32 | DType::Int64) {
            return Err(self.attr_error(self.shape_attr, sd, "int32, int64"));
        }
        if shape.rank() != 1 {
            return Err(self.kernel_error(
                ErrorKind::InvalidArgument,
                device,
                &format!(
                    "shape must be a vector of {{int32,int64}}, got shape {}",
                    shape.shape().bracket_text_compact()
                ),
            ));
        }
        let mut dims = Vec::with_capacity(shape.numel());
        for s in shape.to_scalars() {
            let d = match s {
                Scalar::Int(i) => i,
                _ => 0,
            };
            match usize::try_from(d) {
                Ok(d) => dims.push(d),
                Err(_) => {
                    return Err(self.kernel_error(
                        ErrorKind::InvalidArgument,
                        device,
                        &format!("Dimension {d} must be >= 0"),
                    ))
                }
            }
        }
        Ok((dims, sd))
    }

    /// The element count of the output, or the kernel's out-of-memory error.
    pub fn output_len(&self, dims: &[usize], dtype: DType, device: Device) -> PyResult<usize> {
        random::sample::output_len(dims, dtype, &device)
            .map_err(|e| self.kernel_error(e.kind(), device, e.message()))
    }

    /// Draws the output from `gen`.
    pub fn draw(
        &self,
        gen: Philox,
        dist: Distribution,
        dtype: DType,
        dims: &[usize],
        device: Device,
    ) -> PyResult<Tensor> {
        let _trace = crate::runtime::trace::op(self.name, device);
        random::sample(gen, dist, dtype, dims, device)
            .map_err(|e| self.kernel_error(e.kind(), device, e.message()))
    }
}

/// `rnd * scale + shift` as TensorFlow composes it after the raw op.
pub fn affine(rnd: Tensor, scale: &Tensor, shift: &Tensor) -> PyResult<Tensor> {
    let m = ops::mul(&rnd, scale).map_err(runtime_err)?;
    ops::add(&m, shift).map_err(runtime_err)
}

/// The kernel's checks of an integer range: scalars, `lo < hi`.
pub fn int_range(op: &OpDef, lo: &Tensor, hi: &Tensor, device: Device) -> PyResult<(i64, i64)> {
    for (t, what) in [(lo, "minval"), (hi, "maxval")] {
        if t.rank() != 0 {
            return Err(op.kernel_error(
                ErrorKind::InvalidArgument,
                device,
                &format!(
                    "{what} must be 0-D, got shape {}",
                    t.shape().bracket_text_compact()
                ),
            ));
        }
    }
    let int = |t: &Tensor| match t.item() {
        Ok(Scalar::Int(i)) => i,
        _ => 0,
    };
    let (l, h) = (int(lo), int(hi));
    if l >= h {
        return Err(op.kernel_error(
            ErrorKind::InvalidArgument,
            device,
            &format!("Need minval < maxval, got {l} >= {h}"),
        ));
    }
    Ok((l, h))
}

/// The dtype check of a float distribution's kernel (TensorFlow's attr error).
pub fn check_float_dist(op: &OpDef, dist: Distribution, dtype: DType) -> PyResult<()> {
    if !random::sample::supports(dist, dtype) {
        return Err(op.attr_error("dtype", dtype, "half, bfloat16, float, double"));
    }
    Ok(())
}
