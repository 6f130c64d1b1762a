//! `tf.random`: the global seed (`set_seed`), the stateful ops (`uniform`,
//! `normal`, `truncated_normal`) and the stateless ones
//! (`stateless_uniform`, `stateless_normal`, `stateless_truncated_normal`).
//! Argument binding and TensorFlow's Python-side checks live here, in the
//! order TensorFlow runs them; the generator, the distributions and the
//! seeding rules are `runtime::random`.

use std::rc::Rc;

use super::convert::{opt_dtype, runtime_err, to_tensor, tv};
use crate::modules::ModuleBuilder;
use crate::runtime::random::{self, Distribution, KernelKey, Philox, SeedState};
use crate::runtime::{ops, DType, Device, Error, ErrorKind, Scalar, Tensor};
use crate::value::{Args, ExcType, PyErr, PyResult, Value, Vm};

/// What TensorFlow's op registry says about one random op: its name, the
/// name of its shape attribute, and the registration text its attribute
/// errors quote.
struct OpDef {
    name: &'static str,
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

const RANDOM_UNIFORM: OpDef = stateful_float_op!("RandomUniform");
const RANDOM_NORMAL: OpDef = stateful_float_op!("RandomStandardNormal");
const TRUNCATED_NORMAL: OpDef = stateful_float_op!("TruncatedNormal");
const RANDOM_UNIFORM_INT: OpDef = OpDef {
    name: "RandomUniformInt",
    shape_attr: "T",
    registration: "Op<name=RandomUniformInt; signature=shape:T, minval:Tout, maxval:Tout -> output:Tout; attr=seed:int,default=0; attr=seed2:int,default=0; attr=Tout:type,allowed=[DT_INT32, DT_INT64]; attr=T:type,allowed=[DT_INT32, DT_INT64]; is_stateful=true>",
};
const STATELESS_UNIFORM: OpDef = stateless_float_op!("StatelessRandomUniformV2");
const STATELESS_NORMAL: OpDef = stateless_float_op!("StatelessRandomNormalV2");
const STATELESS_TRUNCATED: OpDef = stateless_float_op!("StatelessTruncatedNormalV2");
const STATELESS_UNIFORM_INT: OpDef = OpDef {
    name: "StatelessRandomUniformIntV2",
    shape_attr: "Tshape",
    registration: "Op<name=StatelessRandomUniformIntV2; signature=shape:Tshape, key:uint64, counter:uint64, alg:int32, minval:dtype, maxval:dtype -> output:dtype; attr=dtype:type,allowed=[DT_INT32, DT_INT64, DT_UINT32, DT_UINT64]; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>",
};
const STATELESS_FULL_INT: OpDef = OpDef {
    name: "StatelessRandomUniformFullIntV2",
    shape_attr: "Tshape",
    registration: "Op<name=StatelessRandomUniformFullIntV2; signature=shape:Tshape, key:uint64, counter:uint64, alg:int32 -> output:dtype; attr=dtype:type,default=DT_UINT64,allowed=[DT_INT32, DT_INT64, DT_UINT32, DT_UINT64]; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>",
};
const GET_KEY_COUNTER_REGISTRATION: &str = "Op<name=StatelessRandomGetKeyCounter; signature=seed:Tseed -> key:uint64, counter:uint64; attr=Tseed:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]>";

impl OpDef {
    /// TensorFlow's error for an attribute value the op does not accept.
    #[cold]
    fn attr_error(&self, attr: &str, got: DType, allowed: &str) -> PyErr {
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
    fn kernel_error(&self, kind: ErrorKind, device: Device, msg: &str) -> PyErr {
        runtime_err(Error::kernel(
            kind, self.name, &device, msg, self.name, " name: ",
        ))
    }

    /// The output dims from the shape input, checked as the kernel checks
    /// them (a vector of int32 or int64, no negative dimension), and the
    /// shape's dtype.
    fn dims(&self, shape: &Tensor, device: Device) -> PyResult<(Vec<usize>, DType)> {
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
    fn output_len(&self, dims: &[usize], dtype: DType, device: Device) -> PyResult<usize> {
        random::sample::output_len(dims, dtype, &device)
            .map_err(|e| self.kernel_error(e.kind(), device, e.message()))
    }

    /// Draws the output from `gen`.
    fn draw(
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

/// The interpreter's random state.
fn state(vm: &dyn Vm) -> Rc<SeedState> {
    vm.state().get::<SeedState>()
}

/// `repr(dtype)` as TensorFlow's `%r` shows it: `tf.int32`.
fn tf_name(d: DType) -> String {
    format!("tf.{}", d.name())
}

/// The dtypes `tf.random.uniform` accepts, in TensorFlow's words.
fn check_uniform_dtype(d: DType, stateless: bool) -> PyResult<()> {
    if matches!(
        d,
        DType::Float16 | DType::Float32 | DType::Float64 | DType::Int32 | DType::Int64
    ) {
        return Ok(());
    }
    let extra = if stateless {
        ", tf.uint32, tf.uint64"
    } else {
        ""
    };
    Err(PyErr::new(
        ExcType::ValueError,
        format!(
            "Argument `dtype` got invalid value <dtype: '{}'>. Accepted dtypes are (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64{extra}).",
            d.name()
        ),
    ))
}

/// The `shape` argument as `tensor_util.shape_tensor` converts it: an
/// empty sequence is an int32 vector, a `TensorShape` its dims, anything
/// else goes through `convert_to_tensor`.
fn shape_tensor(vm: &dyn Vm, v: &Value) -> PyResult<Tensor> {
    let empty = || Tensor::from_vec(Vec::<i32>::new(), &[0]).map_err(runtime_err);
    match v {
        Value::List(l) if l.borrow().is_empty() => empty(),
        Value::Tuple(t) if t.is_empty() => empty(),
        Value::Native(n) => {
            if let Some(s) = n.as_any().downcast_ref::<super::shape::TensorShapeObj>() {
                if s.dims.iter().any(Option::is_none) {
                    let parts: Vec<String> = s
                        .dims
                        .iter()
                        .map(|d| d.map_or("None".to_string(), |x| x.to_string()))
                        .collect();
                    let tuple = if parts.len() == 1 {
                        format!("({},)", parts[0])
                    } else {
                        format!("({})", parts.join(", "))
                    };
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!(
                            "Cannot convert a partially known TensorShape {tuple} to a Tensor."
                        ),
                    ));
                }
                let dims: Vec<i64> = s.dims.iter().map(|d| d.unwrap_or(0) as i64).collect();
                let fits = dims.iter().all(|&d| d <= i32::MAX as i64);
                let n = dims.len();
                return if fits {
                    Tensor::from_vec(dims.iter().map(|&d| d as i32).collect(), &[n])
                } else {
                    Tensor::from_vec(dims, &[n])
                }
                .map_err(runtime_err);
            }
            to_tensor(vm, v, None)
        }
        _ => to_tensor(vm, v, None),
    }
}

/// An op-level `seed=` argument: None or an int (a 0-d integer tensor
/// too). A float seed is reduced as TensorFlow's `_truncate_seed` reduces
/// it (Python's `%`), then the kernel attribute keeps its integer part.
fn seed_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        Value::Float(f) if f.is_finite() => {
            let m = random::seed::MAXINT32 as f64;
            Ok(Some((f.rem_euclid(m)).trunc() as i64))
        }
        Value::Str(_) => Err(PyErr::new(
            ExcType::TypeError,
            "not all arguments converted during string formatting",
        )),
        v => match super::convert::int_scalar(vm, v)? {
            Some(i) => Ok(Some(i)),
            None => Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "tf.random: a seed of type {} is not supported in dist; seeds are ints",
                    v.type_name()
                ),
            )),
        },
    }
}

