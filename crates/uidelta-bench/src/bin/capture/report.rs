//! The report: medians and 90th percentiles per application and tool, as
//! Markdown.

use super::*;

pub(super) fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The nearest-rank 90th percentile.
pub(super) fn p90(sorted: &[f64]) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (sorted.len() * 9).div_ceil(10);
    Some(sorted[rank.saturating_sub(1)])
}

pub(super) fn stats(series: Option<&Series>) -> (Option<f64>, Option<f64>) {
    let Some(series) = series else {
        return (None, None);
    };
    let mut ms = series.ms.clone();
    ms.sort_by(f64::total_cmp);
    (median(&ms), p90(&ms))
}

pub(super) fn nodes_text(series: Option<&Series>) -> String {
    let Some(s) = series else {
        return "-".into();
    };
    match (s.nodes.iter().min(), s.nodes.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => lo.to_string(),
        (Some(lo), Some(hi)) => format!("{lo}-{hi}"),
        _ => "-".into(),
    }
}

pub(super) fn ms_text(ms: Option<f64>) -> String {
    match ms {
        Some(ms) if ms >= 100.0 => format!("{ms:.0} ms"),
        Some(ms) => format!("{ms:.1} ms"),
        None => "-".into(),
    }
}

pub(super) fn print_report(reports: &[AppReport], opts: &Options, machine: &str) {
    println!("{machine}\n");
    println!(
        "## Capture time ({} runs per tool, rotating order; median / p90)\n",
        opts.runs
    );
    println!(
        "| app | nodes (uidelta / no cache / pyatspi) | uidelta | uidelta, no cache | pyatspi | \
         pyatspi ÷ uidelta | pyatspi ÷ no cache |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in reports {
        let s = |t: Tool| r.series.get(t.label());
        let cell = |t: Tool| {
            let (m, p) = stats(s(t));
            format!("{} / {}", ms_text(m), ms_text(p))
        };
        let ratio = |t: Tool| match (stats(s(Tool::Pyatspi)).0, stats(s(t)).0) {
            (Some(py), Some(ours)) if ours > 0.0 => format!("{:.1}×", py / ours),
            _ => "-".into(),
        };
        println!(
            "| {} | {} / {} / {} | {} | {} | {} | {} | {} |",
            r.name,
            nodes_text(s(Tool::Uidelta)),
            nodes_text(s(Tool::UideltaNoCache)),
            nodes_text(s(Tool::Pyatspi)),
            cell(Tool::Uidelta),
            cell(Tool::UideltaNoCache),
            cell(Tool::Pyatspi),
            ratio(Tool::Uidelta),
            ratio(Tool::UideltaNoCache),
        );
    }
    print_mirror(reports);
    let failures: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.series.iter().flat_map(move |(tool, s)| {
                let mut lines: Vec<String> = s
                    .errors
                    .iter()
                    .map(|e| format!("- {} / {tool}: {e}", r.name))
                    .collect();
                if s.truncated > 0 {
                    lines.push(format!(
                        "- {} / {tool}: {} captures truncated",
                        r.name, s.truncated
                    ));
                }
                lines
            })
        })
        .collect();
    println!();
    if failures.is_empty() {
        println!("No capture failed or was truncated.");
    } else {
        println!("Failures:\n");
        for line in failures {
            println!("{line}");
        }
    }

    println!("\n## Nodes seen by uidelta and pyatspi (last capture of each, by bus name + path)\n");
    println!("| app | in both | only uidelta | only pyatspi | only uidelta, no cache |");
    println!("|---|---:|---:|---:|---:|");
    let mut examples = Vec::new();
    for r in reports {
        let (Some(ours), Some(theirs)) = (
            r.seen.get(Tool::Uidelta.label()),
            r.seen.get(Tool::Pyatspi.label()),
        ) else {
            continue;
        };
        let ours_ids: HashSet<&String> = ours.keys().collect();
        let their_ids: HashSet<&String> = theirs.keys().collect();
        let only_ours: Vec<&&String> = ours_ids.difference(&their_ids).collect();
        let only_theirs: Vec<&&String> = their_ids.difference(&ours_ids).collect();
        let only_nocache = r
            .seen
            .get(Tool::UideltaNoCache.label())
            .map(|n| {
                n.keys()
                    .filter(|k| !theirs.contains_key(*k))
                    .count()
                    .to_string()
            })
            .unwrap_or_else(|| "-".into());
        println!(
            "| {} | {} | {} | {} | {} |",
            r.name,
            ours_ids.intersection(&their_ids).count(),
            only_ours.len(),
            only_theirs.len(),
            only_nocache
        );
        for (who, ids, map) in [
            ("uidelta", &only_ours, ours),
            ("pyatspi", &only_theirs, theirs),
        ] {
            let mut ids: Vec<&String> = ids.iter().map(|s| **s).collect();
            ids.sort();
            for id in ids.into_iter().take(5) {
                if let Some((role, name)) = map.get(id) {
                    examples.push(format!("- {}: only {who}: {id} {role} {name:?}", r.name));
                }
            }
        }
    }
    if !examples.is_empty() {
        println!("\nExamples (at most 5 per side):\n");
        for line in examples {
            println!("{line}");
        }
    }

    println!(
        "\n## Where the time goes (median per capture: wall time, and CPU time of the \
         application's processes, of the accessibility bus daemon and of the uidelta process)\n"
    );
    println!("| app | tool | wall | app CPU | bus daemon CPU | client CPU |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut notes = Vec::new();
    for r in reports {
        notes.push(format!(
            "- {}: {} levels; one call's round trip over the bus, one after another: {} \
             (median of 200)",
            r.name,
            r.levels,
            r.round_trip_ms
                .map(|ms| format!("{ms:.3} ms"))
                .unwrap_or_else(|| "-".into())
        ));
    }
    for r in reports {
        for tool in ALL {
            let Some(s) = r.series.get(tool.label()) else {
                continue;
            };
            let med = |v: &[f64]| {
                let mut v = v.to_vec();
                v.sort_by(f64::total_cmp);
                ms_text(median(&v))
            };
            println!(
                "| {} | {} | {} | {} | {} | {} |",
                r.name,
                tool.label(),
                ms_text(stats(Some(s)).0),
                med(&s.app_cpu),
                med(&s.bus_cpu),
                if tool == Tool::Pyatspi {
                    "(python, not measured)".to_owned()
                } else {
                    med(&s.client_cpu)
                }
            );
        }
    }
    println!();
    for note in notes {
        println!("{note}");
    }

    if reports.iter().any(|r| !r.calls.is_empty()) {
        println!(
            "\n## D-Bus calls to the application for one capture (dbus-monitor on the \
             accessibility bus; timed separately, monitoring slows the bus)\n"
        );
        println!(
            "| app | tool | nodes | calls | calls per node | error replies | median reply latency | \
             wall time | top methods |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|---|");
        for r in reports {
            for c in &r.calls {
                let top: Vec<String> = c
                    .by_method
                    .iter()
                    .take(6)
                    .map(|(m, n)| format!("{m} {n}"))
                    .collect();
                let per_node = if c.nodes > 0 {
                    format!("{:.2}", c.calls as f64 / c.nodes as f64)
                } else {
                    "-".into()
                };
                let latency = c
                    .median_reply_ms
                    .map(|ms| format!("{ms:.3} ms"))
                    .unwrap_or_else(|| "-".into());
                if c.tool == Tool::Pyatspi || (c.calls == 0 && c.nodes > 0) {
                    // libatspi, and uidelta's captures, talk to the
                    // application over the private connection
                    // GetApplicationBusAddress gives, which the bus (and so
                    // the monitor) never sees.
                    println!(
                        "| {} | {} | {} | not on the bus (peer-to-peer) | - | - | - | {} | {} |",
                        r.name,
                        c.tool.label(),
                        c.nodes,
                        ms_text(Some(c.ms)),
                        top.join(", ")
                    );
                    continue;
                }
                println!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.name,
                    c.tool.label(),
                    c.nodes,
                    c.calls,
                    per_node,
                    c.errors,
                    latency,
                    ms_text(Some(c.ms)),
                    top.join(", ")
                );
            }
        }
    }
    println!(
        "\nuidelta times are wall time around `capture()` (release build, one current-thread \
         tokio runtime); pyatspi times are the walker's own `capture_ms` (the walk inside \
         Python, interpreter start-up and JSON output excluded)."
    );
}

