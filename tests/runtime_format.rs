//! Checks the numpy/TensorFlow printer against `tests/data/format_corpus.jsonl`,
//! which `tools/gen_format_corpus.py` generated with real numpy and TensorFlow.
//! Every case must match exactly; mismatches are listed readably.

use dist::runtime::format::{numpy_repr, numpy_str, tf_repr, tf_str};
use dist::runtime::{DType, HostData, Shape, Tensor, C128, C64, F16};

/// A JSON value, as much as the corpus needs.
#[derive(Debug)]
enum Json {
    Str(String),
    Num(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Json {
        self.ws();
        match self.s[self.i] {
            b'"' => Json::Str(self.string()),
            b'[' => {
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    self.ws();
                    if self.s[self.i] == b']' {
                        self.i += 1;
                        return Json::Arr(v);
                    }
                    v.push(self.value());
                    self.ws();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    self.ws();
                    if self.s[self.i] == b'}' {
                        self.i += 1;
                        return Json::Obj(v);
                    }
                    let k = self.string();
                    self.ws();
                    assert_eq!(self.s[self.i], b':');
                    self.i += 1;
                    let val = self.value();
                    v.push((k, val));
                    self.ws();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            _ => {
                let st = self.i;
                while self.i < self.s.len() && !b",]} ".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                Json::Num(String::from_utf8_lossy(&self.s[st..self.i]).into_owned())
            }
        }
    }

    fn string(&mut self) -> String {
        assert_eq!(self.s[self.i], b'"');
        self.i += 1;
        let mut out: Vec<u16> = Vec::new();
        loop {
            let c = self.s[self.i];
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    match e {
                        b'n' => out.push(10),
                        b't' => out.push(9),
                        b'r' => out.push(13),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let h = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                            out.push(u16::from_str_radix(h, 16).unwrap());
                            self.i += 4;
                        }
                        other => out.push(other as u16),
                    }
                }
                _ => {
                    // corpus strings are ASCII outside escapes
                    out.push(c as u16);
                }
            }
        }
        String::from_utf16_lossy(&out)
    }
}

fn field<'a>(obj: &'a [(String, Json)], key: &str) -> &'a Json {
    &obj.iter().find(|(k, _)| k == key).unwrap().1
}

fn text(j: &Json) -> &str {
    match j {
        Json::Str(s) => s,
        _ => panic!("expected string"),
    }
}

fn build(dtype: DType, dims: Vec<usize>, vals: &[String]) -> Tensor {
    let n: usize = dims.iter().product();
    let at = |i: usize| vals[i % vals.len()].as_str();
    let hex = |i: usize| u64::from_str_radix(at(i), 16).unwrap();
    let data = match dtype {
        DType::Bool => HostData::Bool((0..n).map(|i| at(i) == "1").collect()),
        DType::Int8 => HostData::I8((0..n).map(|i| at(i).parse().unwrap()).collect()),
        DType::UInt8 => HostData::U8((0..n).map(|i| at(i).parse().unwrap()).collect()),
        DType::Int16 => HostData::I16((0..n).map(|i| at(i).parse().unwrap()).collect()),
        DType::Int32 => HostData::I32((0..n).map(|i| at(i).parse().unwrap()).collect()),
        DType::Int64 => HostData::I64((0..n).map(|i| at(i).parse().unwrap()).collect()),
        DType::Float16 => HostData::F16((0..n).map(|i| F16::from_bits(hex(i) as u16)).collect()),
        DType::Float32 => HostData::F32((0..n).map(|i| f32::from_bits(hex(i) as u32)).collect()),
        DType::Float64 => HostData::F64((0..n).map(|i| f64::from_bits(hex(i))).collect()),
        DType::Complex64 | DType::Complex128 => {
            let parts = |i: usize| {
                let (re, im) = at(i).split_once(':').unwrap();
                let h = |x: &str| u64::from_str_radix(x, 16).unwrap();
                (h(re), h(im))
            };
            if dtype == DType::Complex64 {
                HostData::C64(
                    (0..n)
                        .map(|i| {
                            let (re, im) = parts(i);
                            C64::new(f32::from_bits(re as u32), f32::from_bits(im as u32))
                        })
                        .collect(),
                )
            } else {
                HostData::C128(
                    (0..n)
                        .map(|i| {
                            let (re, im) = parts(i);
                            C128::new(f64::from_bits(re), f64::from_bits(im))
                        })
                        .collect(),
                )
            }
        }
        DType::String => HostData::Str(
            (0..n)
                .map(|i| {
                    let h = at(i);
                    (0..h.len() / 2)
                        .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap())
                        .collect()
                })
                .collect(),
        ),
    };
    Tensor::from_host(data, Shape(dims), Default::default()).unwrap()
}

/// One of the four printers under test.
type Printer = fn(&Tensor) -> String;

#[test]
fn format_corpus_matches_numpy_and_tensorflow() {
    // the corpus of real types, then the complex one (`--complex`)
    let corpus = [
        include_str!("data/format_corpus.jsonl"),
        include_str!("data/format_corpus_complex.jsonl"),
    ]
    .concat();
    let mut cases = 0;
    let mut failures = Vec::new();
    for (line_no, line) in corpus.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        cases += 1;
        let Json::Obj(obj) = (Parser {
            s: line.as_bytes(),
            i: 0,
        })
        .value() else {
            panic!("line {} is not an object", line_no + 1);
        };
        let dtype = DType::from_name(text(field(&obj, "dtype"))).unwrap();
        let Json::Arr(shape) = field(&obj, "shape") else {
            panic!()
        };
        let dims: Vec<usize> = shape
            .iter()
            .map(|d| match d {
                Json::Num(n) => n.parse().unwrap(),
                _ => panic!(),
            })
            .collect();
        let Json::Arr(vals) = field(&obj, "values") else {
            panic!()
        };
        let vals: Vec<String> = vals.iter().map(|v| text(v).to_string()).collect();
        let t = build(dtype, dims, &vals);
        let checks: [(&str, Printer); 4] = [
            ("np_str", numpy_str),
            ("np_repr", numpy_repr),
            ("tf_str", tf_str),
            ("tf_repr", tf_repr),
        ];
        for (key, f) in checks {
            let want = text(field(&obj, key));
            let got = f(&t);
            if got != want {
                failures.push(format!(
                    "line {} ({} {}) {key}:\n--- expected\n{want}\n--- got\n{got}\n",
                    line_no + 1,
                    dtype.name(),
                    t.shape()
                ));
            }
        }
    }
    assert!(cases >= 1900, "corpus has only {cases} cases");
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(15).collect();
        panic!(
            "{} of {} checks differ; first ones:\n{}",
            failures.len(),
            cases * 4,
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
