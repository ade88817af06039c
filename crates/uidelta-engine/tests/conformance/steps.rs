//! What the conformance tasks share: an application started in a directory
//! of known files, and a task's steps read as an agent reads them, each
//! diff stated whole with its refs masked (`[#]`), and the refs a diff
//! offers taken from it for the next step.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use tokio::runtime::Runtime;
use uidelta_diff::Diff;
use uidelta_engine::ActionOutcome;
use uidelta_testkit::{require_programs, App, Desktop};

/// When the known files were last modified: 1 March 2021, 12:00 UTC, so
/// that a file list shows the same dates on every run.
const KNOWN_TIME: Duration = Duration::from_secs(1_614_600_000);

/// Set, the tasks print each answer instead of checking it: how a task's
/// expected answers are first written down (and read, before trusting).
const RECORD: &str = "UIDELTA_CONFORMANCE_RECORD";

/// The longest a task may take. A task that takes longer waits on a call
/// that never answers: it fails, saying so, rather than holding up the
/// suite (a liveness bound, not a timing check: tasks take seconds).
const TASK_LIMIT: Duration = Duration::from_secs(300);

/// Runs a task's steps on `rt`, failing the task when it has not finished
/// within [`TASK_LIMIT`].
pub fn run_task<F: std::future::Future>(rt: &Runtime, task: F) -> F::Output {
    rt.block_on(async {
        match tokio::time::timeout(TASK_LIMIT, task).await {
            Ok(done) => done,
            Err(_) => panic!(
                "the task did not finish within {TASK_LIMIT:?}: one of its calls never answered"
            ),
        }
    })
}

/// Waits until `app` shows the element `selector` matches, then until its
/// windows go a second without a change: an application that builds its
/// window in stages (Gecko names its buttons late) is taken once done. One
/// that does not answer while it starts (GIMP loading its plug-ins on a
/// busy machine) is asked again, for up to a minute.
pub async fn wait_until_done(
    s: &mut uidelta_engine::Session<uidelta_linux::Linux>,
    app: &str,
    selector: &str,
) {
    let ready = selector.parse().expect("selector");
    let mut unanswered = None;
    for _ in 0..600 {
        match s.observe(app).await {
            Ok(_) if !s.find(&ready).is_empty() => {
                unanswered = None;
                break;
            }
            Ok(_) => unanswered = None,
            Err(e) => unanswered = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if let Some(e) = unanswered {
        panic!("observe {app}: {e}");
    }
    for _ in 0..10 {
        let quiet = s
            .wait_for_change(app, Duration::from_secs(1))
            .await
            .unwrap_or_else(|e| panic!("wait for {app}: {e}"));
        if !changed(&quiet) {
            break;
        }
    }
}

/// An application running on a desktop of its own, in a working directory
/// of known files, with an empty home directory.
pub struct Started {
    pub desktop: Desktop,
    pub app: App,
    pub rt: Runtime,
    /// The working directory: `work` in the desktop's runtime directory.
    pub dir: PathBuf,
}

/// Starts `program` with `args` in a new directory holding `files` (name
/// and text; a text starting with `#!` is a program; a name ending in `/`
/// is a directory, one starting with `~/`
/// goes in the desktop's base of XDG directories, where `config/` is
/// `XDG_CONFIG_HOME`), dated [`KNOWN_TIME`], with an empty home directory
/// of its own (file choosers list it), and waits for it on the
/// accessibility bus as `app`; `install` names the Debian packages that
/// bring it. Its stdout is a pipe to read when `stdout` is true.
pub fn start(
    program: &str,
    args: &[&str],
    app: &str,
    install: &str,
    files: &[(&str, &str)],
    stdout: bool,
) -> Started {
    require_programs(&[("Xvfb", "xvfb"), (program, install)]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    start_on(desktop, program, args, app, install, files, stdout)
}

/// [`start`] on a desktop whose processes run as the user `nobody`
/// (`Desktop::start_unprivileged`), for a program that refuses to run as
/// root; its files are that user's.
pub fn start_unprivileged(
    program: &str,
    args: &[&str],
    app: &str,
    install: &str,
    files: &[(&str, &str)],
) -> Started {
    require_programs(&[("Xvfb", "xvfb"), (program, install)]).expect("programs");
    let desktop = Desktop::start_unprivileged().expect("a virtual desktop as nobody");
    start_on(desktop, program, args, app, install, files, false)
}

fn start_on(
    desktop: Desktop,
    program: &str,
    args: &[&str],
    app: &str,
    install: &str,
    files: &[(&str, &str)],
    stdout: bool,
) -> Started {
    let dir = desktop.runtime_dir().join("work");
    let xdg = desktop.runtime_dir().join("home");
    let home = desktop.runtime_dir().join("user");
    for d in [&dir, &home] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("creating {}: {e}", d.display()));
    }
    let mut made = Vec::new();
    for (name, text) in files {
        let path = match name.strip_prefix("~/") {
            Some(in_xdg) => xdg.join(in_xdg),
            None => dir.join(name),
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("creating {}: {e}", parent.display()));
        }
        if name.ends_with('/') {
            std::fs::create_dir_all(&path)
                .unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
        } else {
            std::fs::write(&path, text)
                .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            if text.starts_with("#!") {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .unwrap_or_else(|e| panic!("making {} a program: {e}", path.display()));
            }
        }
        made.push(path);
    }
    // Last made first: a file written into a directory changes its date.
    for path in made.iter().rev().chain([&dir, &home]) {
        dated(path);
    }
    desktop
        .give_to_user(desktop.runtime_dir())
        .unwrap_or_else(|e| panic!("the desktop's files: {e}"));
    let mut command = desktop.command(program);
    command
        .args(args)
        .current_dir(&dir)
        .env("HOME", &home)
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .stdout(if stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::null());
    let running = desktop
        .spawn(command)
        .unwrap_or_else(|e| panic!("launching {program}: {e}"));
    desktop
        .wait_for_accessible_app(app, Duration::from_secs(30))
        .unwrap_or_else(|e| {
            panic!("{app} on the accessibility bus (apt-get install -y {install}): {e}")
        });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    Started {
        desktop,
        app: running,
        rt,
        dir,
    }
}