/// `tf.random.set_seed`'s argument: None or an int.
fn global_seed_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        v => match super::convert::int_scalar(vm, v)? {
            Some(i) => Ok(Some(i)),
            None => Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "tf.random.set_seed: a seed of type {} is not supported in dist; seeds are ints",
                    v.type_name()
                ),
            )),
        },
    }
}

/// True for the Python int `x` (a bool counts, as `isinstance(True, int)`).
fn is_python_int(v: &Value, x: i64) -> bool {
    match v {
        Value::Int(i) => *i == x,
        Value::Bool(b) => *b as i64 == x,
        _ => false,
    }
}

/// `tf.random.set_seed(seed)`.
fn set_seed(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let seed = global_seed_arg(vm, a.get(0))?;
    state(vm).set_global_seed(seed);
    Ok(Value::None)
}

/// Runs a stateful op: reserves its kernel's stream and draws.
fn stateful(
    vm: &dyn Vm,
    op: &OpDef,
    shape: &Tensor,
    dist: Distribution,
    dtype: DType,
    seeds: (i64, i64),
) -> PyResult<Tensor> {
    let device = crate::distribute::current_device(vm);
    let (dims, shape_dtype) = op.dims(shape, device)?;
    stateful_dims(vm, op, &dims, shape_dtype, dist, dtype, seeds, device)
}

