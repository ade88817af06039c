//! Change events of a tab: DOM changes, requests with their heartbeat, and
//! navigations.

mod common;

use std::time::{Duration, Instant};

use common::{browser, capture, find, find_text, fixtures, open, pages};
use uidelta_backend::{Action, Backend, Event, EventKind, EventStream, Navigate};
use uidelta_model::{NodeId, Role};

/// Events until one of kind `last` arrives (included), or 10 s pass.
async fn events_until(
    stream: &mut EventStream,
    mut last: impl FnMut(&Event) -> bool,
) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while let Some(e) = stream.next_before(deadline).await {
        let done = last(&e);
        seen.push(e);
        if done {
            return seen;
        }
    }
    panic!("the awaited event never came; saw {:?}", kinds(&seen));
}

fn kinds(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.detail.as_str()).collect()
}

#[tokio::test]
async fn dom_changes_typing_and_focus_are_reported() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let mut events = cdp.events(&app).await.expect("events");
    assert!(!events.is_silent());
    let snap = capture(&cdp, &app).await;
    events.drain();
    cdp.act(&app, find(&snap, Role::PushButton, "Go"), &Action::Click)
        .await
        .expect("click");
    // textContent replaces the status's text node.
    let seen = events_until(&mut events, |e| e.detail == "dom:child-removed").await;
    assert!(
        kinds(&seen).contains(&"dom:child-inserted"),
        "{:?}",
        kinds(&seen)
    );
    cdp.act(
        &app,
        find(&snap, Role::Entry, "Name"),
        &Action::Type("x".into()),
    )
    .await
    .expect("typing");
    let seen = events_until(&mut events, |e| e.detail == "dom:input").await;
    assert!(kinds(&seen).contains(&"dom:focus"), "{:?}", kinds(&seen));
}

#[tokio::test]
async fn changes_inside_a_cross_site_iframe_are_reported() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html?cross-site")).await;
    let snap = common::until(&cdp, &app, "the cross-site frame's button", |s| {
        common::has(s, Role::PushButton, "Inner button")
    })
    .await;
    let mut events = cdp.events(&app).await.expect("events");
    events.drain();
    // Only the frame's document changes: the page itself has no mutation
    // to report.
    cdp.act(
        &app,
        find(&snap, Role::PushButton, "Inner button"),
        &Action::Click,
    )
    .await
    .expect("click in the cross-site frame");
    let seen = events_until(&mut events, |e| e.detail == "dom:child-inserted").await;
    assert!(!seen.is_empty());
    cdp.act(
        &app,
        find(&snap, Role::Entry, "Note"),
        &Action::Type("x".into()),
    )
    .await
    .expect("typing in the cross-site frame");
    events_until(&mut events, |e| e.detail == "dom:input").await;
}

#[tokio::test]
async fn a_slow_request_beats_until_it_answers() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("slow.html")).await;
    let mut events = cdp.events(&app).await.expect("events");
    let snap = capture(&cdp, &app).await;
    events.drain();
    cdp.act(&app, find(&snap, Role::PushButton, "Fetch"), &Action::Click)
        .await
        .expect("click");
    // Until the request has finished and the page has shown its answer
    // (the status text), in whichever order the two arrive.
    let (mut finished, mut shown) = (false, false);
    let seen = events_until(&mut events, |e| {
        finished |= e.detail == "network:finished";
        shown |= e.detail == "dom:child-inserted";
        finished && shown
    })
    .await;
    let k = kinds(&seen);
    let request = k
        .iter()
        .position(|&e| e == "network:request")
        .expect("a request");
    let finish = k
        .iter()
        .position(|&e| e == "network:finished")
        .expect("an answer");
    let beats = k[request..finish]
        .iter()
        .filter(|&&e| e == "network:pending")
        .count();
    // The request takes 700 ms; the stream beats every 50 ms meanwhile.
    assert!(beats >= 2, "{k:?}");
    let snap = capture(&cdp, &app).await;
    find_text(&snap, "Loaded 3 records");
}

