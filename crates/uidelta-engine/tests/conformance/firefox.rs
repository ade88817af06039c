//! Firefox (Gecko) through AT-SPI: an order form filled in (a name typed,
//! a box ticked, a size chosen in a `<select>` whose page hears of it),
//! sent, a link followed and the page gone back to. Gecko's EditableText
//! does nothing, so text is typed with keys; its `<select>` is chosen with
//! keys in its opened popup, one of its options disabled; its labels
//! (around their fields or beside them), closed popups and Reload button
//! (remade at every load) say nothing.
//! And a Firefox started before uidelta, not told of accessibility, joins
//! the bus when uidelta connects, as it does for a screen reader.

use std::time::{Duration, Instant};

use uidelta_backend::{Action, Backend};
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::{start, wait_until_done};

const FIREFOX: &str = "Firefox";

/// A profile that opens the page alone: no first-run pages, no update,
/// telemetry or network checks (there is no network).
const PREFS: &str = r#"user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionPolicyBypassNotification", true);
user_pref("datareporting.policy.firstRunURL", "");
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.startup.page", 0);
user_pref("browser.toolbars.bookmarks.visibility", "never");
"#;

const ORDER: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Order form</title></head><body>
<h1>Order</h1>
<form>
<label>Name <input id="name"></label>
<label for="mail">Email</label> <input id="mail" type="email">
<label><input type="checkbox" id="wrap"> Gift wrap</label>
<label>Size <select id="size"><option>Small</option><option disabled>Medium</option><option>Large</option></select></label>
<button type="button" id="order">Order</button>
</form>
<p id="total">Total: 10 €</p>
<p><a href="details.html">Delivery details</a></p>
<script>
const $ = (id) => document.getElementById(id);
$("size").onchange = () => { $("total").textContent = "Total: " + ($("size").value === "Large" ? 15 : 10) + " €"; };
$("order").onclick = () => {
  const p = document.createElement("p");
  p.textContent = "Ordered for " + $("name").value + ": " + $("size").value + ($("wrap").checked ? ", gift wrapped" : "");
  document.body.append(p);
};
</script>
</body></html>
"#;

const DETAILS: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Delivery details</title></head><body>
<h1>Delivery</h1><p>Orders ship within two days.</p><p><a href="order.html">Back to the order</a></p>
</body></html>
"#;

/// The files of a run: the profile and the two pages.
const FILES: [(&str, &str); 3] = [
    ("profile/user.js", PREFS),
    ("order.html", ORDER),
    ("details.html", DETAILS),
];

const ARGS: [&str; 4] = ["--no-remote", "-profile", "profile", "order.html"];

