//! Normalized roles.
//!
//! Every platform names roles differently (AT-SPI `push button`, UIA `Button`,
//! ARIA `button`, AX `AXButton`). Matching and rendering work on one
//! vocabulary, the AT-SPI names, which are the most complete of the four.
//! The platform's own spelling is kept beside it on the node as `raw_role`.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

macro_rules! roles {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// A normalized role, named as AT-SPI2 names it.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role {
            #[default]
            $(#[doc = concat!("The `", $name, "` role.")] $variant,)*
        }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[$(Role::$variant,)*];

            /// The AT-SPI spelling, as rendered: `push button`, `check box`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Role::$variant => $name,)*
                }
            }
        }
    };
}

roles! {
    Unknown => "unknown",
    AcceleratorLabel => "accelerator label",
    Alert => "alert",
    Animation => "animation",
    Application => "application",
    Arrow => "arrow",
    Article => "article",
    Audio => "audio",
    Autocomplete => "autocomplete",
    BlockQuote => "block quote",
    Calendar => "calendar",
    Canvas => "canvas",
    Caption => "caption",
    Chart => "chart",
    CheckBox => "check box",
    CheckMenuItem => "check menu item",
    ColorChooser => "color chooser",
    ColumnHeader => "column header",
    ComboBox => "combo box",
    Comment => "comment",
    ContentDeletion => "content deletion",
    ContentInsertion => "content insertion",
    DateEditor => "date editor",
    Definition => "definition",
    DescriptionList => "description list",
    DescriptionTerm => "description term",
    DescriptionValue => "description value",
    DesktopFrame => "desktop frame",
    DesktopIcon => "desktop icon",
    Dial => "dial",
    Dialog => "dialog",
    DirectoryPane => "directory pane",
    DocumentEmail => "document email",
    DocumentFrame => "document frame",
    DocumentPresentation => "document presentation",
    DocumentSpreadsheet => "document spreadsheet",
    DocumentText => "document text",
    DocumentWeb => "document web",
    DrawingArea => "drawing area",
    Editbar => "editbar",
    Embedded => "embedded",
    Entry => "entry",
    FileChooser => "file chooser",
    Filler => "filler",
    FocusTraversable => "focus traversable",
    FontChooser => "font chooser",
    Footer => "footer",
    Footnote => "footnote",
    Form => "form",
    Frame => "frame",
    GlassPane => "glass pane",
    Grouping => "grouping",
    Header => "header",
    Heading => "heading",
    HtmlContainer => "html container",
    Icon => "icon",
    Image => "image",
    ImageMap => "image map",
    InfoBar => "info bar",
    InputMethodWindow => "input method window",
    InternalFrame => "internal frame",
    Label => "label",
    Landmark => "landmark",
    LayeredPane => "layered pane",
    LevelBar => "level bar",
    Link => "link",
    List => "list",
    ListBox => "list box",
    ListItem => "list item",
    Log => "log",
    Mark => "mark",
    Marquee => "marquee",
    Math => "math",
    MathFraction => "math fraction",
    MathRoot => "math root",
    Menu => "menu",
    MenuBar => "menu bar",
    MenuItem => "menu item",
    Notification => "notification",
    OptionPane => "option pane",
    Page => "page",
    PageTab => "page tab",
    PageTabList => "page tab list",
    Panel => "panel",
    Paragraph => "paragraph",
    PasswordText => "password text",
    PopupMenu => "popup menu",
    ProgressBar => "progress bar",
    PushButton => "push button",
    PushButtonMenu => "push button menu",
    RadioButton => "radio button",
    RadioMenuItem => "radio menu item",
    Rating => "rating",
    RedundantObject => "redundant object",
    RootPane => "root pane",
    RowHeader => "row header",
    Ruler => "ruler",
    ScrollBar => "scroll bar",
    ScrollPane => "scroll pane",
    Section => "section",
    Separator => "separator",
    Slider => "slider",
    SpinButton => "spin button",
    SplitPane => "split pane",
    Static => "static",
    StatusBar => "status bar",
    Subscript => "subscript",
    Suggestion => "suggestion",
    Superscript => "superscript",
    Table => "table",
    TableCell => "table cell",
    TableColumnHeader => "table column header",
    TableRow => "table row",
    TableRowHeader => "table row header",
    TearoffMenuItem => "tearoff menu item",
    Terminal => "terminal",
    Text => "text",
    Timer => "timer",
    TitleBar => "title bar",
    ToggleButton => "toggle button",
    ToolBar => "tool bar",
    ToolTip => "tool tip",
    Tree => "tree",
    TreeItem => "tree item",
    TreeTable => "tree table",
    ValueIndicator => "value indicator",
    Video => "video",
    Viewport => "viewport",
    Window => "window",
}

