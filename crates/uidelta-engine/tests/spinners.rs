//! GTK 3 spinners: one that spins shows, one that does not spin draws
//! nothing and is not showing, though GTK says both are.

mod common;

use uidelta_model::State;

const FACTORY: &str = "gtk3-widget-factory";

#[test]
fn spinners_that_spin_show_and_still_ones_do_not() {
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(FACTORY).await.expect("observe");
        let hits = s.find(&"role:animation".parse().expect("selector"));
        // Its first page: a spinning spinner and a still one, each once
        // enabled and once disabled.
        let spinners: Vec<(bool, bool)> = hits
            .iter()
            .map(|&(scope, node)| {
                let n = s.known_apps()[scope].view.tree().node(node);
                assert_eq!(n.name, "Spinner");
                (
                    n.states.contains(State::Enabled),
                    n.states.contains(State::Showing),
                )
            })
            .collect();
        assert_eq!(
            spinners,
            [(false, false), (false, true), (true, false), (true, true)]
        );
    });
}
