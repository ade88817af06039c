//! Captures an application from the live desktop and prints timing:
//! `cargo run -p uidelta-atspi --example capture-app -- NAME [--no-cache]`.

use uidelta_atspi::{capture, find_app, Bus, CaptureOptions};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args
        .first()
        .map(String::as_str)
        .unwrap_or("gtk3-widget-factory");
    let opts = CaptureOptions {
        use_cache: !args.iter().any(|a| a == "--no-cache"),
        ..CaptureOptions::default()
    };
    let bus = Bus::connect(None).await?;
    let app = find_app(&bus, name).await?;
    for _ in 0..5 {
        let snap = capture(&bus, &app.app, None, None, &opts).await?;
        println!(
            "{} nodes in {:.1} ms (truncated: {})",
            snap.node_count(),
            snap.meta.capture_ms.unwrap_or(0.0),
            snap.meta.truncated
        );
    }
    Ok(())
}