impl Started {
    /// A reader of this run's answers: the working directory written
    /// `$DIR`, the desktop's runtime directory `$RUN`.
    pub fn reader(&self) -> Reader {
        let runtime = self.desktop.runtime_dir();
        let base = runtime.file_name().map(Path::new).unwrap_or(runtime);
        Reader::new(&[(&self.dir, "$DIR"), (runtime, "$RUN"), (base, "$RUN")])
    }
}

/// Sets the modification time of `path` to [`KNOWN_TIME`].
fn dated(path: &Path) {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    file.set_modified(SystemTime::UNIX_EPOCH + KNOWN_TIME)
        .unwrap_or_else(|e| panic!("dating {}: {e}", path.display()));
}

/// A task's reading of its diffs: the answer text line by line, each ref
/// written `[#]`, paths of the run written as named (`$DIR`), and lines
/// that this task does not judge left out.
pub struct Reader {
    /// Whether the desktops run a window manager
    /// ([`uidelta_testkit::WINDOW_MANAGER_VAR`]): expected lines marked
    /// `wm: ` hold only then, those marked `bare: ` only without one (see
    /// [`Reader::here`]).
    wm: bool,
    /// Text of this run and what to write instead.
    subs: Vec<(String, String)>,
    /// Lines holding one of these are left out.
    unjudged: Vec<String>,
    /// Lines holding one of these have their counts of nodes written `N`.
    uncounted: Vec<String>,
    /// Readouts of the machine (`Free space: `) whose figure changes with
    /// what else runs on it.
    readouts: Vec<String>,
}

impl Reader {
    /// A reader that writes `path` as `name` wherever it appears.
    pub fn new(subs: &[(&Path, &str)]) -> Reader {
        let mut subs: Vec<(String, String)> = subs
            .iter()
            .map(|(p, n)| (p.to_string_lossy().into_owned(), (*n).to_owned()))
            .collect();
        // The longest first, so that a path inside another is not cut.
        subs.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        Reader {
            wm: std::env::var(uidelta_testkit::WINDOW_MANAGER_VAR)
                .is_ok_and(|c| !c.trim().is_empty()),
            subs,
            unjudged: Vec::new(),
            uncounted: Vec::new(),
            readouts: Vec::new(),
        }
    }

    /// Leaves out the lines that hold `text` (refs in them written `[#]`).
    pub fn leaving_out(mut self, text: &str) -> Reader {
        self.unjudged.push(text.to_owned());
        self
    }

