//! The tools, each declared once with rmcp's `#[tool]`: its name
//! (terminator's where one exists), a description that teaches the delta
//! loop, its annotations, its input schema from its argument type, and
//! what it does. The order of the declarations is the order of the list.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{JsonObject, Tool};
use uidelta_backend::{Action, Backend};

use crate::args::{self, Raw, Target};
use crate::reply::{Reply, ToolError};
use crate::server::{option_inside, Inner};

/// What the server tells the agent at connection time: the loop.
pub const INSTRUCTIONS: &str = "\
uidelta reads the accessibility tree of desktop applications and answers \
every action with a diff of what the action changed.

The loop:
1. get_applications lists what runs. get_window_tree(app) once, at the \
start: every element on its own line with a ref, like \
`[e12] push button \"Save\" (focused)`; a field says the text selected \
in it, which typing replaces: `(focused, all selected)`.
2. Act with click_element, type_into_element, press_key, set_value, \
select_option, set_selected, scroll_element, hover_element, drag_element, \
invoke_element, activate_element, close_window. Each waits until the UI has settled and \
answers with ui_diff: `+` added, `-` removed, \
`~ [e7] check box \"Bold\" | checked: false -> true` modified, \
and `!` elements that came and went while it settled; its header names a \
focus move by both ends (`focus [e5] entry \"Name\" -> [e9] push button \
\"OK\"`). When the whole tree \
after the action costs fewer tokens than its diff, the answer is that tree, \
under `# tree after the action (smaller than its diff)`. The diff is the effect: \
do not read the tree again to see it. `No UI changes detected` means the \
action changed nothing; `app_exited` means the action ended the application \
(OK in its last dialog): done, not an error.
3. Refs like e12 stay the same across actions for as long as the element \
exists, even when its name changes; every line of a tree, diff or \
find_elements result carries one to act on. Targets are refs or selectors.
4. find_elements(selector) looks elements up (`role:push button && \
name:Save`, `name~:sav`, `state:checked`, `role:dialog >> name:OK`) instead \
of reading the tree again.
5. wait_for_change(app) blocks until the application changes by itself \
(a download ends, a dialog opens) and answers with the diff; \
wait_for_element waits for a selector to appear, disappear or reach a \
state. Use them instead of polling with trees or screenshots.
6. In a browser (`uidelta mcp --browser` or `--cdp URL`) every tab is an \
application: navigate_browser(app, url) loads a page and answers with the \
new document; execute_browser_script runs JavaScript; open_application(url) \
opens a tab and close_window closes one. A page's JavaScript alert, \
confirm or prompt shows as a modal dialog with OK (and Cancel) buttons, \
and a prompt's entry: the page waits, and refuses anything else, until \
you click one (type into the entry first). A file chooser (an upload \
button's) shows as a dialog with an entry `File name`: type the file's \
absolute path into it (several, one per line) and click Open; a file input \
also takes a path with set_value. Downloads show at the end of the tab as \
a list `Downloads`, each file with where it was saved.
7. `app` may be left out when one application is the obvious one: the tab \
the server was started on (`--url`), else the only application read so \
far. Otherwise the error lists the candidates.

Password fields only ever show bullets. Errors name what was asked and \
what is there instead; the server keeps serving after any of them.";

/// Declares the tools on [`Inner`]: each `#[tool]` fn becomes a route of
/// rmcp's tool router (`Inner::tool_router`: name, description,
/// annotations, and the input schema of `Parameters<Raw<ARGS>>`, which is
/// `ARGS`'s) and a case of `Inner::dispatch`, which every call goes
/// through (under the server's limits, see `server.rs`). Written
/// `async fn NAME(&self, TOOL, ARGS_NAME: ARGS) { BODY }`, the body having
/// the tool's name as `TOOL` and its arguments read as `ARGS`.
macro_rules! tools {
    ($(
        #[tool($($attr:tt)*)]
        async fn $name:ident(&$self:ident, $tool:ident, $a:ident: $args:ty) $body:block
    )*) => {
        #[rmcp::tool_router(vis = "pub(crate)")]
        impl<B: Backend + 'static> Inner<B> {
            $(
                #[rmcp::tool($($attr)*)]
                async fn $name(
                    &$self,
                    Parameters($a): Parameters<Raw<$args>>,
                ) -> Result<Reply, ToolError> {
                    let $tool = stringify!($name);
                    let $a = $a.read($tool)?;
                    $body
                }
            )*
        }

        impl<B: Backend + 'static> Inner<B> {
            /// The tools' names, in the order they are listed.
            pub(crate) const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Every tool, in the order they are listed.
            pub(crate) fn listed() -> Vec<Tool> {
                let mut tools = Self::tool_router().list_all();
                tools.sort_by_key(|t| Self::NAMES.iter().position(|n| *n == t.name));
                tools
            }

            /// Runs tool `tool` with `args`.
            pub(crate) async fn dispatch(
                &self,
                tool: &str,
                args: JsonObject,
            ) -> Result<Reply, ToolError> {
                match tool {
                    $(stringify!($name) => self.$name(Parameters(Raw::new(args))).await,)*
                    other => Err(ToolError::bad_argument(format!("no tool named `{other}`"))),
                }
            }
        }
    };
}