#[expect(clippy::too_many_arguments, reason = "one call site per op kind")]
fn stateful_dims(
    vm: &dyn Vm,
    op: &OpDef,
    dims: &[usize],
    shape_dtype: DType,
    dist: Distribution,
    dtype: DType,
    seeds: (i64, i64),
    device: Device,
) -> PyResult<Tensor> {
    let n = op.output_len(dims, dtype, device)?;
    let key = KernelKey {
        op: op.name,
        dtype,
        shape_dtype,
        seeds,
        device,
    };
    let gen = state(vm).reserve(key, n as u64);
    op.draw(gen, dist, dtype, dims, device)
}

/// `rnd * scale + shift` as TensorFlow composes it after the raw op.
fn affine(rnd: Tensor, scale: &Tensor, shift: &Tensor) -> PyResult<Tensor> {
    let m = ops::mul(&rnd, scale).map_err(runtime_err)?;
    ops::add(&m, shift).map_err(runtime_err)
}

/// The kernel's checks of an integer range: scalars, `lo < hi`.
fn int_range(op: &OpDef, lo: &Tensor, hi: &Tensor, device: Device) -> PyResult<(i64, i64)> {
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

/// `tf.random.uniform(shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None)`.
fn uniform(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dtype = opt_dtype(vm, a.get(3))?.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, false)?;
    let is_int = dtype.is_integer();
    let (minval, mut maxval) = (a.get(1).clone(), a.get(2).clone());
    if maxval.is_none() {
        if is_int {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Must specify maxval for integer dtype {}", tf_name(dtype)),
            ));
        }
        maxval = Value::Int(1);
    }
    let shape = shape_tensor(vm, a.get(0))?;
    let min_zero = is_python_int(&minval, 0);
    let max_one = is_python_int(&maxval, 1);
    let bounds = if !min_zero || !max_one || is_int {
        Some((
            to_tensor(vm, &minval, Some(dtype))?,
            to_tensor(vm, &maxval, Some(dtype))?,
        ))
    } else {
        None
    };
    let seeds = state(vm).op_seeds(seed_arg(vm, a.get(4))?);
    let device = crate::distribute::current_device(vm);
    match bounds {
        Some((lo, hi)) if is_int => {
            let op = &RANDOM_UNIFORM_INT;
            let (dims, sd) = op.dims(&shape, device)?;
            let (lo, hi) = int_range(op, &lo, &hi, device)?;
            let dist = Distribution::UniformInt { lo, hi };
            tv(
                vm,
                Ok(stateful_dims(
                    vm, op, &dims, sd, dist, dtype, seeds, device,
                )?),
            )
        }
        bounds => {
            let rnd = stateful(
                vm,
                &RANDOM_UNIFORM,
                &shape,
                Distribution::Uniform,
                dtype,
                seeds,
            )?;
            let out = match bounds {
                None => rnd,
                Some((_, hi)) if min_zero => ops::mul(&rnd, &hi).map_err(runtime_err)?,
                Some((lo, hi)) => {
                    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
                    affine(rnd, &width, &lo)?
                }
            };
            tv(vm, Ok(out))
        }
    }
}

