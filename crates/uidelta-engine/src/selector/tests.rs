use super::*;
use proptest::prelude::*;
use uidelta_diff::{Filters, RefTable};
use uidelta_model::{Meta, NodeData, Snapshot, StateSet, TreeBuilder};

/// A node that is enabled and showing, as most are.
fn node(role: Role, name: &str) -> NodeData {
    let mut n = NodeData::named(role, name);
    n.states = StateSet::of(&[State::Enabled, State::Showing]);
    n
}

/// gedit: e1..e15, node ids 0..14.
fn gedit() -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, "Untitled - gedit")); // 0 e1
    b.leaf(node(Role::PushButton, "Save")); // 1 e2
    let mut save_as = node(Role::PushButton, "Save As…");
    save_as.states.remove(State::Enabled);
    b.leaf(save_as); // 2 e3
    let mut bold = node(Role::CheckBox, "Bold");
    bold.states.insert(State::Checked);
    b.leaf(bold); // 3 e4
    let mut search = node(Role::Entry, "Search");
    search.value = Some("hello world".into());
    b.leaf(search); // 4 e5
    b.open(node(Role::List, "Files")); // 5 e6
    b.leaf(node(Role::ListItem, "a.txt")); // 6 e7
    b.leaf(node(Role::ListItem, "b.txt")); // 7 e8
    b.leaf(node(Role::ListItem, "c.txt")); // 8 e9
    b.close();
    b.open(node(Role::Dialog, "Save changes?")); // 9 e10
    let mut label = node(Role::Label, "Save && Close");
    label.description = "Closes the document".into();
    b.leaf(label); // 10 e11
    b.leaf(node(Role::PushButton, "OK")); // 11 e12
    let mut cancel = node(Role::PushButton, "Cancel");
    cancel.states.remove(State::Showing);
    b.leaf(cancel); // 12 e13
    b.close();
    let mut gauge = node(Role::Unknown, "Gauge");
    gauge.raw_role = "custom-widget".into();
    b.leaf(gauge); // 13 e14
    b.leaf(node(Role::MenuItem, "Open (recent)")); // 14 e15
    Snapshot::new(Meta::default(), b.finish())
}