    /// Writes `N` for the counts of nodes (`(and 104 descendants)`, `...
    /// 48 more nodes under`) in the lines that hold `text`: what the
    /// machine has installed decides them (the fonts a mail window lists
    /// in its hidden menus).
    pub fn not_counting(mut self, text: &str) -> Reader {
        self.uncounted.push(text.to_owned());
        self
    }

    /// Takes `readout` (`Free space: `) for a figure of the machine that
    /// changes with what else runs on it (another test's files): a change
    /// of only its figure is left out, and not counted in the head.
    pub fn with_readout(mut self, readout: &str) -> Reader {
        self.readouts.push(readout.to_owned());
        self
    }

    /// Whether `line` is a change of only the figure of a readout
    /// (`~ [#] status bar | name: "... Free space: 25.2 GiB" -> "... Free
    /// space: 25.1 GiB"`).
    fn readout_only(&self, line: &str) -> bool {
        let Some(change) = line
            .strip_prefix("~ ")
            .and_then(|l| l.split_once(" | "))
            .map(|(_, c)| c)
        else {
            return false;
        };
        let Some((old, new)) = change
            .split_once(": ")
            .and_then(|(_, values)| values.split_once(" -> "))
        else {
            return false;
        };
        let unfigured = |text: &str| {
            let mut out = text.to_owned();
            for r in &self.readouts {
                let mut from = 0;
                while let Some(at) = out[from..].find(r.as_str()) {
                    let start = from + at + r.len();
                    let figure = out[start..]
                        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                        .unwrap_or(out.len() - start);
                    out.replace_range(start..start + figure, "#");
                    from = start + 1;
                }
            }
            out
        };
        self.readouts.iter().any(|r| old.contains(r.as_str()))
            && old != new
            && unfigured(old) == unfigured(new)
    }

    /// The lines of `text` as read.
    pub fn lines(&self, text: &str) -> Vec<String> {
        // Each head loses the readout changes of its own diff.
        let mut kept: Vec<String> = Vec::new();
        let mut head = None;
        for l in text.lines() {
            if l.starts_with("# diff: ") {
                head = Some(kept.len());
            }
            if self.readout_only(l) {
                if let Some(h) = head {
                    kept[h] = discount(&kept[h], 1);
                }
                continue;
            }
            kept.push(l.to_owned());
        }
        kept.iter()
            .map(|l| mask(l))
            .filter(|l| !self.unjudged.iter().any(|u| l.contains(u.as_str())))
            .map(|l| {
                let mut l = self.uncut(&l);
                for (p, n) in &self.subs {
                    l = l.replace(p.as_str(), n);
                }
                if self.uncounted.iter().any(|u| l.contains(u.as_str())) {
                    l = uncount(&l);
                }
                unpid(&l)
            })
            .collect()
    }

    /// `line` with a mention cut short (`"*/tmp/uidelta-desktop-1234…"`)
    /// inside or just past a path of the run written as the path's name
    /// (`"*$DIR…"`): where the cut falls depends on the length of the
    /// run's directory name.
    fn uncut(&self, line: &str) -> String {
        let Some(end) = line.find("…\"") else {
            return line.to_owned();
        };
        let Some(open) = line[..end].rfind('"') else {
            return line.to_owned();
        };
        let body = &line[open + 1..end];
        let (star, path) = match body.strip_prefix('*') {
            Some(rest) => ("*", rest),
            None => ("", body),
        };
        for (p, n) in &self.subs {
            if !path.is_empty() && (p.starts_with(path) || path.starts_with(p.as_str())) {
                return format!("{}{star}{n}{}", &line[..open + 1], &line[end..]);
            }
        }
        line.to_owned()
    }