/// The captures through the live mirror: what the Linux backend answers
/// after its first capture, against the whole walk and pyatspi of the same
/// run, how each was read, and whether it saw the whole walk's nodes.
fn print_mirror(reports: &[AppReport]) {
    if !reports
        .iter()
        .any(|r| r.series.contains_key(Tool::UideltaMirror.label()))
    {
        return;
    }
    println!(
        "\n## Through a live mirror (the capture after the first, as the Linux backend answers it)\n"
    );
    println!(
        "| app | uidelta, live mirror | read in part | read whole (why) | \
         pyatspi ÷ live mirror | whole walk ÷ live mirror | nodes as the whole walk's |"
    );
    println!("|---|---:|---:|---|---:|---:|---|");
    for r in reports {
        let s = |t: Tool| r.series.get(t.label());
        let Some(m) = s(Tool::UideltaMirror) else {
            continue;
        };
        let (med, p) = stats(Some(m));
        let over = |t: Tool| match (stats(s(t)).0, med) {
            (Some(x), Some(ours)) if ours > 0.0 => format!("{:.1}×", x / ours),
            _ => "-".into(),
        };
        let whole = if m.whole.is_empty() {
            "0".to_owned()
        } else {
            m.whole
                .iter()
                .map(|(why, n)| format!("{n} ({why})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let same = match (
            r.seen.get(Tool::UideltaMirror.label()),
            r.seen.get(Tool::Uidelta.label()),
        ) {
            (Some(a), Some(b)) if a == b => "the same".to_owned(),
            (Some(a), Some(b)) => {
                let only_mirror = a.keys().filter(|k| !b.contains_key(*k)).count();
                let only_walk = b.keys().filter(|k| !a.contains_key(*k)).count();
                let other = a
                    .iter()
                    .filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v))
                    .count();
                format!(
                    "differ: {only_mirror} only in the mirror's, {only_walk} only in the walk's, \
                     {other} with another role or name"
                )
            }
            _ => "-".into(),
        };
        println!(
            "| {} | {} / {} | {} | {} | {} | {} | {} |",
            r.name,
            ms_text(med),
            ms_text(p),
            m.in_part,
            whole,
            over(Tool::Pyatspi),
            over(Tool::Uidelta),
            same,
        );
    }
}
