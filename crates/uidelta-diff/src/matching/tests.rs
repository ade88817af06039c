use super::order::longest_increasing;
use super::*;

#[test]
fn longest_increasing_marks_a_longest_run() {
    assert_eq!(longest_increasing(&[0, 1, 2]), vec![true, true, true]);
    let keep = longest_increasing(&[2, 0, 1]);
    assert_eq!(keep, vec![false, true, true]);
    assert_eq!(moved_positions(&[Some(2), Some(0), Some(1)]), vec![(0, 2)]);
    assert_eq!(
        moved_positions(&[Some(2), Some(1), Some(0)]),
        vec![(0, 2), (2, 0)]
    );
    assert!(moved_positions(&[Some(0), None, Some(1)]).is_empty());
}
