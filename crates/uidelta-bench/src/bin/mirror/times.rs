//! `--times FILE`: the captures of any run with `UIDELTA_MIRROR=check` and
//! `UIDELTA_MIRROR_TIMES=FILE` (the conformance suite's, say), each timed
//! through its mirror and as a whole walk right after it, summed up per
//! application.

use std::collections::BTreeMap;
use std::path::Path;

use super::live::Fallible;

/// The captures of one application.
#[derive(Default)]
struct App {
    mirror_ms: Vec<f64>,
    whole_ms: Vec<f64>,
    part: usize,
    /// Whole walks after the first, by reason.
    whole: BTreeMap<String, usize>,
    /// First captures (no mirror yet) and captures of toolkits not
    /// mirrored: not after-action captures through a mirror.
    skipped: BTreeMap<String, usize>,
}

/// Reads `path` (see `uidelta_linux`'s `UIDELTA_MIRROR_TIMES`) and prints
/// the summary as markdown.
pub(super) fn report(path: &Path) -> Fallible<()> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut apps: BTreeMap<String, App> = BTreeMap::new();
    let mut all = App::default();
    for (n, line) in text.lines().enumerate() {
        let bad = || {
            format!(
                "{}:{}: not `app\\thow\\tmirror_ms\\twhole_ms`",
                path.display(),
                n + 1
            )
        };
        let fields: Vec<&str> = line.split('\t').collect();
        let [app, how, mirror, whole] = fields.as_slice() else {
            return Err(bad().into());
        };
        let (Ok(mirror), Ok(whole)) = (mirror.parse::<f64>(), whole.parse::<f64>()) else {
            return Err(bad().into());
        };
        for a in [apps.entry((*app).to_owned()).or_default(), &mut all] {
            match how.strip_prefix("whole:") {
                None if *how == "part" => a.part += 1,
                None => return Err(bad().into()),
                Some(why) if why == "first capture" || why == uidelta_atspi::NOT_TRUSTED => {
                    *a.skipped.entry(why.to_owned()).or_default() += 1;
                    continue;
                }
                Some(why) => *a.whole.entry(why.to_owned()).or_default() += 1,
            }
            a.mirror_ms.push(mirror);
            a.whole_ms.push(whole);
        }
    }
    println!(
        "| application | captures after the first | read in part | walked whole (why) | \
         through the mirror, median | whole walk, median | whole ÷ mirror (medians) | \
         sum whole ÷ sum mirror | not counted |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|---:|---|");
    for (name, a) in apps.iter().chain([(&"**all**".to_owned(), &all)]) {
        let (m, w) = (median(&a.mirror_ms), median(&a.whole_ms));
        let sums = (
            a.mirror_ms.iter().sum::<f64>(),
            a.whole_ms.iter().sum::<f64>(),
        );
        let ratio = |x: f64, y: f64| {
            if y > 0.0 {
                format!("{:.1}×", x / y)
            } else {
                "-".to_owned()
            }
        };
        let counts = |m: &BTreeMap<String, usize>| {
            if m.is_empty() {
                "0".to_owned()
            } else {
                m.iter()
                    .map(|(why, n)| format!("{n} ({why})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        println!(
            "| {name} | {} | {} | {} | {:.1} ms | {:.1} ms | {} | {} | {} |",
            a.mirror_ms.len(),
            a.part,
            counts(&a.whole),
            m,
            w,
            ratio(w, m),
            ratio(sums.1, sums.0),
            counts(&a.skipped),
        );
    }
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
