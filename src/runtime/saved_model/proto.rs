//! The protocol buffers of a SavedModel directory's `saved_model.pb`, as
//! prost messages (field numbers and types are TensorFlow's
//! `saved_model.proto`, `meta_graph.proto`, `graph.proto`, `function.proto`,
//! `op_def.proto`, `attr_value.proto`, `tensor.proto`,
//! `saved_object_graph.proto` and `struct.proto`), only the fields dist
//! reads or writes; prost skips the others when reading.

use std::collections::BTreeMap;

/// `SavedModel`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedModel {
    #[prost(int64, tag = "1")]
    pub saved_model_schema_version: i64,
    #[prost(message, repeated, tag = "2")]
    pub meta_graphs: Vec<MetaGraphDef>,
}

/// `MetaGraphDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaGraphDef {
    #[prost(message, optional, tag = "1")]
    pub meta_info_def: Option<MetaInfoDef>,
    #[prost(message, optional, tag = "2")]
    pub graph_def: Option<GraphDef>,
    #[prost(btree_map = "string, message", tag = "5")]
    pub signature_def: BTreeMap<String, SignatureDef>,
    #[prost(message, optional, tag = "7")]
    pub object_graph_def: Option<SavedObjectGraph>,
}

/// `MetaGraphDef.MetaInfoDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaInfoDef {
    #[prost(string, repeated, tag = "4")]
    pub tags: Vec<String>,
    #[prost(string, tag = "5")]
    pub tensorflow_version: String,
    #[prost(string, tag = "6")]
    pub tensorflow_git_version: String,
    #[prost(bool, tag = "7")]
    pub stripped_default_attrs: bool,
}

/// `GraphDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphDef {
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeDef>,
    #[prost(message, optional, tag = "2")]
    pub library: Option<FunctionDefLibrary>,
    #[prost(message, optional, tag = "4")]
    pub versions: Option<VersionDef>,
}

/// `VersionDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionDef {
    #[prost(int32, tag = "1")]
    pub producer: i32,
    #[prost(int32, tag = "2")]
    pub min_consumer: i32,
}

/// `NodeDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeDef {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub op: String,
    #[prost(string, repeated, tag = "3")]
    pub input: Vec<String>,
    #[prost(string, tag = "4")]
    pub device: String,
    #[prost(btree_map = "string, message", tag = "5")]
    pub attr: BTreeMap<String, AttrValue>,
}

/// `FunctionDefLibrary`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionDefLibrary {
    #[prost(message, repeated, tag = "1")]
    pub function: Vec<FunctionDef>,
}

/// `FunctionDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionDef {
    #[prost(message, optional, tag = "1")]
    pub signature: Option<OpDef>,
    #[prost(message, repeated, tag = "3")]
    pub node_def: Vec<NodeDef>,
    #[prost(btree_map = "string, string", tag = "4")]
    pub ret: BTreeMap<String, String>,
    #[prost(btree_map = "string, message", tag = "5")]
    pub attr: BTreeMap<String, AttrValue>,
    #[prost(btree_map = "string, string", tag = "6")]
    pub control_ret: BTreeMap<String, String>,
    #[prost(btree_map = "uint32, message", tag = "7")]
    pub arg_attr: BTreeMap<u32, ArgAttrs>,
}

/// `FunctionDef.ArgAttrs`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArgAttrs {
    #[prost(btree_map = "string, message", tag = "1")]
    pub attr: BTreeMap<String, AttrValue>,
}

/// `OpDef` (a function's signature).
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpDef {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub input_arg: Vec<ArgDef>,
    #[prost(message, repeated, tag = "3")]
    pub output_arg: Vec<ArgDef>,
    #[prost(bool, tag = "17")]
    pub is_stateful: bool,
    #[prost(string, repeated, tag = "20")]
    pub control_output: Vec<String>,
}

/// `OpDef.ArgDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArgDef {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(int32, tag = "3")]
    pub r#type: i32,
    #[prost(message, repeated, tag = "7")]
    pub handle_data: Vec<DtypeAndShape>,
}

