//! Actions on the live desktop or in a browser, each printing the diff it
//! caused: `uidelta click`, `type`, `key`, `set-value`, `select`,
//! `close-window`, `activate-window`, `navigate`, `script`, `wait-change`,
//! `watch`.

use crate::Status;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use uidelta_backend::{Action, Navigate};
use uidelta_engine::{
    ActOptions, ActionOutcome, DragEnd, KnownApp, Quiet, Session, Settle, WindowAction,
};
use uidelta_render as render;

use crate::backend::AnyBackend;
use crate::carry::{self, Carried};
use crate::place::Place;
use uidelta_cdp::{DialogKind, DialogPolicy};

/// What every action command takes.
#[derive(Args, Debug)]
pub struct Common {
    /// The application (name or unique prefix; in a browser, the tab's title
    /// or id, by default the tab opened with --url or the active one).
    #[arg(long)]
    pub app: Option<String>,
    #[command(flatten)]
    pub place: Place,
    /// How to wait for the UI: `auto` (events, quiet window), `fixed:MS`, or `none`.
    #[arg(long, default_value = "auto", value_parser = parse_settle)]
    pub settle: Settle,
    /// Output format of the diff.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    pub format: Output,
    /// In a browser: how the page's JavaScript dialogs (alert, confirm,
    /// prompt) that open during the command are answered, as they open;
    /// each is reported on a `# note:` line. A command cannot leave one
    /// open: the page would wait for an answer the next command could not
    /// give.
    #[arg(long, value_enum, default_value_t = DialogAnswer::Dismiss)]
    pub dialog: DialogAnswer,
    /// With --dialog accept: what a prompt answers (by default the text it
    /// offers).
    #[arg(long, value_name = "TEXT")]
    pub prompt_text: Option<String>,
    /// In a browser: the file a file chooser that opens during the command
    /// (an upload button's) is given, as it opens; repeat for a chooser
    /// that takes several. Without it a chooser is left unanswered; a file
    /// input also takes a file with `set-value TARGET PATH`.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<std::path::PathBuf>,
}

/// How a command answers what a page asks as it opens: its JavaScript
/// dialogs, and its file choosers with these files (none: unanswered).
struct PageAnswers {
    dialogs: DialogPolicy,
    files: Vec<String>,
}

impl Default for PageAnswers {
    fn default() -> Self {
        PageAnswers {
            dialogs: DialogPolicy::Dismiss,
            files: Vec::new(),
        }
    }
}

impl PageAnswers {
    /// Tells a browser; nothing on the desktop.
    fn tell(self, connected: &crate::place::Connected) {
        if let crate::place::Connected::Browser(cdp, _) = connected {
            cdp.set_dialog_policy(self.dialogs);
            cdp.set_file_chooser_answer(Some(self.files));
        }
    }
}

/// How a command answers a page's JavaScript dialogs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DialogAnswer {
    /// Cancel (an alert's OK, its only button).
    Dismiss,
    /// OK.
    Accept,
}

/// How an action's result is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// The diff text, preceded by a line saying what was done.
    Text,
    /// The diff as JSON.
    Json,
}

