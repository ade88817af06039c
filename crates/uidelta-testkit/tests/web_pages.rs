//! Every test page in `fixtures/web` loads in headless Chromium from the testkit's server, and
//! the DOM Chromium ends up with (after the page's scripts ran) holds the page's key text.
//!
//! Needs Debian's `chromium` at `/usr/bin/chromium`; without it the test fails with the
//! `apt-get install` line, it never skips.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use uidelta_testkit::require_programs;
use uidelta_testkit::web::{fixtures_dir, Server};

const CHROMIUM: &str = "/usr/bin/chromium";

/// How long one page may take to load and dump.
const PAGE_TIMEOUT: Duration = Duration::from_secs(60);

/// Page (with query), then texts its final DOM must contain.
const PAGES: &[(&str, &[&str])] = &[
    (
        "dialog.html",
        &[">Open dialog</button>", "role=\"status\"", "report.pdf"],
    ),
    (
        "form.html",
        &[
            "<label for=\"name\">Name</label>",
            "<label for=\"email\">Email</label>",
            "type=\"password\"",
            "<textarea id=\"comment\"",
            ">Create account</button>",
            ">Sign up</h1>",
        ],
    ),
    (
        "controls.html",
        &[
            "Subscribe to newsletter",
            "<option selected=\"\">Red</option>",
            "<legend>Size</legend>",
            "value=\"Medium\" checked=\"\"",
            "type=\"range\"",
            "No changes yet",
        ],
    ),
    // The route is rendered by the page's script: this checks that it ran.
    (
        "spa.html",
        &[
            "<title>Home · Northwind Outfitters</title>",
            "aria-current=\"page\">Home</a>",
            "Welcome to Northwind Outfitters",
        ],
    ),
    (
        "spa.html?route=products",
        &[
            "<title>Products · Northwind Outfitters</title>",
            "aria-current=\"page\">Products</a>",
            "Two-person tent",
        ],
    ),
    (
        "list.html",
        &[
            "<li>Result 10</li>",
            ">Load more</button>",
            "Showing 10 results",
        ],
    ),
    ("slow.html", &[">Fetch</button>", "/slow?ms=700"]),
    (
        "nav-a.html",
        &[
            "<a href=\"nav-b.html\">Go to page B</a>",
            "Rivers of the North",
            "<caption>Sixty rivers of the region</caption>",
        ],
    ),
    (
        "nav-b.html",
        &[
            "<a href=\"nav-a.html\">Back to page A</a>",
            "Lighthouses of the Western Coast",
            "<caption>Sixty lighthouses of the region</caption>",
        ],
    ),
    (
        "iframe.html",
        &["<iframe title=\"Inner\" src=\"inner.html\">", "Outer page"],
    ),
    ("inner.html", &[">Inner button</button>"]),
    (
        "toast.html",
        &[">Save</button>", "<textarea id=\"text\">Draft</textarea>"],
    ),
    (
        "alerts.html",
        &[
            ">Delete all</button>",
            ">Save later</button>",
            "<li>photo.jpg</li>",
        ],
    ),
    (
        "upload.html",
        &[
            "id=\"photos\" multiple=\"\" hidden=\"\"",
            ">Add photos</button>",
        ],
    ),
    (
        "board.html",
        &[
            "draggable=\"true\" id=\"report\">Write report</li>",
            "id=\"volume\"",
        ],
    ),
    (
        "download.html",
        &["<a href=\"report.txt\" download=\"report.txt\">Download report</a>"],
    ),
    (
        "links.html?n=3",
        &["<a href=\"#item-3\">Link 3</a>", "<h1>Links</h1>"],
    ),
    (
        "shop.html?n=2",
        &[
            ">Garden</button>",
            "<a href=\"#sale-8\">Sale 8</a>",
            "<a href=\"#product-2\">Product 2</a>",
            "aria-pressed=\"false\">Add 2</button>",
        ],
    ),
    (
        "table.html?rows=2",
        &[
            "<a href=\"#order-2\">Order 2</a>",
            ">Edit 2</button>",
            "aria-label=\"Select 2\"",
        ],
    ),
];

/// Loads `url` in a fresh headless Chromium and returns the DOM it dumps.
fn dump_dom(url: &str, profile: &Path) -> String {
    let child = Command::new(CHROMIUM)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {CHROMIUM} for {url}: {e}"));
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    let started = Instant::now();
    let output = match receiver.recv_timeout(PAGE_TIMEOUT) {
        Ok(output) => output.unwrap_or_else(|e| panic!("waiting for chromium on {url}: {e}")),
        Err(_) => {
            // SAFETY: kill(2) on the process group this test started; no memory is involved.
            unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
            let _ = waiter.join();
            panic!("chromium did not dump {url} within {PAGE_TIMEOUT:?}");
        }
    };
    let _ = waiter.join();
    // Chromium's helpers may outlive the browser for a moment; none may outlive the test.
    // SAFETY: as above.
    unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
    assert!(
        output.status.success(),
        "chromium failed on {url} after {:?} ({}): {}",
        started.elapsed(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_fixture_page_loads_in_chromium_with_its_key_text() {
    require_programs(&[(CHROMIUM, "chromium")]).unwrap_or_else(|e| panic!("{e}"));
    let server = Server::start(&fixtures_dir()).expect("starting the fixture server");
    let profiles = std::env::temp_dir().join(format!("uidelta-web-pages-{}", std::process::id()));
    let mut failures = Vec::new();
    for (index, (page, expected)) in PAGES.iter().enumerate() {
        let profile = profiles.join(index.to_string());
        let dom = dump_dom(&server.url(page), &profile);
        for text in *expected {
            if !dom.contains(text) {
                failures.push(format!("{page}: no {text:?} in the DOM"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&profiles);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_page_in_the_folder_is_checked() {
    let mut on_disk: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("listing fixtures/web")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".html"))
        .collect();
    on_disk.sort();
    let mut checked: Vec<String> = PAGES
        .iter()
        .map(|(page, _)| page.split('?').next().unwrap_or(page).to_string())
        .collect();
    checked.sort();
    checked.dedup();
    assert_eq!(on_disk, checked);
}