/// `ResourceHandleProto.DtypeAndShape`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DtypeAndShape {
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `AttrValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttrValue {
    #[prost(oneof = "attr_value::Value", tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10")]
    pub value: Option<attr_value::Value>,
}

/// `AttrValue`'s one-of.
pub mod attr_value {
    /// What an attribute holds.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "1")]
        List(super::ListValue),
        #[prost(bytes, tag = "2")]
        S(Vec<u8>),
        #[prost(int64, tag = "3")]
        I(i64),
        #[prost(float, tag = "4")]
        F(f32),
        #[prost(bool, tag = "5")]
        B(bool),
        #[prost(int32, tag = "6")]
        Type(i32),
        #[prost(message, tag = "7")]
        Shape(super::TensorShapeProto),
        #[prost(message, tag = "8")]
        Tensor(super::TensorProto),
        #[prost(string, tag = "9")]
        Placeholder(String),
        #[prost(message, tag = "10")]
        Func(super::NameAttrList),
    }
}

/// `AttrValue.ListValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub s: Vec<Vec<u8>>,
    #[prost(int64, repeated, tag = "3")]
    pub i: Vec<i64>,
    #[prost(float, repeated, tag = "4")]
    pub f: Vec<f32>,
    #[prost(bool, repeated, tag = "5")]
    pub b: Vec<bool>,
    #[prost(int32, repeated, tag = "6")]
    pub r#type: Vec<i32>,
    #[prost(message, repeated, tag = "7")]
    pub shape: Vec<TensorShapeProto>,
}

/// `NameAttrList` (a function and its attributes).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameAttrList {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(btree_map = "string, message", tag = "2")]
    pub attr: BTreeMap<String, AttrValue>,
}

/// `TensorShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    #[prost(message, repeated, tag = "2")]
    pub dim: Vec<Dim>,
    #[prost(bool, tag = "3")]
    pub unknown_rank: bool,
}

/// `TensorShapeProto.Dim`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dim {
    #[prost(int64, tag = "1")]
    pub size: i64,
}

/// `TensorProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    #[prost(message, optional, tag = "2")]
    pub tensor_shape: Option<TensorShapeProto>,
    #[prost(bytes = "vec", tag = "4")]
    pub tensor_content: Vec<u8>,
    #[prost(int32, repeated, tag = "13")]
    pub half_val: Vec<i32>,
    #[prost(float, repeated, tag = "5")]
    pub float_val: Vec<f32>,
    #[prost(double, repeated, tag = "6")]
    pub double_val: Vec<f64>,
    #[prost(int32, repeated, tag = "7")]
    pub int_val: Vec<i32>,
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub string_val: Vec<Vec<u8>>,
    #[prost(int64, repeated, tag = "10")]
    pub int64_val: Vec<i64>,
    #[prost(bool, repeated, tag = "11")]
    pub bool_val: Vec<bool>,
    /// complex64 values as (real, imaginary) pairs.
    #[prost(float, repeated, tag = "9")]
    pub scomplex_val: Vec<f32>,
    /// complex128 values as (real, imaginary) pairs.
    #[prost(double, repeated, tag = "12")]
    pub dcomplex_val: Vec<f64>,
}

/// `SignatureDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SignatureDef {
    #[prost(btree_map = "string, message", tag = "1")]
    pub inputs: BTreeMap<String, TensorInfo>,
    #[prost(btree_map = "string, message", tag = "2")]
    pub outputs: BTreeMap<String, TensorInfo>,
    #[prost(string, tag = "3")]
    pub method_name: String,
}

/// `TensorInfo` (by name only).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorInfo {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(int32, tag = "2")]
    pub dtype: i32,
    #[prost(message, optional, tag = "3")]
    pub tensor_shape: Option<TensorShapeProto>,
}

/// `SavedObjectGraph`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedObjectGraph {
    #[prost(message, repeated, tag = "1")]
    pub nodes: Vec<SavedObject>,
    #[prost(btree_map = "string, message", tag = "2")]
    pub concrete_functions: BTreeMap<String, SavedConcreteFunction>,
}

/// `TrackableObjectGraph.TrackableObject.ObjectReference`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ObjectReference {
    #[prost(int32, tag = "1")]
    pub node_id: i32,
    #[prost(string, tag = "2")]
    pub local_name: String,
}

/// `SavedObject`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedObject {
    #[prost(message, repeated, tag = "1")]
    pub children: Vec<ObjectReference>,
    #[prost(message, repeated, tag = "15")]
    pub dependencies: Vec<ObjectReference>,
    #[prost(oneof = "saved_object::Kind", tags = "4, 6, 7, 8, 9, 10")]
    pub kind: Option<saved_object::Kind>,
}

/// `SavedObject`'s one-of.
pub mod saved_object {
    /// What a saved object is.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Kind {
        #[prost(message, tag = "4")]
        UserObject(super::SavedUserObject),
        #[prost(message, tag = "6")]
        Function(super::SavedFunction),
        #[prost(message, tag = "7")]
        Variable(super::SavedVariable),
        #[prost(message, tag = "8")]
        BareConcreteFunction(super::SavedBareConcreteFunction),
        #[prost(message, tag = "9")]
        Constant(super::SavedConstant),
        #[prost(message, tag = "10")]
        Resource(super::SavedResource),
    }
}

