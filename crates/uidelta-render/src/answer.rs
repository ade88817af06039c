//! What an action answers with: its diff, or the tree after it when that
//! costs less.

use uidelta_diff::Diff;

use crate::diff::{diff_text, summary};
use crate::size::count_tokens;
use crate::DiffOptions;

/// The first words of an answer that is the tree after the action.
pub const TREE_INSTEAD: &str = "# tree after the action (smaller than its diff)";

/// The answer to "what did my action change?", as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// What the agent reads: the diff text, or the tree after the action
    /// under a [`TREE_INSTEAD`] line.
    pub text: String,
    /// The diff text, whichever was chosen (for logs and programs).
    pub diff: String,
    /// Whether `text` is the tree.
    pub tree_instead: bool,
}

/// The diff as text; or, when the tree after the action costs fewer tokens
/// (a page whose whole content was replaced: every old element listed as
/// gone, every new one as added), that tree, headed
/// `# tree after the action (smaller than its diff): +6 added, -6 removed ·
/// settled in 120 ms`, so that the agent reads the smaller of the two and
/// knows which it reads (the tree marks what has the focus). `tree_after`
/// is the tree text of the scope after the action (empty when unknown: the
/// diff is then the answer).
///
/// Tokens are counted only when the tree is at most twice the diff's
/// bytes: both are made of the same element lines, so a tree larger than
/// that costs more tokens too, and most answers are had without counting.
pub fn answer(diff: &Diff, tree_after: &str, opts: &DiffOptions) -> Answer {
    let diff_text = diff_text(diff, opts);
    let close = !tree_after.is_empty() && tree_after.len() <= 2 * diff_text.len();
    if diff.has_changes() && close {
        let tree = format!("{TREE_INSTEAD}: {}\n{tree_after}", summary(diff, false));
        if count_tokens(&tree) < count_tokens(&diff_text) {
            return Answer {
                text: tree,
                diff: diff_text,
                tree_instead: true,
            };
        }
    }
    Answer {
        text: diff_text.clone(),
        diff: diff_text,
        tree_instead: false,
    }
}
