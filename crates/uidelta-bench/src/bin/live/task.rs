//! The scripted task of the token study (`tokens`), also replayed by the
//! mirror benchmark (`mirror`): 61 steps on gtk3-widget-factory, then 18
//! on gtk3-demo.

use uidelta_backend::Action;

use super::{DEMO, FACTORY};

/// What one step does.
#[derive(Clone, Copy)]
pub enum Do {
    Click,
    Type(&'static str),
    SetValue(&'static str),
    Select,
}

impl Do {
    pub fn action(self) -> Action {
        match self {
            Do::Click => Action::Click,
            Do::Type(t) => Action::Type(t.into()),
            Do::SetValue(v) => Action::SetValue(v.into()),
            Do::Select => Action::SetSelected(true),
        }
    }

    pub fn label(self) -> String {
        match self {
            Do::Click => "click".into(),
            Do::Type(t) => format!("type {t:?}"),
            Do::SetValue(v) => format!("set value {v:?}"),
            Do::Select => "select".into(),
        }
    }
}

/// One step of the task.
pub struct Step {
    /// The application's name on the accessibility bus.
    pub app: &'static str,
    /// What the step is for, in the table.
    pub what: &'static str,
    /// Selector of the target, searched in `app` only.
    pub target: &'static str,
    pub act: Do,
    /// Lines the diff must contain for the step to count as seen: each entry
    /// is pieces separated by ` … ` that must appear on one line, in order.
    pub expect: &'static [&'static str],
}

const fn step(
    app: &'static str,
    what: &'static str,
    target: &'static str,
    act: Do,
    expect: &'static [&'static str],
) -> Step {
    Step {
        app,
        what,
        target,
        act,
        expect,
    }
}