/// `tf.random.normal` and `tf.random.truncated_normal`: the raw op, then
/// `rnd * stddev + mean`.
fn normal_like(vm: &dyn Vm, a: &Args, op: &OpDef, dist: Distribution) -> PyResult<Value> {
    let dtype = opt_dtype(vm, a.get(3))?.unwrap_or(DType::Float32);
    let shape = shape_tensor(vm, a.get(0))?;
    let mean = to_tensor(vm, a.get(1), Some(dtype))?;
    let stddev = to_tensor(vm, a.get(2), Some(dtype))?;
    let seeds = state(vm).op_seeds(seed_arg(vm, a.get(4))?);
    check_float_dist(op, dist, dtype)?;
    let rnd = stateful(vm, op, &shape, dist, dtype, seeds)?;
    tv(vm, Ok(affine(rnd, &stddev, &mean)?))
}

/// The dtype check of a float distribution's kernel (TensorFlow's attr error).
fn check_float_dist(op: &OpDef, dist: Distribution, dtype: DType) -> PyResult<()> {
    if !random::sample::supports(dist, dtype) {
        return Err(op.attr_error("dtype", dtype, "half, bfloat16, float, double"));
    }
    Ok(())
}

/// `tf.random.normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None)`.
fn normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    normal_like(vm, a, &RANDOM_NORMAL, Distribution::Normal)
}

/// `tf.random.truncated_normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None)`.
fn truncated_normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    normal_like(vm, a, &TRUNCATED_NORMAL, Distribution::TruncatedNormal)
}

/// The `alg` argument of the stateless ops: true for ThreeFry, which
/// TensorFlow's CPU kernels reject (Philox is what `auto_select` picks).
fn check_alg(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    let unsupported = |shown: String| {
        PyErr::new(
            ExcType::ValueError,
            format!("Argument `alg` got unsupported value {shown}. Supported values are philox for the Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection."),
        )
    };
    let name = match v {
        Value::None => return Ok(false),
        Value::Str(s) => s.to_lowercase(),
        Value::Int(1) => "philox".to_string(),
        Value::Int(2) => "threefry".to_string(),
        Value::Int(3) => "auto_select".to_string(),
        Value::Int(i) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Argument `alg` got unsupported value {i}. Supported values are 1 for the Philox algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection."),
            ))
        }
        other => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Can't convert argument `alg` (of value {} and type <class '{}'>) to int.",
                    vm.str(other)?,
                    other.type_name()
                ),
            ))
        }
    };
    match name.as_str() {
        "philox" | "auto_select" => Ok(false),
        "threefry" => Ok(true),
        _ => Err(unsupported(vm.str(v)?)),
    }
}

/// The Philox stream of a stateless op for the `seed` argument: a shape
/// [2] int32 or int64 tensor (`StatelessRandomGetKeyCounter`'s checks).
fn stateless_gen(vm: &dyn Vm, seed: &Value) -> PyResult<Philox> {
    let t = to_tensor(vm, seed, None)?;
    // TensorFlow names the op in these errors only when the seed was not a Python sequence
    let name = if matches!(seed, Value::List(_) | Value::Tuple(_)) {
        ""
    } else {
        " name: "
    };
    let op = "StatelessRandomGetKeyCounter";
    if !matches!(t.dtype(), DType::Int32 | DType::Int64) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'Tseed' of {} is not in the list of allowed values: int32, int64\n\t; NodeDef: {{{{node {op}}}}}; {GET_KEY_COUNTER_REGISTRATION} [Op:{op}]{name}",
                t.dtype().kernel_name()
            ),
        ));
    }
    if t.dims() != [2] {
        let device = crate::distribute::current_device(vm);
        return Err(runtime_err(Error::kernel(
            ErrorKind::InvalidArgument,
            op,
            &device,
            &format!(
                "seed must have shape [2], not {}",
                t.shape().bracket_text_compact()
            ),
            op,
            name,
        )));
    }
    let word = |i: usize| match t.get(i) {
        // int32 seeds widen with their sign, as the kernel's cast does
        Some(Scalar::Int(v)) => v as u64,
        _ => 0,
    };
    Ok(Philox::stateless(word(0), word(1)))
}