/// gnome-calculator: e16..e20, node ids 0..4.
fn calculator() -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, "Calculator")); // 0 e16
    b.open(node(Role::Dialog, "About")); // 1 e17
    b.leaf(node(Role::PushButton, "OK")); // 2 e18
    b.close();
    b.leaf(node(Role::PushButton, "=")); // 3 e19
    b.leaf(node(Role::Label, r#"say "hi" \ bye"#)); // 4 e20
    Snapshot::new(Meta::default(), b.finish())
}

struct Fixture {
    scopes: Vec<(&'static str, View, Refs)>,
}

impl Fixture {
    fn new() -> Fixture {
        let mut table = RefTable::new();
        let scopes = [("gedit", gedit()), ("gnome-calculator", calculator())]
            .into_iter()
            .map(|(app, snapshot)| {
                let view = View::new(&snapshot, Filters::none());
                let refs = table.label(view.len());
                (app, view, refs)
            })
            .collect();
        Fixture { scopes }
    }

    fn scopes(&self) -> Vec<AppView<'_>> {
        self.scopes
            .iter()
            .map(|(app, view, refs)| AppView {
                app_name: app,
                view,
                refs,
            })
            .collect()
    }

    fn find(&self, selector: &str) -> Vec<Found> {
        let parsed = Selector::parse(selector).unwrap_or_else(|e| panic!("{e}"));
        parsed.find(&self.scopes())
    }

    /// Matches as `app/name`, the short form most tests compare.
    fn names(&self, selector: &str) -> Vec<String> {
        self.find(selector)
            .into_iter()
            .map(|f| {
                let (app, view, _) = &self.scopes[f.app.0];
                format!("{app}/{}", view.tree().node(f.node).name)
            })
            .collect()
    }
}

fn names(selector: &str) -> Vec<String> {
    Fixture::new().names(selector)
}

fn error(selector: &str) -> String {
    match Selector::parse(selector) {
        Ok(s) => panic!("`{selector}` parsed: {s:?}"),
        Err(e) => e.to_string(),
    }
}

const BUTTONS: [&str; 6] = [
    "gedit/Save",
    "gedit/Save As…",
    "gedit/OK",
    "gedit/Cancel",
    "gnome-calculator/OK",
    "gnome-calculator/=",
];

/// mousepad: menu items padded with spaces to align their accelerators.
fn padded() -> Fixture {
    let mut b = TreeBuilder::new(node(Role::Frame, "mousepad"));
    b.leaf(node(Role::MenuItem, "Find      "));
    b.leaf(node(Role::MenuItem, "Find and  Replace…"));
    b.leaf(node(Role::MenuItem, "  Go to\tline "));
    let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
    let refs = RefTable::new().label(view.len());
    Fixture {
        scopes: vec![("mousepad", view, refs)],
    }
}

#[test]
fn names_match_with_white_space_trimmed_and_runs_as_one() {
    let f = padded();
    assert_eq!(f.names("name:Find"), ["mousepad/Find      "]);
    assert_eq!(f.names("name:\"  find \""), ["mousepad/Find      "]);
    assert_eq!(
        f.names("name:find and replace…"),
        ["mousepad/Find and  Replace…"]
    );
    assert_eq!(f.names("name:Go to line"), ["mousepad/  Go to\tline "]);
    assert_eq!(
        f.names("text~:and replace"),
        ["mousepad/Find and  Replace…"]
    );
    assert!(f.names("name:Findand").is_empty());
}

fn near(f: &Fixture, selector: &str) -> Vec<String> {
    let parsed = Selector::parse(selector).unwrap_or_else(|e| panic!("{e}"));
    parsed
        .near_misses(&f.scopes(), 5)
        .into_iter()
        .map(|m| {
            let (_, view, _) = &f.scopes[m.app.0];
            format!("{} {}", m.r#ref, view.tree().node(m.node).name)
        })
        .collect()
}

#[test]
fn near_misses_contain_the_asked_name_or_are_a_few_edits_away() {
    let f = Fixture::new();
    // Containing it, shortest first, then in order.
    assert_eq!(
        near(&f, "role:button && name:save"),
        [
            "e2 Save",
            "e3 Save As…",
            "e10 Save changes?",
            "e11 Save && Close"
        ]
    );
    // A typo: one edit.
    assert_eq!(near(&f, "name:Cancl"), ["e13 Cancel"]);
    assert_eq!(near(&f, "text:a.tx"), ["e7 a.txt"]);
    // At most five; those containing it come before those a few edits away.
    assert_eq!(
        near(&f, "name:txt || name:b.txx"),
        ["e7 a.txt", "e8 b.txt", "e9 c.txt"]
    );
    assert_eq!(near(&f, "name~:ok"), ["e12 OK", "e18 OK"]);
    // Nothing near, no name asked, or only one not wanted.
    assert!(near(&f, "name:Quit").is_empty());
    assert!(near(&f, "role:slider").is_empty());
    assert!(near(&f, "role:button && !name:Save").is_empty());
    // Padding does not count against a name.
    assert_eq!(near(&padded(), "name:Fnd"), ["e2 Find      "]);
}

#[test]
fn edit_distance_counts_insertions_deletions_and_substitutions() {
    let d = |a: &str, b: &str| {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        edit_distance(&a, &b)
    };
    assert_eq!(d("kitten", "sitting"), 3);
    assert_eq!(d("", "abc"), 3);
    assert_eq!(d("abc", "abc"), 0);
    assert_eq!(d("flaw", "lawn"), 2);
}

#[test]
fn role_normalizes_every_spelling() {
    for spelling in [
        "role:button",
        "role:Button",
        "role:push button",
        "role:PUSH_BUTTON",
        "ROLE:  push button  ",
    ] {
        assert_eq!(names(spelling), BUTTONS, "{spelling}");
    }
    assert_eq!(names("role:check box"), ["gedit/Bold"]);
    assert_eq!(names("role:checkbox"), ["gedit/Bold"]);
    assert_eq!(names("role:textbox"), ["gedit/Search"]);
}

#[test]
fn role_unknown_to_every_platform_matches_the_raw_role() {
    assert_eq!(names("role:custom-widget"), ["gedit/Gauge"]);
    assert_eq!(names("role:CUSTOM-Widget"), ["gedit/Gauge"]);
    assert!(names("role:custom").is_empty());
    assert!(names("role:no such role").is_empty());
}

#[test]
fn name_is_exact_and_case_insensitive() {
    assert_eq!(names("name:save"), ["gedit/Save"]);
    assert_eq!(names("name:SAVE AS…"), ["gedit/Save As…"]);
    assert_eq!(names("name:OK"), ["gedit/OK", "gnome-calculator/OK"]);
    assert!(names("name:Sav").is_empty());
}

#[test]
fn substring_forms() {
    assert_eq!(
        names("name~:sav"),
        [
            "gedit/Save",
            "gedit/Save As…",
            "gedit/Save changes?",
            "gedit/Save && Close"
        ]
    );
    assert_eq!(names("value~:WORLD"), ["gedit/Search"]);
    assert_eq!(names("desc~:document"), ["gedit/Save && Close"]);
    assert_eq!(names("description~:CLOSES"), ["gedit/Save && Close"]);
    assert_eq!(
        names("app~:calc && role:label"),
        [r#"gnome-calculator/say "hi" \ bye"#]
    );
    assert_eq!(names("name~:As…"), ["gedit/Save As…"]);
}

#[test]
fn value_description_and_text() {
    assert_eq!(names("value:Hello World"), ["gedit/Search"]);
    assert!(names("value:hello").is_empty());
    assert_eq!(names("desc:closes the document"), ["gedit/Save && Close"]);
    assert_eq!(
        names("description:Closes the document"),
        ["gedit/Save && Close"]
    );
    // text tests the name or the value.
    assert_eq!(names("text~:hello"), ["gedit/Search"]);
    assert_eq!(names("text~:bold"), ["gedit/Bold"]);
    assert_eq!(names("text:hello world"), ["gedit/Search"]);
    assert_eq!(names("text:search"), ["gedit/Search"]);
    // A missing value is empty text.
    assert_eq!(
        names("value:\"\" && role:push button && app:gedit"),
        ["gedit/Save", "gedit/Save As…", "gedit/OK", "gedit/Cancel"]
    );
}

#[test]
fn states_with_disabled_and_hidden() {
    assert_eq!(names("state:checked"), ["gedit/Bold"]);
    assert_eq!(names("state:STATE_CHECKED"), ["gedit/Bold"]);
    assert_eq!(names("state:toggled"), ["gedit/Bold"]);
    assert_eq!(names("state:disabled"), ["gedit/Save As…"]);
    assert_eq!(names("state:Disabled"), ["gedit/Save As…"]);
    assert_eq!(names("state:hidden"), ["gedit/Cancel"]);
    assert_eq!(
        names("role:button && state:enabled && state:showing"),
        [
            "gedit/Save",
            "gedit/OK",
            "gnome-calculator/OK",
            "gnome-calculator/="
        ]
    );
}

#[test]
fn a_selector_says_which_applications_it_asks_for() {
    let asks = |sel: &str, name: &str| Selector::parse(sel).expect(sel).asks_for_app(name);
    assert!(asks("app:Mousepad && name:Save", "mousepad"));
    assert!(asks("role:dialog >> app~:pad && name:OK", "mousepad"));
    assert!(asks("name:OK || app:gedit", "gedit"));
    assert!(!asks("app:gedit && name:Save", "mousepad"));
    assert!(!asks("!app:mousepad && name:Save", "mousepad"));
    assert!(!asks("name:mousepad", "mousepad"));
}

#[test]
fn app_alone_matches_the_roots_of_its_scopes() {
    assert_eq!(names("app:GEDIT"), ["gedit/Untitled - gedit"]);
    assert_eq!(names("app~:calc"), ["gnome-calculator/Calculator"]);
    assert_eq!(names("!app:gedit"), ["gnome-calculator/Calculator"]);
    assert!(names("app:calc").is_empty());
    assert_eq!(names("app:gedit && role:label"), ["gedit/Save && Close"]);
    assert_eq!(
        names("app:gedit || role:label"),
        [
            "gedit/Untitled - gedit",
            "gedit/Save",
            "gedit/Save As…",
            "gedit/Bold",
            "gedit/Search",
            "gedit/Files",
            "gedit/a.txt",
            "gedit/b.txt",
            "gedit/c.txt",
            "gedit/Save changes?",
            "gedit/Save && Close",
            "gedit/OK",
            "gedit/Cancel",
            "gedit/Gauge",
            "gedit/Open (recent)",
            r#"gnome-calculator/say "hi" \ bye"#,
        ]
    );
}

#[test]
fn refs_alone_with_id_and_combined() {
    let fx = Fixture::new();
    let save = Found {
        app: AppId(0),
        node: NodeId(1),
        r#ref: Ref(2),
    };
    assert_eq!(fx.find("e2"), [save]);
    assert_eq!(fx.find("  e2  "), [save]);
    assert_eq!(fx.find("id:e2"), [save]);
    assert_eq!(fx.find("ID:e2"), [save]);
    assert_eq!(
        fx.find("e18"),
        [Found {
            app: AppId(1),
            node: NodeId(2),
            r#ref: Ref(18),
        }]
    );
    assert!(fx.find("e99").is_empty());
    assert_eq!(fx.names("e2 || e19"), ["gedit/Save", "gnome-calculator/="]);
    assert_eq!(fx.names("e10 >> role:button"), ["gedit/OK", "gedit/Cancel"]);
    assert!(fx.find("e2 && name:OK").is_empty());
    assert_eq!(
        fx.names("!e2 && name~:save && role:button"),
        ["gedit/Save As…"]
    );
}

#[test]
fn as_ref_only_for_a_lone_ref() {
    let r = |s: &str| Selector::parse(s).ok().and_then(|s| s.as_ref());
    assert_eq!(r("e12"), Some(Ref(12)));
    assert_eq!(r(" e12 "), Some(Ref(12)));
    assert_eq!(r("id:e12"), Some(Ref(12)));
    assert_eq!(r("(e12)"), Some(Ref(12)));
    assert_eq!(r("e12 && nth:0"), None);
    assert_eq!(r("e12 || e13"), None);
    assert_eq!(r("!e12"), None);
    assert_eq!(r("e1 >> e12"), None);
    assert_eq!(r("name:e12"), None);
}

#[test]
fn text_is_kept_as_written() {
    let s: Selector = " role:button && name:Save "
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.text(), " role:button && name:Save ");
    assert_eq!(s.to_string(), " role:button && name:Save ");
    assert_eq!(Selector::parse("name:OK"), Selector::parse("name:OK"));
}

#[test]
fn operators_and_precedence() {
    // `&&` binds tighter than `||`.
    assert_eq!(
        names("name:OK || name:Save && role:label"),
        ["gedit/OK", "gnome-calculator/OK"]
    );
    assert_eq!(
        names("(name:OK || name:Save) && role:push button && app:gedit"),
        ["gedit/Save", "gedit/OK"]
    );
    // `!` binds tighter than `&&`.
    assert_eq!(
        names("!role:button && name~:save"),
        ["gedit/Save changes?", "gedit/Save && Close"]
    );
    assert_eq!(
        names("!(role:button || role:label) && name~:save"),
        ["gedit/Save changes?"]
    );
    assert_eq!(names("!!name:Save"), ["gedit/Save"]);
    assert_eq!(names("! ! ! !name:save"), ["gedit/Save"]);
    assert_eq!(names("((name:save))"), ["gedit/Save"]);
    // `>>` binds loosest: `a || b >> c` is `(a || b) >> c`.
    assert_eq!(
        names("name:Files || name:About >> role:list item || role:button"),
        [
            "gedit/a.txt",
            "gedit/b.txt",
            "gedit/c.txt",
            "gnome-calculator/OK"
        ]
    );
}

#[test]
fn quoting_and_parentheses_in_values() {
    assert_eq!(names(r#"name:"Save && Close""#), ["gedit/Save && Close"]);
    assert_eq!(
        names(r#"name: "save && close"   && role:label"#),
        ["gedit/Save && Close"]
    );
    assert_eq!(
        names(r#"name:"say \"hi\" \\ bye""#),
        [r#"gnome-calculator/say "hi" \ bye"#]
    );
    assert_eq!(names(r#"(name:"OK") && app:gedit"#), ["gedit/OK"]);
    // A bare value keeps its own balanced parentheses.
    assert_eq!(names("name:Open (recent)"), ["gedit/Open (recent)"]);
    assert_eq!(names("(name:Open (recent))"), ["gedit/Open (recent)"]);
    assert_eq!(names("(name:OK)&&app:gedit"), ["gedit/OK"]);
    // `&`, `|`, `>`, `!` and `:` alone are text.
    assert_eq!(
        Selector::parse("name:a & b | c > d! e:f").map(|_| ()),
        Ok(())
    );
}

#[test]
fn chains_across_two_applications() {
    assert_eq!(names("app:gedit >> role:dialog >> name:OK"), ["gedit/OK"]);
    assert_eq!(
        names("app:gnome-calculator >> role:dialog >> name:OK"),
        ["gnome-calculator/OK"]
    );
    assert_eq!(
        names("role:dialog >> name:OK"),
        ["gedit/OK", "gnome-calculator/OK"]
    );
    assert_eq!(
        names("role:dialog >> role:button"),
        ["gedit/OK", "gedit/Cancel", "gnome-calculator/OK"]
    );
    assert_eq!(
        names("app~:calc >> role:button"),
        ["gnome-calculator/OK", "gnome-calculator/="]
    );
    // The app step accepts the scope; the root itself can match the next step.
    assert_eq!(names("app:gedit >> role:frame"), ["gedit/Untitled - gedit"]);
    assert_eq!(names("app:gedit >> app~:ged >> name:OK"), ["gedit/OK"]);
    assert!(names("app:gedit >> app:gnome-calculator >> name:OK").is_empty());
    assert!(names("app:vim >> name:OK").is_empty());
    // Strict descendants only.
    assert!(names("role:list >> role:list").is_empty());
    assert_eq!(names("name:Files >> role:list item").len(), 3);
    // Nested matches visit each descendant once.
    assert_eq!(
        names("role:frame || role:dialog >> role:button"),
        BUTTONS.map(str::to_owned)
    );
    assert_eq!(
        names("role:frame >> role:dialog >> name:OK && app:gedit"),
        ["gedit/OK"]
    );
}

#[test]
fn nth_counts_from_zero_and_from_the_end() {
    assert_eq!(names("role:list item && nth:0"), ["gedit/a.txt"]);
    assert_eq!(names("role:list item && nth:2"), ["gedit/c.txt"]);
    assert_eq!(names("role:list item && nth:+1"), ["gedit/b.txt"]);
    assert_eq!(names("nth:-1 && role:list item"), ["gedit/c.txt"]);
    assert_eq!(names("role:list item && nth:-3"), ["gedit/a.txt"]);
    assert!(names("role:list item && nth:3").is_empty());
    assert!(names("role:list item && nth:-4").is_empty());
    assert!(names("role:list item && nth:9223372036854775807").is_empty());
    assert!(names("role:list item && nth:-9223372036854775808").is_empty());
    // Counted across scopes, in scope order.
    assert_eq!(names("role:button && nth:4"), ["gnome-calculator/OK"]);
    assert_eq!(names("role:button && nth:-1"), ["gnome-calculator/="]);
    assert_eq!(names("nth:0"), ["gedit/Untitled - gedit"]);
    // Inside parentheses joined with `&&`, and per step in a chain.
    assert_eq!(names("(role:list item && nth:1)"), ["gedit/b.txt"]);
    assert_eq!(
        names("role:dialog >> role:button && nth:1"),
        ["gedit/Cancel"]
    );
    assert_eq!(
        names("role:dialog && nth:-1 >> role:button"),
        ["gnome-calculator/OK"]
    );
    assert!(names("role:dialog && nth:5 >> role:button").is_empty());
    assert_eq!(names("app:gedit && nth:-1"), ["gedit/Untitled - gedit"]);
}

#[test]
fn found_carries_scope_node_and_ref() {
    let fx = Fixture::new();
    assert_eq!(
        fx.find("name:OK"),
        [
            Found {
                app: AppId(0),
                node: NodeId(11),
                r#ref: Ref(12),
            },
            Found {
                app: AppId(1),
                node: NodeId(2),
                r#ref: Ref(18),
            },
        ]
    );
    assert!(Selector::parse("name:OK")
        .map(|s| s.find(&[]))
        .is_ok_and(|f| f.is_empty()));
}

#[test]
fn error_messages_point_at_the_column() {
    assert_eq!(
        error("role:button &&"),
        "selector `role:button &&`: at column 15: expected a condition after `&&`"
    );
    assert_eq!(
        error("   "),
        "selector `   `: at column 1: empty selector: write a ref like e12 or conditions \
         like `role:button && name:Save`"
    );
    assert_eq!(
        error("role:button && colour:red"),
        "selector `role:button && colour:red`: at column 16: unknown key `colour`; keys are \
         role, name, value, desc (or description), text, state, app, id, nth"
    );
    assert_eq!(
        error("name: && role:button"),
        "selector `name: && role:button`: at column 7: missing value after `name:`"
    );
    assert_eq!(
        error("name~:"),
        "selector `name~:`: at column 7: missing value after `name~:`"
    );
    assert_eq!(
        error("(role:button || name:OK"),
        "selector `(role:button || name:OK`: at column 1: unclosed `(`: expected `)` before \
         the end"
    );
    assert_eq!(
        error(r#"role:label && name:"Save && Close"#),
        r#"selector `role:label && name:"Save && Close`: at column 20: unclosed quote: the `"` here is never closed"#
    );
    assert_eq!(
        error("id:x12"),
        "selector `id:x12`: at column 4: `x12` is not a ref: refs look like e12"
    );
    assert_eq!(
        error("e12x"),
        "selector `e12x`: at column 1: `e12x` is not a ref: refs look like e12"
    );
    assert_eq!(
        error("role:list item && nth:two"),
        "selector `role:list item && nth:two`: at column 23: `nth` takes a whole number, \
         counted from 0 (nth:0 is the first match, nth:-1 the last); found `two`"
    );
    assert_eq!(
        error("role:button || nth:1"),
        "selector `role:button || nth:1`: at column 16: `nth` cannot be used inside `||`: \
         join it to the step with `&&`, as in `role:list item && nth:2`"
    );
    assert_eq!(
        error("role:button && !nth:1"),
        "selector `role:button && !nth:1`: at column 17: `nth` cannot be used inside `!`: \
         join it to the step with `&&`, as in `role:list item && nth:2`"
    );
    assert_eq!(
        error("nth:1 && (nth:2)"),
        "selector `nth:1 && (nth:2)`: at column 11: a step takes one `nth`"
    );
    assert_eq!(
        error("state:sparkly"),
        "selector `state:sparkly`: at column 7: unknown state `sparkly`; states include \
         checked, enabled, disabled, focused, selected, expanded, editable, showing and \
         hidden"
    );
    assert_eq!(
        error("&& role:button"),
        "selector `&& role:button`: at column 1: expected a condition, found `&&`"
    );
    assert_eq!(
        error("role:button || && name:OK"),
        "selector `role:button || && name:OK`: at column 16: expected a condition after \
         `||`, found `&&`"
    );
    assert_eq!(
        error("role:dialog >>"),
        "selector `role:dialog >>`: at column 15: expected a condition after `>>`"
    );
    assert_eq!(
        error("!"),
        "selector `!`: at column 2: expected a condition after `!`"
    );
    assert_eq!(
        error("()"),
        "selector `()`: at column 2: expected a condition after `(`, found `)`"
    );
    assert_eq!(
        error("name:OK)"),
        "selector `name:OK)`: at column 8: unmatched `)`: there is no `(` to close"
    );
    assert_eq!(
        error("(name:OK) name:Cancel"),
        "selector `(name:OK) name:Cancel`: at column 11: expected `&&`, `||`, `>>` or the \
         end, found `name:Cancel`"
    );
    assert_eq!(
        error("(role:dialog >> name:OK)"),
        "selector `(role:dialog >> name:OK)`: at column 14: `>>` cannot be used inside \
         parentheses: it separates whole steps"
    );
    assert_eq!(
        error("(name:a (b) c"),
        "selector `(name:a (b) c`: at column 1: unclosed `(`: expected `)` before the end"
    );
    assert_eq!(
        error("role:dialog >> app:gedit"),
        "selector `role:dialog >> app:gedit`: at column 16: a step of only `app:` \
         conditions chooses applications, so it must come first: `app:NAME >> ...`"
    );
    assert_eq!(
        error("Save"),
        "selector `Save`: at column 1: expected a condition like `role:button` or a ref \
         like `e12`, found `Save`"
    );
    assert_eq!(
        error(r#"name:"OK" role:button"#),
        r#"selector `name:"OK" role:button`: at column 11: unexpected `role:button` after the closing quote; join conditions with `&&`, `||` or `>>`"#
    );
    assert_eq!(
        error(r#"name:"a\nb""#),
        r#"selector `name:"a\nb"`: at column 8: unknown escape `\n`: inside quotes only `\"` and `\\` are escapes"#
    );
    assert_eq!(
        error("role~:button"),
        "selector `role~:button`: at column 1: `role` has no substring form `role~:`; keys \
         with one are name~, value~, desc~, text~ and app~"
    );
    assert_eq!(
        error(":Save"),
        "selector `:Save`: at column 1: expected a key before `:`; keys are role, name, \
         value, desc (or description), text, state, app, id, nth"
    );
}

#[test]
fn positions_count_characters_not_bytes() {
    let e = Selector::parse("name:Größe && ");
    assert_eq!(
        e.map_err(|e| (e.position, e.message)),
        Err((14, "expected a condition after `&&`".to_owned()))
    );
    let e = Selector::parse("name:日本 || bogus:x");
    assert_eq!(e.map_err(|e| e.position), Err(11));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!("{}name:OK{}", "(".repeat(100), ")".repeat(100));
    let e = Selector::parse(&deep).map_err(|e| (e.position, e.message));
    assert_eq!(e, Err((64, "parentheses nested deeper than 64".to_owned())));
    let fine = format!("{}name:OK{}", "(".repeat(64), ")".repeat(64));
    assert_eq!(names(&fine).len(), 2);
    let bangs = format!("{}name:OK", "!".repeat(100_000));
    assert_eq!(names(&bangs).len(), 2);
}

/// 20,000 nested panels: `>>` over nested matches stays linear (a walk
/// per match would take 200 million steps).
#[test]
fn chains_over_nested_matches_are_linear() {
    let depth = 20_000;
    let mut b = TreeBuilder::new(NodeData::new(Role::Frame));
    for _ in 0..depth {
        b.open(NodeData::new(Role::Panel));
    }
    b.leaf(NodeData::named(Role::PushButton, "deep"));
    let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
    let refs = RefTable::new().label(view.len());
    let scopes = [AppView {
        app_name: "deep",
        view: &view,
        refs: &refs,
    }];
    let find = |s: &str| Selector::parse(s).map(|s| s.find(&scopes).len());
    assert_eq!(
        find("role:panel >> role:panel >> role:panel"),
        Ok(depth - 2)
    );
    assert_eq!(find("role:panel >> role:panel >> name:deep"), Ok(1));
    assert_eq!(find("role:panel && nth:-1 >> role:button"), Ok(1));
}

#[test]
fn refs_shorter_than_the_view_never_panic() {
    let view = View::new(&calculator(), Filters::none());
    let refs = RefTable::new().label(2);
    let scopes = [AppView {
        app_name: "calc",
        view: &view,
        refs: &refs,
    }];
    let find = |s: &str| Selector::parse(s).map(|s| s.find(&scopes).len());
    assert_eq!(find("name~:\"\""), Ok(2));
    assert_eq!(find("role:dialog >> role:button"), Ok(0));
    assert_eq!(find("e1"), Ok(1));
    assert_eq!(find("e3"), Ok(0));
}

/// Checks what must hold for any input, parsed or not.
fn check_any(fx: &Fixture, text: &str) -> Result<(), TestCaseError> {
    match Selector::parse(text) {
        Ok(s) => {
            prop_assert_eq!(s.text(), text);
            let found = s.find(&fx.scopes());
            let keys: Vec<(usize, NodeId)> = found.iter().map(|f| (f.app.0, f.node)).collect();
            prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "{:?}", keys);
        }
        Err(e) => {
            prop_assert_eq!(&e.selector, text);
            prop_assert!(e.position <= text.chars().count(), "{}", e);
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

const SOUP: [&str; 34] = [
    "role",
    "name",
    "value",
    "desc",
    "text",
    "state",
    "app",
    "id",
    "nth",
    ":",
    "~:",
    "~",
    "&&",
    "||",
    ">>",
    "&",
    "|",
    ">",
    "!",
    "(",
    ")",
    "\"",
    "\\",
    " ",
    "e1",
    "e12",
    "-1",
    "2",
    "button",
    "checked",
    "gedit",
    "OK",
    "list item",
    "é",
];

/// Well-formed single-step expressions without `nth` or `app`, for the
/// algebra properties.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "role:button",
        "role:label",
        "role:custom-widget",
        "name:OK",
        "name~:save",
        "value~:o",
        "text~:a",
        "desc~:the",
        "state:checked",
        "state:disabled",
        "state:hidden",
        "e2",
        "id:e18",
        "e99",
    ])
    .prop_map(str::to_owned);
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| format!("!{e}")),
            inner.clone().prop_map(|e| format!("({e})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a} || {b})")),
        ]
    })
}

fn keys(fx: &Fixture, selector: &str) -> Vec<(usize, NodeId)> {
    fx.find(selector)
        .iter()
        .map(|f| (f.app.0, f.node))
        .collect()
}

proptest! {
    #[test]
    fn any_text_parses_or_fails_cleanly(text in ".{0,60}") {
        check_any(&Fixture::new(), &text)?;
    }

    #[test]
    fn operator_alphabet_parses_or_fails_cleanly(text in r#"[a-z0-9 :~!&|>()"\\-]{0,40}"#) {
        check_any(&Fixture::new(), &text)?;
    }

    #[test]
    fn token_soup_parses_or_fails_cleanly(
        tokens in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..16)
    ) {
        check_any(&Fixture::new(), &tokens.concat())?;
    }

    #[test]
    fn operators_are_set_algebra(a in expression(), b in expression()) {
        let fx = Fixture::new();
        let (left, right) = (keys(&fx, &a), keys(&fx, &b));
        let all = keys(&fx, "name~:\"\"");
        let and: Vec<_> = left.iter().filter(|k| right.contains(k)).copied().collect();
        let or: Vec<_> = all
            .iter()
            .filter(|k| left.contains(k) || right.contains(k))
            .copied()
            .collect();
        let not: Vec<_> = all.iter().filter(|k| !left.contains(k)).copied().collect();
        prop_assert_eq!(keys(&fx, &format!("{a} && {b}")), and);
        prop_assert_eq!(keys(&fx, &format!("{a} || {b}")), or);
        prop_assert_eq!(keys(&fx, &format!("!({a})")), not);
    }

    #[test]
    fn chains_are_strict_descendants(a in expression(), b in expression()) {
        let fx = Fixture::new();
        let (left, right) = (keys(&fx, &a), keys(&fx, &b));
        let expected: Vec<_> = right
            .iter()
            .filter(|(scope, node)| {
                let tree = fx.scopes[*scope].1.tree();
                tree.ancestors(*node).any(|up| left.contains(&(*scope, up)))
            })
            .copied()
            .collect();
        prop_assert_eq!(keys(&fx, &format!("{a} >> {b}")), expected);
    }
}
