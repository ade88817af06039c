//! Navigation and scripts in a tab.

mod common;

use common::{browser, capture, find_text, fixtures, has, open, until};
use uidelta_backend::{Backend, ErrorKind, Navigate};
use uidelta_model::{NodeId, Role};

fn root_identity(snap: &uidelta_model::Snapshot) -> String {
    snap.tree()
        .node(NodeId::ROOT)
        .identity
        .clone()
        .unwrap_or_default()
}

fn root_url(snap: &uidelta_model::Snapshot) -> String {
    snap.tree()
        .node(NodeId::ROOT)
        .attribute("url")
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn navigation_back_forward_and_reload_each_give_a_new_document() {
    let server = fixtures();
    let cdp = browser().await;
    let form = server.url("form.html");
    let controls = server.url("controls.html");
    let app = open(&cdp, &form).await;
    let first = capture(&cdp, &app).await;
    assert_eq!(root_url(&first), form);
    let doc = cdp.document(&app.id).await.expect("document");
    assert_eq!(doc.url, form);
    assert_eq!(doc.identity(), root_identity(&first));

    let done = cdp
        .navigate(&app, &Navigate::To(controls.clone()))
        .await
        .expect("navigate");
    assert_eq!(done.method, "Page.navigate");
    let second = until(&cdp, &app, "the controls page", |s| {
        has(s, Role::Heading, "Preferences")
    })
    .await;
    assert_eq!(root_url(&second), controls);
    assert_ne!(root_identity(&second), root_identity(&first));

    let done = cdp.navigate(&app, &Navigate::Back).await.expect("back");
    assert_eq!(done.method, "Page.navigateToHistoryEntry");
    let third = until(&cdp, &app, "the form again", |s| {
        has(s, Role::Heading, "Sign up")
    })
    .await;
    assert_eq!(root_url(&third), form);
    assert_ne!(root_identity(&third), root_identity(&second));

    cdp.navigate(&app, &Navigate::Forward)
        .await
        .expect("forward");
    let fourth = until(&cdp, &app, "the controls page again", |s| {
        has(s, Role::Heading, "Preferences")
    })
    .await;
    assert_eq!(root_url(&fourth), controls);

    let err = cdp
        .navigate(&app, &Navigate::Forward)
        .await
        .expect_err("nothing ahead");
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert!(err.message.contains("no next page"), "{}", err.message);

    let done = cdp.navigate(&app, &Navigate::Reload).await.expect("reload");
    assert_eq!(done.method, "Page.reload");
    let fifth = until(&cdp, &app, "the reloaded page", |s| {
        has(s, Role::Heading, "Preferences")
    })
    .await;
    assert_eq!(root_url(&fifth), controls);
    assert_ne!(root_identity(&fifth), root_identity(&fourth));
}

#[tokio::test]
async fn a_page_that_cannot_load_is_an_error() {
    let cdp = browser().await;
    let app = open(&cdp, "about:blank").await;
    // Nothing listens on port 9 of this machine.
    let err = cdp
        .navigate(&app, &Navigate::To("http://127.0.0.1:9/".into()))
        .await
        .expect_err("refused");
    assert_eq!(err.kind, ErrorKind::Other);
    assert!(
        err.message.contains("http://127.0.0.1:9/"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn scripts_return_json_and_exceptions_are_errors() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    assert_eq!(
        cdp.run_script(&app, "({title: document.title, n: [1, 2.5], ok: true})")
            .await
            .expect("object"),
        r#"{"n":[1,2.5],"ok":true,"title":"Sign up"}"#
    );
    assert_eq!(
        cdp.run_script(&app, "new Promise(r => setTimeout(() => r('later'), 50))")
            .await
            .expect("promise"),
        r#""later""#
    );
    assert_eq!(
        cdp.run_script(&app, "undefined").await.expect("undefined"),
        "null"
    );
    let err = cdp
        .run_script(&app, "throw new Error('boom')")
        .await
        .expect_err("thrown");
    assert_eq!(err.kind, ErrorKind::Other);
    assert!(err.message.contains("Error: boom"), "{}", err.message);
    let err = cdp
        .run_script(&app, "Promise.reject(new TypeError('nope'))")
        .await
        .expect_err("rejected");
    assert!(err.message.contains("TypeError: nope"), "{}", err.message);
    let err = cdp
        .run_script(&app, "this is not js")
        .await
        .expect_err("syntax");
    assert!(err.message.contains("SyntaxError"), "{}", err.message);

    // A script's change shows in the next capture.
    cdp.run_script(
        &app,
        "document.getElementById('status').textContent = 'From script'",
    )
    .await
    .expect("edit");
    let snap = capture(&cdp, &app).await;
    find_text(&snap, "From script");
}

#[tokio::test]
async fn a_navigation_does_not_wait_for_the_previous_page_to_finish_loading() {
    let server = common::pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let mut events = cdp.events(&app).await.expect("events");
    cdp.navigate(&app, &Navigate::To(server.url("hanging.html")))
        .await
        .expect("navigate to the hanging page");
    let done = cdp
        .navigate(&app, &Navigate::To(server.url("widgets.html?again")))
        .await
        .expect("navigate away while it loads");
    assert_eq!(
        done.method,
        "location.assign (the previous page is still loading)"
    );
    let snap = until(&cdp, &app, "the widgets again", |s| {
        has(s, Role::Heading, "Widgets")
    })
    .await;
    assert!(root_url(&snap).ends_with("widgets.html?again"));
    // The hanging page never loaded: its picture answers after 10 s, and
    // the tab had moved on by then.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut kinds = Vec::new();
    while let Some(e) = events.next_before(deadline).await {
        kinds.push(e.detail);
        if kinds.iter().filter(|k| *k == "page:navigated").count() == 2 {
            break;
        }
    }
    let first = kinds.iter().position(|k| k == "page:navigated");
    let second = kinds.iter().rposition(|k| k == "page:navigated");
    let (Some(first), Some(second)) = (first, second) else {
        panic!("two navigations expected: {kinds:?}");
    };
    assert!(first < second, "{kinds:?}");
    assert!(
        !kinds[first..second].contains(&"page:load".to_owned()),
        "{kinds:?}"
    );
}