/// Runs a stateless op on its checked shape; `gen` is None for the
/// ThreeFry algorithm, whose one-word counter the CPU kernels refuse.
fn stateless_draw(
    vm: &dyn Vm,
    op: &OpDef,
    shape: &Tensor,
    gen: Option<Philox>,
    dist: Distribution,
    dtype: DType,
    range: Option<(&Tensor, &Tensor)>,
) -> PyResult<Tensor> {
    let device = crate::distribute::current_device(vm);
    let Some(gen) = gen else {
        return Err(op.kernel_error(
            ErrorKind::InvalidArgument,
            device,
            "counter must be a vector with length at least 2; got shape: [1]. (Note that batched counters are not supported yet.)",
        ));
    };
    let (dims, _) = op.dims(shape, device)?;
    let dist = match range {
        Some((lo, hi)) => {
            let (lo, hi) = int_range(op, lo, hi, device)?;
            Distribution::UniformInt { lo, hi }
        }
        None => dist,
    };
    op.output_len(&dims, dtype, device)?;
    op.draw(gen, dist, dtype, &dims, device)
}

/// `tf.random.stateless_uniform(shape, seed, minval=0, maxval=None, dtype=tf.float32, name=None, alg='auto_select')`.
fn stateless_uniform(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let dtype = opt_dtype(vm, a.get(4))?.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, true)?;
    let (minval, mut maxval) = (a.get(2).clone(), a.get(3).clone());
    if dtype.is_integer() {
        if minval.is_none() != maxval.is_none() {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "For integer `dtype` argument <dtype: '{}'>, argument `minval` and `maxval` must be both None or not None. Got `minval`={} and `maxval`={}.",
                    dtype.name(),
                    vm.str(&minval)?,
                    vm.str(&maxval)?
                ),
            ));
        }
    } else if maxval.is_none() {
        maxval = Value::Int(1);
    }
    let shape = shape_tensor(vm, a.get(0))?;
    if dtype.is_integer() && minval.is_none() {
        let threefry = check_alg(vm, a.get(6))?;
        let gen = Some(stateless_gen(vm, a.get(1))?).filter(|_| !threefry);
        let op = &STATELESS_FULL_INT;
        let t = stateless_draw(vm, op, &shape, gen, Distribution::FullInt, dtype, None)?;
        return tv(vm, Ok(t));
    }
    let lo = to_tensor(vm, &minval, Some(dtype))?;
    let hi = to_tensor(vm, &maxval, Some(dtype))?;
    let threefry = check_alg(vm, a.get(6))?;
    let gen = Some(stateless_gen(vm, a.get(1))?).filter(|_| !threefry);
    if dtype.is_integer() {
        let op = &STATELESS_UNIFORM_INT;
        let dist = Distribution::FullInt;
        let t = stateless_draw(vm, op, &shape, gen, dist, dtype, Some((&lo, &hi)))?;
        return tv(vm, Ok(t));
    }
    let op = &STATELESS_UNIFORM;
    let rnd = stateless_draw(vm, op, &shape, gen, Distribution::Uniform, dtype, None)?;
    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
    tv(vm, Ok(affine(rnd, &width, &lo)?))
}

/// `tf.random.stateless_normal` and `stateless_truncated_normal`.
fn stateless_normal_like(vm: &dyn Vm, a: &Args, op: &OpDef, dist: Distribution) -> PyResult<Value> {
    let dtype = opt_dtype(vm, a.get(4))?.unwrap_or(DType::Float32);
    let shape = shape_tensor(vm, a.get(0))?;
    let mean = to_tensor(vm, a.get(2), Some(dtype))?;
    let stddev = to_tensor(vm, a.get(3), Some(dtype))?;
    let threefry = check_alg(vm, a.get(6))?;
    let gen = Some(stateless_gen(vm, a.get(1))?).filter(|_| !threefry);
    check_float_dist(op, dist, dtype)?;
    let rnd = stateless_draw(vm, op, &shape, gen, dist, dtype, None)?;
    tv(vm, Ok(affine(rnd, &stddev, &mean)?))
}