#[test]
fn firefox_fills_in_a_form_and_follows_a_link() {
    let run = start("firefox-esr", &ARGS, FIREFOX, "firefox-esr", &FILES, false);
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        // Once the page is in (its document comes before what is in it),
        // and the window is done.
        wait_until_done(&mut s, FIREFOX, "role:push button && name:Order").await;

        let name = ref_of(&s, "role:entry && name:Name");
        let a = s
            .act(&name, &Action::Type("Ann".into()), &opts)
            .await
            .expect("type the name");
        assert_eq!(a.done.method, "XTest keys");
        r.check(
            "name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] entry \"Name\" in [#] document web \"Order form\" | value: none -> \"Ann\"",
            ],
        );

        // All of it selected: what the next keys would replace. Gecko's
        // process is not watched, and the selection is its one event: the
        // wait ends on it, not at the cap.
        let a = s.key(FIREFOX, "ctrl+a", &opts).await.expect("select all");
        r.check(
            "select all",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] entry \"Name\" in [#] document web \"Order form\" | selected text: none -> \"Ann\"",
            ],
        );
        assert!(!a.diff.settle_capped, "{}", crate::steps::answer(&a));

        let wrap = ref_of(&s, "role:check box && name:\"Gift wrap\"");
        let a = s.act(&wrap, &Action::Click, &opts).await.expect("tick");
        r.check(
            "gift wrap",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] check box \"Gift wrap\" in [#] document web \"Order form\" | checked: false -> true",
            ],
        );

        // Medium is disabled: the keys pass over it.
        let size = ref_of(&s, "role:combo box && name:Size");
        let a = s
            .act(&size, &Action::SetValue("Large".into()), &opts)
            .await
            .expect("choose a size");
        assert_eq!(
            a.done.method,
            "Action.open on the combo box, then XTest Home, 1 × Down, Return"
        );
        r.check(
            "size",
            &a,
            &[
                "# diff: ~2 modified",
                "~ [#] combo box \"Size\" in [#] document web \"Order form\" | value: \"Small\" -> \"Large\"",
                "~ [#] paragraph in [#] document web \"Order form\" | value: \"Total: 10 €\" -> \"Total: 15 €\"",
            ],
        );

        let order = ref_of(&s, "role:push button && name:Order");
        let a = s.act(&order, &Action::Click, &opts).await.expect("order");
        r.check(
            "order",
            &a,
            &[
                "# diff: +1 added",
                "+ [#] paragraph = \"Ordered for Ann: Large, gift wrapped\" in [#] document web \"Order form\"",
            ],
        );

        let link = ref_of(&s, "role:link && name:\"Delivery details\"");
        let reload = ref_of(&s, "role:push button && name:Reload");
        let a = s.act(&link, &Action::Click, &opts).await.expect("follow");
        let head = "# diff: +1 added, -1 removed, ~4 modified · focus [#] push button \"Order\" (gone) -> [#] document web \"Delivery details\"";
        let page = [
            "+ [#] document web \"Delivery details\" (focused)",
            "    [#] heading \"Delivery\"",
            "    [#] paragraph = \"Orders ship within two days.\"",
            "    [#] link \"Back to the order\"",
        ];
        let gone = "- [#] document web \"Order form\" (and 13 descendants)";
        let window = [
            "~ [#] frame | name: \"Order form — Mozilla Firefox\" -> \"Delivery details — Mozilla Firefox\"",
            "~ [#] page tab in [#] tool bar \"Browser tabs\" | name: \"Order form\" -> \"Delivery details\"",
            "~ [#] push button \"Back\" in [#] tool bar \"Navigation\" | enabled: false -> true",
            "~ [#] combo box \"Search or enter address\" in [#] tool bar \"Navigation\" | value: \"file://$DIR/order.html\" -> \"file://$DIR/details.html\"",
        ];
        let done: Vec<&str> = [head]
            .into_iter()
            .chain(page)
            .chain([gone])
            .chain(window)
            .collect();
        // Gecko makes its Reload button anew, disabled until the page has
        // loaded: an answer on a busy machine may come before that.
        let loading_head = "# diff: +2 added, -2 removed, ~4 modified · focus [#] push button \"Order\" (gone) -> [#] document web \"Delivery details\"";
        let loading: Vec<&str> = [
            loading_head,
            "+ [#] push button \"Reload\" (disabled) in [#] tool bar \"Navigation\"",
        ]
        .into_iter()
        .chain(page)
        .chain([
            "- [#] push button \"Reload\" in [#] tool bar \"Navigation\"",
            gone,
        ])
        .chain(window)
        .collect();
        // Or it keeps its Reload button and disables it while the page
        // loads.
        let head_disabled = head.replace("~4 modified", "~5 modified");
        let disabled: Vec<&str> = [head_disabled.as_str()]
            .into_iter()
            .chain(page)
            .chain([gone])
            .chain(window[..3].iter().copied())
            .chain(["~ [#] push button \"Reload\" in [#] tool bar \"Navigation\" | enabled: true -> false"])
            .chain(window[3..].iter().copied())
            .collect();
        // With each, its Stop button, shown while the page loads, may be
        // caught between two looks, enabled or already disabled: it is
        // transient then (caught before Firefox named it, it says nothing
        // and is not listed).
        let stops: [Option<&str>; 3] = [
            None,
            Some("! [#] push button \"Stop\" (transient)"),
            Some("! [#] push button \"Stop\" (disabled) (transient)"),
        ];
        let variants: Vec<Vec<&str>> = [&done, &loading, &disabled]
            .into_iter()
            .flat_map(|reload| {
                stops
                    .iter()
                    .map(move |stop| reload.iter().copied().chain(*stop).collect::<Vec<&str>>())
            })
            .collect();
        let variants: Vec<&[&str]> = variants.iter().map(Vec::as_slice).collect();
        let read = r.check_one_of("link", &a, &variants);
        if read < stops.len() {
            // Made anew the same: the ref still names it.
            assert_eq!(ref_of(&s, "role:push button && name:Reload"), reload);
        } else {
            // Its enabling, once the page loaded, is no part of the next
            // step.
            s.wait_for_change(FIREFOX, Duration::from_secs(2))
                .await
                .expect("the page loaded");
        }

        let a = s.key(FIREFOX, "alt+Left", &opts).await.expect("back");
        let head = "# diff: +1 added, -1 removed, ~5 modified · focus [#] document web \"Delivery details\" (gone) -> [#] link \"Delivery details\"";
        let back =
            "~ [#] push button \"Back\" in [#] tool bar \"Navigation\" | enabled: true -> false";
        let rest = [
            "+ [#] document web \"Order form\"",
            "    [#] heading \"Order\"",
            "    [#] entry \"Name\" = \"Ann\"",
            "    [#] entry \"Email\"",
            "    [#] check box \"Gift wrap\" (checked)",
            "    [#] combo box \"Size\" = \"Large\" (collapsed)",
            "      [#] menu",
            "    [#] push button \"Order\"",
            "    [#] paragraph = \"Total: 15 €\"",
            "    [#] link \"Delivery details\" (focused)",
            "    [#] paragraph = \"Ordered for Ann: Large, gift wrapped\"",
            "  ... 3 more nodes under [#] (all hidden)",
            "- [#] document web \"Delivery details\" (and 3 descendants)",
            "~ [#] frame | name: \"Delivery details — Mozilla Firefox\" -> \"Order form — Mozilla Firefox\"",
            "~ [#] page tab in [#] tool bar \"Browser tabs\" | name: \"Delivery details\" -> \"Order form\"",
        ];
        let end = [
            "~ [#] push button \"Forward\" in [#] tool bar \"Navigation\" | enabled: false -> true",
            "~ [#] combo box \"Search or enter address\" in [#] tool bar \"Navigation\" | value: \"file://$DIR/details.html\" -> \"file://$DIR/order.html\"",
        ];
        let loaded: Vec<&str> = [head]
            .into_iter()
            .chain(rest)
            .chain([back])
            .chain(end)
            .collect();
        // Or, as when the link was followed, it keeps its Reload button
        // and disables it while the page loads (seen under load).
        let head_loading = head.replace("~5 modified", "~6 modified");
        let back_loading = format!("{back} (same on [#] \"Reload\")");
        let loading: Vec<&str> = [head_loading.as_str()]
            .into_iter()
            .chain(rest)
            .chain([back_loading.as_str()])
            .chain(end)
            .collect();
        r.check_one_of("back", &a, &[&loaded, &loading]);
    });
}

