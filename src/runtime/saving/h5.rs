//! HDF5 files as Keras's `H5IOStore` uses them: a tree of groups, some with
//! string attributes (`vars` groups carry the owner's `name`), holding
//! datasets — numeric arrays, scalars for 0-d values. [`write`] builds a
//! file from the groups by path; [`read`] gives every group of a file, as
//! h5py or dist wrote it, with its datasets as tensors.

use super::{Result, SaveError, SaveErrorKind};
use crate::runtime::storage::HostData;
use crate::runtime::{Device, Tensor};
use hdf5_pure::{AttrValue, DType as H5DType, File, FileBuilder, GroupBuilder};
use std::collections::BTreeMap;

/// One group of a file: its path from the root (`"layers/dense/vars"`; `""`
/// is the root), its string attributes and its datasets, each in order.
#[derive(Debug, Clone, Default)]
pub struct H5Group {
    /// Slash-separated path from the root, without a leading slash.
    pub path: String,
    /// String-valued attributes (`name`).
    pub attrs: Vec<(String, String)>,
    /// Datasets directly in this group, by name.
    pub datasets: Vec<(String, Tensor)>,
}

fn format_err(e: impl std::fmt::Display) -> SaveError {
    SaveError::new(SaveErrorKind::Format, e.to_string())
}

/// A group of the tree being built: its own part and its children by name.
#[derive(Default)]
struct Node {
    attrs: Vec<(String, String)>,
    datasets: Vec<(String, Tensor)>,
    children: BTreeMap<String, Node>,
}

fn node_at<'a>(root: &'a mut Node, path: &str) -> &'a mut Node {
    let mut node = root;
    for part in path.split('/').filter(|p| !p.is_empty()) {
        node = node.children.entry(part.to_string()).or_default();
    }
    node
}

/// Stages `t` as the dataset `name` of a group being built (`add` is the
/// group's or the file's `create_dataset`).
fn put_dataset(builder: &mut hdf5_pure::DatasetBuilder, name: &str, t: &Tensor) -> Result<()> {
    let host;
    let t = if t.device().is_host() {
        t
    } else {
        host = t
            .to_device(Device::CPU0)
            .map_err(|e| SaveError::new(SaveErrorKind::Io, e.to_string()))?;
        &host
    };
    let dims: Vec<u64> = t.shape().dims().iter().map(|&d| d as u64).collect();
    let data = t
        .host()
        .map_err(|e| SaveError::new(SaveErrorKind::Io, e.to_string()))?;
    match data {
        HostData::F32(v) => builder.with_f32_data(v),
        HostData::F64(v) => builder.with_f64_data(v),
        HostData::I64(v) => builder.with_i64_data(v),
        HostData::I32(v) => builder.with_i32_data(v),
        HostData::U8(v) => builder.with_u8_data(v),
        HostData::I8(v) => builder.with_data(v.as_slice()),
        HostData::I16(v) => builder.with_data(v.as_slice()),
        _ => {
            return Err(SaveError::new(
                SaveErrorKind::Unsupported,
                format!(
                    "saving a {} variable ({name}) to HDF5 is not supported in dist",
                    t.dtype().name()
                ),
            ))
        }
    };
    builder.with_shape(&dims);
    Ok(())
}

fn build_group(gb: &mut GroupBuilder, node: &Node) -> Result<()> {
    for (k, v) in &node.attrs {
        gb.set_attr(k, AttrValue::String(v.clone()));
    }
    for (name, t) in &node.datasets {
        put_dataset(gb.create_dataset(name), name, t)?;
    }
    for (name, child) in &node.children {
        let mut cb = gb.create_group(name);
        build_group(&mut cb, child)?;
        gb.add_group(cb.finish());
    }
    Ok(())
}

