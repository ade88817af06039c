//! One action's result as the shells tell it: the facts of what was done
//! and what it changed, gathered once ([`Report`]), and written as the
//! CLI's text, the agent's text and the agent's JSON.

use std::time::Duration;

use serde_json::{json, Value};
use uidelta_diff::{AppDiff, Diff, Handle};
use uidelta_model::app::App;

use crate::{answer, count_tokens, diff_text, Answer, DiffOptions};

/// What an action (or a wait) did, as both shells tell it. Borrowed from
/// the engine's result, which builds it.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    /// The element acted on, as it was before.
    pub target: &'a Handle,
    /// The application.
    pub app: &'a App,
    /// How the backend carried the action out (`waited` for a wait).
    pub method: &'a str,
    /// What changed.
    pub diff: &'a Diff,
    /// What `earlier` holds, in words: `changed before this action`.
    pub earlier_heading: &'static str,
    /// Changes found before the action, each with its application.
    pub earlier: &'a [AppDiff],
    /// The application the focus went to, and the diff of its tree.
    pub app_switch: Option<&'a AppDiff>,
    /// Why an action that changed nothing may have been ignored.
    pub note: Option<&'a str>,
    /// The application exited after the action.
    pub exited: bool,
    /// How long settling took.
    pub settle: Duration,
    /// Whether settling stopped at its cap rather than on quiet.
    pub settle_capped: bool,
    /// The tree text of the application after the action (empty when it
    /// exited or is unknown): the answer when it costs fewer tokens than
    /// the diff.
    pub tree_after: &'a str,
}

/// What the agent is to see of an action's result.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// Include the diff.
    pub diff: bool,
    /// Include the whole tree after.
    pub tree: bool,
}

/// An action's answer to an agent: text, the same facts as JSON, and what
/// a log of the action keeps (the diff text, or that the application
/// exited).
#[derive(Clone, Debug)]
pub struct Told {
    /// What the agent reads.
    pub text: String,
    /// The same facts, for programs.
    pub json: Value,
    /// The diff text as `ui_diff` answers it, or `# APP exited`.
    pub log: String,
}

