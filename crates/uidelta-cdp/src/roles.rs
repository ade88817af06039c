//! Chromium's accessibility roles and properties in the model's vocabulary.
//!
//! `Accessibility.getFullAXTree` names roles the ARIA way where ARIA has a
//! name (`button`, `checkbox`) and with Chromium's internal names otherwise
//! (`RootWebArea`, `StaticText`, `LabelText`). The model's own parser knows
//! most of them; the table here covers the rest, and chooses what Chromium's
//! AT-SPI bridge chooses where the two disagree, so that a page reads the
//! same through either backend.

use uidelta_model::{Role, State, StateSet};

/// The role of a node with Chromium role name `raw`.
pub fn role(raw: &str) -> Role {
    let key: String = raw
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "rootwebarea" | "webarea" => Role::DocumentWeb,
        "statictext" | "linebreak" => Role::Static,
        "labeltext" | "legend" => Role::Label,
        "menulistpopup" => Role::Menu,
        "menulistoption" => Role::MenuItem,
        "menuitemcheckbox" => Role::CheckMenuItem,
        "menuitemradio" => Role::RadioMenuItem,
        "radiogroup" => Role::Grouping,
        "rowgroup" | "details" => Role::Panel,
        "application" | "embeddedobject" | "pluginobject" | "embed" => Role::Embedded,
        "iframe" | "iframepresentational" => Role::InternalFrame,
        "code" | "emphasis" | "strong" | "time" | "abbr" | "ruby" | "pre"
        | "sectionwithoutname" => Role::Section,
        "rubyannotation" => Role::Static,
        "disclosuretriangle" | "colorwell" => Role::PushButton,
        "date" | "datetime" | "inputtime" => Role::DateEditor,
        "svgroot" | "graphicsdocument" | "graphicssymbol" => Role::Image,
        "graphicsobject" => Role::Panel,
        "sectionheader" => Role::Header,
        "sectionfooter" => Role::Footer,
        "figcaption" => Role::Caption,
        "descriptionlist" => Role::DescriptionList,
        "descriptionlistterm" => Role::DescriptionTerm,
        "descriptionlistdetail" => Role::DescriptionValue,
        _ => Role::from_name(raw),
    }
}

/// Whether nodes with this raw role are left out with their subtrees:
/// Chromium's per-line text boxes repeat their parent's text, and list
/// markers (`• `, `1. `) are presentation that repeats on every item.
pub fn is_dropped(raw: &str) -> bool {
    matches!(raw, "InlineTextBox" | "ListMarker")
}

/// One AX property, reduced to what states and attributes need.
#[derive(Clone, Debug, PartialEq)]
pub enum PropValue {
    /// `true` / `false`.
    Bool(bool),
    /// A token or text (`mixed`, `plaintext`, a URL).
    Text(String),
    /// A number.
    Number(f64),
    /// Something else (node references).
    Other,
}

impl PropValue {
    /// Reads a property's `value.value`.
    pub fn from_json(v: Option<&serde_json::Value>) -> PropValue {
        match v {
            Some(serde_json::Value::Bool(b)) => PropValue::Bool(*b),
            Some(serde_json::Value::String(s)) => PropValue::Text(s.clone()),
            Some(serde_json::Value::Number(n)) => {
                n.as_f64().map_or(PropValue::Other, PropValue::Number)
            }
            _ => PropValue::Other,
        }
    }

    fn is_true(&self) -> bool {
        match self {
            PropValue::Bool(b) => *b,
            PropValue::Text(t) => t == "true",
            _ => false,
        }
    }

    fn text(&self) -> Option<String> {
        match self {
            PropValue::Text(t) => Some(t.clone()),
            PropValue::Bool(b) => Some(b.to_string()),
            PropValue::Number(n) => Some(number(*n)),
            PropValue::Other => None,
        }
    }
}