/// The bytes of an HDF5 file holding `groups` (parents are made as needed;
/// a group listed with nothing in it is still made, as Keras makes the
/// `vars` group of every named object).
pub fn write(groups: &[H5Group]) -> Result<Vec<u8>> {
    let mut root = Node::default();
    for g in groups {
        let node = node_at(&mut root, &g.path);
        node.attrs.extend(g.attrs.iter().cloned());
        node.datasets.extend(g.datasets.iter().cloned());
    }
    let mut fb = FileBuilder::new();
    for (k, v) in &root.attrs {
        fb.set_attr(k, AttrValue::String(v.clone()));
    }
    for (name, t) in &root.datasets {
        put_dataset(fb.create_dataset(name), name, t)?;
    }
    for (name, child) in &root.children {
        let mut cb = fb.create_group(name);
        build_group(&mut cb, child)?;
        fb.add_group(cb.finish());
    }
    fb.finish().map_err(format_err)
}

fn attr_string(v: &AttrValue) -> Option<String> {
    match v {
        AttrValue::String(s) | AttrValue::AsciiString(s) => Some(s.clone()),
        AttrValue::StringSized { value, .. } => Some(value.clone()),
        _ => None,
    }
}

fn tensor_err(e: crate::runtime::Error) -> SaveError {
    SaveError::new(SaveErrorKind::Format, e.to_string())
}

fn read_dataset(file: &File, path: &str, file_len: usize) -> Result<Tensor> {
    let ds = file.dataset(path).map_err(format_err)?;
    let dims: Vec<usize> = ds
        .shape()
        .map_err(format_err)?
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
        .collect();
    let numel = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| SaveError::new(SaveErrorKind::Format, format!("{path}: shape too large")))?;
    // Datasets are stored uncompressed (dist reads no filters): one larger
    // than the whole file is a damaged header, not an allocation to try.
    let size = ds.element_size().map_err(format_err)?;
    if (numel as u128) * (size as u128) > file_len as u128 {
        return Err(SaveError::new(
            SaveErrorKind::Format,
            format!("{path}: dataset larger than the file"),
        ));
    }
    let dtype = ds.dtype().map_err(format_err)?;
    let t = match dtype {
        H5DType::F32 => Tensor::from_vec(ds.read_f32().map_err(format_err)?, &dims),
        H5DType::F64 => Tensor::from_vec(ds.read_f64().map_err(format_err)?, &dims),
        H5DType::I64 => Tensor::from_vec(ds.read_i64().map_err(format_err)?, &dims),
        H5DType::I32 => Tensor::from_vec(ds.read_i32().map_err(format_err)?, &dims),
        H5DType::I16 => Tensor::from_vec(ds.read_i16().map_err(format_err)?, &dims),
        H5DType::I8 => Tensor::from_vec(ds.read_i8().map_err(format_err)?, &dims),
        H5DType::U8 => Tensor::from_vec(ds.read::<u8>().map_err(format_err)?, &dims),
        // numpy's bool, as h5py stores it: an int8 enum FALSE/TRUE
        H5DType::Enum(names) if names == ["FALSE", "TRUE"] => {
            let v: Vec<bool> = ds
                .read_i8()
                .map_err(format_err)?
                .iter()
                .map(|&b| b != 0)
                .collect();
            Tensor::from_vec(v, &dims)
        }
        other => {
            return Err(SaveError::new(
                SaveErrorKind::Unsupported,
                format!("reading the HDF5 dataset {path} of type {other} is not supported in dist"),
            ))
        }
    };
    t.map_err(tensor_err)
}

/// How deep groups may nest, and how many a file may have: a damaged file
/// whose links form a cycle must end in an error, not run forever (Keras's
/// files nest a few levels per sublayer).
const MAX_DEPTH: usize = 128;
const MAX_GROUPS: usize = 1 << 16;