impl Role {
    /// Normalizes any platform's spelling of a role: AT-SPI (`push button`,
    /// `ROLE_PUSH_BUTTON`), UIA (`Button`, `Edit`), ARIA and Chromium
    /// (`button`, `textbox`, `StaticText`) and AX (`AXButton`).
    /// Unknown spellings give [`Role::Unknown`]; the caller keeps the raw name.
    pub fn from_name(raw: &str) -> Role {
        let mut key = String::with_capacity(raw.len());
        for c in raw.chars() {
            if c.is_alphanumeric() {
                key.extend(c.to_lowercase());
            }
        }
        let key = key
            .strip_prefix("atspirole")
            .or_else(|| key.strip_prefix("role"))
            .or_else(|| key.strip_prefix("ax"))
            .filter(|rest| !rest.is_empty() && Role::lookup(rest).is_some())
            .unwrap_or(&key);
        Role::lookup(key).unwrap_or(Role::Unknown)
    }

    fn lookup(key: &str) -> Option<Role> {
        if let Some(role) = alias(key) {
            return Some(role);
        }
        static BY_NAME: OnceLock<HashMap<String, Role>> = OnceLock::new();
        BY_NAME
            .get_or_init(|| Role::ALL.iter().map(|&r| (squash(r.as_str()), r)).collect())
            .get(key)
            .copied()
    }

    /// Documents: a web page, a text, a spreadsheet, ...
    pub fn is_document(self) -> bool {
        matches!(
            self,
            Role::DocumentEmail
                | Role::DocumentFrame
                | Role::DocumentPresentation
                | Role::DocumentSpreadsheet
                | Role::DocumentText
                | Role::DocumentWeb
        )
    }

    /// Roles that only arrange other elements. Without a name, a value or an
    /// interesting state such a node is transparent: its children are shown
    /// under its parent.
    pub fn is_layout(self) -> bool {
        matches!(
            self,
            Role::Filler
                | Role::Panel
                | Role::Section
                | Role::LayeredPane
                | Role::GlassPane
                | Role::RootPane
                | Role::Viewport
                | Role::ScrollPane
                | Role::SplitPane
                | Role::Grouping
                | Role::RedundantObject
                | Role::Unknown
                | Role::HtmlContainer
                | Role::Embedded
                | Role::InternalFrame
                | Role::Form
                | Role::Landmark
                | Role::Paragraph
        )
    }

    /// Top-level containers whose appearance is reported as a window or
    /// dialog opening.
    pub fn is_window(self) -> bool {
        matches!(
            self,
            Role::Window
                | Role::Frame
                | Role::Dialog
                | Role::Alert
                | Role::FileChooser
                | Role::ColorChooser
                | Role::FontChooser
                | Role::PopupMenu
                | Role::InputMethodWindow
        )
    }

    /// Scroll bars and the thumbs inside them: they change with every scroll
    /// and say nothing about the application's state.
    pub fn is_scroll_indicator(self) -> bool {
        matches!(self, Role::ScrollBar | Role::ValueIndicator)
    }

    /// Roles of fields one types text into (when editable).
    pub fn is_text_input(self) -> bool {
        matches!(
            self,
            Role::Entry
                | Role::Text
                | Role::PasswordText
                | Role::SpinButton
                | Role::Terminal
                | Role::Editbar
        )
    }

    /// Roles whose value is secret.
    pub fn is_password(self) -> bool {
        self == Role::PasswordText
    }
}

