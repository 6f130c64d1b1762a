//! TensorFlow's checkpoint files, byte for byte: the tensor bundle (an
//! SSTable index plus a data file) and the object graph proto stored in it,
//! over the pieces of the formats they are made of (CRC-32C, the protobuf
//! wire format, LevelDB tables). What goes into a checkpoint (which objects,
//! under which keys) is decided above, by the checkpoint machinery in the
//! language (`stdlib/tensorflow_checkpoint.dist`) and its natives in
//! `modules/tf/train/`.

pub mod bundle;
pub mod crc32c;
pub mod object_graph;
pub mod proto;
pub mod sstable;
