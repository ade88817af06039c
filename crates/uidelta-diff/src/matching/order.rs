//! Which matched children moved: everything off the longest run of siblings
//! that kept its relative order.

/// Matched children that are out of order: everything off the longest run
/// that kept its relative order. Returns (new index, old index).
#[cfg(test)]
pub(super) fn moved_positions(pair: &[Option<usize>]) -> Vec<(usize, usize)> {
    moved_positions_seen(pair, |_| true)
}

/// [`moved_positions`], where `shown(new index)` tells the children an
/// agent can see: among the ways to explain a reorder, the one that moves
/// the fewest of those is taken (GTK raises a hidden popover past a shown
/// one: the hidden one moved, not the one on screen).
pub(super) fn moved_positions_seen(
    pair: &[Option<usize>],
    shown: impl Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let seq: Vec<(usize, usize)> = pair
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|j| (i, j)))
        .collect();
    if seq.windows(2).all(|w| w[0].1 < w[1].1) {
        return Vec::new();
    }
    let keep = if seq.len() <= SMALL_REORDER {
        heaviest_increasing(&seq, &shown)
    } else {
        longest_increasing(&seq.iter().map(|&(_, j)| j).collect::<Vec<_>>())
    };
    seq.iter()
        .enumerate()
        .filter(|(k, _)| !keep[*k])
        .map(|(_, &(i, j))| (i, j))
        .collect()
}

/// Up to this many matched siblings, reorders are explained with the fewest
/// moves that also leave elements in place where they were (quadratic).
const SMALL_REORDER: usize = 256;

/// Like [`longest_increasing`] over the old indices of `(new, old)` pairs,
/// but keeps first as many shown elements as it can, then as many elements
/// as it can, then elements whose index did not change: a swap of the first
/// and last of three reads as two moves, not as the middle one moving.
fn heaviest_increasing(seq: &[(usize, usize)], shown: &impl Fn(usize) -> bool) -> Vec<bool> {
    // Each tier outweighs every sum of the tiers below it.
    let element = 2 * seq.len() + 1;
    let seen = element * (seq.len() + 1);
    let weight =
        |&(i, j): &(usize, usize)| element + usize::from(i == j) + if shown(i) { seen } else { 0 };
    let mut best = vec![0usize; seq.len()];
    let mut prev = vec![usize::MAX; seq.len()];
    for k in 0..seq.len() {
        best[k] = weight(&seq[k]);
        for p in 0..k {
            if seq[p].1 < seq[k].1 && best[p] + weight(&seq[k]) > best[k] {
                best[k] = best[p] + weight(&seq[k]);
                prev[k] = p;
            }
        }
    }
    let mut keep = vec![false; seq.len()];
    let mut k = (0..seq.len())
        .max_by_key(|&k| best[k])
        .unwrap_or(usize::MAX);
    while k != usize::MAX {
        keep[k] = true;
        k = prev[k];
    }
    keep
}

/// Marks the members of one longest strictly increasing subsequence.
pub(super) fn longest_increasing(xs: &[usize]) -> Vec<bool> {
    let mut tails: Vec<usize> = Vec::new(); // indices into xs
    let mut prev = vec![usize::MAX; xs.len()];
    for (k, &x) in xs.iter().enumerate() {
        let pos = tails.partition_point(|&t| xs[t] < x);
        if pos > 0 {
            prev[k] = tails[pos - 1];
        }
        if pos == tails.len() {
            tails.push(k);
        } else {
            tails[pos] = k;
        }
    }
    let mut keep = vec![false; xs.len()];
    let mut k = tails.last().copied().unwrap_or(usize::MAX);
    while k != usize::MAX {
        keep[k] = true;
        k = prev[k];
    }
    keep
}
