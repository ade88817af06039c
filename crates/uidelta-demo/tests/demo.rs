//! The README's demo, end to end: the demo binary on its own virtual
//! desktop, with real applications and real actions, its output read as a
//! pipe (as CI and anyone redirecting it read it).

use std::process::Command;

#[test]
fn the_demo_shows_the_diff_of_every_step_and_the_token_totals() {
    let output = Command::new(env!("CARGO_BIN_EXE_uidelta-demo"))
        .output()
        .expect("running the demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the demo failed ({}); stderr:\n{stderr}\nstdout:\n{stdout}",
        output.status
    );
    // Not a terminal: no escape sequences.
    assert!(!stdout.contains('\u{1b}'), "{stdout}");
    for expected in [
        "== step 1: tick the first free check box\n",
        "check box \"checkbutton\" | checked: false -> true\n",
        "spin button \"label\" | value: \"50\" -> \"42\"\n",
        "page tab \"page 2\" | selected: false -> true\n",
        "dialog \"About GTK Widget Factory\" (modal) (opened)\n",
        "radio button \"Page 2\" | checked: false -> true\n",
        "alert \"Question\" (modal) (opened)\n",
        "label | name: \"Answer: none\" -> \"Answer: yes\"\n",
        "dialog \"Details\" (modal) (opened)\n",
        "label \"Field 5\"\n",
        "notification \"Saved\" (transient)\n",
        "== step 14: fixture: a button that does nothing\n",
        "No UI changes detected\n",
        "== tokens over the whole task\n",
        "re-reading the full tree after every step: ",
        "one full tree per app, then a diff per step: ",
    ] {
        assert!(stdout.contains(expected), "no {expected:?} in\n{stdout}");
    }
    // Every step printed what it cost against re-reading the tree.
    assert_eq!(
        stdout
            .matches("tokens here; re-reading the tree would cost")
            .count(),
        14,
        "{stdout}"
    );
}
