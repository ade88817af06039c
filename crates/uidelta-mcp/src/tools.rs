//! The tool catalogue: names (terminator's where one exists), descriptions
//! that teach the delta loop, and input schemas from the argument types.

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::common::{schema_for_input, schema_for_type};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;

use crate::args;

/// What the server tells the agent at connection time: the loop.
pub const INSTRUCTIONS: &str = "\
uidelta reads the accessibility tree of desktop applications and answers \
every action with a diff of what the action changed.

The loop:
1. get_applications lists what runs. get_window_tree(app) once, at the \
start: every element on its own line with a ref, like \
`[e12] push button \"Save\" (focused)`.
2. Act with click_element, type_into_element, press_key, set_value, \
select_option, set_selected, scroll_element, invoke_element, \
activate_element, close_window. Each waits until the UI has settled and \
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
opens a tab and close_window closes one.
7. `app` may be left out when one application is the obvious one: the tab \
the server was started on (`--url`), else the only application read so \
far. Otherwise the error lists the candidates.

Password fields only ever show bullets. Errors name what was asked and \
what is there instead; the server keeps serving after any of them.";

/// Every tool, in the order they are listed. Built once.
pub fn all() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(catalogue)
}

fn catalogue() -> Vec<Tool> {
    vec![
        tool::<args::NoArgs>(
            "get_applications",
            "List the applications on the desktop with their windows (title, active, shown); \
             those without windows (portals, services) come last. Start here to learn the \
             names the other tools take as `app`.",
        )
        .annotate(read_only()),
        tool::<args::GetWindowTree>(
            "get_window_tree",
            "The full accessibility tree of an application (or one window): one element per \
             line, `[e12] role \"name\" = \"value\" (states)`, indented by depth. Call it once \
             per application at the start; after that every action answers with a diff, and \
             find_elements looks elements up. Refs from this tree stay valid across actions. \
             Large trees can go to `output_file`: a file name in the server's output directory \
             (`uidelta mcp --output-dir`), where a file of that name is replaced; nothing is \
             written anywhere else.",
        )
        // It writes with `output_file`, only into its own directory.
        .annotate(ToolAnnotations::new().read_only(false).destructive(false)),
        tool::<args::FindElements>(
            "find_elements",
            "Find elements by selector in the latest snapshots and answer with their refs, \
             roles, names, values and states: cheaper than reading the tree again. Selector \
             keys: role, name, value, text, desc, state, app, id, nth; `name~:sav` is a \
             substring; join with `&&`, `||`, `!`, parentheses; `a >> b` finds b inside a.",
        )
        .annotate(read_only()),
        tool::<args::ClickElement>(
            "click_element",
            "Click an element as a person would: buttons, menu items and table cells with the \
             pointer when it can reach them, a text field by giving it the focus, anything else \
             through its accessible action (a synthesized click at its centre when it has \
             none). Waits for the UI to settle and answers with the diff of what changed.",
        ),
        tool::<args::ClickAt>(
            "click_at",
            "Click at a point of the screen (coordinates of a whole-screen capture_screenshot; \
             in a browser, of the tab's viewport) and answer with the diff of `app`. A last \
             resort for what the tree does not show, and the way to answer a dialog of an \
             application that does not answer (error kind `unresponsive`): the click goes \
             through the display, not through the application. Prefer click_element.",
        ),
        tool::<args::TypeIntoElement>(
            "type_into_element",
            "Type text into an element (focusing it first) and answer with the diff. The text \
             is never echoed back; password fields show bullets only.",
        ),
        tool::<args::PressKey>(
            "press_key",
            "Press a key or chord (`Return`, `Escape`, `ctrl+s`) on an element, or on the \
             focused element of `app` (its window is given the keyboard if another \
             application has it), and answer with the diff of `app` (and of the application \
             that took the focus, if another one did).",
        ),
        tool::<args::SetValue>(
            "set_value",
            "Set an element's value: a number for sliders and spin buttons, the whole text \
             for entries, an option's name for a combo box. Answers with the diff.",
        ),
        tool::<args::SelectOption>(
            "select_option",
            "Select an option, list item or tab: `target` is the option, or its container \
             with `option` naming the option. Answers with the diff.",
        ),
        tool::<args::SetSelected>(
            "set_selected",
            "Select or deselect an element in its container (list item, tab, table cell). \
             Answers with the diff.",
        ),
        tool::<args::ScrollElement>(
            "scroll_element",
            "Scroll with the mouse wheel over an element, or (`amount: 0`) scroll it into \
             view. Answers with the diff: what scrolled into or out of the tree.",
        ),
        tool::<args::InvokeElement>(
            "invoke_element",
            "Perform one of an element's named accessible actions (`activate`, `toggle`, \
             `expand or contract`, ...) and answer with the diff.",
        ),
        tool::<args::ActivateElement>(
            "activate_element",
            "Raise and focus the window that holds an element, and answer with the diff.",
        ),
        tool::<args::CloseWindow>(
            "close_window",
            "Close a window as its title bar's close button would (the application may ask \
             first), and answer with the diff; says so when the application exited.",
        )
        .annotate(ToolAnnotations::new().destructive(true)),
        tool::<args::OpenApplication>(
            "open_application",
            "Start a program (directly, never through a shell) and wait until it shows a \
             window; answers with its name and windows (a launcher's application: \
             `libreoffice` answers with soffice). Then get_window_tree it once.",
        ),
        tool::<args::WaitForChange>(
            "wait_for_change",
            "Block until the application changes on its own (a dialog opens, a download \
             ends) or the timeout passes, and answer with the diff. One call replaces a \
             polling loop; nothing changed is `has_ui_changes: false`, not an error.",
        )
        .annotate(read_only()),
        tool::<args::WaitForElement>(
            "wait_for_element",
            "Block until an element matching a selector appears, disappears, or has or lacks \
             a state (`enabled`, `checked`), and answer with its ref and the diffs of what \
             changed while waiting. A timeout is an error saying how many elements match now \
             (what changed is then reported with the next answer).",
        )
        .annotate(read_only()),
        tool::<args::CaptureScreenshot>(
            "capture_screenshot",
            "A PNG of the screen or of one application window, as image content. The tree \
             and diffs are cheaper and exact; use this for what they cannot show (images, \
             canvas content, layout).",
        )
        .annotate(read_only()),
        tool::<args::NavigateBrowser>(
            "navigate_browser",
            "Browsers: load a URL in a tab, or go back, forward or reload; waits for the new \
             document to settle and answers with the diff, which says `# new document:` with \
             the page's title and its content within a budget instead of listing every \
             element. Refs of the old page are gone after it.",
        ),
        tool::<args::ExecuteBrowserScript>(
            "execute_browser_script",
            "Browsers: run JavaScript in a tab and answer with its JSON result and the diff \
             of what it changed on the page. Prefer the element tools; use this for what \
             they cannot do (read a value the page does not expose, call a page function).",
        )
        .annotate(ToolAnnotations::new().destructive(true)),
    ]
}

/// The tool named `name`.
pub fn find(name: &str) -> Option<Tool> {
    all().iter().find(|t| t.name == name).cloned()
}

fn tool<T: JsonSchema + 'static>(name: &'static str, description: &'static str) -> Tool {
    Tool::new(name, description, input_schema::<T>())
}

/// `T`'s schema, cleaned up as MCP wants it. Our argument types always give
/// object schemas (a test checks); the raw schema is the fallback.
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|_| schema_for_type::<T>())
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        let tools = all();
        assert_eq!(tools.len(), 20);
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
}