/// `tf.random.stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')`.
fn stateless_normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    stateless_normal_like(vm, a, &STATELESS_NORMAL, Distribution::Normal)
}

/// `tf.random.stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')`.
fn stateless_truncated_normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    stateless_normal_like(vm, a, &STATELESS_TRUNCATED, Distribution::TruncatedNormal)
}

/// `tf.random.shuffle(value, seed=None, name=None)`: the rows of `value`
/// in a random order.
fn shuffle(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let seeds = state(vm).op_seeds(seed_arg(vm, a.get(1))?);
    let value = to_tensor(vm, a.get(0), None)?;
    let device = crate::distribute::current_device(vm);
    let rows = value.dims().first().copied().unwrap_or(0);
    if value.numel() <= 1 || rows <= 1 {
        return tv(vm, Ok(value));
    }
    let key = KernelKey {
        op: "RandomShuffle",
        dtype: value.dtype(),
        shape_dtype: value.dtype(),
        seeds,
        device,
    };
    // the kernel reserves one word per pick, in whole blocks (256 per word is
    // the output ops' reservation; this one is exact)
    let picks = (rows - 1) as u64;
    let gen = state(vm).reserve_blocks(key, picks.div_ceil(4));
    let _trace = crate::runtime::trace::op("RandomShuffle", device);
    let perm = random::permutation(gen, rows).map_err(runtime_err)?;
    let idx: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
    let idx = Tensor::from_vec(idx, &[rows]).map_err(runtime_err)?;
    tv(vm, ops::gather(&value, &idx, 0))
}

/// Registers `tf.random`.
pub fn register(m: &mut ModuleBuilder) {
    m.function(
        "set_seed(seed)",
        set_seed,
        "Sets the global seed: `tf.random.set_seed(42)`. Ops without `seed=` then draw reproducible numbers, and every op's stream starts over.",
    );
    m.function(
        "uniform(shape, minval=0, maxval=None, dtype=None, seed=None, name=None)",
        uniform,
        "Uniform numbers in `[minval, maxval)`: `tf.random.uniform([2, 3], seed=1)`.",
    );
    m.function(
        "normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)",
        normal,
        "Normally distributed numbers: `tf.random.normal([3], seed=1)`.",
    );
    m.function(
        "truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)",
        truncated_normal,
        "Normal numbers within two standard deviations of the mean.",
    );
    m.function(
        "shuffle(value, seed=None, name=None)",
        shuffle,
        "The rows of `value` in a random order: `tf.random.shuffle(tf.range(5), seed=1)`.",
    );
    m.function(
        "stateless_uniform(shape, seed, minval=0, maxval=None, dtype=None, name=None, alg='auto_select')",
        stateless_uniform,
        "Uniform numbers that depend only on `seed` (a pair of ints): `tf.random.stateless_uniform([2], seed=[1, 2])`.",
    );
    m.function(
        "stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg='auto_select')",
        stateless_normal,
        "Normal numbers that depend only on `seed`.",
    );
    m.function(
        "stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg='auto_select')",
        stateless_truncated_normal,
        "Truncated normal numbers that depend only on `seed`.",
    );
    m.value("Generator", Value::Class(generator_class()));
}

/// `tf.random.Generator`: a Philox state of its own (a 128-bit counter and
/// a 64-bit key, TensorFlow's `[counter_lo, counter_hi, key]`). Each draw
/// reads the stream at the counter, then moves the counter on by 256
/// blocks per output element, as TensorFlow's stateful kernels reserve.
struct GeneratorObj {
    state: std::cell::Cell<[u64; 3]>,
}

