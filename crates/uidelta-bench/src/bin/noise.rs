//! Counts what each approach reports for pairs whose ground truth is known:
//! a window moved with every id regenerated (nothing to report), the same
//! with the scroll bars scrolled, and 1% and 10% of nodes changed. Prints a
//! markdown table. Not a timing: counts only.

use uidelta_bench::{terminator, uidelta_change_count, uidelta_diff, Case, SIZES};
use uidelta_model::Snapshot;

struct Row {
    scenario: String,
    nodes: usize,
    truth: String,
    baseline: usize,
    uidelta: usize,
    detail: String,
}

fn scrolled(snapshot: Snapshot) -> Snapshot {
    let (meta, mut tree) = snapshot.into_parts();
    for id in tree.ids() {
        let node = tree.node_mut(id);
        if node.role.is_scroll_indicator() {
            node.value = Some("312".to_owned());
        }
    }
    Snapshot::new(meta, tree)
}

fn measure(scenario: &str, truth: String, before: &Snapshot, after: &Snapshot) -> Row {
    let stripper = terminator::Stripper::new();
    let lines = terminator::diff_trees(&stripper, before.tree(), after.tree());
    let diff = uidelta_diff(before, after);
    let c = diff.counts();
    Row {
        scenario: scenario.to_owned(),
        nodes: before.node_count(),
        truth,
        baseline: lines.len(),
        uidelta: uidelta_change_count(&diff),
        detail: format!(
            "+{} -{} ~{}{}",
            c.added,
            c.removed,
            c.modified,
            if diff.focus.is_some() { " focus" } else { "" }
        ),
    }
}

fn main() {
    let mut rows = Vec::new();
    for &size in &SIZES {
        let before = uidelta_synth::app(size, 0x5EED ^ size as u64);
        let moved = uidelta_synth::moved(&before, 118, 0);
        rows.push(measure(
            "moved 118 px, ids regenerated",
            "nothing".into(),
            &before,
            &moved,
        ));
        let scroll = scrolled(moved);
        rows.push(measure(
            "moved + scroll bars scrolled",
            "nothing".into(),
            &before,
            &scroll,
        ));
    }
    for fraction in [0.01, 0.10] {
        for &size in &SIZES {
            let case = Case::new(size, fraction);
            let (a, r, m) = case.expected;
            let truth = format!(
                "{} edits on {} nodes: +{a} -{r} ~{m}",
                case.edits, case.touched
            );
            let scenario = format!("{}% changed + moved", (fraction * 100.0).round());
            rows.push(measure(&scenario, truth, &case.before, &case.after));
        }
    }

    println!("| scenario | nodes | ground truth | terminator changed lines | uidelta changes | uidelta detail |");
    println!("|---|---:|---|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            r.scenario, r.nodes, r.truth, r.baseline, r.uidelta, r.detail
        );
    }
}