impl Report<'_> {
    /// What changed, as an agent reads it: what changed before the action,
    /// each under `# changed before this action, in APP:`; the diff (or the
    /// tree after, when smaller, see [`answer`]); after an app switch,
    /// `# focus went to APP` and that application's diff; the note. After
    /// an exit, the earlier changes and `# APP exited`.
    pub fn changes_text(&self, opts: &DiffOptions) -> String {
        let mut out = String::new();
        earlier_text(&mut out, self.earlier_heading, self.earlier, opts);
        if self.exited {
            out.push_str(&self.exited_line());
            return out;
        }
        self.diff_and_switch(&mut out, opts);
        self.note_line(&mut out);
        out
    }

    /// What the CLI prints: `# [e12] push button "Save" via click`, then
    /// [`Report::changes_text`].
    pub fn cli_text(&self) -> String {
        format!(
            "# {} via {}\n{}",
            handle_text(self.target),
            self.method,
            self.changes_text(&DiffOptions::default())
        )
    }

    /// What the CLI prints with `--format json`: the diff as JSON, or
    /// `{"app", "pid", "exited": true}`.
    pub fn cli_json(&self) -> String {
        if self.exited {
            format!(
                "{}\n",
                json!({"app": self.app.name, "pid": self.app.pid, "exited": true})
            )
        } else {
            crate::diff_json(self.diff)
        }
    }

    /// The answer of MCP tool `tool`: `# tool: TARGET in APP via METHOD`,
    /// the changes as [`Report::changes_text`] has them, with the token
    /// sizes of the diff and of the tree after before the note, and the
    /// tree after when asked for; or, after an exit, what changed before
    /// and that the application exited. The JSON holds the same facts.
    pub fn told(&self, tool: &str, shown: Shown) -> Told {
        let mut text = format!(
            "# {tool}: {} in {} via {}\n",
            handle_text(self.target),
            self.app.label(),
            self.method
        );
        let settle_ms = self.settle.as_millis() as u64;
        if self.exited {
            let earlier = app_diffs(&mut text, self.earlier_heading, self.earlier);
            let gone = self.exited_line();
            text.push_str(&gone);
            return Told {
                text,
                json: json!({
                    "tool": tool,
                    "method": self.method,
                    "target": handle_json(self.target),
                    "app": app_json(self.app),
                    "app_exited": true,
                    "has_ui_changes": true,
                    "settle_ms": settle_ms,
                    "settle_capped": self.settle_capped,
                    "earlier_changes": earlier,
                }),
                log: gone,
            };
        }
        let tree_tokens = count_tokens(self.tree_after);
        let mut json = json!({
            "tool": tool,
            "method": self.method,
            "target": handle_json(self.target),
            "app": app_json(self.app),
            "settle_ms": settle_ms,
            "settle_capped": self.settle_capped,
            "tree_tokens": tree_tokens,
        });
        let answered = if shown.diff {
            json["earlier_changes"] = app_diffs(&mut text, self.earlier_heading, self.earlier);
            let answered = self.diff_and_switch(&mut text, &DiffOptions::default());
            let d = self.diff;
            let diff_tokens = count_tokens(&answered.diff);
            let counts = d.counts();
            json["tree_instead"] = Value::Bool(answered.tree_instead);
            json["ui_diff"] = Value::String(answered.diff.clone());
            json["has_ui_changes"] = Value::Bool(d.has_changes());
            json["counts"] = json!({
                "added": counts.added,
                "removed": counts.removed,
                "modified": counts.modified,
                "transient": d.transient.len(),
            });
            json["focus"] = focus_json(d);
            json["truncated"] = Value::Bool(d.truncated);
            json["diff_tokens"] = Value::from(diff_tokens);
            json["app_switch"] = match self.app_switch {
                Some(AppDiff {
                    app,
                    diff: switched,
                }) => json!({
                    "app": app_json(app),
                    "ui_diff": diff_text(switched, &DiffOptions::default()),
                }),
                None => Value::Null,
            };
            text.push_str(&format!(
                "# tokens: diff {diff_tokens}, full tree {tree_tokens}\n"
            ));
            answered
        } else {
            text.push_str(&format!(
                "# done; settled in {} ms (diff not asked for)\n",
                self.settle.as_millis()
            ));
            answer(self.diff, self.tree_after, &DiffOptions::default())
        };
        self.note_line(&mut text);
        json["note"] = self
            .note
            .map_or(Value::Null, |n| Value::String(n.to_owned()));
        if shown.tree {
            // Not twice: the answer may be that tree already.
            if !(shown.diff && answered.tree_instead) {
                text.push_str("# tree after the action:\n");
                text.push_str(self.tree_after);
            }
            json["tree"] = Value::String(self.tree_after.to_owned());
        }
        Told {
            text,
            json,
            log: answered.diff,
        }
    }

    /// Writes the diff (or the tree after, when smaller) and the app
    /// switch into `out`; answers with the choice made.
    fn diff_and_switch(&self, out: &mut String, opts: &DiffOptions) -> Answer {
        let answered = answer(self.diff, self.tree_after, opts);
        out.push_str(&answered.text);
        if let Some(AppDiff { app, diff: d }) = self.app_switch {
            // What was read of it before stands: the line says so, rather
            // than a `No UI changes detected` that reads as the action's.
            if d.has_changes() {
                out.push_str(&format!("# focus went to {}\n", app.label()));
                out.push_str(&diff_text(d, opts));
            } else {
                out.push_str(&format!(
                    "# focus went to {}, unchanged since it was last read\n",
                    app.label()
                ));
            }
        }
        answered
    }

    fn note_line(&self, out: &mut String) {
        if let Some(note) = self.note {
            out.push_str(&format!("# note: {note}\n"));
        }
    }

    fn exited_line(&self) -> String {
        format!("# {} exited\n", self.app.label())
    }
}

