//! Subscribing to events while an application floods the bus with them:
//! the subscription is made, and the connection keeps answering.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use uidelta_atspi::{subscribe, Bus};
use uidelta_testkit::{require_programs, Desktop};
use zbus::zvariant::Value;

/// How long the subscription may take before it counts as stuck (a
/// liveness bound: it takes milliseconds).
const STUCK: Duration = Duration::from_secs(60);

#[test]
fn subscribing_while_events_flood_in_neither_fails_nor_stops_the_connection() {
    require_programs(&[("Xvfb", "xvfb"), ("dbus-daemon", "dbus")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let address = desktop.a11y_bus_address().expect("the accessibility bus");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        // Another program on the bus, sending object events in quick
        // bursts, as a busy application does during a big change.
        let flooder = zbus::connection::Builder::address(address.as_str())
            .expect("an address")
            .build()
            .await
            .expect("a second connection");
        let stop = Arc::new(AtomicBool::new(false));
        let flood = {
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                let mut sent = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // AT-SPI's event body: detail, two numbers, a value,
                    // properties.
                    let body = (
                        "checked",
                        1i32,
                        0i32,
                        Value::from(0i32),
                        HashMap::<&str, Value>::new(),
                    );
                    let _ = flooder
                        .emit_signal(
                            None::<&str>,
                            "/org/a11y/atspi/accessible/root",
                            "org.a11y.atspi.Event.Object",
                            "StateChanged",
                            &body,
                        )
                        .await;
                    sent += 1;
                    // Bursts of a hundred, at most ten thousand a second:
                    // a flood that does not depend on how busy the machine
                    // is (flat out, it starved the registry past the 2 s a
                    // call may take on a loaded machine).
                    if sent.is_multiple_of(100) {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
                sent
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let bus = Bus::connect(Some(desktop.session_bus_address()))
            .await
            .expect("the accessibility bus");
        // The registry answers `RegisterEvent` a second late, as a loaded
        // machine's may: meanwhile the events already listened for pile up
        // (thousands of them), and must be read off, or the connection
        // stops and the answer, when it comes, is never read.
        let registry = registry_of(&desktop);
        signal(registry, "STOP");
        let resume = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            signal(registry, "CONT");
        });
        let subscribed = tokio::time::timeout(STUCK, subscribe(&bus, None)).await;
        resume.join().expect("the registry resumed");
        let events = match subscribed {
            Ok(Ok(events)) => events,
            Ok(Err(e)) => panic!("subscribing failed during the flood: {e}"),
            Err(_) => panic!("subscribing did not finish within {STUCK:?} during the flood"),
        };
        // The connection still answers calls while the flood goes on.
        let answered = tokio::time::timeout(STUCK, uidelta_atspi::applications(&bus)).await;
        stop.store(true, Ordering::Relaxed);
        let sent = flood.await.expect("the flood");
        assert!(
            matches!(answered, Ok(Ok(_))),
            "the registry did not answer during the flood: {answered:?}"
        );
        assert!(sent > 1_000, "only {sent} events were sent");
        drop(events);
    });
}

#[test]
fn each_kind_of_event_is_asked_of_the_registry_once_per_connection() {
    require_programs(&[("Xvfb", "xvfb"), ("dbus-daemon", "dbus")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let bus = Bus::connect(Some(desktop.session_bus_address()))
            .await
            .expect("the accessibility bus");
        // Three subscriptions in turn, as a session makes one per
        // application and again after a lapse.
        for _ in 0..3 {
            let events = subscribe(&bus, None).await.expect("subscribe");
            drop(events);
        }
        let reply = bus
            .connection()
            .call_method(
                Some("org.a11y.atspi.Registry"),
                "/org/a11y/atspi/registry",
                Some("org.a11y.atspi.Registry"),
                "GetRegisteredEvents",
                &(),
            )
            .await
            .expect("the registry's events");
        let listed: Vec<(String, String)> = reply.body().deserialize().expect("(ss) pairs");
        let me = bus
            .connection()
            .unique_name()
            .map(|n| n.to_string())
            .expect("a unique name");
        let mut mine: Vec<&str> = listed
            .iter()
            .filter(|(name, _)| *name == me)
            .map(|(_, kind)| kind.as_str())
            .collect();
        mine.sort_unstable();
        // The registry writes each kind out in full (`Object::`).
        assert_eq!(mine, ["Focus::", "Object::", "Window::"], "{listed:?}");
    });
}

/// The pid of the desktop's accessibility registry (`at-spi2-registryd`).
fn registry_of(desktop: &Desktop) -> u32 {
    desktop
        .processes()
        .into_iter()
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "at-spi2-registr")
        })
        .expect("the desktop's at-spi2-registryd")
}

/// Sends `signal` (`STOP`, `CONT`) to `pid`.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill -{signal} {pid}: {status}");
}
