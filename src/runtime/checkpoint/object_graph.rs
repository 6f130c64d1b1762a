//! The `TrackableObjectGraph` proto that object-based checkpoints store
//! under `_CHECKPOINTABLE_OBJECT_GRAPH`: one node per object, in the
//! breadth-first order of the save, each with its named children, the
//! tensors it saved (attribute name, the variable's full name, the key in
//! the bundle), optimizer slot references, and whether it or a descendant
//! holds values. Encoding is field for field what TensorFlow's serializer
//! writes (`has_checkpoint_values` always set, as TensorFlow sets it).

use super::proto::{fields, Writer};

/// One node of the graph (`TrackableObject`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    /// `(node_id, local_name)` of each child, in the saved order.
    pub children: Vec<(u64, String)>,
    /// `(name, full_name, checkpoint_key)` of each saved tensor.
    pub attributes: Vec<(String, String, String)>,
    /// `(original_variable_node_id, slot_name, slot_variable_node_id)`.
    pub slot_variables: Vec<(u64, String, u64)>,
    /// Whether the node or a descendant has values (`None`: not set, as in
    /// checkpoints from before TensorFlow wrote it).
    pub has_checkpoint_values: Option<bool>,
}

/// The serialized graph of `nodes`.
pub fn encode(nodes: &[Node]) -> Vec<u8> {
    let mut graph = Writer::new();
    for node in nodes {
        let mut n = Writer::new();
        for (id, name) in &node.children {
            let mut r = Writer::new();
            r.varint(1, *id).string(2, name);
            n.bytes(1, &r.buf);
        }
        for (name, full_name, key) in &node.attributes {
            let mut a = Writer::new();
            a.string(1, name).string(2, full_name).string(3, key);
            n.bytes(2, &a.buf);
        }
        for (original, slot, slot_node) in &node.slot_variables {
            let mut s = Writer::new();
            s.varint(1, *original).string(2, slot).varint(3, *slot_node);
            n.bytes(3, &s.buf);
        }
        if let Some(has) = node.has_checkpoint_values {
            let mut b = Writer::new();
            b.varint(1, has as u64);
            n.bytes(5, &b.buf);
        }
        graph.bytes(1, &n.buf);
    }
    graph.buf
}

/// The nodes of a serialized graph, or `None` if the bytes are not one.
pub fn decode(data: &[u8]) -> Option<Vec<Node>> {
    let mut nodes = Vec::new();
    for (f, v) in fields(data)? {
        if f != 1 {
            continue;
        }
        let mut node = Node::default();
        for (f, v) in fields(v.data())? {
            let sub = fields(v.data());
            match f {
                1 => {
                    let (mut id, mut name) = (0, String::new());
                    for (g, w) in sub? {
                        match g {
                            1 => id = w.int(),
                            2 => name = w.text(),
                            _ => {}
                        }
                    }
                    node.children.push((id, name));
                }
                2 => {
                    let mut a = (String::new(), String::new(), String::new());
                    for (g, w) in sub? {
                        match g {
                            1 => a.0 = w.text(),
                            2 => a.1 = w.text(),
                            3 => a.2 = w.text(),
                            _ => {}
                        }
                    }
                    node.attributes.push(a);
                }
                3 => {
                    let mut s = (0, String::new(), 0);
                    for (g, w) in sub? {
                        match g {
                            1 => s.0 = w.int(),
                            2 => s.1 = w.text(),
                            3 => s.2 = w.int(),
                            _ => {}
                        }
                    }
                    node.slot_variables.push(s);
                }
                5 => {
                    let value = sub?.iter().any(|(g, w)| *g == 1 && w.int() != 0);
                    node.has_checkpoint_values = Some(value);
                }
                _ => {}
            }
        }
        nodes.push(node);
    }
    // every reference names a node of this graph
    let n = nodes.len() as u64;
    let ok = nodes.iter().all(|node| {
        node.children.iter().all(|(id, _)| *id < n)
            && node.slot_variables.iter().all(|(a, _, b)| *a < n && *b < n)
    });
    ok.then_some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_tensorflow() {
        // `tf.train.Checkpoint(i=tf.Variable(...)).write(...)`'s graph, as
        // TensorFlow 2.21 writes it (its first bytes)
        let nodes = vec![
            Node {
                children: vec![(1, "i".into())],
                has_checkpoint_values: Some(true),
                ..Node::default()
            },
            Node {
                attributes: vec![(
                    "VARIABLE_VALUE".into(),
                    "Variable".into(),
                    "i/.ATTRIBUTES/VARIABLE_VALUE".into(),
                )],
                has_checkpoint_values: Some(false),
                ..Node::default()
            },
        ];
        let bytes = encode(&nodes);
        assert_eq!(
            &bytes[..13],
            &[0x0a, 0x0b, 0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, b'i', 0x2a, 0x02, 0x08, 0x01]
        );
        assert!(bytes.ends_with(&[0x2a, 0x00]));
        assert_eq!(decode(&bytes).unwrap(), nodes);
        // a child outside the graph is refused
        let dangling = vec![Node {
            children: vec![(5, "x".into())],
            ..Node::default()
        }];
        assert_eq!(decode(&encode(&dangling)), None);
    }
}
