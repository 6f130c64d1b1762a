//! The printers and `dist doctest`'s parser on arbitrary bytes: the first
//! byte picks what the rest feeds.
//! - 0: the doctest parser (`parse::parse`), then the output checkers
//!   (CPython's and TensorFlow's) on the two halves, under every flag set the
//!   second byte spells;
//! - 1..: a tensor of the dtype and shape the next bytes spell, its values
//!   the rest, through numpy's and TensorFlow's str and repr; plus Python's
//!   float repr of every f64 in the data.
//!
//! Any panic is a bug.

#![no_main]

use dist::doctest::{check, options::Flags, parse};
use dist::runtime::{format, Tensor};
use libfuzzer_sys::fuzz_target;

fn printers(t: &Tensor) {
    let _ = format::numpy_str(t);
    let _ = format::numpy_repr(t);
    let _ = format::tf_str(t);
    let _ = format::tf_repr(t);
}

fn tensor_case(kind: u8, data: &[u8]) {
    let Some((&rank, rest)) = data.split_first() else {
        return;
    };
    let rank = usize::from(rank % 4);
    if rest.len() < rank {
        return;
    }
    let (dims_bytes, values) = rest.split_at(rank);
    let dims: Vec<usize> = dims_bytes.iter().map(|&d| usize::from(d % 9)).collect();
    let n: usize = dims.iter().product();
    let pick = |width: usize| -> Option<Vec<&[u8]>> {
        let chunks: Vec<&[u8]> = values.chunks_exact(width).take(n).collect();
        (chunks.len() == n).then_some(chunks)
    };
    let tensor = match kind % 5 {
        0 => pick(8).map(|c| {
            Tensor::from_vec(
                c.iter()
                    .map(|b| f64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])))
                    .collect::<Vec<f64>>(),
                &dims,
            )
        }),
        1 => pick(4).map(|c| {
            Tensor::from_vec(
                c.iter()
                    .map(|b| f32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4])))
                    .collect::<Vec<f32>>(),
                &dims,
            )
        }),
        2 => pick(8).map(|c| {
            Tensor::from_vec(
                c.iter()
                    .map(|b| i64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])))
                    .collect::<Vec<i64>>(),
                &dims,
            )
        }),
        3 => pick(4).map(|c| {
            Tensor::from_vec(
                c.iter()
                    .map(|b| i32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4])))
                    .collect::<Vec<i32>>(),
                &dims,
            )
        }),
        _ => pick(1).map(|c| {
            Tensor::from_vec(
                c.iter().map(|b| b[0] & 1 == 1).collect::<Vec<bool>>(),
                &dims,
            )
        }),
    };
    if let Some(Ok(t)) = tensor {
        printers(&t);
    }
    for c in values.chunks_exact(8) {
        let x = f64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        let _ = dist::value::format::float_repr(x);
    }
}

fn doctest_case(data: &[u8]) {
    let Some((&flag_bits, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    if let Ok(examples) = parse::parse(&text, "fuzz") {
        std::hint::black_box(examples.len());
    }
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid -= 1;
    }
    let (want, got) = text.split_at(mid);
    let mut flags = Flags::empty();
    use dist::doctest::options::Flag;
    let all = [
        Flag::DontAcceptTrueFor1,
        Flag::DontAcceptBlankline,
        Flag::NormalizeWhitespace,
        Flag::Ellipsis,
        Flag::IgnoreExceptionDetail,
    ];
    for (bit, flag) in all.into_iter().enumerate() {
        if flag_bits & (1 << bit) != 0 {
            flags.insert(flag);
        }
    }
    let _ = check::check_output(want, got, flags);
    let _ = check::tf_check_output(want, got, flags);
    let _ = check::diff(want, got, flag_bits & 1 == 1);
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((0, rest)) => doctest_case(rest),
        Some((&kind, rest)) => tensor_case(kind, rest),
        None => {}
    }
});