/// Diffs of other moments than the answer's own (before an action, while
/// waiting), each under a `# {heading}, in {app}:` line of `text`; the same
/// as JSON (`[{"app": ..., "ui_diff": ...}]`).
pub fn app_diffs(text: &mut String, heading: &str, diffs: &[AppDiff]) -> Value {
    let mut json = Vec::new();
    for AppDiff { app, diff: d } in diffs {
        let t = diff_text(d, &DiffOptions::default());
        text.push_str(&format!("# {heading}, in {}:\n{t}", app.label()));
        json.push(json!({"app": app_json(app), "ui_diff": t}));
    }
    Value::Array(json)
}

fn earlier_text(out: &mut String, heading: &str, diffs: &[AppDiff], opts: &DiffOptions) {
    for AppDiff { app, diff: d } in diffs {
        out.push_str(&format!("# {heading}, in {}:\n", app.label()));
        out.push_str(&diff_text(d, opts));
    }
}

/// `[e12] push button "Save"`.
pub fn handle_text(h: &Handle) -> String {
    if h.name.is_empty() {
        format!("[{}] {}", h.r#ref, h.role)
    } else {
        format!("[{}] {} {:?}", h.r#ref, h.role, h.name)
    }
}

/// `{"ref": "e12", "role": "push button", "name": "Save"}`.
pub fn handle_json(h: &Handle) -> Value {
    json!({"ref": h.r#ref.to_string(), "role": h.role.to_string(), "name": h.name})
}

/// `{"name": ..., "pid": ...}`.
pub fn app_json(app: &App) -> Value {
    json!({"name": app.name, "pid": app.pid})
}

fn focus_json(d: &Diff) -> Value {
    match &d.focus {
        Some(f) => json!({
            "from": f.from.as_ref().map(handle_json),
            "to": f.to.as_ref().map(handle_json),
        }),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use uidelta_diff::{Attr, AttrChange, AttrValue, Change, Element, Modified, Ref};
    use uidelta_model::{NodeData, Role, State, StateSet};

    use super::*;

    fn gedit() -> App {
        App {
            name: "gedit".into(),
            pid: Some(42),
            id: ":1.42".into(),
            windows: Vec::new(),
            error: None,
        }
    }

    fn bold_checked() -> Diff {
        let mut node = NodeData::named(Role::CheckBox, "Bold");
        node.states = StateSet::of(&[State::Enabled, State::Showing, State::Checked]);
        Diff {
            changes: vec![Change::Modified(Modified {
                element: Element::new(Ref(7), &node),
                context: None,
                changes: vec![AttrChange {
                    attr: Attr::State(State::Checked),
                    old: AttrValue::Bool(false),
                    new: AttrValue::Bool(true),
                }],
                descendants: vec![],
            })],
            settle_ms: Some(120),
            ..Diff::default()
        }
    }

    fn report<'a>(
        target: &'a Handle,
        app: &'a App,
        diff: &'a Diff,
        earlier: &'a [AppDiff],
        exited: bool,
    ) -> Report<'a> {
        Report {
            target,
            app,
            method: "click",
            diff,
            earlier_heading: "changed before this action",
            earlier,
            app_switch: None,
            note: Some("the target was disabled"),
            exited,
            settle: Duration::from_millis(120),
            settle_capped: false,
            tree_after: "",
        }
    }

    const DIFF: &str = "# diff: ~1 modified · settled in 120 ms\n\
                        ~ [e7] check box \"Bold\" | checked: false -> true\n";
    const EARLIER: &str = "# changed before this action, in gedit (pid 42):\n";

    /// The focus gone to an application unchanged since it was last read
    /// is one line, not a `No UI changes detected` that reads as the
    /// action's; changed, its diff follows.
    #[test]
    fn a_switch_to_an_application_unchanged_is_one_line() {
        let target = Handle {
            r#ref: Ref(7),
            role: Role::CheckBox,
            name: "Bold".into(),
        };
        let (app, diff) = (gedit(), bold_checked());
        let mut other = gedit();
        other.name = "mousepad".into();
        other.pid = Some(43);
        let unchanged = AppDiff {
            app: other.clone(),
            diff: Diff::default(),
        };
        let mut r = report(&target, &app, &diff, &[], false);
        r.note = None;
        r.app_switch = Some(&unchanged);
        assert_eq!(
            r.changes_text(&DiffOptions::default()),
            format!("{DIFF}# focus went to mousepad (pid 43), unchanged since it was last read\n")
        );
        let changed = AppDiff {
            app: other,
            diff: bold_checked(),
        };
        r.app_switch = Some(&changed);
        assert_eq!(
            r.changes_text(&DiffOptions::default()),
            format!("{DIFF}# focus went to mousepad (pid 43)\n{DIFF}")
        );
    }

    /// The CLI and the agent read the same changes in the same order; the
    /// agent's answer adds its headline, the token sizes before the note,
    /// and the JSON of the same facts.
    #[test]
    fn both_shells_tell_the_same_changes() {
        let target = Handle {
            r#ref: Ref(7),
            role: Role::CheckBox,
            name: "Bold".into(),
        };
        let (app, diff) = (gedit(), bold_checked());
        let earlier = [AppDiff {
            app: gedit(),
            diff: bold_checked(),
        }];
        let r = report(&target, &app, &diff, &earlier, false);
        let note = "# note: the target was disabled\n";
        assert_eq!(
            r.cli_text(),
            format!("# [e7] check box \"Bold\" via click\n{EARLIER}{DIFF}{DIFF}{note}")
        );
        let told = r.told(
            "click_element",
            Shown {
                diff: true,
                tree: false,
            },
        );
        assert_eq!(
            told.text,
            format!(
                "# click_element: [e7] check box \"Bold\" in gedit (pid 42) via click\n\
                 {EARLIER}{DIFF}{DIFF}# tokens: diff 30, full tree 0\n{note}"
            )
        );
        assert_eq!(told.log, DIFF);
        assert_eq!(told.json["ui_diff"], DIFF);
        assert_eq!(told.json["earlier_changes"][0]["ui_diff"], DIFF);
        assert_eq!(told.json["counts"]["modified"], 1);
        assert_eq!(told.json["diff_tokens"], 30);
        assert_eq!(told.json["note"], "the target was disabled");
        assert_eq!(told.json["target"]["ref"], "e7");
        assert_eq!(told.json.get("app_exited"), None);
        let told = r.told(
            "click_element",
            Shown {
                diff: false,
                tree: true,
            },
        );
        assert_eq!(
            told.text,
            "# click_element: [e7] check box \"Bold\" in gedit (pid 42) via click\n\
             # done; settled in 120 ms (diff not asked for)\n\
             # note: the target was disabled\n\
             # tree after the action:\n"
        );
    }

    /// After an exit both tell the earlier changes and the exit, no note.
    #[test]
    fn an_exit_is_told_with_what_changed_before() {
        let target = Handle {
            r#ref: Ref(7),
            role: Role::CheckBox,
            name: "Bold".into(),
        };
        let app = gedit();
        let nothing = Diff::default();
        let earlier = [AppDiff {
            app: gedit(),
            diff: bold_checked(),
        }];
        let gone = report(&target, &app, &nothing, &earlier, true);
        let exited = "# gedit (pid 42) exited\n";
        assert_eq!(
            gone.cli_text(),
            format!("# [e7] check box \"Bold\" via click\n{EARLIER}{DIFF}{exited}")
        );
        assert_eq!(
            gone.cli_json(),
            "{\"app\":\"gedit\",\"exited\":true,\"pid\":42}\n"
        );
        let told = gone.told(
            "close_window",
            Shown {
                diff: true,
                tree: false,
            },
        );
        assert_eq!(
            told.text,
            format!(
                "# close_window: [e7] check box \"Bold\" in gedit (pid 42) via click\n\
                 {EARLIER}{DIFF}{exited}"
            )
        );
        assert_eq!(told.log, exited);
        assert_eq!(told.json["app_exited"], true);
        assert_eq!(told.json["has_ui_changes"], true);
        assert_eq!(told.json["settle_ms"], 120);
    }
}