#[test]
fn a_firefox_started_before_uidelta_joins_the_bus_when_it_connects() {
    uidelta_testkit::require_programs(&[("Xvfb", "xvfb"), ("firefox-esr", "firefox-esr")])
        .expect("programs");
    let desktop = uidelta_testkit::Desktop::start().expect("a virtual desktop");
    let dir = desktop.runtime_dir().join("work");
    for (name, text) in FILES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a directory for the files");
        }
        std::fs::write(&path, text).expect("a file");
    }
    // Not told by its environment, as on a desktop where no screen reader
    // ran when it started.
    let mut command = desktop.command("firefox-esr");
    command
        .args(ARGS)
        .current_dir(&dir)
        .env("HOME", &dir)
        .env_remove("GNOME_ACCESSIBILITY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _firefox = desktop.spawn(command).expect("launch firefox-esr");
    // Its window is up: it shows in the X window list.
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let windows = std::process::Command::new("xdotool")
            .args(["search", "--name", "Order form"])
            .envs(desktop.env())
            .output()
            .expect("xdotool (apt-get install -y xdotool)");
        if !windows.stdout.is_empty() {
            break;
        }
        assert!(Instant::now() < end, "no Firefox window within 60 s");
        std::thread::sleep(Duration::from_millis(200));
    }
    let apps = desktop.accessible_apps().expect("the bus's applications");
    assert!(
        !apps.iter().any(|a| a == FIREFOX),
        "Firefox joined on its own: {apps:?}"
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let linux = uidelta_linux::Linux::connect(
            Some(desktop.session_bus_address()),
            Some(desktop.display()),
        )
        .await
        .expect("connect");
        let apps = linux.apps().await.expect("applications");
        let names: Vec<&str> = apps.iter().map(|a| a.name.as_str()).collect();
        assert!(names.contains(&FIREFOX), "{names:?}");
    });
}

/// A page no client read before, as its first capture reads it: Gecko
/// answers the names of what a page holds empty until a client first asks
/// for them, and fills them in a few milliseconds later, without an event
/// (`Profile::fills_in_silently`). The capture asks a few of those names
/// again, and walks again when they are given: the first tree an agent
/// reads (`uidelta tree`, the first capture of a session) is named.
#[test]
fn a_page_no_client_read_is_named_at_its_first_capture() {
    const SHOP: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1>
<p><a href="cart.html">Cart</a> <a href="help.html">Help</a></p>
<button type="button">Buy</button>
</body></html>
"#;
    let files = [("profile/user.js", PREFS), ("shop.html", SHOP)];
    let args = ["--no-remote", "-profile", "profile", "shop.html"];
    let run = start("firefox-esr", &args, FIREFOX, "firefox-esr", &files, false);
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        // The window's title (not the page's objects) says the page is
        // in; it is given two seconds to be laid out, then read once.
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let apps = s.apps().await.expect("applications");
            let titled = |w: &uidelta_model::app::Window| w.title.starts_with("Shop");
            if apps.iter().any(|a| a.windows.iter().any(titled)) {
                break;
            }
            assert!(Instant::now() < end, "no window titled Shop: {apps:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        s.observe(FIREFOX).await.expect("the first capture");
        let hits = s.find(&"role:document web".parse().expect("selector"));
        assert_eq!(hits.len(), 1, "one page");
        let (app, node) = hits[0];
        let opts = uidelta_render::TreeOptions::default();
        let page: Vec<String> = s.known_apps()[app]
            .subtree_text(node, &opts)
            .lines()
            .map(|l| match l.trim_start().split_once("] ") {
                Some((_, rest)) => rest.to_owned(),
                None => l.to_owned(),
            })
            .collect();
        assert_eq!(
            page,
            [
                "document web \"Shop\" (focused)",
                "heading \"Shop\"",
                "link \"Cart\"",
                "link \"Help\"",
                "push button \"Buy\"",
            ],
            "the page, at its first capture"
        );
    });
}
