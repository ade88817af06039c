//! Conformance suite: one task of at least six steps per real application
//! an agent is given, each diff asserted line by line.

#[path = "../common/mod.rs"]
mod common;

mod impress;
mod office;
mod writer;