impl crate::value::NativeObject for GeneratorObj {
    fn type_name(&self) -> &str {
        "Generator"
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn class(&self) -> Option<Rc<crate::value::Class>> {
        Some(generator_class())
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        match name {
            // Philox is algorithm 1 (`tf.random.Algorithm.PHILOX`).
            "algorithm" => Ok(Some(Value::Int(1))),
            "state" | "key" | "split" | "skip" | "reset" | "reset_from_key_counter"
            | "make_seeds" | "binomial" | "uniform_full_int" => {
                Err(PyErr::new(
                    ExcType::NotImplementedError,
                    format!("tf.random.Generator.{name} is part of TensorFlow 2.21 but not implemented in dist"),
                ))
            }
            _ => Ok(crate::distribute::classes::bound(&generator_class(), this, name)),
        }
    }
}

thread_local! {
    static GENERATOR: Rc<crate::value::Class> = {
        let c = crate::value::Class::new_builtin(
            "Generator",
            "tensorflow.python.ops.stateful_random_ops",
            Some(crate::object::types::builtin_class(crate::value::ValueType::Object)),
            crate::value::ClassKind::Native,
        );
        c.set_attr(
            "from_seed",
            Value::NativeFunction(crate::value::NativeFunction::new(
                "from_seed(seed, alg=None)",
                generator_from_seed,
                "A generator whose state comes from the int `seed`: `tf.random.Generator.from_seed(1234)`.",
            )),
        );
        c.set_attr(
            "from_non_deterministic_state",
            Value::NativeFunction(crate::value::NativeFunction::new(
                "from_non_deterministic_state(alg=None)",
                generator_non_deterministic,
                "A generator whose state comes from the operating system's entropy.",
            )),
        );
        let methods: [(&str, crate::value::NativeFn, &str); 4] = [
            (
                "Generator.reset_from_seed(self, seed)",
                generator_reset_from_seed,
                "Resets the state as `from_seed(seed)` makes it.",
            ),
            (
                "Generator.normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None)",
                generator_normal,
                "Normally distributed numbers from this generator's stream.",
            ),
            (
                "Generator.truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None)",
                generator_truncated_normal,
                "Normal numbers within two standard deviations, from this generator's stream.",
            ),
            (
                "Generator.uniform(self, shape, minval=0, maxval=None, dtype=None, name=None)",
                generator_uniform,
                "Uniform numbers in `[minval, maxval)` from this generator's stream.",
            ),
        ];
        for (sig, f, doc) in methods {
            crate::distribute::classes::method(&c, sig, f, doc);
        }
        c
    };
}

fn generator_class() -> Rc<crate::value::Class> {
    GENERATOR.with(Rc::clone)
}

/// `Generator.from_non_deterministic_state(alg=None)`.
fn generator_non_deterministic(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    philox_alg(vm, a.get(0))?;
    let e = random::seed::entropy;
    Ok(Value::native(GeneratorObj {
        state: std::cell::Cell::new([e(), e(), e()]),
    }))
}

/// `Generator.reset_from_seed(seed)`.
fn generator_reset_from_seed(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let g = generator_of(a.get(0))?;
    g.state.set([generator_seed(a.get(1))?, 0, 0]);
    Ok(Value::None)
}

/// The Philox algorithm named by `alg` (None: the default), or an error.
fn philox_alg(vm: &dyn Vm, alg: &Value) -> PyResult<()> {
    if alg.is_none() {
        return Ok(());
    }
    check_alg(vm, alg)?;
    let is_philox = matches!(alg.as_builtin(), Value::Int(1))
        || matches!(alg.as_builtin(), Value::Str(s) if s.as_str() == "philox");
    if !is_philox {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.random.Generator supports only the Philox algorithm in dist",
        ));
    }
    Ok(())
}

/// A generator's int seed (the first word of its state).
fn generator_seed(v: &Value) -> PyResult<u64> {
    match v.as_builtin() {
        Value::Int(s) if *s >= 0 => Ok(*s as u64),
        _ => Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.random.Generator takes a non-negative int seed in dist",
        )),
    }
}

/// `Generator.from_seed(seed, alg=None)`: the state `[seed, 0, 0]`.
fn generator_from_seed(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    philox_alg(vm, a.get(1))?;
    let seed = generator_seed(a.get(0))?;
    Ok(Value::native(GeneratorObj {
        state: std::cell::Cell::new([seed, 0, 0]),
    }))
}

