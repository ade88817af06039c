//! uidelta's diff against terminator's render + regex + line diff.
//!
//! Groups: `uidelta/diff` (views prepared once, as a capture does),
//! `uidelta/end_to_end` (views built inside the loop), `baseline/terminator`
//! (render both trees, strip, line diff) and `baseline/line_diff_only`
//! (strip and line diff on pre-rendered text). Ids are `<size>_<pct>pct`.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use uidelta_bench::{terminator, Case, FRACTIONS, SIZES};
use uidelta_diff::{diff, Filters, RefTable, View};

/// The cases, built one at a time and dropped after use, so that the process
/// holds one pair of trees at a time rather than all nine.
fn cases() -> impl Iterator<Item = Case> {
    SIZES
        .iter()
        .flat_map(|&size| FRACTIONS.iter().map(move |&f| Case::new(size, f)))
}

/// Fewer samples for big trees, so a slow baseline still fits the run.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, case: &Case) {
    group.sample_size(match case.size {
        s if s >= 50_000 => 10,
        s if s >= 10_000 => 20,
        _ => 50,
    });
    group.throughput(Throughput::Elements(case.before.node_count() as u64));
}

fn benches(c: &mut Criterion) {
    let filters = Filters::all();

    let mut group = c.benchmark_group("uidelta/diff");
    for case in cases() {
        configure(&mut group, &case);
        let before = View::new(&case.before, filters);
        let after = View::new(&case.after, filters);
        let mut table = RefTable::new();
        let before_refs = table.label(before.len());
        group.bench_function(BenchmarkId::from_parameter(case.id()), |b| {
            b.iter(|| {
                let mut table = table.clone();
                diff(&before, &before_refs, &after, &mut table)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("uidelta/end_to_end");
    for case in cases() {
        configure(&mut group, &case);
        group.bench_function(BenchmarkId::from_parameter(case.id()), |b| {
            b.iter(|| {
                let before = View::new(&case.before, filters);
                let after = View::new(&case.after, filters);
                let mut table = RefTable::new();
                let before_refs = table.label(before.len());
                diff(&before, &before_refs, &after, &mut table)
            })
        });
    }
    group.finish();

    let stripper = terminator::Stripper::new();
    let mut group = c.benchmark_group("baseline/terminator");
    for case in cases() {
        configure(&mut group, &case);
        group.bench_function(BenchmarkId::from_parameter(case.id()), |b| {
            b.iter(|| terminator::diff_trees(&stripper, case.before.tree(), case.after.tree()))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("baseline/line_diff_only");
    for case in cases() {
        configure(&mut group, &case);
        let before = terminator::render(case.before.tree());
        let after = terminator::render(case.after.tree());
        group.bench_function(BenchmarkId::from_parameter(case.id()), |b| {
            b.iter(|| terminator::diff_rendered(&stripper, &before, &after))
        });
    }
    group.finish();
}

criterion_group! {
    name = diff_benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(diff_benches);