    /// The lines of `expected` that hold on this desktop: a window manager
    /// gives a dialog that opens the keyboard and the active window's
    /// place, and the window under it both back when it closes, where a
    /// bare display leaves them as they were. A line marked `wm: ` holds
    /// only under a window manager, one marked `bare: ` only without one
    /// (a head that says where the focus went, say), the others on both.
    pub fn here<'a>(&self, expected: &[&'a str]) -> Vec<&'a str> {
        expected
            .iter()
            .filter_map(
                |l| match (l.strip_prefix("wm: "), l.strip_prefix("bare: ")) {
                    (Some(l), _) => self.wm.then_some(l),
                    (_, Some(l)) => (!self.wm).then_some(l),
                    _ => Some(*l),
                },
            )
            .collect()
    }

    /// Asserts that the answer to step `step` reads `expected`, line for
    /// line (the `· settled in N ms` of its head left out).
    pub fn check(&self, step: &str, a: &ActionOutcome, expected: &[&str]) {
        self.check_text(step, &answer(a), expected);
    }

    /// [`Reader::check`] for an answer that may catch a passing message
    /// (a status bar's, shown for a few seconds, or one that follows the
    /// change late) or come without it: `expected` with the lines
    /// `passing`, or without them and with the head `head_without` (the
    /// one of its lines that holds here, see [`Reader::here`]).
    /// Answers whether they were there.
    pub fn check_passing(
        &self,
        step: &str,
        a: &ActionOutcome,
        expected: &[&str],
        passing: &[&str],
        head_without: &[&str],
    ) -> bool {
        let text = answer(a);
        let mut got = self.lines(&text);
        if let Some(head) = got.first_mut() {
            *head = unsettled(head);
        }
        let (expected, passing) = (self.here(expected), self.here(passing));
        let head_without = self.here(head_without);
        let mut without: Vec<&str> = expected
            .iter()
            .copied()
            .filter(|l| !passing.contains(l))
            .collect();
        if let (Some(head), Some(&h)) = (without.first_mut(), head_without.first()) {
            *head = h;
        }
        if std::env::var_os(RECORD).is_some() {
            eprintln!("== {step}\n{}\n", got.join("\n"));
            return true;
        }
        assert!(
            got == expected || got == without,
            "{step}: the answer reads:\n{text}\nexpected, with or without {passing:?}:\n{}",
            expected.join("\n")
        );
        got == expected
    }

    /// [`Reader::check`] for an answer that reads one of `variants`, line
    /// for line: an application whose state passes through a step of its
    /// own that the answer may catch. Answers which one it read.
    pub fn check_one_of(&self, step: &str, a: &ActionOutcome, variants: &[&[&str]]) -> usize {
        let text = answer(a);
        let mut got = self.lines(&text);
        if let Some(head) = got.first_mut() {
            *head = unsettled(head);
        }
        if std::env::var_os(RECORD).is_some() {
            eprintln!("== {step}\n{}\n", got.join("\n"));
            return 0;
        }
        let variants: Vec<Vec<&str>> = variants.iter().map(|v| self.here(v)).collect();
        let read = variants.iter().position(|v| got == *v);
        read.unwrap_or_else(|| {
            let expected: Vec<String> = variants.iter().map(|v| v.join("\n")).collect();
            panic!(
                "{step}: the answer reads:\n{text}\nexpected one of:\n{}",
                expected.join("\n--\n")
            )
        })
    }

    /// Asserts that the first look at an application reads `expected`.
    pub fn check_diff(&self, step: &str, d: &Diff, expected: &[&str]) {
        let t = uidelta_render::diff_text(d, &uidelta_render::DiffOptions::default());
        self.check_text(step, &t, expected);
    }

    fn check_text(&self, step: &str, text: &str, expected: &[&str]) {
        let mut got = self.lines(text);
        if let Some(head) = got.first_mut() {
            *head = unsettled(head);
        }
        if std::env::var_os(RECORD).is_some() {
            eprintln!("== {step}\n{}\n", got.join("\n"));
            return;
        }
        assert_eq!(
            got,
            self.here(expected),
            "{step}: the answer reads:\n{text}"
        );
    }

    /// The ref on the line of `a` that reads `line` (its first ref): the
    /// element the diff offers for the next step. The line may say that
    /// the element is focused besides (a window manager gives a dialog
    /// that opens the keyboard), or what is selected in it.
    pub fn ref_on(&self, a: &ActionOutcome, line: &str) -> String {
        let t = answer(a);
        let hit = t
            .lines()
            .find(|l| {
                // The line, or the line with states after it (`(focused)`,
                // `(all selected)`).
                self.lines(l).first().is_some_and(|r| {
                    r == line
                        || r.strip_prefix(line)
                            .is_some_and(|rest| rest.starts_with(" (") && rest.ends_with(')'))
                })
            })
            .unwrap_or_else(|| panic!("no line {line:?} in:\n{t}"));
        let open = hit.find('[').map_or(0, |i| i + 1);
        let close = hit[open..].find(']').map_or(open, |i| open + i);
        hit[open..close].to_owned()
    }
}

