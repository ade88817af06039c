//! Captures one page in headless Chromium and says what it cost: the time of
//! each capture, the nodes kept, and this process's peak resident memory
//! (Chromium's own processes not counted).
//!
//! ```sh
//! cargo run --release -p uidelta-cdp --example page-cost -- URL [CAPTURES]
//! ```
//!
//! A path under `fixtures/web` (`table.html?rows=7500`) is served from
//! there. `RUST_LOG=uidelta_cdp=debug` also prints where each capture's time
//! went.

use std::time::{Duration, Instant};

use uidelta_backend::{Backend, Scope};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_testkit::web::{fixtures_dir, Server};

type Fallible<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Fallible<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let page = args.next().ok_or("usage: page-cost URL|PAGE [CAPTURES]")?;
    let captures: usize = args.next().map_or(Ok(3), |n| n.parse())?;
    let server = Server::start(&fixtures_dir())?;
    let url = if page.contains("://") {
        page
    } else {
        server.url(&page)
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let cdp = Cdp::launch(LaunchOptions::default()).await?;
        let app = cdp.open(&url, &[], Duration::from_secs(60)).await?;
        for k in 1..=captures {
            let started = Instant::now();
            let snap = cdp.capture(&app, &Scope::App).await?;
            println!(
                "capture {k}: {:.0} ms, {} nodes{}",
                started.elapsed().as_secs_f64() * 1000.0,
                snap.tree().len(),
                if snap.meta.truncated {
                    " (truncated)"
                } else {
                    ""
                }
            );
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    let status = std::fs::read_to_string("/proc/self/status")?;
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap_or("VmHWM: unknown");
    println!(
        "peak resident memory of this process: {}",
        peak.trim_start_matches("VmHWM:").trim()
    );
    Ok(())
}
