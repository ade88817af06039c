//! Opens a page in a headless Chromium (or an attached browser) and prints
//! its tree and the capture time:
//! `cargo run -p uidelta-cdp --example capture-page -- URL [--attach PORT] [--bounds] [--times N]`.
//! What a capture costs (time, nodes, memory) is the `page-cost` example's.

use std::time::Duration;

use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_diff::{Filters, RefTable, View};
use uidelta_render::{tree_text, TreeOptions};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let url = args
        .first()
        .cloned()
        .unwrap_or_else(|| "about:blank".into());
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let cdp = match value("--attach") {
        Some(endpoint) => Cdp::attach(&endpoint).await?,
        None => Cdp::launch(LaunchOptions::default()).await?,
    };
    let tab = cdp.new_tab(&url, Duration::from_secs(20)).await?;
    let times: usize = value("--times").and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut snap = cdp.capture_tab(&tab.id).await?;
    for _ in 1..times {
        snap = cdp.capture_tab(&tab.id).await?;
        eprintln!(
            "{} nodes in {:.1} ms",
            snap.node_count(),
            snap.meta.capture_ms.unwrap_or(0.0)
        );
    }
    let view = View::new(&snap, Filters::all());
    let refs = RefTable::new().label(view.len());
    let opts = TreeOptions {
        bounds: args.iter().any(|a| a == "--bounds"),
    };
    print!("{}", tree_text(&view, &refs, &opts));
    eprintln!(
        "{} nodes ({} shown) in {:.1} ms, truncated: {}",
        snap.node_count(),
        view.len(),
        snap.meta.capture_ms.unwrap_or(0.0),
        snap.meta.truncated
    );
    Ok(())
}
