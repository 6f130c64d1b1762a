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

/// A constant made in the trace (as `tf.constant` makes one).
fn traced_const(v: &[f32]) -> Tensor {
    let t = vec_f32(v);
    constant(&t);
    t
}

fn replay(g: &Rc<RefCell<Graph>>, inputs: &[Tensor]) -> Vec<Tensor> {
    let g = g.borrow();
    let plan = exec::Plan::new(&g);
    exec::run(&g, &plan, inputs, &[], &mut |_, _| Ok(())).unwrap()
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

#[test]
fn a_tensor_of_an_earlier_trace_is_a_capture_in_a_later_one() {
    let (g1, out) = traced(&[vec_f32(&[1.0])], |x| ops::add(&x[0], &x[0]).unwrap());
    assert!(g1.borrow().lookup(&out).is_some());
    let (g2, _) = traced(&[vec_f32(&[1.0])], |x| ops::mul(&x[0], &out).unwrap());
    let g2 = g2.borrow();
    assert!(g2.taint.is_none());
    // the earlier graph's AddV2 output is a captured constant here
    let (n, _) = g2.lookup(&out).unwrap();
    assert!(matches!(&g2.nodes[n].op, NodeOp::Const(t) if t.ptr_eq(&out)));
    assert!(
        g1.borrow().lookup(&out).is_none(),
        "a tensor is one graph's at a time"
    );
}

#[test]
fn a_copy_on_write_copy_is_not_the_traced_tensor() {
    let (g, _) = traced(&[vec_f32(&[1.0, 2.0])], |x| {
        let s = ops::add(&x[0], &x[0]).unwrap();
        let mut c = s.clone();
        c.make_mut();
        // a mutated copy is a new tensor made in the trace, by no node
        ops::add(&c, &x[0]).unwrap()
    });
    assert!(g.borrow().taint.is_some());
}

#[test]
fn name_scopes_are_unique_in_a_graph() {
    let a = vec_f32(&[1.0, 2.0]);
    let (g, _) = traced(&[a], |x| {
        let (g, s1) = enter_scope("outer").unwrap();
        let b = ops::add(&x[0], &x[0]).unwrap();
        let (_, s2) = enter_scope("inner").unwrap();
        exit_scope(&g);
        exit_scope(&g);
        let (_, s3) = enter_scope("outer").unwrap();
        let c = ops::mul(&b, &x[0]).unwrap();
        exit_scope(&g);
        let (_, s4) = enter_scope("abs/").unwrap();
        exit_scope(&g);
        assert_eq!((s1.as_str(), s2.as_str()), ("outer/", "outer/inner/"));
        assert_eq!((s3.as_str(), s4.as_str()), ("outer_1/", "abs/"));
        c
    });
    let names: Vec<String> = g.borrow().nodes.iter().map(|n| n.name.clone()).collect();
    assert!(names.iter().any(|n| n.starts_with("outer/")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("outer_1/")), "{names:?}");
    assert!(enter_scope("outside").is_none());
}

#[test]
fn ops_on_constants_are_folded_once() {
    let w = vec_f32(&[10.0, 20.0]);
    let (g, out) = traced(&[vec_f32(&[1.0, 1.0])], |x| {
        // `w * 2 + 1` depends on no input: computed when the plan is made
        let two = ops::mul(&w, &traced_const(&[2.0, 2.0])).unwrap();
        let k = ops::add(&two, &traced_const(&[1.0, 1.0])).unwrap();
        ops::sub(&x[0], &k).unwrap()
    });
    assert_eq!(values(&out), vec![-20.0, -40.0]);
    let gb = g.borrow();
    let plan = exec::Plan::new(&gb);
    // three constants, two folded ops, the placeholder: only `Sub` runs
    assert_eq!(gb.nodes.len(), 7);
    assert_eq!(plan.steps(), 1);
    let r = exec::run(&gb, &plan, &[vec_f32(&[0.5, 2.0])], &[], &mut |_, _| Ok(())).unwrap();
    assert_eq!(values(&r[0]), vec![0.5 - 21.0, 2.0 - 41.0]);
}

#[test]
fn large_results_of_constants_are_not_folded() {
    let (g, _) = traced(&[vec_f32(&[1.0])], |x| {
        let big = ops::broadcast_to(&traced_const(&[0.5]), &[1 << 17]).unwrap();
        let s = ops::reduce(crate::runtime::ReduceOp::Sum, &big, None, false).unwrap();
        ops::add(&x[0], &s).unwrap()
    });
    let gb = g.borrow();
    let plan = exec::Plan::new(&gb);
    // BroadcastTo (over the limit), then Sum and Add on it
    assert_eq!(plan.steps(), 3);
    let r = exec::run(&gb, &plan, &[vec_f32(&[1.0])], &[], &mut |_, _| Ok(())).unwrap();
    assert_eq!(values(&r[0]), vec![1.0 + 65536.0]);
}
