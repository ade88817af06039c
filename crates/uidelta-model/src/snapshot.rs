//! A captured tree with its metadata.

use crate::tree::{NodeId, Tree};

/// Where and when a snapshot was taken. Every field but `source` may be
/// unknown (a snapshot read from a file).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// `atspi`, `cdp`, `file`, or whatever a foreign producer wrote.
    pub source: String,
    /// Application name.
    pub app: Option<String>,
    /// Process id of the application.
    pub pid: Option<u32>,
    /// Window title, when the scope is one window.
    pub window: Option<String>,
    /// Capture time, milliseconds since the Unix epoch.
    pub captured_at_ms: Option<u64>,
    /// How long the capture took, in milliseconds.
    pub capture_ms: Option<f64>,
    /// Whether node or depth caps cut the tree short. Never silent: every
    /// renderer says so.
    pub truncated: bool,
}

/// A tree from one scope plus its metadata. Building one redacts secrets.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Metadata.
    pub meta: Meta,
    tree: Tree,
}

/// What a redacted value looks like: one bullet per character, as the screen
/// shows it, so that typing into a password field is still a visible change.
pub fn redact(secret: &str) -> String {
    "\u{2022}".repeat(secret.chars().count().min(64))
}

impl Snapshot {
    /// Builds a snapshot, redacting the values of password fields and any
    /// text inside them.
    pub fn new(meta: Meta, mut tree: Tree) -> Snapshot {
        redact_secrets(&mut tree);
        Snapshot { meta, tree }
    }

    /// The tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.tree.len()
    }

    /// Splits into metadata and tree.
    pub fn into_parts(self) -> (Meta, Tree) {
        (self.meta, self.tree)
    }
}

fn redact_secrets(tree: &mut Tree) {
    let mut id = 0usize;
    while id < tree.len() {
        let node = NodeId(id as u32);
        if tree.node(node).is_secret() {
            let range: Vec<NodeId> = tree.subtree(node).collect();
            for (i, inner) in range.iter().enumerate() {
                let data = tree.node_mut(*inner);
                if let Some(v) = data.value.as_mut() {
                    *v = redact(v);
                }
                // The field's own name is its label; text inside it is the secret.
                if i > 0 && !data.name.is_empty() {
                    data.name = redact(&data.name);
                }
                for (key, value) in data.attributes.iter_mut() {
                    if matches!(
                        key.as_str(),
                        "value" | "text" | "valuetext" | crate::SELECTION
                    ) {
                        *value = redact(value);
                    }
                }
            }
            id += range.len();
        } else {
            id += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NodeData, Role, TreeBuilder};

    #[test]
    fn password_values_are_redacted_on_construction() {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "Login"));
        let mut pw = NodeData::named(Role::PasswordText, "Password");
        pw.value = Some("hunter2".into());
        b.open(pw);
        b.leaf(NodeData::named(Role::Static, "hunter2"));
        b.close();
        let mut web = NodeData::named(Role::Entry, "PIN");
        web.value = Some("1234".into());
        web.set_attribute("input-type", "password");
        web.set_attribute(crate::SELECTION, "34");
        b.leaf(web);
        let mut plain = NodeData::named(Role::Entry, "User");
        plain.value = Some("alice".into());
        b.leaf(plain);
        let snap = Snapshot::new(Meta::default(), b.finish());
        let t = snap.tree();
        assert_eq!(t.node(NodeId(1)).value.as_deref(), Some("•••••••"));
        assert_eq!(t.node(NodeId(1)).name, "Password");
        assert_eq!(t.node(NodeId(2)).name, "•••••••");
        assert_eq!(t.node(NodeId(3)).value.as_deref(), Some("••••"));
        assert_eq!(t.node(NodeId(3)).selection(), Some("••"));
        assert_eq!(t.node(NodeId(4)).value.as_deref(), Some("alice"));
    }
}