/// `1`, `0.5`: numbers without a useless `.0`.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// What a node's properties say: states, attributes, and whether the node
/// is hidden although not ignored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// States, before `showing` and `visible` (which come from layout).
    pub states: StateSet,
    /// Attributes, sorted by key.
    pub attributes: Vec<(String, String)>,
    /// `hidden: true` on a node that is still in the tree.
    pub hidden: bool,
    /// A native text field (`editable: plaintext`): its inner editor nodes
    /// repeat its value and are left out.
    pub plain_text_field: bool,
}

/// Reads the properties of a node with normalized role `role`.
pub fn read(role: Role, props: &[(String, PropValue)]) -> Reading {
    let mut r = Reading::default();
    let mut disabled = false;
    let mut editable = false;
    let mut multiline = None;
    let mut attributes: Vec<(String, String)> = Vec::new();
    for (name, value) in props {
        match name.as_str() {
            "focusable" if value.is_true() => r.states.insert(State::Focusable),
            "focused" if value.is_true() => r.states.insert(State::Focused),
            "disabled" => disabled = value.is_true(),
            "checked" => {
                r.states.insert(State::Checkable);
                match value.text().as_deref() {
                    Some("true") => r.states.insert(State::Checked),
                    Some("mixed") => r.states.insert(State::Indeterminate),
                    _ => {}
                }
            }
            "pressed" => match value.text().as_deref() {
                Some("true") => r.states.insert(State::Pressed),
                Some("mixed") => r.states.insert(State::Indeterminate),
                _ => {}
            },
            "expanded" => {
                r.states.insert(State::Expandable);
                r.states.set(State::Expanded, value.is_true());
            }
            "selected" => {
                r.states.insert(State::Selectable);
                r.states.set(State::Selected, value.is_true());
            }
            "required" if value.is_true() => r.states.insert(State::Required),
            "invalid" if value.text().is_some_and(|t| t != "false") => {
                r.states.insert(State::InvalidEntry)
            }
            "editable" => {
                let kind = value.text().unwrap_or_default();
                editable = kind != "false" && !kind.is_empty();
                r.plain_text_field = kind == "plaintext";
            }
            "multiline" => multiline = Some(value.is_true()),
            "readonly" if value.is_true() => r.states.insert(State::ReadOnly),
            "modal" if value.is_true() => r.states.insert(State::Modal),
            "busy" if value.is_true() => r.states.insert(State::Busy),
            "hidden" => r.hidden = value.is_true(),
            "multiselectable" if value.is_true() => r.states.insert(State::Multiselectable),
            "hasPopup" => {
                if let Some(kind) = value.text().filter(|t| t != "false") {
                    r.states.insert(State::HasPopup);
                    attributes.push(("has-popup".into(), kind));
                }
            }
            "orientation" => match value.text().as_deref() {
                Some("horizontal") => r.states.insert(State::Horizontal),
                Some("vertical") => r.states.insert(State::Vertical),
                _ => {}
            },
            "autocomplete" => {
                if let Some(kind) = value.text().filter(|t| t != "none") {
                    r.states.insert(State::SupportsAutocompletion);
                    attributes.push(("autocomplete".into(), kind));
                }
            }
            "level" | "url" | "valuemin" | "valuemax" | "valuetext" | "roledescription"
            | "keyshortcuts" | "live" => {
                if let Some(text) = value.text().filter(|t| !t.is_empty()) {
                    attributes.push((name.clone(), text));
                }
            }
            _ => {}
        }
    }
    if !disabled {
        r.states.insert(State::Enabled);
        r.states.insert(State::Sensitive);
    }
    if editable {
        r.states.insert(State::Editable);
        let multi = multiline.unwrap_or(false);
        r.states.insert(if multi {
            State::MultiLine
        } else {
            State::SingleLine
        });
    } else {
        r.plain_text_field = false;
        if multiline == Some(true) {
            r.states.insert(State::MultiLine);
        }
    }
    if matches!(
        role,
        Role::CheckBox | Role::RadioButton | Role::CheckMenuItem | Role::RadioMenuItem
    ) {
        r.states.insert(State::Checkable);
    }
    if role == Role::ToggleButton {
        r.states.insert(State::Checkable);
    }
    attributes.sort();
    attributes.dedup_by(|a, b| a.0 == b.0);
    r.attributes = attributes;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(list: &[(&str, PropValue)]) -> Vec<(String, PropValue)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn chromium_role_names_normalize() {
        assert_eq!(role("RootWebArea"), Role::DocumentWeb);
        assert_eq!(role("StaticText"), Role::Static);
        assert_eq!(role("button"), Role::PushButton);
        assert_eq!(role("checkbox"), Role::CheckBox);
        assert_eq!(role("combobox"), Role::ComboBox);
        assert_eq!(role("textbox"), Role::Entry);
        assert_eq!(role("searchbox"), Role::Entry);
        assert_eq!(role("link"), Role::Link);
        assert_eq!(role("heading"), Role::Heading);
        assert_eq!(role("listitem"), Role::ListItem);
        assert_eq!(role("generic"), Role::Panel);
        assert_eq!(role("dialog"), Role::Dialog);
        assert_eq!(role("option"), Role::ListItem);
        assert_eq!(role("LineBreak"), Role::Static);
        assert_eq!(role("LabelText"), Role::Label);
        assert_eq!(role("MenuListPopup"), Role::Menu);
        assert_eq!(role("radiogroup"), Role::Grouping);
        assert_eq!(role("Iframe"), Role::InternalFrame);
        assert_eq!(role("paragraph"), Role::Paragraph);
        assert_eq!(role("strong"), Role::Section);
        assert_eq!(role("menuitemcheckbox"), Role::CheckMenuItem);
        assert_eq!(role("navigation"), Role::Landmark);
        assert_eq!(role("something new"), Role::Unknown);
        assert!(is_dropped("InlineTextBox"));
        assert!(is_dropped("ListMarker"));
        assert!(!is_dropped("StaticText"));
    }

    #[test]
    fn properties_become_states_and_attributes() {
        let r = read(
            Role::CheckBox,
            &props(&[
                ("focusable", PropValue::Bool(true)),
                ("checked", PropValue::Text("true".into())),
                ("invalid", PropValue::Text("false".into())),
            ]),
        );
        assert_eq!(
            r.states,
            StateSet::of(&[
                State::Focusable,
                State::Checkable,
                State::Checked,
                State::Enabled,
                State::Sensitive
            ])
        );
        let r = read(
            Role::Entry,
            &props(&[
                ("editable", PropValue::Text("plaintext".into())),
                ("multiline", PropValue::Bool(false)),
                ("required", PropValue::Bool(true)),
                ("disabled", PropValue::Bool(true)),
                ("invalid", PropValue::Text("true".into())),
                ("autocomplete", PropValue::Text("list".into())),
            ]),
        );
        assert!(r.plain_text_field);
        assert!(r.states.contains(State::Editable));
        assert!(r.states.contains(State::SingleLine));
        assert!(r.states.contains(State::Required));
        assert!(r.states.contains(State::InvalidEntry));
        assert!(r.states.contains(State::SupportsAutocompletion));
        assert!(!r.states.contains(State::Enabled));
        assert_eq!(r.attributes, vec![("autocomplete".into(), "list".into())]);
        let r = read(
            Role::ComboBox,
            &props(&[
                ("hasPopup", PropValue::Text("menu".into())),
                ("expanded", PropValue::Bool(false)),
                ("checked", PropValue::Text("mixed".into())),
            ]),
        );
        assert!(r.states.contains(State::Expandable));
        assert!(!r.states.contains(State::Expanded));
        assert!(r.states.contains(State::Indeterminate));
        assert_eq!(r.attributes, vec![("has-popup".into(), "menu".into())]);
        let r = read(
            Role::Heading,
            &props(&[
                ("level", PropValue::Number(2.0)),
                ("hidden", PropValue::Bool(true)),
            ]),
        );
        assert!(r.hidden);
        assert_eq!(r.attributes, vec![("level".into(), "2".into())]);
    }
}