/// The task. Selectors describe the element as the latest tree shows it
/// (state included), never by ref.
#[rustfmt::skip]
pub const TASK: &[Step] = &[
    // gtk3-widget-factory, page 1.
    step(FACTORY, "tick a check box", "role:check box && name:checkbutton && state:enabled && !state:checked", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "untick another check box", "role:check box && name:checkbutton && state:enabled && nth:-1", Do::Click, &["checked: true -> false"]),
    step(FACTORY, "type into an entry", "role:text && value:entry && state:enabled", Do::Type(" world"), &["\"entry world\""]),
    step(FACTORY, "type into the search entry", "role:text && state:editable && state:enabled && state:showing && value:\"\"", Do::Type("invoices 2024"), &["\"invoices 2024\""]),
    step(FACTORY, "set the spin button", "role:spin button && state:enabled && state:showing", Do::SetValue("42"), &["spin button … \"50\" -> \"42\""]),
    step(FACTORY, "move a slider", "role:slider && state:enabled && state:showing && nth:0", Do::SetValue("75"), &["slider … \"50\" -> \"75\""]),
    step(FACTORY, "pick a radio button", "role:radio button && name:radiobutton && state:enabled && !state:checked", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "press a toggle button", "role:toggle button && name:togglebutton && state:enabled && !state:checked", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "switch a notebook to page 2", "role:page tab && name:page 2 && nth:0", Do::Select, &["\"page 2\" … selected: false -> true"]),
    step(FACTORY, "switch another notebook to page 3", "role:page tab && name:page 3 && nth:1", Do::Select, &["\"page 3\" … selected: false -> true"]),
    step(FACTORY, "set the combo box entry", "role:text && value:comboboxentry && state:enabled", Do::SetValue("Mickey Mouse"), &["-> \"Mickey Mouse\""]),
    step(FACTORY, "select a list row", "role:table cell && name:Otto", Do::Select, &["selected: false -> true … \"Otto\""]),
    step(FACTORY, "open the gear menu", "role:toggle button && name:Menu", Do::Click, &["\"Menu\" … checked: false -> true", "panel … showing, visible: false -> true"]),
    step(FACTORY, "open About Widget Factory", "role:push button && name:About Widget Factory", Do::Click, &["dialog \"About GTK Widget Factory\" … (opened)"]),
    step(FACTORY, "show the credits", "role:toggle button && name:Credits", Do::Click, &["\"Credits\" … checked: false -> true"]),
    step(FACTORY, "close the About dialog", "role:dialog >> role:push button && name:Close", Do::Click, &["(closed)"]),
    step(FACTORY, "go to Page 2", "role:radio button && name:Page 2", Do::Click, &["\"Page 2\" … checked: false -> true"]),
    // gtk3-widget-factory, page 2.
    step(FACTORY, "set a spin button", "role:spin button && state:enabled && state:showing && nth:0", Do::SetValue("7"), &["-> \"7\""]),
    step(FACTORY, "set the volume", "role:slider && name:Volume", Do::SetValue("0.8"), &["slider \"Volume\" … \"0.5\" -> \"0.8\""]),
    step(FACTORY, "switch a list row on", "role:list item >> role:toggle button", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "move a list row's slider", "role:list item >> role:slider", Do::SetValue("80"), &["slider … -> \"80\""]),
    step(FACTORY, "collapse the expander", "role:toggle button && name:Expander", Do::Click, &["expanded: true -> false"]),
    step(FACTORY, "expand it again", "role:toggle button && name:Expander", Do::Click, &["expanded: false -> true"]),
    step(FACTORY, "go back to Page 1", "role:radio button && name:Page 1", Do::Click, &["\"Page 1\" … checked: false -> true"]),
    // gtk3-widget-factory, page 1 again.
    step(FACTORY, "untick the check box", "role:check box && name:checkbutton && state:enabled && state:checked", Do::Click, &["checked: true -> false"]),
    step(FACTORY, "reset the spin button", "role:spin button && state:enabled && state:showing", Do::SetValue("50"), &["spin button … -> \"50\""]),
    step(FACTORY, "switch the first notebook back", "role:page tab && name:page 1 && nth:0", Do::Select, &["\"page 1\" … selected: false -> true"]),
    // GTK selected the entry's text when the page switch gave it the focus
    // back: typed text replaces a selection, as keys would.
    step(FACTORY, "type over the search entry's selected text", "role:text && value:\"invoices 2024\"", Do::Type(" q3"), &["\"invoices 2024\" -> \" q3\""]),
    step(FACTORY, "release the toggle button", "role:toggle button && name:togglebutton && state:enabled && state:checked && nth:0", Do::Click, &["checked: true -> false"]),
    // gtk3-widget-factory, page 1: a second pass, as an agent filling in
    // the whole form would make.
    step(FACTORY, "select Andrea's row", "role:table cell && name:Andrea", Do::Select, &["selected: false -> true … \"Andrea\""]),
    step(FACTORY, "select Orville's row", "role:table cell && name:Orville", Do::Select, &["selected: false -> true … \"Orville\""]),
    step(FACTORY, "select Benjamin's row", "role:table cell && name:Benjamin", Do::Select, &["selected: false -> true … \"Benjamin\""]),
    step(FACTORY, "type into the entry again", "role:text && value:\"entry world\" && state:enabled", Do::Type(" again"), &["\"entry world again\""]),
    step(FACTORY, "replace the entry's text", "role:text && value:\"entry world again\"", Do::SetValue("final entry"), &["-> \"final entry\""]),
    step(FACTORY, "choose another combo box entry", "role:text && value:\"Mickey Mouse\"", Do::SetValue("Donald Duck"), &["\"Mickey Mouse\" -> \"Donald Duck\""]),
    step(FACTORY, "set the spin button to 10", "role:spin button && state:enabled && state:showing", Do::SetValue("10"), &["-> \"10\""]),
    step(FACTORY, "set the spin button to 95", "role:spin button && state:enabled && state:showing", Do::SetValue("95"), &["-> \"95\""]),
    step(FACTORY, "move the slider to 20", "role:slider && state:enabled && state:showing && nth:0", Do::SetValue("20"), &["slider … -> \"20\""]),
    step(FACTORY, "move the last slider", "role:slider && state:enabled && state:showing && nth:-1", Do::SetValue("35"), &["-> \"35\""]),
    step(FACTORY, "tick the check box again", "role:check box && name:checkbutton && state:enabled && !state:checked && nth:0", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "tick the other check box", "role:check box && name:checkbutton && state:enabled && !state:checked", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "pick the other radio button", "role:radio button && name:radiobutton && state:enabled && !state:checked", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "press the toggle button again", "role:toggle button && name:togglebutton && state:enabled && !state:checked && nth:0", Do::Click, &["checked: false -> true"]),
    step(FACTORY, "switch the second notebook to page 2", "role:page tab && name:page 2 && nth:1", Do::Select, &["\"page 2\" … selected: false -> true"]),
    step(FACTORY, "switch the third notebook to page 3", "role:page tab && name:page 3 && nth:2", Do::Select, &["\"page 3\" … selected: false -> true"]),
    step(FACTORY, "switch the first notebook to page 3", "role:page tab && name:page 3 && nth:0", Do::Select, &["\"page 3\" … selected: false -> true"]),
    step(FACTORY, "type a second search", "role:text && value:\" q3\"", Do::SetValue("receipts"), &["-> \"receipts\""]),
    step(FACTORY, "refine the search", "role:text && value:receipts", Do::Type(" march"), &["\"receipts march\""]),
    step(FACTORY, "select Otto's row again", "role:table cell && name:Otto", Do::Select, &["selected: false -> true … \"Otto\""]),
    // gtk3-widget-factory, page 2 again.
    step(FACTORY, "go to Page 2 again", "role:radio button && name:Page 2", Do::Click, &["\"Page 2\" … checked: false -> true"]),
    step(FACTORY, "set the spin button on page 2", "role:spin button && state:enabled && state:showing && nth:0", Do::SetValue("12"), &["-> \"12\""]),
    step(FACTORY, "turn the volume down", "role:slider && name:Volume", Do::SetValue("0.2"), &["slider \"Volume\" … -> \"0.2\""]),
    step(FACTORY, "switch the list row off", "role:list item >> role:toggle button", Do::Click, &["checked: true -> false"]),
    step(FACTORY, "move the list row's slider back", "role:list item >> role:slider", Do::SetValue("30"), &["slider … -> \"30\""]),
    step(FACTORY, "collapse the expander again", "role:toggle button && name:Expander", Do::Click, &["expanded: true -> false"]),
    step(FACTORY, "expand the expander", "role:toggle button && name:Expander", Do::Click, &["expanded: false -> true"]),
    step(FACTORY, "set the spin button on page 2 again", "role:spin button && state:enabled && state:showing && nth:0", Do::SetValue("3"), &["-> \"3\""]),
    step(FACTORY, "turn the volume up", "role:slider && name:Volume", Do::SetValue("0.9"), &["slider \"Volume\" … -> \"0.9\""]),
    step(FACTORY, "back to Page 1 at the end", "role:radio button && name:Page 1", Do::Click, &["\"Page 1\" … checked: false -> true"]),
    step(FACTORY, "untick a check box at the end", "role:check box && name:checkbutton && state:enabled && state:checked && nth:0", Do::Click, &["checked: true -> false"]),
    step(FACTORY, "release the toggle button at the end", "role:toggle button && name:togglebutton && state:enabled && state:checked && nth:0", Do::Click, &["checked: true -> false"]),
    // gtk3-demo: look up a demo, run it and go through it, as a person
    // trying the demos would.
    step(DEMO, "choose the Assistant demo", "role:table cell && name:Assistant", Do::Select, &["frame | name: \"Application Class\" -> \"Assistant\""]),
    step(DEMO, "show its source", "role:page tab && name:Source", Do::Select, &["\"Source\" … selected: false -> true"]),
    step(DEMO, "back to its description", "role:page tab && name:Info", Do::Select, &["\"Info\" … selected: false -> true"]),
    step(DEMO, "run the Assistant demo", "role:push button && name:Run", Do::Click, &["frame \"Page 1\" (modal) (opened)", "text \"You must fill out this entry to continue:\" (focused)"]),
    step(DEMO, "fill in the required entry", "role:frame && state:modal >> role:text", Do::Type("Ada Lovelace"), &["value: none -> \"Ada Lovelace\"", "enabled: false -> true"]),
    step(DEMO, "go to the next page", "role:frame && state:modal >> role:push button && name:Next", Do::Click, &["name: \"Page 1\" -> \"Page 2\""]),
    step(DEMO, "tick the optional check box", "role:frame && state:modal >> role:check box", Do::Click, &["checked: false -> true"]),
    step(DEMO, "go to the confirmation", "role:frame && state:modal >> role:push button && name:Next", Do::Click, &["name: \"Page 2\" -> \"Confirmation\""]),
    step(DEMO, "apply", "role:frame && state:modal >> role:push button && name:Apply", Do::Click, &["name: \"Confirmation\" -> \"Applying changes\""]),
    step(DEMO, "choose the Dialogs demo", "role:table cell && name:Dialogs and Message Boxes", Do::Select, &["name: \"Assistant\" -> \"Dialogs and Message Boxes\""]),
    step(DEMO, "run the Dialogs demo", "role:push button && name:Run", Do::Click, &["frame \"Dialogs and Message Boxes\" (modal) (opened)"]),
    step(DEMO, "fill in Entry 1", "role:frame && state:modal >> role:text && nth:-1", Do::Type("Hello"), &["value: none -> \"Hello\""]),
    step(DEMO, "fill in Entry 2", "role:frame && state:modal >> role:text && nth:0", Do::Type("World"), &["value: none -> \"World\""]),
    step(DEMO, "open the interactive dialog", "role:push button && name:Interactive Dialog", Do::Click, &["dialog \"Interactive Dialog\" (modal) (opened)", "= \"Hello\"", "= \"World\""]),
    step(DEMO, "change Entry 1 in the dialog", "role:dialog >> role:text && nth:-1", Do::SetValue("Hello, world"), &["\"Hello\" -> \"Hello, world\""]),
    step(DEMO, "confirm the dialog", "role:dialog >> role:push button && name:OK", Do::Click, &["(closed)", "\"Hello\" -> \"Hello, world\""]),
    step(DEMO, "show the message box", "role:push button && name:Message Dialog", Do::Click, &["alert \"Information\" (modal) (opened)"]),
    step(DEMO, "close the message box", "role:alert >> role:push button && name:OK", Do::Click, &["alert \"Information\" (closed)"]),
];