#[tokio::test]
async fn a_navigation_names_the_new_document() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    let mut events = cdp.events(&app).await.expect("events");
    cdp.navigate(&app, &Navigate::To(server.url("controls.html")))
        .await
        .expect("navigate");
    let seen = events_until(&mut events, |e| e.detail == "page:navigated").await;
    let navigated = seen.last().expect("the navigation");
    let doc = cdp.document(&app.id).await.expect("document");
    assert_eq!(navigated.source.as_deref(), Some(doc.identity().as_str()));
    events_until(&mut events, |e| e.detail == "page:load").await;
    // The new document reports its own DOM changes: the script is there too.
    let snap = capture(&cdp, &app).await;
    assert_eq!(
        snap.tree().node(NodeId::ROOT).identity.as_deref(),
        Some(doc.identity().as_str())
    );
    events.drain();
    cdp.act(
        &app,
        find(&snap, Role::CheckBox, "Subscribe to newsletter"),
        &Action::Click,
    )
    .await
    .expect("click");
    let seen = events_until(&mut events, |e| e.detail == "dom:change").await;
    assert!(kinds(&seen).contains(&"dom:input"), "{:?}", kinds(&seen));
}

#[tokio::test]
async fn short_timers_an_input_starts_beat_until_they_fire() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("dialog.html")).await;
    let mut events = cdp.events(&app).await.expect("events");
    let snap = capture(&cdp, &app).await;
    events.drain();
    cdp.act(
        &app,
        find(&snap, Role::PushButton, "Open dialog"),
        &Action::Click,
    )
    .await
    .expect("click");
    // The dialog appears 300 ms after the click; the page is silent meanwhile
    // but for the beat of its timer.
    let seen = events_until(&mut events, |e| e.detail == "dom:child-inserted").await;
    let beats = kinds(&seen)
        .iter()
        .filter(|&&k| k == "dom:timer-pending")
        .count();
    assert!(beats >= 2, "{:?}", kinds(&seen));
    assert!(
        !kinds(&seen).contains(&"network:pending"),
        "{:?}",
        kinds(&seen)
    );
    let snap = capture(&cdp, &app).await;
    find(&snap, Role::Dialog, "Confirm delete");
}

/// The engine ends the wait of an action that changed nothing when the page
/// says it is idle this long after it (`Quiet::grace` of uidelta-engine).
const GRACE: Duration = Duration::from_millis(100);

#[tokio::test]
async fn the_page_says_it_is_idle_only_while_nothing_it_started_is_in_flight() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("dialog.html?delay=800")).await;
    let mut events = cdp.events(&app).await.expect("events");
    let snap = capture(&cdp, &app).await;
    // Nothing in flight: the page says so, as an idle event.
    let seen = events_until(&mut events, |e| e.detail == "page:idle").await;
    assert_eq!(seen.last().map(|e| e.kind), Some(EventKind::Idle));
    events.drain();
    cdp.act(
        &app,
        find(&snap, Role::PushButton, "Open dialog"),
        &Action::Click,
    )
    .await
    .expect("click");
    let acted = Instant::now();
    // The dialog comes 800 ms after the click: never idle meanwhile, once
    // the click's own report has had its grace.
    let seen = events_until(&mut events, |e| e.detail == "dom:child-inserted").await;
    let idle: Vec<Duration> = seen
        .iter()
        .filter(|e| e.detail == "page:idle" && e.at >= acted + GRACE)
        .map(|e| e.at - acted)
        .collect();
    assert!(idle.is_empty(), "idle at {idle:?} after the click");
    assert!(
        kinds(&seen).contains(&"dom:timer-pending"),
        "{:?}",
        kinds(&seen)
    );
    // Filled in (three more timers of 70 ms each), the page is idle again.
    let inserted = Instant::now();
    events_until(&mut events, |e| e.detail == "page:idle" && e.at > inserted).await;
    let snap = capture(&cdp, &app).await;
    find(&snap, Role::PushButton, "Delete");
}
