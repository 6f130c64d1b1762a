//! Tracing and replaying graphs at the runtime level.

use super::*;
use crate::runtime::ops;

fn vec_f32(v: &[f32]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_scalars().into_iter().map(|s| s.as_f64()).collect()
}

/// Traces `f` on placeholders of `inputs`; the graph and the traced result.
fn traced(inputs: &[Tensor], f: impl FnOnce(&[Tensor]) -> Tensor) -> (Rc<RefCell<Graph>>, Tensor) {
    let g = begin();
    let ph: Vec<Tensor> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| placeholder(t, &format!("x{i}")))
        .collect();
    let out = f(&ph);
    set_outputs(&g, std::slice::from_ref(&out));
    end(&g);
    (g, out)
}

fn replay(g: &Rc<RefCell<Graph>>, inputs: &[Tensor]) -> Vec<Tensor> {
    let g = g.borrow();
    let plan = exec::Plan::new(&g);
    exec::run(&g, &plan, inputs, &mut |_, _| Ok(())).unwrap()
}

#[test]
fn a_traced_graph_replays_on_new_inputs() {
    let a = vec_f32(&[1.0, 2.0]);
    let b = vec_f32(&[3.0, 4.0]);
    let (g, out) = traced(&[a, b], |x| {
        let s = ops::add(&x[0], &x[1]).unwrap();
        let m = ops::mul(&s, &x[0]).unwrap();
        ops::reduce(crate::runtime::ReduceOp::Sum, &m, None, false).unwrap()
    });
    assert_eq!(values(&out), vec![1.0 * 4.0 + 2.0 * 6.0]);
    assert!(g.borrow().taint.is_none());
    let r = replay(&g, &[vec_f32(&[2.0, 0.0]), vec_f32(&[1.0, 5.0])]);
    assert_eq!(values(&r[0]), vec![2.0 * 3.0]);
    // the graph holds no traced values once the trace ends
    assert!(g.borrow().map.is_empty() && g.borrow().keep.is_empty());
}

#[test]
fn node_names_are_unique_ignoring_case() {
    let a = vec_f32(&[1.0]);
    let (g, _) = traced(&[a], |x| {
        let p = named("add", || ops::add(&x[0], &x[0])).unwrap();
        let q = named("add", || ops::add(&p, &x[0])).unwrap();
        // tf.add's node is named `Add`, which `add` has taken already
        ops::add(&q, &x[0]).unwrap()
    });
    let names: Vec<String> = g.borrow().nodes.iter().map(|n| n.name.clone()).collect();
    assert_eq!(names, ["x0", "add", "add_1", "Add_2"]);
}

#[test]
fn tensors_from_before_the_trace_are_captured() {
    let w = vec_f32(&[10.0, 20.0]);
    let (g, _) = traced(&[vec_f32(&[1.0, 1.0])], |x| ops::mul(&x[0], &w).unwrap());
    let gb = g.borrow();
    assert!(gb
        .nodes
        .iter()
        .any(|n| matches!(&n.op, NodeOp::Const(t) if t.ptr_eq(&w)) && n.op_type == "Const"));
    drop(gb);
    let r = replay(&g, &[vec_f32(&[2.0, 3.0])]);
    assert_eq!(values(&r[0]), vec![20.0, 60.0]);
}

#[test]
fn a_tensor_made_by_an_unrecorded_op_taints_the_graph() {
    let (g, _) = traced(&[vec_f32(&[1.0, 2.0])], |x| {
        // made during the trace without a recording point (as a kernel
        // with no graph node would make it)
        let fresh = Tensor::from_vec(vec![5.0f32, 6.0], &[2]).unwrap();
        ops::add(&x[0], &fresh).unwrap()
    });
    let taint = g.borrow().taint.clone();
    assert!(
        taint.is_some_and(|t| t.contains("AddV2")),
        "the reason names the op"
    );
}

#[test]
fn constants_made_in_the_trace_are_graph_constants() {
    let (g, _) = traced(&[vec_f32(&[1.0, 2.0])], |x| {
        let two = Tensor::fill(
            &[],
            &crate::runtime::Scalar::Float(2.0),
            DType::Float32,
            Device::CPU0,
        )
        .unwrap();
        ops::mul(&x[0], &two).unwrap()
    });
    assert!(g.borrow().taint.is_none());
    let r = replay(&g, &[vec_f32(&[4.0, 5.0])]);
    assert_eq!(values(&r[0]), vec![8.0, 10.0]);
}

#[test]
fn reading_a_computed_value_on_the_host_taints_the_graph() {
    let (g, _) = traced(&[vec_f32(&[1.0, 2.0])], |x| {
        let s = ops::add(&x[0], &x[0]).unwrap();
        let _ = s.get(0);
        s
    });
    assert!(g.borrow().taint.is_some());
}

#[test]
fn dead_nodes_are_pruned_and_effects_kept() {
    let (g, _) = traced(&[vec_f32(&[1.0])], |x| {
        let _unused = ops::mul(&x[0], &x[0]).unwrap();
        ops::add(&x[0], &x[0]).unwrap()
    });
    let live = live_nodes(&g.borrow());
    let names: Vec<(String, bool)> = g
        .borrow()
        .nodes
        .iter()
        .zip(&live)
        .map(|(n, l)| (n.name.clone(), *l))
        .collect();
    assert_eq!(
        names,
        [
            ("x0".into(), true),
            ("Mul".into(), false),
            ("Add".into(), true)
        ]
    );
}
