//! pest parser (placeholder)