/// `SavedUserObject`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedUserObject {
    #[prost(string, tag = "1")]
    pub identifier: String,
    #[prost(message, optional, tag = "2")]
    pub version: Option<VersionDef>,
}

/// `SavedFunction`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedFunction {
    #[prost(string, repeated, tag = "1")]
    pub concrete_functions: Vec<String>,
    #[prost(message, optional, tag = "2")]
    pub function_spec: Option<FunctionSpec>,
}

/// `FunctionSpec`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionSpec {
    #[prost(message, optional, tag = "1")]
    pub fullargspec: Option<StructuredValue>,
    #[prost(bool, tag = "2")]
    pub is_method: bool,
    #[prost(message, optional, tag = "5")]
    pub input_signature: Option<StructuredValue>,
}

/// `SavedVariable`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedVariable {
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    #[prost(bool, tag = "3")]
    pub trainable: bool,
    #[prost(int32, tag = "4")]
    pub synchronization: i32,
    #[prost(int32, tag = "5")]
    pub aggregation: i32,
    #[prost(string, tag = "6")]
    pub name: String,
    #[prost(string, tag = "7")]
    pub device: String,
}

/// `SavedBareConcreteFunction`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedBareConcreteFunction {
    #[prost(string, tag = "1")]
    pub concrete_function_name: String,
    #[prost(string, repeated, tag = "2")]
    pub argument_keywords: Vec<String>,
    #[prost(int64, tag = "3")]
    pub allowed_positional_arguments: i64,
    #[prost(message, optional, tag = "4")]
    pub function_spec: Option<FunctionSpec>,
}

/// `SavedConstant`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedConstant {
    #[prost(string, tag = "1")]
    pub operation: String,
}

/// `SavedResource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedResource {
    #[prost(string, tag = "1")]
    pub device: String,
}

/// `SavedConcreteFunction`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedConcreteFunction {
    #[prost(int32, repeated, tag = "2")]
    pub bound_inputs: Vec<i32>,
    #[prost(message, optional, tag = "3")]
    pub canonicalized_input_signature: Option<StructuredValue>,
    #[prost(message, optional, tag = "4")]
    pub output_signature: Option<StructuredValue>,
}

/// `StructuredValue` (`struct.proto`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StructuredValue {
    #[prost(
        oneof = "structured_value::Kind",
        tags = "1, 11, 12, 13, 14, 31, 32, 33, 51, 52, 53, 54"
    )]
    pub kind: Option<structured_value::Kind>,
}

/// `StructuredValue`'s one-of.
pub mod structured_value {
    /// What a structured value is.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Kind {
        #[prost(message, tag = "1")]
        NoneValue(super::NoneValue),
        #[prost(double, tag = "11")]
        Float64Value(f64),
        #[prost(sint64, tag = "12")]
        Int64Value(i64),
        #[prost(string, tag = "13")]
        StringValue(String),
        #[prost(bool, tag = "14")]
        BoolValue(bool),
        #[prost(message, tag = "31")]
        TensorShapeValue(super::TensorShapeProto),
        #[prost(int32, tag = "32")]
        TensorDtypeValue(i32),
        #[prost(message, tag = "33")]
        TensorSpecValue(super::TensorSpecProto),
        #[prost(message, tag = "51")]
        ListValue(super::Values),
        #[prost(message, tag = "52")]
        TupleValue(super::Values),
        #[prost(message, tag = "53")]
        DictValue(super::DictValue),
        #[prost(message, tag = "54")]
        NamedTupleValue(super::NamedTupleValue),
    }
}

/// `NoneValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NoneValue {}

/// `ListValue` and `TupleValue` of `struct.proto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Values {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<StructuredValue>,
}

/// `DictValue` (its map read as entries, so that the keys keep the order
/// TensorFlow wrote them in: a signature's arguments in their order).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictValue {
    #[prost(message, repeated, tag = "1")]
    pub fields: Vec<DictEntry>,
}

/// An entry of `DictValue.fields`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictEntry {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<StructuredValue>,
}

/// `NamedTupleValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedTupleValue {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub values: Vec<PairValue>,
}

/// `PairValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PairValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<StructuredValue>,
}

/// `TensorSpecProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorSpecProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    #[prost(int32, tag = "3")]
    pub dtype: i32,
}
