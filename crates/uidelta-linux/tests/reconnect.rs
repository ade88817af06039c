//! [`Reconnecting`] on a real virtual desktop whose accessibility bus
//! restarts.

use std::time::Duration;

use uidelta_backend::{App, Backend, ErrorKind, Scope};
use uidelta_linux::Reconnecting;
use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn factory_of(apps: &[App]) -> App {
    apps.iter()
        .find(|a| a.name == FACTORY)
        .cloned()
        .unwrap_or_else(|| panic!("no {FACTORY} in {apps:?}"))
}

#[test]
fn applications_of_a_replaced_bus_are_gone_even_where_their_names_are_taken_again() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    let mut factory = desktop.launch(FACTORY, &[]).expect("launch the factory");
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the accessibility bus");
    rt().block_on(async {
        let backend =
            Reconnecting::new(Some(desktop.session_bus_address()), Some(desktop.display()));
        let before = factory_of(&backend.apps().await.expect("the applications"));
        backend
            .capture(&before, &Scope::App)
            .await
            .expect("a capture on the first bus");

        factory.kill();
        desktop
            .restart_accessibility_bus()
            .expect("the accessibility bus starts again");
        std::mem::forget(
            desktop
                .launch(FACTORY, &[])
                .expect("launch the factory again"),
        );
        desktop
            .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
            .expect("on the new accessibility bus");

        // The first call finds the bus gone, the next connects again.
        let lost = backend.apps().await.expect_err("the old bus is gone");
        assert_eq!(lost.kind, ErrorKind::Disconnected, "{}", lost.message);
        assert!(
            lost.message.starts_with("the accessibility bus at ")
                && lost.message.ends_with("; reconnecting on the next call"),
            "{}",
            lost.message
        );
        let after = factory_of(&backend.apps().await.expect("the applications again"));
        assert_ne!(after.pid, before.pid);
        let (name, bus) = after.id.split_once('#').expect("an id naming its bus");
        assert_eq!(bus, "2", "{}", after.id);
        backend
            .capture(&after, &Scope::App)
            .await
            .expect("a capture on the new bus");

        // The old factory is gone, and so would an application of the old
        // bus be that had the name the new factory has now.
        let namesake = App {
            id: name.to_owned(),
            ..before.clone()
        };
        for old in [namesake, before] {
            let gone = match backend.capture(&old, &Scope::App).await {
                Ok(s) => panic!(
                    "{} of the old bus was read on the new one ({} nodes)",
                    old.id,
                    s.tree().nodes().len()
                ),
                Err(e) => e,
            };
            assert_eq!(gone.kind, ErrorKind::Gone, "{}", gone.message);
            assert!(
                gone.message
                    .contains("was on an accessibility bus that has been replaced"),
                "{}",
                gone.message
            );
        }
    });
}
