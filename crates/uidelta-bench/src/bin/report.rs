//! Reads criterion's results and prints the timing tables of BENCHMARKS.md.
//!
//! Usage: `report <criterion dir>` (usually `target/criterion`). Uses the
//! median of each benchmark's samples.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use uidelta_bench::{size_label, FRACTIONS, SIZES};

type Result<T> = std::result::Result<T, String>;

/// (group, id) -> median in nanoseconds.
type Results = BTreeMap<(String, String), f64>;

fn collect(dir: &Path, out: &mut Results) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("listing {}: {e}", dir.display()))?
            .path();
        if !path.is_dir() {
            continue;
        }
        let new = path.join("new");
        if new.join("benchmark.json").is_file() && new.join("estimates.json").is_file() {
            let bench = read_json(&new.join("benchmark.json"))?;
            let est = read_json(&new.join("estimates.json"))?;
            let group = bench["group_id"].as_str().unwrap_or_default().to_owned();
            let id = bench["value_str"]
                .as_str()
                .or_else(|| bench["function_id"].as_str())
                .unwrap_or_default()
                .to_owned();
            if let Some(median) = est["median"]["point_estimate"].as_f64() {
                out.insert((group, id), median);
            }
        } else if path.file_name().is_some_and(|n| n != "report") {
            collect(&path, out)?;
        }
    }
    Ok(())
}

fn read_json(path: &PathBuf) -> Result<Value> {
    let text = fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))
}

fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

fn main() -> Result<()> {
    let Some(dir) = std::env::args().nth(1) else {
        return Err("usage: report <criterion dir, e.g. target/criterion>".into());
    };
    let mut results = Results::new();
    collect(Path::new(&dir), &mut results)?;
    if results.is_empty() {
        return Err(format!(
            "no criterion results under {dir}: run the benchmarks first"
        ));
    }
    let get = |group: &str, id: &str| results.get(&(group.to_owned(), id.to_owned())).copied();
    let show = |v: Option<f64>| v.map_or("–".to_owned(), time);
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.1}×", a / b),
        _ => "–".to_owned(),
    };

    println!("| nodes | changed | uidelta diff | baseline line diff only | ratio | uidelta end to end | baseline terminator | ratio |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for size in SIZES {
        for fraction in FRACTIONS {
            let pct = (fraction * 100.0).round() as u32;
            let id = format!("{}_{pct}pct", size_label(size));
            let diff = get("uidelta/diff", &id);
            let e2e = get("uidelta/end_to_end", &id);
            let base = get("baseline/terminator", &id);
            let lines = get("baseline/line_diff_only", &id);
            println!(
                "| {} | {pct}% | {} | {} | {} | {} | {} | {} |",
                size_label(size),
                show(diff),
                show(lines),
                ratio(lines, diff),
                show(e2e),
                show(base),
                ratio(base, e2e),
            );
        }
    }

    println!();
    println!("| target | measured | met |");
    println!("|---|---:|---|");
    let check = |name: &str, v: Option<f64>, limit_ns: f64| {
        let met = v.map_or("–", |v| if v < limit_ns { "yes" } else { "no" });
        println!("| {name} | {} | {met} |", show(v));
    };
    check(
        "10k nodes, 0% changed (bounds + id noise only), uidelta diff < 1 ms",
        get("uidelta/diff", "10k_0pct"),
        1e6,
    );
    check(
        "10k nodes, 1% changed, uidelta diff < 5 ms",
        get("uidelta/diff", "10k_1pct"),
        5e6,
    );
    let mut slower = Vec::new();
    for size in SIZES {
        for fraction in FRACTIONS {
            let id = format!(
                "{}_{}pct",
                size_label(size),
                (fraction * 100.0).round() as u32
            );
            let pairs = [
                ("uidelta/diff", "baseline/line_diff_only"),
                ("uidelta/end_to_end", "baseline/terminator"),
            ];
            for (ours, theirs) in pairs {
                if let (Some(a), Some(b)) = (get(ours, &id), get(theirs, &id)) {
                    if a >= b {
                        slower.push(format!("{ours} {id}"));
                    }
                }
            }
        }
    }
    let verdict = if slower.is_empty() {
        "yes".to_owned()
    } else {
        format!("no: {}", slower.join(", "))
    };
    println!("| faster than the baseline at every size and fraction | | {verdict} |");
    Ok(())
}