fn read_group(file: &File, path: &str, depth: usize, out: &mut Vec<H5Group>) -> Result<()> {
    if depth > MAX_DEPTH || out.len() >= MAX_GROUPS {
        return Err(SaveError::new(
            SaveErrorKind::Format,
            format!("{path}: groups nested too deep or too many (a cycle in a damaged file?)"),
        ));
    }
    let group = if path.is_empty() {
        file.root()
    } else {
        file.group(path).map_err(format_err)?
    };
    let mut attrs: Vec<(String, String)> = group
        .attrs()
        .map_err(format_err)?
        .iter()
        .filter_map(|(k, v)| attr_string(v).map(|s| (k.clone(), s)))
        .collect();
    attrs.sort();
    let join = |name: &str| {
        if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}/{name}")
        }
    };
    let mut names = group.datasets().map_err(format_err)?;
    names.sort();
    let mut datasets = Vec::new();
    for name in names {
        let t = read_dataset(file, &join(&name), file.as_bytes().len())?;
        datasets.push((name, t));
    }
    out.push(H5Group {
        path: path.to_string(),
        attrs,
        datasets,
    });
    let mut children = group.groups().map_err(format_err)?;
    children.sort();
    for child in children {
        read_group(file, &join(&child), depth + 1, out)?;
    }
    Ok(())
}

/// Every group of the HDF5 file `bytes`, parents before children, names in
/// sorted order (h5py's order for a file it wrote).
pub fn read(bytes: Vec<u8>) -> Result<Vec<H5Group>> {
    if !hdf5_pure::is_hdf5_bytes(&bytes) {
        return Err(SaveError::new(
            SaveErrorKind::Format,
            "file signature not found",
        ));
    }
    let file = File::from_bytes(bytes).map_err(format_err)?;
    let mut out = Vec::new();
    read_group(&file, "", 0, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_datasets_round_trip() {
        let k = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let it = Tensor::from_vec(vec![7i64], &[]).unwrap();
        let groups = vec![
            H5Group {
                path: "layers/dense/vars".into(),
                attrs: vec![("name".into(), "dense".into())],
                datasets: vec![("0".into(), k.clone())],
            },
            H5Group {
                path: "optimizer/vars".into(),
                attrs: vec![("name".into(), "adam".into())],
                datasets: vec![("0".into(), it)],
            },
            H5Group {
                path: "vars".into(),
                attrs: vec![("name".into(), "sequential".into())],
                datasets: vec![],
            },
        ];
        let back = read(write(&groups).unwrap()).unwrap();
        let paths: Vec<&str> = back.iter().map(|g| g.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "",
                "layers",
                "layers/dense",
                "layers/dense/vars",
                "optimizer",
                "optimizer/vars",
                "vars"
            ]
        );
        let dense = &back[3];
        assert_eq!(dense.attrs, [("name".to_string(), "dense".to_string())]);
        assert_eq!(dense.datasets[0].1.shape().dims(), &[2, 3]);
        assert_eq!(
            dense.datasets[0].1.host().unwrap().clone(),
            k.host().unwrap().clone()
        );
        let opt = &back[5];
        assert_eq!(opt.datasets[0].1.shape().dims(), &[] as &[usize]);
        assert_eq!(opt.datasets[0].1.dtype(), crate::runtime::DType::Int64);
    }

    /// Damaged files (truncated, bytes overwritten) are errors, never panics:
    /// the file h5py wrote for Keras (tests/data/keras_saving/).
    #[test]
    fn damaged_files_do_not_panic() {
        let good = include_bytes!("../../../tests/data/keras_saving/keras_seq.weights.h5");
        assert!(read(good.to_vec()).is_ok());
        for b in crate::runtime::saving::damaged_copies(good, 0x2545_f491_4f6c_dd1d, 300) {
            let _ = read(b);
        }
    }

    #[test]
    fn not_hdf5_is_a_format_error() {
        assert_eq!(
            read(b"PK\x03\x04 not hdf5".to_vec()).unwrap_err().kind,
            SaveErrorKind::Format
        );
    }
}
