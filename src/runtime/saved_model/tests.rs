//! Writing traced graphs as `FunctionDef`s and running them back, and
//! `FunctionDef`s that a damaged or hostile SavedModel could hold.

use std::collections::BTreeMap;

use super::interp::{self, Assign, Env, Library, V};
use super::proto::{
    attr_value::Value as AV, ArgDef, AttrValue, FunctionDef, NameAttrList, NodeDef, OpDef,
};
use super::{export, tensor_from_proto, tensor_proto};
use crate::runtime::error::Result;
use crate::runtime::graph::{self, placeholder, set_outputs};
use crate::runtime::ops;
use crate::runtime::tensor::Tensor;

fn vec_f32(v: &[f32]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_scalars().into_iter().map(|s| s.as_f64()).collect()
}

struct NoVars;

impl Env for NoVars {
    fn read(&mut self, _r: usize) -> Result<Tensor> {
        Ok(Tensor::scalar(0.0f32))
    }
    fn assign(&mut self, _r: usize, _how: Assign, _v: &Tensor) -> Result<()> {
        Ok(())
    }
    fn poll(&mut self) -> Result<()> {
        Ok(())
    }
}

fn lib(fs: Vec<FunctionDef>) -> Library {
    fs.into_iter()
        .map(|f| (f.signature.as_ref().unwrap().name.clone(), f))
        .collect()
}

fn node(name: &str, op: &str, inputs: &[&str], attrs: Vec<(&str, AV)>) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        device: String::new(),
        attr: attrs
            .into_iter()
            .map(|(k, v)| (k.to_string(), AttrValue { value: Some(v) }))
            .collect(),
    }
}

fn function(name: &str, inputs: &[&str], nodes: Vec<NodeDef>, ret: &str) -> FunctionDef {
    let arg = |n: &str| ArgDef {
        name: n.into(),
        r#type: 1,
        handle_data: vec![],
    };
    let mut rets = BTreeMap::new();
    rets.insert("out".to_string(), ret.to_string());
    FunctionDef {
        signature: Some(OpDef {
            name: name.into(),
            input_arg: inputs.iter().map(|n| arg(n)).collect(),
            output_arg: vec![arg("out")],
            ..Default::default()
        }),
        node_def: nodes,
        ret: rets,
        ..Default::default()
    }
}

#[test]
fn an_exported_graph_runs_back_with_the_same_values() {
    let a = vec_f32(&[1.0, -2.0, 3.0]);
    let b = vec_f32(&[0.5, 0.5, 0.5]);
    let g = graph::begin();
    let x = placeholder(&a, "x");
    let y = placeholder(&b, "y");
    let s = ops::add(&x, &y).unwrap();
    let r = ops::unary(crate::runtime::op::UnaryOp::Relu, &s).unwrap();
    let m = ops::reduce(crate::runtime::op::ReduceOp::Sum, &r, Some(&[0]), true).unwrap();
    let out = ops::mul(&r, &m).unwrap();
    set_outputs(&g, std::slice::from_ref(&out));
    graph::end(&g);
    let gb = g.borrow();
    let e = export::export(&gb, "f", None, &gb.outputs).unwrap();
    assert!(e.resources.is_empty());
    let ops_written: Vec<&str> = e.def.node_def.iter().map(|n| n.op.as_str()).collect();
    assert!(
        ops_written.contains(&"AddV2") && ops_written.contains(&"Sum"),
        "{ops_written:?}"
    );
    let l = lib(vec![e.def]);
    let got = interp::call(&l, "f", &[V::T(a.clone()), V::T(b.clone())], &mut NoVars).unwrap();
    let V::T(t) = &got[0] else {
        panic!("not a tensor")
    };
    assert_eq!(values(t), values(&out));
}

#[test]
fn tensor_protos_round_trip() {
    let t = Tensor::from_vec(vec![1i64, -5, 7, 9], &[2, 2]).unwrap();
    let back = tensor_from_proto(&tensor_proto(&t).unwrap()).unwrap();
    assert_eq!(back.dims(), &[2, 2]);
    assert_eq!(values(&back), values(&t));
    // typed values, the last one repeated to fill the shape (TensorFlow's
    // compact form of a splat constant)
    let mut p = tensor_proto(&vec_f32(&[0.0; 3])).unwrap();
    p.tensor_content.clear();
    p.float_val = vec![2.5];
    assert_eq!(values(&tensor_from_proto(&p).unwrap()), vec![2.5; 3]);
    // content that does not fit the shape is an error, not a panic
    let mut bad = tensor_proto(&vec_f32(&[1.0, 2.0])).unwrap();
    bad.tensor_content.truncate(5);
    assert!(tensor_from_proto(&bad).is_err());
}

#[test]
fn hostile_function_defs_are_errors() {
    let x = vec_f32(&[1.0]);
    // a cycle among the nodes
    let cyclic = function(
        "cyclic",
        &["x"],
        vec![
            node("a", "Identity", &["b:output:0"], vec![]),
            node("b", "Identity", &["a:output:0"], vec![]),
        ],
        "a:output:0",
    );
    // a function that calls itself
    let call = AV::Func(NameAttrList {
        name: "again".into(),
        attr: BTreeMap::new(),
    });
    let again = function(
        "again",
        &["x"],
        vec![node(
            "c",
            "StatefulPartitionedCall",
            &["x"],
            vec![("f", call)],
        )],
        "c:output:0",
    );
    let dangling = function("dangling", &["x"], vec![], "nowhere:output:0");
    let unknown = function(
        "unknown",
        &["x"],
        vec![node("u", "FancyNewOp", &["x"], vec![])],
        "u:output:0",
    );
    let bad_ref = function(
        "bad_ref",
        &["x"],
        vec![node("i", "Identity", &["x"], vec![])],
        "i:no_such_output:0",
    );
    let l = lib(vec![cyclic, again, dangling, unknown, bad_ref]);
    for name in [
        "cyclic", "again", "dangling", "unknown", "bad_ref", "missing",
    ] {
        let r = interp::call(&l, name, &[V::T(x.clone())], &mut NoVars);
        assert!(r.is_err(), "{name} ran");
    }
    // the wrong number of inputs
    assert!(interp::call(&l, "cyclic", &[], &mut NoVars).is_err());
}