fn parse_settle(s: &str) -> std::result::Result<Settle, String> {
    match s {
        "auto" => Ok(Settle::Auto(Quiet::default())),
        "none" => Ok(Settle::None),
        _ => s
            .strip_prefix("fixed:")
            .and_then(|ms| ms.parse::<u64>().ok())
            .map(|ms| Settle::Fixed(Duration::from_millis(ms)))
            .ok_or_else(|| format!("`{s}`: use auto, none or fixed:MS (fixed:1500)")),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Runs `$body` inside the async runtime, with `$c` the session of the
/// desktop or browser `$place` names, carried on from the last command for
/// the application `$app` (named by `$named`, read first when `$look`),
/// and saves the session once `$body` has its result.
macro_rules! carried {
    ($place:expr, $named:expr, $look:expr, |$c:ident, $app:ident| $body:expr) => {
        carried!($place, $named, $look, PageAnswers::default(), |$c, $app| {
            $body
        })
    };
    ($place:expr, $named:expr, $look:expr, $answers:expr, |$c:ident, $app:ident| $body:expr) => {
        runtime()?.block_on(async {
            let connected = $place.connect().await?;
            $answers.tell(&connected);
            let $app = $place.app($named, &connected).await?;
            let key = carry::key($place, &connected);
            {
                let b = connected.into_backend();
                let mut $c = Carried::open(b, key, &$app, $look).await?;
                let out = $body;
                $c.release();
                anyhow::Ok(out)
            }
        })
    };
}

impl Common {
    /// How the page's dialogs and file choosers are answered (see
    /// `--dialog`, `--prompt-text`, `--file`): files by absolute paths, each
    /// checked to be one.
    fn page_answers(&self) -> Result<PageAnswers> {
        let dialogs = match self.dialog {
            DialogAnswer::Dismiss if self.prompt_text.is_some() => anyhow::bail!(
                "--prompt-text is what an accepted prompt answers: add --dialog accept"
            ),
            DialogAnswer::Dismiss => DialogPolicy::Dismiss,
            DialogAnswer::Accept => DialogPolicy::Accept {
                prompt_text: self.prompt_text.clone(),
            },
        };
        let mut files = Vec::new();
        for file in &self.files {
            let path =
                std::path::absolute(file).with_context(|| format!("--file {}", file.display()))?;
            if !path.is_file() {
                anyhow::bail!("--file {}: no such file", file.display());
            }
            files.push(path.to_string_lossy().into_owned());
        }
        Ok(PageAnswers { dialogs, files })
    }

    fn options(&self) -> ActOptions {
        ActOptions {
            settle: self.settle,
            ..ActOptions::default()
        }
    }
}

/// Runs `show` on the session's latest snapshot of `app` (by default, in a
/// browser, the tab opened with --url or the active one), read again now,
/// and saves the session: what `uidelta tree --app` prints, with the refs
/// the next command takes.
pub fn with_latest(
    place: &Place,
    app: Option<&str>,
    show: impl FnOnce(&KnownApp) -> Result<String>,
) -> Result<String> {
    carried!(place, app, true, |c, app| {
        let idx = c.known.with_context(|| format!("{app} was not read"))?;
        show(&c.s.known_apps()[idx])?
    })
}

/// Runs `action` on `target` in the application and prints the diff.
pub fn act(common: &Common, target: &str, action: Action) -> Result<Status> {
    let acted = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, _app| {
            let acted = c.s.act(target, &action, &common.options()).await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Drags `source` to `to` and prints the diff.
pub fn drag(common: &Common, source: &str, to: &DragEnd) -> Result<Status> {
    let acted = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, _app| {
            let acted = c.s.drag(source, to, &common.options()).await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Drags from a point of the screen (or of a tab's viewport) to `to` and
/// prints the diff of the application `--app`.
pub fn drag_at(common: &Common, from: (i32, i32), to: &DragEnd) -> Result<Status> {
    let Some(app) = common.app.as_deref() else {
        anyhow::bail!(
            "drag --from-point: name the application whose diff to print with --app (see \
             `uidelta apps`)"
        );
    };
    let acted = carried!(
        &common.place,
        Some(app),
        false,
        common.page_answers()?,
        |c, app| {
            let acted = c.s.drag_at(&app, from, to, &common.options()).await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Clicks (or moves the pointer: `Action::Hover`) at a point of the screen
/// (or of a tab's viewport) and prints the diff of the application `--app`,
/// which may be one that does not answer.
pub fn click_at(common: &Common, point: (i32, i32), action: Action) -> Result<Status> {
    let Some(app) = common.app.as_deref() else {
        let command = match action {
            Action::Hover => "hover",
            _ => "click",
        };
        anyhow::bail!(
            "{command} --at: name the application whose diff to print with --app (see `uidelta \
             apps`)"
        );
    };
    // Not read first: `Session::click_at` reads the application itself,
    // and clicks even when it does not answer.
    let acted = carried!(
        &common.place,
        Some(app),
        false,
        common.page_answers()?,
        |c, app| {
            let acted =
                c.s.click_at(&app, point, &action, &common.options())
                    .await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Presses a chord on the application's focused element (or on `target`)
/// and prints the diff.
pub fn key(common: &Common, chord: &str, target: Option<&str>) -> Result<Status> {
    if let Some(t) = target {
        return act(common, t, Action::Key(chord.to_owned()));
    }
    let acted = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, app| {
            let acted = c.s.key(&app, chord, &common.options()).await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Closes or activates a window: that of `target`, or the application's
/// window titled `window` (by default its active one); prints the diff,
/// or that the application exited.
pub fn window(
    common: &Common,
    target: Option<&str>,
    window: Option<&str>,
    what: WindowAction,
) -> Result<Status> {
    if target.is_none() && common.app.is_none() {
        anyhow::bail!(
            "name the window: give a ref or selector of an element of it, or --app (and \
             --window TITLE)"
        );
    }
    let acted = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, app| {
            let acted = match target {
                Some(t) => c.s.window_action(t, what, common.settle).await?,
                None => {
                    c.s.app_window_action(&app, window, what, common.settle)
                        .await?
                }
            };
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Loads a URL in a browser tab (or goes back, forward, reloads) and prints
/// the diff.
pub fn navigate(common: &Common, to: &str) -> Result<Status> {
    if !common.place.is_browser() {
        anyhow::bail!("navigate acts in a browser: add --browser (with --url) or --cdp URL");
    }
    let to = match to {
        "back" => Navigate::Back,
        "forward" => Navigate::Forward,
        "reload" => Navigate::Reload,
        url => Navigate::To(url.to_owned()),
    };
    let acted = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, app| {
            let acted = c.s.navigate(&app, &to, &common.options()).await?;
            with_tree(&c.s, acted)
        }
    )?;
    print(&acted, common.format)
}

/// Runs JavaScript in a browser tab; prints its result and the diff.
pub fn script(common: &Common, script: &str) -> Result<Status> {
    if !common.place.is_browser() {
        anyhow::bail!("script runs in a browser: add --browser (with --url) or --cdp URL");
    }
    let (result, acted) = carried!(
        &common.place,
        common.app.as_deref(),
        true,
        common.page_answers()?,
        |c, app| {
            let (result, acted) = c.s.run_script(&app, script, &common.options()).await?;
            (result, with_tree(&c.s, acted))
        }
    )?;
    if common.format == Output::Text {
        crate::emit(&format!("# result: {result}\n"))?;
    }
    print(&acted, common.format)
}

/// Waits for the application to change and prints the diff.
pub fn wait_change(
    app: Option<&str>,
    place: &Place,
    timeout: Duration,
    format: Output,
) -> Result<Status> {
    let acted = carried!(place, app, true, |c, app| {
        // Other commands may act while this one waits.
        c.release();
        let acted = c.s.wait_for_change(&app, timeout).await?;
        if acted.exited {
            c.known = None;
        }
        c.reacquire(&app).await?;
        with_tree(&c.s, acted)
    })?;
    print(&acted, format)
}

/// Prints every change of the application as it happens, until interrupted.
pub fn watch(app: Option<&str>, place: &Place) -> Result<Status> {
    runtime()?.block_on(async {
        let connected = place.connect().await?;
        let app = place.app(app, &connected).await?;
        let key = carry::key(place, &connected);
        {
            PageAnswers::default().tell(&connected);
            let b = connected.into_backend();
            let mut c = Carried::open(b, key, &app, true).await?;
            // The session file is held only while it is written, so that
            // other commands can act meanwhile.
            c.release();
            crate::emit(&format!("# watching {app}; Ctrl-C to stop\n"))?;
            let opts = render::DiffOptions::default();
            loop {
                let acted = c.s.wait_for_change(&app, Duration::from_secs(3600)).await?;
                let mut text = dialogs_answered(c.s.backend())
                    .iter()
                    .map(|d| format!("# note: {d}\n"))
                    .collect::<String>();
                for earlier in acted.earlier.iter().filter(|e| e.diff.has_changes()) {
                    text.push_str(&render::diff_text(&earlier.diff, &opts));
                }
                if acted.diff.has_changes() {
                    text.push_str(&render::diff_text(&acted.diff, &opts));
                }
                crate::emit(&text)?;
                c.reacquire(&app).await?;
                c.release();
            }
        }
    })
}

/// An action's result, and the tree text of its application after it
/// (empty when it exited or was not read): the answer when that costs
/// fewer tokens than the diff.
/// Says, in its note, which of the page's JavaScript dialogs and file
/// choosers were answered during the action, and how.
fn with_tree(s: &Session<AnyBackend>, mut acted: ActionOutcome) -> (ActionOutcome, String) {
    let answered = dialogs_answered(s.backend());
    if !answered.is_empty() {
        let said = answered.join("; ");
        acted.note = Some(match acted.note.take() {
            Some(note) => format!("{note}; {said}"),
            None => said,
        });
    }
    let tree = s
        .known_apps()
        .iter()
        .find(|l| l.app.id == acted.app.id && !acted.exited)
        .map(|l| render::tree_text(&l.view, &l.refs, &render::TreeOptions::default()))
        .unwrap_or_default();
    (acted, tree)
}

/// The page's JavaScript dialogs and file choosers answered since the
/// last call, in words, with how to answer them otherwise.
fn dialogs_answered(backend: &AnyBackend) -> Vec<String> {
    let AnyBackend::Browser(cdp) = backend else {
        return Vec::new();
    };
    let dialogs = cdp.take_answered_dialogs().into_iter().map(|d| {
        let other = match (d.accepted, d.dialog.kind) {
            (true, _) | (_, DialogKind::Alert) => "",
            (false, DialogKind::Prompt) => " (--dialog accept --prompt-text TEXT answers it)",
            (false, _) => " (--dialog accept answers OK)",
        };
        format!("{d}{other}")
    });
    let choosers = cdp.take_answered_choosers().into_iter().map(|c| {
        let other = match (c.files.is_empty(), &c.error) {
            (true, None) => " (--file PATH answers it)",
            _ => "",
        };
        format!("{c}{other}")
    });
    dialogs.chain(choosers).collect()
}

/// Prints the diff of an action (or the tree after it, when smaller), or
/// that the application exited after it (an outcome, not a failure: the
/// exit code says success).
fn print((acted, tree): &(ActionOutcome, String), format: Output) -> Result<Status> {
    let report = acted.report(tree);
    let text = match format {
        Output::Json => report.cli_json(),
        Output::Text => report.cli_text(),
    };
    crate::emit(&text)?;
    Ok(Status::SUCCESS)
}
