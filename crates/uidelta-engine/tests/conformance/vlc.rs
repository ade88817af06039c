//! VLC (Qt 5), a media player, which refuses to run as root: on a desktop
//! whose processes run as the user `nobody`. Its first start asks about
//! network access in a dialog; then two preferences are changed and saved,
//! through its Tools menu and its Simple Preferences dialog. Qt keeps a
//! dialog that closed, hidden: it reads as gone.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::session;
use crate::steps::{start_unprivileged, wait_until_done};

#[test]
fn vlc_changes_two_preferences_and_saves_them() {
    let run = start_unprivileged("vlc", &["--no-audio"], "vlc", "vlc", &[]);
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        wait_until_done(&mut s, "vlc", "role:dialog && name~:Privacy").await;

        // 1. The privacy dialog of the first start, answered.
        let a = s
            .act(
                "role:dialog >> role:push button && name:Continue",
                &Action::Click,
                &opts,
            )
            .await
            .expect("Continue");
        r.check(
            "privacy",
            &a,
            &[
                "bare: # diff: -1 removed · focus [#] push button \"Continue\" (gone) -> none",
                "wm: # diff: -1 removed · focus [#] push button \"Continue\" (gone) -> [#] frame \"VLC media player\"",
                "- [#] dialog \"Privacy and Network Access Policy\" (closed) (and 6 descendants)",
            ],
        );

        // 2. The Tools menu opens, its entries listed.
        let a = s
            .act("role:menu bar >> name:Tools", &Action::Click, &opts)
            .await
            .expect("Tools");
        r.check(
            "tools",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] popup menu in [#] menu item \"Tools\" | active, showing, visible: false -> true (also 11 descendants)",
                "    [#] menu item \"Effects and Filters\"",
                "    [#] menu item \"Track Synchronization\"",
                "    [#] menu item \"Media Information\"",
                "    [#] menu item \"Codec Information\"",
                "    [#] menu item \"VLM Configuration\"",
                "    [#] menu item \"Program Guide\"",
                "    [#] menu item \"Messages\"",
                "    [#] menu item \"Plugins and extensions\"",
                "    [#] separator (disabled)",
                "    [#] menu item \"Customize Interface...\"",
                "    [#] menu item \"Preferences\"",
            ],
        );

        // 3. Its Preferences: the dialog.
        let preferences = r.ref_on(&a, "    [#] menu item \"Preferences\"");
        let a = s
            .act(&preferences, &Action::Click, &opts)
            .await
            .expect("Preferences");
        r.check(
            "preferences",
            &a,
            &[
                "bare: # diff: +1 added, ~1 modified · focus [#] menu item \"Tools\" -> [#] radio button \"Simple\"",
                "wm: # diff: +1 added, ~1 modified · focus [#] menu item \"Tools\" -> [#] radio button \"Simple\"",
                "+ [#] dialog \"Simple Preferences\" (opened)",
                "    [#] check box \"Interface\" (checked)",
                "    [#] check box \"Audio\"",
                "    [#] check box \"Video\"",
                "    [#] check box \"Subtitles / OSD\"",
                "    [#] check box \"Input / Codecs\"",
                "    [#] check box \"Hotkeys\"",
                "    [#] label \"Interface Settings\"",
                "    [#] filler",
                "      [#] panel \"Look and feel\"",
                "        [#] radio button \"Use custom skin\"",
                "        [#] radio button \"Use native style\" (checked)",
                "        [#] panel \"Look and feel\"",
                "        [#] layered pane \"Look and feel\"",
                "          [#] image",
                "          [#] check box \"Resize interface to video size\" (checked)",
                "          [#] combo box \"Show media change popup:\" = \"When minimized\"",
                "          [#] combo box \"Force window style:\" = \"System's default\"",
                "          [#] check box \"Show controls in full screen mode\" (checked)",
                "          [#] check box \"Pause playback when minimized\"",
                "          [#] check box \"Start in minimal view mode\"",
                "          [#] check box \"Integrate video in interface\" (checked)",
                "          [#] check box \"Show systray icon\" (checked)",
                "          [#] combo box \"Auto raising the interface:\" = \"Video\"",
                "          [#] check box \"Use a dark palette\"",
                "      [#] panel \"Playlist and Instances\"",
                "        [#] check box \"Use only one instance when started from file manager\" (checked)",
                "        [#] check box \"Display playlist tree\"",
                "        [#] check box \"Pause on the last frame of a video\"",
                "        [#] check box \"Enqueue items into playlist in one instance mode\" (disabled)",
                "        [#] combo box \"Continue playback?\" = \"Ask\"",
                "        [#] check box \"Allow only one instance\"",
                "      [#] panel \"Privacy / Network Interaction\"",
                "        [#] check box \"Save recently played items\" (checked)",
                "        [#] text \"Filter:\"",
                "        [#] check box \"Allow metadata network access\" (checked)",
                "    [#] panel \"Show settings\"",
                "      [#] radio button \"Simple\" (focused, checked)",
                "      [#] radio button \"All\"",
                "    [#] push button \"Save\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Reset Preferences\"",
                "  ... 30 more nodes under [#] (all hidden)",
                "bare: ~ [#] popup menu in [#] menu item \"Tools\" | active, showing, visible: true -> false (also 11 descendants)",
                // Under a window manager Qt's menu goes on saying it is active.
                "wm: ~ [#] popup menu in [#] menu item \"Tools\" | showing, visible: true -> false (also 11 descendants)",
            ],
        );
        let tray = r.ref_on(
            &a,
            "          [#] check box \"Show systray icon\" (checked)",
        );
        let resume = r.ref_on(&a, "        [#] combo box \"Continue playback?\" = \"Ask\"");
        let save = r.ref_on(&a, "    [#] push button \"Save\"");

        // 4. No icon in the system tray.
        let a = s
            .act(&tray, &Action::Click, &opts)
            .await
            .expect("Show systray icon");
        r.check(
            "systray",
            &a,
            &[
                "# diff: ~2 modified",
                "~ [#] combo box \"Show media change popup:\" in [#] layered pane \"Look and feel\" | enabled: true -> false",
                "~ [#] check box \"Show systray icon\" in [#] layered pane \"Look and feel\" | checked: true -> false",
            ],
        );

        // 5. Playback always resumes where it was left.
        let a = s
            .act(&resume, &Action::SetValue("Always".into()), &opts)
            .await
            .expect("Continue playback?");
        r.check(
            "continue playback",
            &a,
            &[
                "# diff: ~2 modified",
                "~ [#] combo box \"Continue playback?\" in [#] panel \"Playlist and Instances\" | value: \"Ask\" -> \"Always\"",
                "~ [#] list item \"Always\" (hidden) in [#] combo box \"Continue playback?\" | selected: false -> true",
            ],
        );

        // 6. Save: the dialog goes, the preferences are written.
        let a = s.act(&save, &Action::Click, &opts).await.expect("Save");
        r.check(
            "save",
            &a,
            &[
                "bare: # diff: -1 removed · focus [#] radio button \"Simple\" (gone) -> none",
                "wm: # diff: -1 removed · focus [#] radio button \"Simple\" (gone) -> [#] frame \"VLC media player\"",
                "- [#] dialog \"Simple Preferences\" (closed) (and 71 descendants)",
            ],
        );
    });
    let config = run.desktop.runtime_dir().join("home/config/vlc/vlcrc");
    let written = std::fs::read_to_string(&config)
        .unwrap_or_else(|e| panic!("reading {}: {e}", config.display()));
    let set = |line: &str| written.lines().any(|l| l == line);
    assert!(set("qt-system-tray=0"), "no qt-system-tray=0 in vlcrc");
    assert!(set("qt-continue=2"), "no qt-continue=2 in vlcrc");
}
