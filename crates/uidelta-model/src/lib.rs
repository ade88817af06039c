//! The snapshot model of uidelta.
//!
//! A [`Snapshot`] is a [`Tree`] of [`NodeData`] captured from one scope (an
//! application, a window, a page) plus [`Meta`]. Roles are normalized to one
//! vocabulary ([`Role`]), states are a bit set ([`StateSet`]). This crate does
//! no I/O and knows no platform; adapters build snapshots, the diff crate
//! compares them.

mod printable;
mod role;
mod snapshot;
mod state;
mod tree;

pub use printable::{is_inert, printable, push_printable};
pub use role::Role;
pub use snapshot::{redact, Meta, Snapshot};
pub use state::{State, StateSet};
pub use tree::{NodeData, NodeId, Rect, Tree, TreeBuilder};