fn squash(name: &str) -> String {
    name.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Spellings from UIA, ARIA, Chromium and AX that differ from AT-SPI's.
fn alias(key: &str) -> Option<Role> {
    Some(match key {
        "button" | "splitbutton" => Role::PushButton,
        "menubutton" | "popupbutton" => Role::PushButtonMenu,
        "checkbox" | "switch" | "menuitemcheckbox" => Role::CheckBox,
        "radio" => Role::RadioButton,
        "menuitemradio" => Role::RadioMenuItem,
        "edit" | "textbox" | "textfield" | "textarea" | "searchbox" | "searchfield" => Role::Entry,
        "securetextfield" | "password" => Role::PasswordText,
        "statictext" | "inlinetextbox" | "textleaf" => Role::Static,
        "hyperlink" => Role::Link,
        "listitem" | "option" | "listboxoption" => Role::ListItem,
        "row" => Role::TableRow,
        "cell" | "gridcell" | "dataitem" => Role::TableCell,
        "headeritem" => Role::ColumnHeader,
        "grid" | "datagrid" => Role::Table,
        "treegrid" => Role::TreeTable,
        "popupbuttoncombobox" => Role::ComboBox,
        "tab" | "tabitem" => Role::PageTab,
        "tablist" | "tabgroup" => Role::PageTabList,
        "tabpanel" | "pane" | "generic" | "div" => Role::Panel,
        "group" | "splitgroup" => Role::Grouping,
        "spinner" | "stepper" | "incrementor" => Role::SpinButton,
        "progressindicator" | "busyindicator" | "meter" => Role::ProgressBar,
        "scrollarea" => Role::ScrollPane,
        "thumb" => Role::ValueIndicator,
        "tooltip" | "helptag" => Role::ToolTip,
        "outlinerow" => Role::TreeItem,
        "outline" | "browser" => Role::Tree,
        "img" | "graphic" | "figure" => Role::Image,
        "document" | "rootwebarea" | "webarea" => Role::DocumentWeb,
        "main" | "navigation" | "banner" | "contentinfo" | "complementary" | "region"
        | "search" => Role::Landmark,
        "sheet" | "alertdialog" => Role::Dialog,
        "status" => Role::StatusBar,
        "menulist" => Role::Menu,
        "menubaritem" | "menulistoption" => Role::MenuItem,
        "splitter" => Role::Separator,
        "appbar" | "custom" | "none" | "presentation" | "layouttable" | "layouttablecell"
        | "layouttablerow" | "layoutarea" | "layoutitem" | "invalid" => Role::Unknown,
        "standardwindow" => Role::Window,
        "labeltext" => Role::Label,
        "note" => Role::Comment,
        "term" => Role::DescriptionTerm,
        "directory" | "feed" => Role::List,
        "iframe" | "iframepresentational" => Role::Embedded,
        "figcaption" => Role::Caption,
        "blockquote" => Role::BlockQuote,
        "insertion" => Role::ContentInsertion,
        "deletion" => Role::ContentDeletion,
        _ => return None,
    })
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_round_trips_through_its_own_name() {
        for &role in Role::ALL {
            assert_eq!(Role::from_name(role.as_str()), role, "{role}");
        }
    }

    #[test]
    fn platform_spellings_normalize() {
        assert_eq!(Role::from_name("Button"), Role::PushButton);
        assert_eq!(Role::from_name("ROLE_PUSH_BUTTON"), Role::PushButton);
        assert_eq!(Role::from_name("AXButton"), Role::PushButton);
        assert_eq!(Role::from_name("CheckBox"), Role::CheckBox);
        assert_eq!(Role::from_name("checkbox"), Role::CheckBox);
        assert_eq!(Role::from_name("Edit"), Role::Entry);
        assert_eq!(Role::from_name("textbox"), Role::Entry);
        assert_eq!(Role::from_name("StaticText"), Role::Static);
        assert_eq!(Role::from_name("RootWebArea"), Role::DocumentWeb);
        assert_eq!(Role::from_name("Pane"), Role::Panel);
        assert_eq!(Role::from_name("Group"), Role::Grouping);
        assert_eq!(Role::from_name("listitem"), Role::ListItem);
        assert_eq!(Role::from_name("option"), Role::ListItem);
        assert_eq!(Role::from_name("DataItem"), Role::TableCell);
        assert_eq!(Role::from_name("row"), Role::TableRow);
        assert_eq!(Role::from_name("treegrid"), Role::TreeTable);
        assert_eq!(Role::from_name("Thumb"), Role::ValueIndicator);
        assert_eq!(Role::from_name("text"), Role::Text);
        assert_eq!(Role::from_name("Text"), Role::Text);
        assert_eq!(Role::from_name("menubar"), Role::MenuBar);
        assert_eq!(Role::from_name("MenuItem"), Role::MenuItem);
        assert_eq!(Role::from_name("no such role"), Role::Unknown);
        assert_eq!(Role::from_name(""), Role::Unknown);
    }
}