/// `line`, when it is the head of a diff, with `n` fewer modified
/// elements (`~2 modified` read as `~1 modified`; gone at none).
fn discount(line: &str, n: usize) -> String {
    if !line.starts_with("# diff: ") {
        return line.to_owned();
    }
    let Some(at) = line.find(" modified") else {
        return line.to_owned();
    };
    let Some(tilde) = line[..at].rfind('~') else {
        return line.to_owned();
    };
    let Ok(count) = line[tilde + 1..at].parse::<usize>() else {
        return line.to_owned();
    };
    let left = count.saturating_sub(n);
    if left > 0 {
        return format!("{}~{left}{}", &line[..tilde], &line[at..]);
    }
    let before = line[..tilde].strip_suffix(", ").unwrap_or(&line[..tilde]);
    format!("{before}{}", &line[at + " modified".len()..])
}

/// Whether an answer holds a change: its own, or one that came before it
/// (between the last answer and a wait, a change is reported as having
/// come before the wait).
pub fn changed(a: &ActionOutcome) -> bool {
    a.diff.has_changes() || a.earlier.iter().any(|c| c.diff.has_changes())
}

/// The answer to an action as an agent reads it.
pub fn answer(a: &ActionOutcome) -> String {
    a.text(&uidelta_render::DiffOptions::default())
}

/// `head` without its `· settled in N ms`, which varies from run to run.
fn unsettled(head: &str) -> String {
    match head.find(" · settled in ") {
        Some(at) => {
            let rest = &head[at + " · settled in ".len()..];
            let after = rest.find(" · ").map_or("", |i| &rest[i..]);
            format!("{}{after}", &head[..at])
        }
        None => head.to_owned(),
    }
}

/// `line` with the counts in `(and 104 descendants)` and `... 48 more
/// nodes` written `N`.
fn uncount(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let digits = rest[at..].chars().take_while(char::is_ascii_digit).count();
        let after = &rest[at + digits..];
        let counted = rest[..at].ends_with("(and ") && after.starts_with(" descendants)")
            || rest[..at].ends_with("... ") && after.starts_with(" more nodes");
        out.push_str(&rest[..at]);
        out.push_str(if counted { "N" } else { &rest[at..at + digits] });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `line` with the process id in `(pid 4242)` written `$PID`.
fn unpid(line: &str) -> String {
    match line.find("(pid ") {
        Some(at) => {
            let digits = line[at + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            format!("{}(pid $PID{}", &line[..at], &line[at + 5 + digits..])
        }
        None => line.to_owned(),
    }
}

/// `line` with each ref in it written `[#]` (`#` where the focus line
/// names one bare: `focus e12 -> e14`).
pub fn mask(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) if is_ref(&after[..close]) => {
                out.push_str("[#]");
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split(' ')
        .map(|word| if is_ref(word) { "#" } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A ref as the answers write it: `e` and digits.
fn is_ref(s: &str) -> bool {
    s.len() > 1 && s.starts_with('e') && s[1..].chars().all(|c| c.is_ascii_digit())
}

#[test]
fn a_change_of_only_a_readouts_figure_is_left_out_and_not_counted() {
    let r = Reader::new(&[])
        .leaving_out("Free space")
        .with_readout("Free space: ");
    let status = |from: &str, to: &str| {
        format!("~ [e2] status bar | name: \"{from} | Free space: 25.2 GiB\" -> \"{to} | Free space: 25.1 GiB\"")
    };
    let text = format!(
        "# diff: +1 added, ~2 modified · focus none -> [e1] label \"a\"\n+ [e1] label \"a\"\n{}\n~ [e3] frame \"w\" | active: false -> true",
        status("1 folder", "1 folder")
    );
    assert_eq!(
        r.lines(&text),
        [
            "# diff: +1 added, ~1 modified · focus none -> [#] label \"a\"",
            "+ [#] label \"a\"",
            "~ [#] frame \"w\" | active: false -> true",
        ]
    );
    // The only change: none modified is said no more.
    let text = format!(
        "# diff: +1 added, ~1 modified\n+ [e1] label \"a\"\n{}",
        status("x", "x")
    );
    assert_eq!(r.lines(&text), ["# diff: +1 added", "+ [#] label \"a\""]);
    // A change of more than the figure is left out, and counted.
    let text = format!("# diff: ~1 modified\n{}", status("1 folder", "2 folders"));
    assert_eq!(r.lines(&text), ["# diff: ~1 modified"]);
}