fn generator_of(v: &Value) -> PyResult<&GeneratorObj> {
    v.downcast::<GeneratorObj>()
        .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected a tf.random.Generator"))
}

/// Draws `dist` from the generator's stream and moves its counter on.
fn generator_draw(
    vm: &dyn Vm,
    g: &GeneratorObj,
    op: &OpDef,
    shape: &Value,
    dist: Distribution,
    dtype: DType,
) -> PyResult<Tensor> {
    let device = crate::distribute::current_device(vm);
    let shape = shape_tensor(vm, shape)?;
    let (dims, _) = op.dims(&shape, device)?;
    let n = op.output_len(&dims, dtype, device)?;
    let [lo, hi, key] = g.state.get();
    let gen = Philox::from_parts(
        [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32],
        [key as u32, (key >> 32) as u32],
    );
    let t = op.draw(gen, dist, dtype, &dims, device)?;
    let wide = ((hi as u128) << 64 | lo as u128).wrapping_add(256 * n as u128);
    g.state.set([wide as u64, (wide >> 64) as u64, key]);
    Ok(t)
}

fn generator_normal_like(vm: &dyn Vm, a: &Args, dist: Distribution) -> PyResult<Value> {
    let g = generator_of(a.get(0))?;
    let dtype = opt_dtype(vm, a.get(4))?.unwrap_or(DType::Float32);
    let op = if dist == Distribution::Normal {
        &RANDOM_NORMAL
    } else {
        &TRUNCATED_NORMAL
    };
    // TensorFlow converts the mean and stddev first (an int dtype fails there).
    let mean = to_tensor(vm, a.get(2), Some(dtype))?;
    let stddev = to_tensor(vm, a.get(3), Some(dtype))?;
    check_float_dist(op, dist, dtype)?;
    let rnd = generator_draw(vm, g, op, a.get(1), dist, dtype)?;
    tv(vm, Ok(affine(rnd, &stddev, &mean)?))
}

fn generator_normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    generator_normal_like(vm, a, Distribution::Normal)
}

fn generator_truncated_normal(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    generator_normal_like(vm, a, Distribution::TruncatedNormal)
}

/// `Generator.uniform(shape, minval=0, maxval=None, dtype=tf.float32)`.
fn generator_uniform(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let g = generator_of(a.get(0))?;
    let dtype = opt_dtype(vm, a.get(4))?.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, false)?;
    let (minval, mut maxval) = (a.get(2).clone(), a.get(3).clone());
    if dtype.is_integer() {
        if minval.is_none() != maxval.is_none() {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "For integer dtype <dtype: '{}'>, minval and maxval must be both `None` or both non-`None`; got minval={} and maxval={}.",
                    dtype.name(),
                    vm.str(&minval)?,
                    vm.str(&maxval)?
                ),
            ));
        }
        if maxval.is_none() {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "Generator.uniform of an integer dtype without minval and maxval (uniform_full_int) is not implemented in dist",
            ));
        }
        // TensorFlow draws a generator's ints with the stateless kernel
        // from the generator's key and counter (its errors name that op).
        let op = &STATELESS_UNIFORM_INT;
        let lo = to_tensor(vm, &minval, Some(dtype))?;
        let hi = to_tensor(vm, &maxval, Some(dtype))?;
        let device = crate::distribute::current_device(vm);
        let (lo, hi) = int_range(op, &lo, &hi, device)?;
        let dist = Distribution::UniformInt { lo, hi };
        let t = generator_draw(vm, g, op, a.get(1), dist, dtype)?;
        return tv(vm, Ok(t));
    }
    if maxval.is_none() {
        maxval = Value::Int(1);
    }
    let lo = to_tensor(vm, &minval, Some(dtype))?;
    let hi = to_tensor(vm, &maxval, Some(dtype))?;
    let rnd = generator_draw(
        vm,
        g,
        &RANDOM_UNIFORM,
        a.get(1),
        Distribution::Uniform,
        dtype,
    )?;
    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
    tv(vm, Ok(affine(rnd, &width, &lo)?))
}
