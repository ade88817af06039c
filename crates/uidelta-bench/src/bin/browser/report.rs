//! The report: per scenario and step, medians over the runs, as Markdown.

use super::*;

pub(super) fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.into_iter().collect();
    percentile(&v, 50.0)
}

/// Median of a count over runs, and whether it varied.
pub(super) fn median_count(values: &[usize]) -> (usize, Option<(usize, usize)>) {
    let m = median(values.iter().map(|&v| v as f64)) as usize;
    let (lo, hi) = (
        values.iter().copied().min().unwrap_or(0),
        values.iter().copied().max().unwrap_or(0),
    );
    (m, (lo != hi).then_some((lo, hi)))
}

pub(super) fn count_cell((m, range): (usize, Option<(usize, usize)>)) -> String {
    match range {
        Some((lo, hi)) => format!("{m} ({lo}-{hi})"),
        None => m.to_string(),
    }
}

pub(super) fn pct(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part / whole)
    }
}

pub(super) fn times(a: f64, b: f64) -> String {
    if b == 0.0 {
        "-".into()
    } else {
        format!("{:.2}×", a / b)
    }
}

/// `yes`, or what was missed and in how many runs.
pub(super) fn misses_cell(per_run: &[&Vec<String>]) -> String {
    let mut counted: BTreeMap<&str, usize> = BTreeMap::new();
    for misses in per_run {
        for m in misses.iter() {
            *counted.entry(m.as_str()).or_default() += 1;
        }
    }
    if counted.is_empty() {
        return "yes".into();
    }
    let runs = per_run.len();
    counted
        .iter()
        .map(|(m, n)| {
            if runs == 1 {
                format!("**misses** {m}")
            } else {
                format!("**misses** {m} ({n}/{runs})")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Per scenario and step, medians over the runs.
pub(super) struct StepSummary {
    pub(super) diff_tokens: (usize, Option<(usize, usize)>),
    pub(super) diff_bytes: usize,
    pub(super) tree_tokens: (usize, Option<(usize, usize)>),
    pub(super) tree_bytes: usize,
    pub(super) pw_tokens: (usize, Option<(usize, usize)>),
    pub(super) pw_bytes: usize,
    pub(super) pw_lines: usize,
    pub(super) nodes: usize,
    pub(super) act_ms: f64,
    pub(super) settle_ms: Option<f64>,
    pub(super) capped: usize,
    pub(super) pw_ms: f64,
    pub(super) pw_action_ms: f64,
    pub(super) pw_wait_ms: f64,
    pub(super) pw_snapshot_ms: f64,
    pub(super) counts: String,
    /// Runs in which the target was missing before this step, and the
    /// medians over all runs (0 where there was none) of the
    /// `wait_for_change` tokens and time.
    pub(super) catch_ups: usize,
    pub(super) catch_up_tokens: usize,
    pub(super) catch_up_bytes: usize,
    pub(super) catch_up_ms: f64,
    pub(super) diff_cell: String,
    pub(super) tree_cell: String,
    pub(super) pw_cell: String,
    pub(super) diff_misses: usize,
    pub(super) tree_misses: usize,
    pub(super) pw_misses: usize,
    /// Runs whose diff left added elements out.
    pub(super) elided: usize,
}

pub(super) fn summarize(runs: &[RunResult], step: usize) -> StepSummary {
    let ours: Vec<&Ours> = runs.iter().map(|r| &r.ours[step]).collect();
    let theirs: Vec<&Theirs> = runs.iter().map(|r| &r.theirs[step]).collect();
    let counts_of =
        |f: &dyn Fn(&Ours) -> usize| -> Vec<usize> { ours.iter().map(|o| f(o)).collect() };
    let settles: Vec<f64> = ours.iter().filter_map(|o| o.settle_ms).collect();
    let catch_ups: Vec<(Size, f64)> = ours
        .iter()
        .map(|o| o.catch_up.unwrap_or_default())
        .collect();
    let mut kinds: Vec<&str> = ours.iter().map(|o| o.counts.as_str()).collect();
    kinds.dedup();
    let pw_tokens: Vec<usize> = theirs.iter().map(|t| t.snapshot_size.tokens).collect();
    StepSummary {
        diff_tokens: median_count(&counts_of(&|o| o.diff_size.tokens)),
        diff_bytes: median_count(&counts_of(&|o| o.diff_size.bytes)).0,
        tree_tokens: median_count(&counts_of(&|o| o.tree_size.tokens)),
        tree_bytes: median_count(&counts_of(&|o| o.tree_size.bytes)).0,
        pw_tokens: median_count(&pw_tokens),
        pw_bytes: median_count(
            &theirs
                .iter()
                .map(|t| t.snapshot_size.bytes)
                .collect::<Vec<_>>(),
        )
        .0,
        pw_lines: median_count(&theirs.iter().map(|t| t.lines).collect::<Vec<_>>()).0,
        nodes: median_count(&counts_of(&|o| o.nodes)).0,
        act_ms: median(ours.iter().map(|o| o.act_ms)),
        settle_ms: (!settles.is_empty()).then(|| median(settles.iter().copied())),
        capped: ours.iter().filter(|o| o.capped).count(),
        pw_ms: median(theirs.iter().map(|t| t.total_ms())),
        pw_action_ms: median(theirs.iter().map(|t| t.action_ms)),
        pw_wait_ms: median(theirs.iter().map(|t| t.wait_ms)),
        pw_snapshot_ms: median(theirs.iter().map(|t| t.snapshot_ms)),
        counts: kinds.join(" / "),
        catch_ups: ours.iter().filter(|o| o.catch_up.is_some()).count(),
        catch_up_tokens: median_count(&catch_ups.iter().map(|c| c.0.tokens).collect::<Vec<_>>()).0,
        catch_up_bytes: median_count(&catch_ups.iter().map(|c| c.0.bytes).collect::<Vec<_>>()).0,
        catch_up_ms: median(catch_ups.iter().map(|c| c.1)),
        diff_cell: {
            let now = misses_cell(&ours.iter().map(|o| &o.diff_misses).collect::<Vec<_>>());
            if ours.iter().all(|o| o.late_misses == o.diff_misses) {
                now
            } else {
                let late = misses_cell(&ours.iter().map(|o| &o.late_misses).collect::<Vec<_>>());
                format!("{now}; with the wait_for_change before the next step: {late}")
            }
        },
        tree_cell: misses_cell(&ours.iter().map(|o| &o.tree_misses).collect::<Vec<_>>()),
        pw_cell: misses_cell(&theirs.iter().map(|t| &t.misses).collect::<Vec<_>>()),
        diff_misses: ours.iter().map(|o| o.diff_misses.len()).sum(),
        tree_misses: ours.iter().map(|o| o.tree_misses.len()).sum(),
        pw_misses: theirs.iter().map(|t| t.misses.len()).sum(),
        elided: ours.iter().filter(|o| o.elides).count(),
    }
}

pub(super) fn print_report(
    scenarios: &[Scenario],
    results: &[Vec<RunResult>],
    runs: usize,
    versions: &Versions,
    machine_start: &str,
    machine_end: &str,
) {
    let summaries: Vec<Vec<StepSummary>> = scenarios
        .iter()
        .zip(results)
        .map(|(s, r)| (0..=s.steps.len()).map(|n| summarize(r, n)).collect())
        .collect();
    let steps: usize = scenarios.iter().map(|s| s.steps.len()).sum();
    let expectations: usize = scenarios
        .iter()
        .flat_map(|s| &s.steps)
        .map(|st| st.expect.len() + st.absent.len())
        .sum();

    // Loops, from the per-step medians.
    let mut first = (0usize, 0usize);
    let (mut diffs, mut trees, mut pw_open, mut pw_steps) = (
        (0usize, 0usize),
        (0usize, 0usize),
        (0usize, 0usize),
        (0usize, 0usize),
    );
    let (mut open_ms, mut pw_open_ms, mut act_ms, mut pw_ms) = (0.0, 0.0, 0.0, 0.0);
    let (mut settle_ms, mut pw_action_ms, mut pw_wait_ms, mut pw_snapshot_ms) =
        (0.0, 0.0, 0.0, 0.0);
    let (mut diff_misses, mut tree_misses, mut pw_misses) = (0, 0, 0);
    let mut catch_up_ms = 0.0;
    // The full trees an agent would read after the diffs that leave added
    // elements out (steps where most runs elided).
    let (mut reread, mut rereads) = ((0usize, 0usize), 0usize);
    for s in &summaries {
        first.0 += s[0].tree_tokens.0;
        first.1 += s[0].tree_bytes;
        pw_open.0 += s[0].pw_tokens.0;
        pw_open.1 += s[0].pw_bytes;
        open_ms += s[0].act_ms;
        pw_open_ms += s[0].pw_ms;
        for st in &s[1..] {
            // A wait an agent needed before a step is part of its loop.
            diffs.0 += st.diff_tokens.0 + st.catch_up_tokens;
            diffs.1 += st.diff_bytes + st.catch_up_bytes;
            act_ms += st.catch_up_ms;
            catch_up_ms += st.catch_up_ms;
            if st.elided * 2 > runs {
                reread.0 += st.tree_tokens.0;
                reread.1 += st.tree_bytes;
                rereads += 1;
            }
            trees.0 += st.tree_tokens.0;
            trees.1 += st.tree_bytes;
            pw_steps.0 += st.pw_tokens.0;
            pw_steps.1 += st.pw_bytes;
            act_ms += st.act_ms;
            settle_ms += st.settle_ms.unwrap_or(0.0);
            pw_ms += st.pw_ms;
            pw_action_ms += st.pw_action_ms;
            pw_wait_ms += st.pw_wait_ms;
            pw_snapshot_ms += st.pw_snapshot_ms;
            diff_misses += st.diff_misses;
            tree_misses += st.tree_misses;
            pw_misses += st.pw_misses;
        }
    }
    let delta = (first.0 + diffs.0, first.1 + diffs.1);
    let full = (first.0 + trees.0, first.1 + trees.1);
    let pw = (pw_open.0 + pw_steps.0, pw_open.1 + pw_steps.1);
    let f = |n: usize| n as f64;

    println!("## Browser");
    println!();
    println!(
        "{} scenarios, {steps} steps plus opening each page, {runs} run{} of each on both sides; \
         o200k tokens; per step the median over the runs (a range in brackets when the runs \
         differed), totals the sums of those medians.",
        scenarios.len(),
        if runs == 1 { "" } else { "s" }
    );
    println!();
    println!("| loop | tokens | bytes | ÷ Playwright (tokens) | ÷ Playwright (bytes) |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| **uidelta delta loop**: first full tree of each page + the diff of every step (+ wait_for_change diffs where a target was not there yet) | **{}** | {} | **{}** | {} |",
        delta.0, delta.1, pct(f(delta.0), f(pw.0)), pct(f(delta.1), f(pw.1))
    );
    println!(
        "| uidelta full loop: first full tree + the full tree after every step | {} | {} | {} | {} |",
        full.0, full.1, pct(f(full.0), f(pw.0)), pct(f(full.1), f(pw.1))
    );
    println!(
        "| **Playwright loop**: aria snapshot after opening each page and after every step (what Playwright MCP returns) | **{}** | {} | 100% | 100% |",
        pw.0, pw.1
    );
    println!(
        "| uidelta delta loop, plus the full tree after each of the {rereads} diffs that leave added elements out | {} | {} | {} | {} |",
        delta.0 + reread.0,
        delta.1 + reread.1,
        pct(f(delta.0 + reread.0), f(pw.0)),
        pct(f(delta.1 + reread.1), f(pw.1))
    );
    println!(
        "| steps only: uidelta's diffs vs Playwright's snapshots after the steps | {} vs {} | {} vs {} | {} | {} |",
        diffs.0, pw_steps.0, diffs.1, pw_steps.1, pct(f(diffs.0), f(pw_steps.0)), pct(f(diffs.1), f(pw_steps.1))
    );
    println!(
        "| opening only: uidelta's first full trees vs Playwright's first snapshots | {} vs {} | {} vs {} | {} | {} |",
        first.0, pw_open.0, first.1, pw_open.1, pct(f(first.0), f(pw_open.0)), pct(f(first.1), f(pw_open.1))
    );
    println!();
    println!("Time, sums of the per-step medians:");
    println!();
    println!("| | uidelta | Playwright | Playwright ÷ uidelta |");
    println!("|---|---:|---:|---:|");
    println!(
        "| the {steps} steps (uidelta: the whole act, i.e. action + settle + capture + diff; Playwright: action + wait + snapshot) | {:.0} ms | {:.0} ms | {} |",
        act_ms, pw_ms, times(pw_ms, act_ms)
    );
    println!(
        "| of which settling / waiting (uidelta: settle_ms of the acts, plus {:.0} ms of wait_for_change for targets not there yet) | {:.0} ms | {:.0} ms | |",
        catch_up_ms, settle_ms + catch_up_ms, pw_wait_ms
    );
    println!(
        "| of which Playwright's action / snapshot | | {:.0} ms / {:.0} ms | |",
        pw_action_ms, pw_snapshot_ms
    );
    println!(
        "| opening the {} pages (uidelta: new tab until loaded + first capture; Playwright: goto until load + snapshot) | {:.0} ms | {:.0} ms | {} |",
        scenarios.len(), open_ms, pw_open_ms, times(pw_open_ms, open_ms)
    );
    println!();
    let total = expectations * runs;
    println!(
        "Expectations of the steps (`expect` and `absent` of the scenario file; {expectations} per run, \
         {total} over the runs) not met: uidelta's diff {diff_misses}, uidelta's tree after the step \
         {tree_misses}, Playwright's snapshot {pw_misses}."
    );
    println!();
    println!("Per scenario (tokens):");
    println!();
    println!("| scenario | steps | first tree (nodes) | Playwright first snapshot | uidelta delta loop | uidelta full loop | Playwright loop | delta ÷ Playwright | uidelta act ms | Playwright ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (s, sum) in scenarios.iter().zip(&summaries) {
        let d: usize = sum[0].tree_tokens.0
            + sum[1..]
                .iter()
                .map(|x| x.diff_tokens.0 + x.catch_up_tokens)
                .sum::<usize>();
        let fl: usize = sum.iter().map(|x| x.tree_tokens.0).sum();
        let p: usize = sum.iter().map(|x| x.pw_tokens.0).sum();
        let a: f64 = sum[1..].iter().map(|x| x.act_ms + x.catch_up_ms).sum();
        let pm: f64 = sum[1..].iter().map(|x| x.pw_ms).sum();
        println!(
            "| {} | {} | {} ({}) | {} | {d} | {fl} | {p} | {} | {:.0} | {:.0} |",
            s.name,
            s.steps.len(),
            sum[0].tree_tokens.0,
            sum[0].nodes,
            sum[0].pw_tokens.0,
            pct(f(d), f(p)),
            a,
            pm
        );
    }
    println!();
    println!("Per step (step 0 opens the page: uidelta's first full tree against Playwright's first snapshot):");
    println!();
    println!("| scenario | # | step | uidelta diff | diff tokens | tree tokens | Playwright tokens | uidelta act ms (settle) | Playwright ms (action + wait + snapshot) | uidelta diff shows it | uidelta tree shows it | Playwright snapshot shows it |");
    println!("|---|---:|---|---|---:|---:|---:|---:|---:|---|---|---|");
    for (s, sum) in scenarios.iter().zip(&summaries) {
        for (n, st) in sum.iter().enumerate() {
            let what = if n == 0 {
                format!("open {}", s.page)
            } else {
                s.steps[n - 1].text.clone()
            };
            let has_expectations =
                n > 0 && (!s.steps[n - 1].expect.is_empty() || !s.steps[n - 1].absent.is_empty());
            let shown = |c: &str| {
                if has_expectations {
                    c.to_owned()
                } else {
                    "".into()
                }
            };
            let kind = if n == 0 {
                "(first tree)".into()
            } else if st.elided > 0 {
                format!("{}, leaves added elements out", st.counts)
            } else {
                st.counts.clone()
            };
            let diff_tokens = if n == 0 {
                String::new()
            } else if st.catch_ups > 0 {
                format!(
                    "{} + {} (wait_for_change first, {}/{runs} runs)",
                    count_cell(st.diff_tokens),
                    st.catch_up_tokens,
                    st.catch_ups
                )
            } else {
                count_cell(st.diff_tokens)
            };
            let our_ms = match st.settle_ms {
                Some(settle) => format!(
                    "{}{:.0} ({:.0}{})",
                    if st.catch_ups > 0 {
                        format!("{:.0} wait + ", st.catch_up_ms)
                    } else {
                        String::new()
                    },
                    st.act_ms,
                    settle,
                    if st.capped > 0 {
                        format!(", cap hit {}×", st.capped)
                    } else {
                        String::new()
                    }
                ),
                None => format!("{:.0}", st.act_ms),
            };
            let their_ms = format!(
                "{:.0} ({:.0} + {:.0} + {:.0})",
                st.pw_ms, st.pw_action_ms, st.pw_wait_ms, st.pw_snapshot_ms
            );
            println!(
                "| {} | {n} | {} | {kind} | {diff_tokens} | {} | {} | {our_ms} | {their_ms} | {} | {} | {} |",
                s.name,
                cell(&what),
                count_cell(st.tree_tokens),
                count_cell(st.pw_tokens),
                shown(&st.diff_cell),
                shown(&st.tree_cell),
                shown(&st.pw_cell),
            );
        }
    }
    println!();
    println!(
        "Playwright's snapshots after the steps have {} lines in all; uidelta's trees {} nodes \
         after opening.",
        summaries
            .iter()
            .flat_map(|s| s[1..].iter())
            .map(|x| x.pw_lines)
            .sum::<usize>(),
        summaries.iter().map(|s| s[0].nodes).sum::<usize>()
    );
    let orders: Vec<String> = scenarios
        .iter()
        .zip(results)
        .map(|(s, r)| {
            let ours_first = r.iter().filter(|x| x.ours_first).count();
            format!("{} {}/{}", s.name, ours_first, r.len())
        })
        .collect();
    println!();
    print_first_trees(scenarios, results);
    println!();
    println!("uidelta ran first in: {}.", orders.join(", "));
    println!();
    println!(
        "machine: {machine_start} at the start, {machine_end} at the end; {}, Node.js {}, \
         playwright-core {}",
        versions.chromium, versions.node, versions.playwright
    );
}

/// Per scenario, the first tree alone: uidelta's first capture
/// (`Session::observe`, the page already loaded) against Playwright's first
/// `ariaSnapshot` (the page already loaded), medians over the runs.
fn print_first_trees(scenarios: &[Scenario], results: &[Vec<RunResult>]) {
    println!("First tree of each page (the page already loaded), medians over the runs:");
    println!();
    println!("| scenario | uidelta nodes | Playwright lines | uidelta first capture ms | Playwright ariaSnapshot ms | uidelta ÷ Playwright |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (s, runs) in scenarios.iter().zip(results) {
        let ours = median(runs.iter().filter_map(|r| r.ours[0].first_tree_ms));
        let theirs = median(runs.iter().map(|r| r.theirs[0].snapshot_ms));
        let nodes = median_count(&runs.iter().map(|r| r.ours[0].nodes).collect::<Vec<_>>()).0;
        let lines = median_count(&runs.iter().map(|r| r.theirs[0].lines).collect::<Vec<_>>()).0;
        println!(
            "| {} | {nodes} | {lines} | {ours:.0} | {theirs:.0} | {} |",
            s.name,
            times(ours, theirs)
        );
    }
}
