//! Clicks the first element with the given role and name on the live
//! desktop and prints the diff:
//! `cargo run -p uidelta-atspi --example act -- APP ROLE NAME`.

use std::time::Duration;

use uidelta_atspi::{capture, find_app, subscribe, Actor, Bus, CaptureOptions, NodeAddr};
use uidelta_diff::{compare, Filters};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [app, role, name] = args.as_slice() else {
        return Err("usage: act APP ROLE NAME".into());
    };
    let bus = Bus::connect(None).await?;
    let info = find_app(&bus, app).await?;
    let opts = CaptureOptions::default();
    let before = capture(&bus, &info.app, None, None, &opts).await?;
    let node = before
        .tree()
        .nodes()
        .iter()
        .find(|n| n.role.as_str() == role && n.name == *name)
        .ok_or("no such element")?;
    let addr = node
        .identity
        .as_deref()
        .and_then(NodeAddr::from_identity)
        .ok_or("no identity")?;
    let mut events = subscribe(&bus, Some(&info.app.bus_name)).await?;
    let label = info.app.label();
    let outcome = Actor::new(&bus, &label).click(&addr).await?;
    println!("{outcome:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    while let Some(e) = events.try_next() {
        println!("event {} {} {}", e.kind, e.source.path, e.detail1);
    }
    let after = capture(&bus, &info.app, None, None, &opts).await?;
    let c = compare(&before, &after, Filters::all());
    print!(
        "{}",
        uidelta_render::diff_text(&c.diff, &Default::default())
    );
    Ok(())
}
