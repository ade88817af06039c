//! Renderers of uidelta views and diffs.
//!
//! A diff is data; this crate only turns it into text, never changes it, and
//! does no I/O. Formats:
//! - tree and diff text, what agents read by default ([`tree_text`],
//!   [`diff_text`]);
//! - JSON with a documented schema ([`tree_json`], [`diff_json`]);
//! - terminator's compact YAML and mcp-server-macos-use's flat list, so that
//!   the same change can be compared across tools ([`tree_terminator`],
//!   [`diff_terminator`], [`tree_flat`], [`diff_flat`]);
//! - OSWorld's accessibility-tree XML and the table its agents are prompted
//!   with, for research harnesses built on OSWorld ([`tree_osworld`],
//!   [`tree_osworld_table`]);
//! - sizes in bytes and tokens ([`size`]);
//! - the answer to an action: its diff, or the tree after it when that
//!   costs fewer tokens ([`answer`]), and the whole report of an action
//!   as the CLI and the MCP server tell it ([`Report`]).
//!
//! Element lines in the text formats are built by one helper, so a tree
//! line and a diff line for the same element read the same.

mod answer;
mod apps;
mod diff;
mod flat;
mod json;
mod json_writer;
mod line;
mod osworld;
pub mod report;
mod size;
mod terminator;
mod text;
mod tree;

pub use answer::{answer, Answer, TREE_INSTEAD};
pub use apps::apps_text;
pub use diff::{diff_text, DiffOptions};
pub use flat::{diff_flat, tree_flat};
pub use json::{diff_json, tree_json, DIFF_SCHEMA};
pub use osworld::{tree_osworld, tree_osworld_table};
pub use report::Report;
pub use size::{count_tokens, size, Size};
pub use terminator::{diff_terminator, tree_terminator};
pub use tree::{tree_text, TreeOptions};