tools! {
    #[tool(
        description = "List the applications on the desktop with their windows (title, active, \
            shown); those without windows (portals, services) come last. Start here to learn the \
            names the other tools take as `app`.",
        annotations(read_only_hint = true)
    )]
    async fn get_applications(&self, _tool, _a: args::NoArgs) {
        self.applications().await
    }

    // It writes with `output_file`, only into its own directory.
    #[tool(
        description = "The full accessibility tree of an application (or one window): one \
            element per line, `[e12] role \"name\" = \"value\" (states)`, indented by depth. Call \
            it once per application at the start; after that every action answers with a diff, \
            and find_elements looks elements up. Refs from this tree stay valid across actions. \
            Large trees can go to `output_file`: a file name in the server's output directory \
            (`uidelta mcp --output-dir`), where a file of that name is replaced; nothing is \
            written anywhere else.",
        annotations(read_only_hint = false, destructive_hint = false)
    )]
    async fn get_window_tree(&self, _tool, a: args::GetWindowTree) {
        self.tree(a).await
    }

    #[tool(
        description = "Find elements by selector in the latest snapshots and answer with their \
            refs, roles, names, values and states: cheaper than reading the tree again. Selector \
            keys: role, name, value, text, desc, state, app, id, nth; `name~:sav` is a \
            substring; join with `&&`, `||`, `!`, parentheses; `a >> b` finds b inside a.",
        annotations(read_only_hint = true)
    )]
    async fn find_elements(&self, _tool, a: args::FindElements) {
        self.find(a).await
    }

    #[tool(
        description = "Click an element as a person would: buttons, menu items and table cells \
            with the pointer when it can reach them, a text field by giving it the focus, \
            anything else through its accessible action (a synthesized click at its centre when \
            it has none). Waits for the UI to settle and answers with the diff of what changed."
    )]
    async fn click_element(&self, tool, a: args::ClickElement) {
        self.act(tool, &a.target, a.click.action(), &a.opts).await
    }

    #[tool(
        description = "Click at a point of the screen (coordinates of a whole-screen \
            capture_screenshot; in a browser, of the tab's viewport) and answer with the diff of \
            `app`. A last resort for what the tree does not show, and the way to answer a dialog \
            of an application that does not answer (error kind `unresponsive`): the click goes \
            through the display, not through the application. Prefer click_element."
    )]
    async fn click_at(&self, _tool, a: args::ClickAt) {
        self.click_point(a).await
    }

    #[tool(
        description = "Move the pointer over an element (or to a point, `x` and `y`) and leave \
            it there, and answer with the diff: what shows while the pointer is over it (a \
            page's menu that opens on hover, controls shown on hover, the next menu of a menu bar \
            while one is open). The pointer stays until the next pointer action."
    )]
    async fn hover_element(&self, tool, a: args::HoverElement) {
        match (a.target, a.x, a.y) {
            (Some(target), None, None) => {
                let target = Target { target, app: a.app };
                self.act(tool, &target, Action::Hover, &a.opts).await
            }
            (None, Some(x), Some(y)) => {
                self.at_point(tool, a.app.as_deref(), (x, y), Action::Hover, &a.opts)
                    .await
            }
            _ => Err(ToolError::bad_argument(
                "hover_element: give `target` (a ref or selector), or both `x` and `y` (a point)",
            )),
        }
    }

    #[tool(
        description = "Drag an element with the primary button onto another element (`to`, \
            dropped at its centre) or to a point (`x`, `y`), and answer with the diff: a card \
            onto another list, a slider's knob, a file onto a folder. The button is pressed at \
            the element's centre (or at a point, `from_x` and `from_y`, for what the tree does \
            not show: a selection drawn on a canvas), the pointer moved in steps and released \
            there."
    )]
    async fn drag_element(&self, _tool, a: args::DragElement) {
        self.drag(a).await
    }

    #[tool(
        description = "Type text into an element (focusing it first) and answer with the diff. \
            The text is never echoed back; password fields show bullets only."
    )]
    async fn type_into_element(&self, tool, a: args::TypeIntoElement) {
        if a.text.is_empty() {
            return Err(ToolError::bad_argument(
                "type_into_element: `text` is empty; to clear an entry use set_value with value \
                 \"\"",
            ));
        }
        self.act(tool, &a.target, Action::Type(a.text), &a.opts).await
    }

    #[tool(
        description = "Press a key or chord (`Return`, `Escape`, `ctrl+s`) on an element, or on \
            the focused element of `app` (its window is given the keyboard if another \
            application has it), and answer with the diff of `app` (and of the application \
            that took the focus, if another one did)."
    )]
    async fn press_key(&self, _tool, a: args::PressKey) {
        self.key(a).await
    }

    #[tool(
        description = "Set an element's value: a number for sliders and spin buttons, the whole \
            text for entries, an option's name for a combo box. Answers with the diff."
    )]
    async fn set_value(&self, tool, a: args::SetValue) {
        self.act(tool, &a.target, Action::SetValue(a.value), &a.opts).await
    }

    #[tool(
        description = "Select an option, list item or tab: `target` is the option, or its \
            container with `option` naming the option. Answers with the diff."
    )]
    async fn select_option(&self, tool, a: args::SelectOption) {
        let target = match &a.option {
            None => a.target,
            Some(option) => Target {
                target: option_inside(&a.target.target, option)?,
                app: a.target.app,
            },
        };
        self.act(tool, &target, Action::SetSelected(true), &a.opts).await
    }

    #[tool(
        description = "Select or deselect an element in its container (list item, tab, table \
            cell). Answers with the diff."
    )]
    async fn set_selected(&self, tool, a: args::SetSelected) {
        self.act(tool, &a.target, Action::SetSelected(a.selected), &a.opts).await
    }

    #[tool(
        description = "Scroll with the mouse wheel over an element, or (`amount: 0`) scroll it \
            into view. Answers with the diff: what scrolled into or out of the tree."
    )]
    async fn scroll_element(&self, tool, a: args::ScrollElement) {
        let amount = a.amount.unwrap_or(3);
        if amount > 50 {
            return Err(ToolError::bad_argument(format!(
                "scroll_element: amount {amount} is more than 50 wheel clicks"
            )));
        }
        let n = amount as i32;
        let (dx, dy) = match a.direction.unwrap_or(args::Direction::Down) {
            args::Direction::Up => (0, -n),
            args::Direction::Down => (0, n),
            args::Direction::Left => (-n, 0),
            args::Direction::Right => (n, 0),
        };
        self.act(tool, &a.target, Action::Scroll { dx, dy }, &a.opts).await
    }

    #[tool(
        description = "Perform one of an element's named accessible actions (`activate`, \
            `toggle`, `expand or contract`, ...) and answer with the diff."
    )]
    async fn invoke_element(&self, tool, a: args::InvokeElement) {
        if a.action.trim().is_empty() {
            return Err(ToolError::bad_argument(
                "invoke_element: `action` is empty; name one of the element's actions \
                 (`activate`, `toggle`, ...)",
            ));
        }
        self.act(tool, &a.target, Action::Invoke(a.action), &a.opts).await
    }

    #[tool(
        description = "Raise and focus the window that holds an element, and answer with the \
            diff."
    )]
    async fn activate_element(&self, _tool, a: args::ActivateElement) {
        self.activate(a).await
    }

    #[tool(
        description = "Close a window as its title bar's close button would (the application \
            may ask first), and answer with the diff; says so when the application exited.",
        annotations(destructive_hint = true)
    )]
    async fn close_window(&self, _tool, a: args::CloseWindow) {
        self.close(a).await
    }

    #[tool(
        description = "Start a program (directly, never through a shell) and wait until it \
            shows a window; answers with its name and windows (a launcher's application: \
            `libreoffice` answers with soffice). Then get_window_tree it once."
    )]
    async fn open_application(&self, _tool, a: args::OpenApplication) {
        self.open(a).await
    }

    #[tool(
        description = "Block until the application changes on its own (a dialog opens, a \
            download ends) or the timeout passes, and answer with the diff. One call replaces a \
            polling loop; nothing changed is `has_ui_changes: false`, not an error.",
        annotations(read_only_hint = true)
    )]
    async fn wait_for_change(&self, _tool, a: args::WaitForChange) {
        self.wait_change(a).await
    }

    #[tool(
        description = "Block until an element matching a selector appears, disappears, or has \
            or lacks a state (`enabled`, `checked`), and answer with its ref and the diffs of \
            what changed while waiting. A timeout is an error saying how many elements match \
            now (what changed is then reported with the next answer).",
        annotations(read_only_hint = true)
    )]
    async fn wait_for_element(&self, _tool, a: args::WaitForElement) {
        self.wait_element(a).await
    }

    #[tool(
        description = "A PNG of the screen or of one application window, as image content. The \
            tree and diffs are cheaper and exact; use this for what they cannot show (images, \
            canvas content, layout).",
        annotations(read_only_hint = true)
    )]
    async fn capture_screenshot(&self, _tool, a: args::CaptureScreenshot) {
        self.screenshot(a).await
    }

    #[tool(
        description = "Browsers: load a URL in a tab, or go back, forward or reload; waits for \
            the new document to settle and answers with the diff, which says `# new document:` \
            with the page's title and its content within a budget instead of listing every \
            element. Refs of the old page are gone after it."
    )]
    async fn navigate_browser(&self, _tool, a: args::NavigateBrowser) {
        self.navigate(a).await
    }

    #[tool(
        description = "Browsers: run JavaScript in a tab and answer with its JSON result and \
            the diff of what it changed on the page. Prefer the element tools; use this for \
            what they cannot do (read a value the page does not expose, call a page function).",
        annotations(destructive_hint = true)
    )]
    async fn execute_browser_script(&self, _tool, a: args::ExecuteBrowserScript) {
        self.run_script(a).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Tool> {
        Inner::<uidelta_cdp::Cdp>::listed()
    }

    fn find(name: &str) -> Option<Tool> {
        all().into_iter().find(|t| t.name == name)
    }

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        let tools = all();
        assert_eq!(tools.len(), 22);
        for t in tools {
            assert_eq!(
                t.input_schema.get("type").and_then(|v| v.as_str()),
                Some("object"),
                "{}",
                t.name
            );
            let props = t
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object())
                .cloned()
                .unwrap_or_default();
            for (name, prop) in &props {
                assert!(
                    prop.get("description").is_some() || prop.get("$ref").is_some(),
                    "{}.{name} has no description: {prop}",
                    t.name
                );
            }
        }
        // A tool that may write is not read-only.
        let tree = find("get_window_tree").expect("get_window_tree");
        let hints = tree.annotations.expect("annotated");
        assert_eq!(
            (hints.read_only_hint, hints.destructive_hint),
            (Some(false), Some(false))
        );
        let click = find("click_element").expect("click_element");
        let schema = serde_json::to_string(&click.input_schema).expect("json");
        assert!(schema.contains("ui_diff_before_after"), "{schema}");
        assert!(schema.contains("\"required\":[\"target\"]"), "{schema}");
    }

    /// What `tools/list` answers, byte for byte: names, descriptions,
    /// annotations and input schemas are what clients learn the tools by.
    #[test]
    fn the_list_is_the_golden_one() {
        let list = rmcp::model::ListToolsResult::with_all_items(all());
        let json = serde_json::to_string_pretty(&list).expect("json");
        assert!(
            json == include_str!("../tests/golden/tools_list.json"),
            "tools/list changed; if on purpose, write the new list into \
             crates/uidelta-mcp/tests/golden/tools_list.json:\n{json}"
        );
    }
}
