//! Capturing an application's (or one window's) tree as a [`Snapshot`].
//!
//! The walk goes level by level and sends every call of a level at once, so
//! the cost is one round trip per level rather than one per property. The
//! application's own cache (`org.a11y.atspi.Cache.GetItems`, one call) gives
//! role, name, description, states and interfaces of the objects it has
//! exported; the structure is always read live with `GetChildren`, and only
//! objects missing from the cache cost extra calls.
//!
//! A field without a name of its own (a GTK entry next to a mnemonic label)
//! is named after the label its `labelled-by` relation points at, as a
//! screen reader names it: one `GetRelationSet` call per such field.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

use uidelta_model::{normalize_space, Meta, NodeData, Rect, Role, Snapshot, TreeBuilder};

use crate::bus::{object_vanished, Bus, Target};
use crate::error::{Error, Result};
use crate::libreoffice;
use crate::state;

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
/// `ATSPI_RELATION_LABELLED_BY` in a `GetRelationSet` answer.
const LABELLED_BY: u32 = 2;
/// The object path of an application's root accessible.
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// Limits of one capture.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// Most nodes read; the snapshot says `truncated` when there were more.
    pub max_nodes: usize,
    /// Deepest level read; deeper nodes are left out and `truncated` is set.
    pub max_depth: usize,
    /// The whole capture gives up after this long.
    pub deadline: Duration,
    /// Use the application's cache where it has one.
    pub use_cache: bool,
    /// Most characters of text read from one text field.
    pub text_limit: i32,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            max_nodes: 20_000,
            max_depth: 128,
            deadline: Duration::from_secs(30),
            use_cache: true,
            text_limit: 10_000,
        }
    }
}

/// An application on the bus, as far as capturing it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppRef {
    /// Its accessible name (usually the program name).
    pub name: String,
    /// Process id, when the bus knows it.
    pub pid: Option<u32>,
    /// Its unique name on the accessibility bus (`:1.42`).
    pub bus_name: String,
}

impl AppRef {
    /// `gtk3-widget-factory (pid 4242)`, for messages.
    pub fn label(&self) -> String {
        match self.pid {
            Some(pid) => format!("{} (pid {pid})", self.name),
            None => format!("{} ({})", self.name, self.bus_name),
        }
    }
}

/// What a cache item or the four basic calls say about an object.
#[derive(Clone, Debug, Default)]
struct Basic {
    raw_role: String,
    name: String,
    description: String,
    states: uidelta_model::StateSet,
    interfaces: Vec<String>,
    child_count: i32,
}

impl Basic {
    fn has(&self, iface: &str) -> bool {
        self.interfaces.iter().any(|i| i == iface)
    }
}

/// One object found by the walk.
#[derive(Debug, Default)]
struct Rec {
    bus: String,
    path: String,
    basic: Basic,
    children: Vec<usize>,
    bounds: Option<Rect>,
    value: Option<String>,
    attributes: Vec<(String, String)>,
    /// The label that names this nameless field (`labelled-by`).
    labelled_by: Option<(String, String)>,
    vanished: bool,
    /// Another element shows in its place: a page of a stack or notebook
    /// that is not the one shown, in a toolkit that does not say so (see
    /// [`Walk::hidden_pages`]).
    in_reserve: bool,
    /// A label that only repeats the name of the element it is in, or of
    /// the field it labels (see [`leave_out_repeated_labels`]): not in the
    /// tree.
    says_again: bool,
    /// Shows nothing, and is not in the tree with all that is in it (see
    /// [`libreoffice::is_roomless_menu_bar`]).
    left_out: bool,
}

impl Rec {
    /// An object that reports no state at all and that its toolkit calls
    /// hidden (`hidden:true`): one of Chromium's placeholders for the page
    /// actions of its address bar, two dozen nameless buttons of no size.
    /// Neither it nor anything in it is in the tree.
    fn is_placeholder(&self) -> bool {
        self.basic.states.is_empty()
            && self
                .attributes
                .iter()
                .any(|(k, v)| k == "hidden" && v == "true")
    }
}

type ObjRef = (String, OwnedObjectPath);
type CacheItem = (
    ObjRef,
    ObjRef,
    ObjRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// Captures `app` from its root, or from the object at `root` (a window).
pub async fn capture(
    bus: &Bus,
    app: &AppRef,
    root: Option<&str>,
    window: Option<String>,
    opts: &CaptureOptions,
) -> Result<Snapshot> {
    let started = Instant::now();
    let captured_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .ok();
    let label = app.label();
    let target = Target {
        doing: "capturing",
        who: &label,
    };
    let bus = &bus.reading(&target, &app.bus_name).await;
    let walk = Walk {
        bus,
        target,
        opts,
        toolkit: OnceLock::new(),
        libreoffice: libreoffice::is_libreoffice(&app.name),
    };
    let work = walk.run(app, root.unwrap_or(ROOT_PATH));
    let (recs, truncated) = match tokio::time::timeout(opts.deadline, work).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(Error::Deadline {
                target: label,
                after: opts.deadline,
                nodes: 0,
            })
        }
    };
    let mut recs = recs;
    if showing_left_out(&recs) {
        walk.hidden_pages(&mut recs).await;
    }
    fill_in_states(&mut recs);
    match walk.toolkit() {
        "Qt" => hide_unplaced(&mut recs),
        GTK4 => name_from_content(&mut recs),
        _ => {}
    }
    if walk.toolkit() != "Chromium" {
        for r in recs.iter_mut() {
            let role = Role::from_name(&r.basic.raw_role);
            let showing = r.basic.states.contains(uidelta_model::State::Showing);
            r.left_out = libreoffice::is_roomless_menu_bar(role, r.bounds, showing);
        }
    }
    if walk.libreoffice {
        place_below_native_bar(&mut recs);
    }
    name_labels_after_their_text(&mut recs);
    leave_out_repeated_labels(&mut recs);
    let tree = assemble(recs);
    let meta = Meta {
        source: "atspi".into(),
        app: Some(app.name.clone()),
        pid: app.pid,
        window,
        captured_at_ms,
        capture_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
        truncated,
    };
    Ok(Snapshot::new(meta, tree))
}

struct Walk<'a> {
    bus: &'a Bus,
    target: Target<'a>,
    opts: &'a CaptureOptions,
    /// The application's toolkit (`Application.ToolkitName`, `""` when it
    /// does not say), once known.
    toolkit: OnceLock<String>,
    /// The application is LibreOffice (see [`libreoffice`]).
    libreoffice: bool,
}

/// Toolkits (`Application.ToolkitName`) known to answer `GetText(0, end)`
/// with the whole text when `end` lies past its end: GTK 3's ATK bridge
/// and Chromium. Qt 5 answers with nothing.
const TEXTS_WHOLE: [&str; 2] = ["gtk", "Chromium"];

impl Walk<'_> {
    async fn run(&self, app: &AppRef, root: &str) -> Result<(Vec<Rec>, bool)> {
        let cache = async {
            if self.opts.use_cache {
                self.cache(&app.bus_name).await
            } else {
                Ok(HashMap::new())
            }
        };
        let (cache, toolkit) =
            futures_util::future::join(cache, self.read_toolkit(&app.bus_name)).await;
        let cache = cache?;
        let _ = self.toolkit.set(toolkit.unwrap_or_default());
        let mut recs = vec![Rec {
            bus: app.bus_name.clone(),
            path: root.to_owned(),
            ..Rec::default()
        }];
        let mut truncated = false;
        let mut level: Vec<usize> = vec![0];
        let mut depth = 0usize;
        while !level.is_empty() {
            let descend = depth < self.opts.max_depth;
            let fetched = join_all(level.iter().map(|&i| {
                let cached = (recs[i].bus == app.bus_name)
                    .then(|| cache.get(&recs[i].path).cloned())
                    .flatten();
                self.node(&recs[i].bus, &recs[i].path, cached, descend, i == 0)
            }))
            .await;
            let mut next = Vec::new();
            for (&i, result) in level.iter().zip(fetched) {
                let fetched = match result {
                    Ok(f) => f,
                    Err(e) if object_vanished(&e) && i != 0 => {
                        recs[i].vanished = true;
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let rec = &mut recs[i];
                rec.basic = fetched.basic;
                rec.bounds = fetched.bounds;
                rec.value = fetched.value;
                rec.attributes = fetched.attributes;
                rec.labelled_by = fetched.labelled_by;
                if !descend && rec.basic.child_count > 0 {
                    truncated = true;
                }
                for (bus_name, path) in fetched.children {
                    if recs.len() >= self.opts.max_nodes {
                        truncated = true;
                        break;
                    }
                    let child = recs.len();
                    recs.push(Rec {
                        bus: bus_name,
                        path: path.as_str().to_owned(),
                        ..Rec::default()
                    });
                    recs[i].children.push(child);
                    next.push(child);
                }
            }
            level = next;
            depth += 1;
        }
        self.name_from_labels(&mut recs, &cache).await;
        Ok((recs, truncated))
    }

    /// Gives each nameless field the name of the label that labels it: read
    /// in this walk, else from the cache, else asked for (a label outside
    /// the window captured). A label that cannot be read leaves the field
    /// nameless.
    async fn name_from_labels(&self, recs: &mut [Rec], cache: &HashMap<String, Basic>) {
        let walked: HashMap<(&str, &str), usize> = recs
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.vanished)
            .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
            .collect();
        let mut names: Vec<(usize, String)> = Vec::new();
        let mut ask: Vec<(usize, (String, String))> = Vec::new();
        for (i, rec) in recs.iter().enumerate() {
            let Some((bus, path)) = &rec.labelled_by else {
                continue;
            };
            if let Some(&l) = walked.get(&(bus.as_str(), path.as_str())) {
                names.push((i, recs[l].basic.name.clone()));
            } else if let Some(b) = cache.get(path).filter(|_| *bus == recs[0].bus) {
                names.push((i, b.name.clone()));
            } else {
                ask.push((i, (bus.clone(), path.clone())));
            }
        }
        let asked = join_all(ask.iter().map(|(_, (bus, path))| async move {
            let v: Result<OwnedValue> = self
                .call(bus, path, PROPERTIES, "Get", &(ACCESSIBLE, "Name"))
                .await;
            v.ok().and_then(|v| String::try_from(v).ok())
        }))
        .await;
        names.extend(
            ask.iter()
                .zip(asked)
                .filter_map(|((i, _), name)| Some((*i, name?))),
        );
        for (i, name) in names {
            let name = name.trim();
            if !name.is_empty() {
                recs[i].basic.name = name.to_owned();
            }
        }
    }

    /// The application's cache, by object path; empty when it has none.
    /// Marks the pages of stacks and notebooks that are not shown, for a
    /// toolkit that leaves `showing` out and keeps them all `visible` (GTK
    /// 4.8): for each group of siblings in one place (see [`stacked`]),
    /// what the toolkit finds at the centre of that place
    /// (`GetAccessibleAtPoint`, which GTK answers with the deepest widget
    /// drawn there) tells the page shown; the others are in reserve. A
    /// group whose answer lies in none of its pages is left as it is.
    async fn hidden_pages(&self, recs: &mut [Rec]) {
        let parent = parents(recs);
        let groups = stacked(recs, &parent);
        if groups.is_empty() {
            return;
        }
        let recs_now: &[Rec] = recs;
        let answers = join_all(groups.iter().map(|&(asked, at, _)| async move {
            let (x, y) = at.center();
            self.call::<_, ObjRef>(
                &recs_now[asked].bus,
                &recs_now[asked].path,
                "org.a11y.atspi.Component",
                "GetAccessibleAtPoint",
                &(x, y, 0u32),
            )
            .await
        }))
        .await;
        let index: HashMap<(&str, &str), usize> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
            .collect();
        let mut reserve = Vec::new();
        for ((_, _, members), answer) in groups.iter().zip(answers) {
            let hit = match answer {
                Ok((bus, path)) => index.get(&(bus.as_str(), path.as_str())).copied(),
                Err(e) => {
                    tracing::debug!("what shows on a stack of pages: {e}");
                    None
                }
            };
            let mut at = hit;
            while let Some(a) = at {
                if members.contains(&a) {
                    reserve.extend(members.iter().copied().filter(|&m| m != a));
                    break;
                }
                at = parent[a];
            }
        }
        for i in reserve {
            recs[i].in_reserve = true;
        }
    }

    /// The toolkit, as far as the walk knows it.
    fn toolkit(&self) -> &str {
        self.toolkit.get().map_or("", String::as_str)
    }

    /// The application's toolkit (`Application.ToolkitName`), `None` when
    /// it does not say.
    async fn read_toolkit(&self, bus_name: &str) -> Option<String> {
        let name: OwnedValue = self
            .call(
                bus_name,
                ROOT_PATH,
                PROPERTIES,
                "Get",
                &("org.a11y.atspi.Application", "ToolkitName"),
            )
            .await
            .ok()?;
        String::try_from(name).ok()
    }

    async fn cache(&self, bus_name: &str) -> Result<HashMap<String, Basic>> {
        let items: Result<Vec<CacheItem>> = self
            .bus
            .call(
                &self.target,
                bus_name,
                "/org/a11y/atspi/cache",
                "org.a11y.atspi.Cache",
                "GetItems",
                &(),
            )
            .await;
        let items = match items {
            Ok(items) => items,
            Err(e @ (Error::Timeout { .. } | Error::Gone { .. })) => return Err(e),
            Err(e) => {
                tracing::debug!("no usable cache: {e}");
                return Ok(HashMap::new());
            }
        };
        Ok(items
            .into_iter()
            .map(
                |(object, _app, _parent, _index, children, ifaces, name, role, desc, states)| {
                    (
                        object.1.as_str().to_owned(),
                        Basic {
                            raw_role: state::role_name(role),
                            name,
                            description: desc,
                            states: state::states(&states),
                            interfaces: ifaces,
                            child_count: children,
                        },
                    )
                },
            )
            .collect())
    }

    async fn node(
        &self,
        bus_name: &str,
        path: &str,
        cached: Option<Basic>,
        descend: bool,
        root: bool,
    ) -> Result<Fetched> {
        let mut basic = match cached {
            Some(b) => b,
            None => self.basic(bus_name, path).await?,
        };
        // Padding that aligns columns (GTK 3 menu items: `"Find      "`)
        // is layout, not name.
        if let Cow::Owned(name) = normalize_space(&basic.name) {
            basic.name = name;
        }
        if self.toolkit() == GTK4 {
            if is_type_name(&basic.name) {
                basic.name.clear();
            } else if let Some(plain) = mnemonic_doubled(&basic.name) {
                basic.name = plain.to_owned();
            }
        }
        // GTK 4's cache gives the application's root no children: the
        // root's are always asked for.
        let wants_children = descend && (basic.child_count != 0 || root);
        let children = async {
            if wants_children {
                self.call::<_, Vec<ObjRef>>(bus_name, path, ACCESSIBLE, "GetChildren", &())
                    .await
            } else {
                Ok(Vec::new())
            }
        };
        let bounds = async {
            if basic.has("org.a11y.atspi.Component") {
                let (x, y, w, h): (i32, i32, i32, i32) = self
                    .call(
                        bus_name,
                        path,
                        "org.a11y.atspi.Component",
                        "GetExtents",
                        &(0u32,),
                    )
                    .await?;
                // GTK reports hidden widgets at G_MININT.
                Ok::<_, Error>((x != i32::MIN && y != i32::MIN).then_some(Rect::new(x, y, w, h)))
            } else {
                Ok(None)
            }
        };
        let value = self.value(bus_name, path, &basic);
        let label = self.label_of(bus_name, path, &basic);
        let attributes = async {
            self.call::<_, HashMap<String, String>>(
                bus_name,
                path,
                ACCESSIBLE,
                "GetAttributes",
                &(),
            )
            .await
        };
        let (children, bounds, value, attributes, labelled_by) =
            futures_util::join!(children, bounds, value, attributes, label);
        let mut attributes: Vec<(String, String)> = attributes?.into_iter().collect();
        attributes.sort();
        Ok(Fetched {
            basic,
            children: children?,
            bounds: bounds?,
            value: value?,
            attributes,
            labelled_by,
        })
    }

    /// The first `labelled-by` target of a field that has no name of its
    /// own; `None` for everything else, and when the relations cannot be
    /// read (the field then stays nameless, as before).
    async fn label_of(
        &self,
        bus_name: &str,
        path: &str,
        basic: &Basic,
    ) -> Option<(String, String)> {
        if !basic.name.trim().is_empty() || !is_field(basic) {
            return None;
        }
        let relations: Result<Vec<(u32, Vec<ObjRef>)>> = self
            .call(bus_name, path, ACCESSIBLE, "GetRelationSet", &())
            .await;
        let relations = match relations {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!("relations of {bus_name}{path} not read: {e}");
                return None;
            }
        };
        relations
            .into_iter()
            .filter(|(kind, _)| *kind == LABELLED_BY)
            .flat_map(|(_, targets)| targets)
            .map(|(bus, path)| (bus, path.as_str().to_owned()))
            .next()
    }

    async fn basic(&self, bus_name: &str, path: &str) -> Result<Basic> {
        // One `Properties.Get` per property, never `GetAll`: Qt 5.15 crashes
        // (SIGSEGV) on `GetAll` of the Accessible interface.
        let property = |name: &'static str| async move {
            self.call::<_, OwnedValue>(bus_name, path, PROPERTIES, "Get", &(ACCESSIBLE, name))
                .await
        };
        let text = |v: Result<OwnedValue>| -> Result<String> {
            Ok(String::try_from(v?).unwrap_or_default())
        };
        // The role number, as the cache gives it: GTK 4's `GetRoleName`
        // answers its own names (`widget`) where the number says `filler`,
        // and an element read both ways would seem to change role.
        let role = self.call::<_, u32>(bus_name, path, ACCESSIBLE, "GetRole", &());
        let states = self.call::<_, Vec<u32>>(bus_name, path, ACCESSIBLE, "GetState", &());
        let ifaces = self.call::<_, Vec<String>>(bus_name, path, ACCESSIBLE, "GetInterfaces", &());
        let (name, description, child_count, role, states, ifaces) = futures_util::join!(
            property("Name"),
            property("Description"),
            property("ChildCount"),
            role,
            states,
            ifaces
        );
        Ok(Basic {
            raw_role: state::role_name(role?),
            name: text(name)?,
            description: text(description)?,
            states: state::states(&states?),
            interfaces: ifaces?,
            child_count: i32::try_from(child_count?).unwrap_or(-1),
        })
    }

    async fn value(&self, bus_name: &str, path: &str, basic: &Basic) -> Result<Option<String>> {
        let role = Role::from_name(&basic.raw_role);
        let texty = matches!(
            role,
            Role::Entry | Role::Text | Role::PasswordText | Role::Terminal | Role::DocumentText
        ) || basic.states.contains(uidelta_model::State::Editable)
            || libreoffice::says_its_text(role, &basic.name, basic.child_count);
        if texty && basic.has("org.a11y.atspi.Text") {
            let limit = self.opts.text_limit;
            let text = self.text(bus_name, path, limit).await?;
            // LibreOffice says it is GTK, but answers as Qt does.
            let whole = TEXTS_WHOLE.contains(&self.toolkit()) && !self.libreoffice;
            if !text.is_empty() || whole {
                return Ok(Some(text));
            }
            // Qt answers an end past the text with nothing at all, so an
            // empty answer is asked again within the length, unless the
            // toolkit is known not to (an empty field is common: Chromium's
            // forms, and the extra call per field is measurable there).
            let count: OwnedValue = self
                .call(
                    bus_name,
                    path,
                    PROPERTIES,
                    "Get",
                    &("org.a11y.atspi.Text", "CharacterCount"),
                )
                .await?;
            let count = i32::try_from(count).unwrap_or(0).min(limit);
            if count <= 0 {
                return Ok(Some(text));
            }
            let text = self.text(bus_name, path, count).await?;
            // Qt gives a password field's length but never its text: one
            // bullet per character, which is what the snapshot shows of any
            // password (see `uidelta_model::redact`), so typing into it is
            // still a change.
            if text.is_empty() && role == Role::PasswordText {
                let length = usize::try_from(count).unwrap_or(0);
                return Ok(Some(uidelta_model::redact(&"x".repeat(length))));
            }
            return Ok(Some(text));
        }
        if basic.has("org.a11y.atspi.Value")
            && (!self.libreoffice || libreoffice::value_says_something(role))
        {
            let v: OwnedValue = self
                .call(
                    bus_name,
                    path,
                    PROPERTIES,
                    "Get",
                    &("org.a11y.atspi.Value", "CurrentValue"),
                )
                .await?;
            return Ok(f64::try_from(v).ok().map(number));
        }
        Ok(None)
    }

    /// The first `end` characters of an object's text.
    async fn text(&self, bus_name: &str, path: &str, end: i32) -> Result<String> {
        self.call(
            bus_name,
            path,
            "org.a11y.atspi.Text",
            "GetText",
            &(0i32, end),
        )
        .await
    }

    async fn call<B, R>(
        &self,
        bus_name: &str,
        path: &str,
        iface: &str,
        method: &'static str,
        body: &B,
    ) -> Result<R>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: serde::de::DeserializeOwned + zbus::zvariant::Type,
    {
        self.bus
            .call(&self.target, bus_name, path, iface, method, body)
            .await
    }
}

struct Fetched {
    basic: Basic,
    children: Vec<ObjRef>,
    bounds: Option<Rect>,
    value: Option<String>,
    attributes: Vec<(String, String)>,
    labelled_by: Option<(String, String)>,
}

/// Whether an object is a field a label names: text entries, spin buttons,
/// sliders, combo boxes, and anything editable.
fn is_field(basic: &Basic) -> bool {
    matches!(
        Role::from_name(&basic.raw_role),
        Role::Entry
            | Role::Text
            | Role::PasswordText
            | Role::SpinButton
            | Role::Slider
            | Role::ComboBox
    ) || basic.states.contains(uidelta_model::State::Editable)
}

/// `0.5`, `50` (no `.0`).
/// A value as text: whole numbers without a fraction, others to nine
/// decimals at most, so that what arithmetic leaves behind
/// (`0.9500000000000003` for twenty steps of 0.05) reads as meant (`0.95`).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    if !v.is_finite() || v.abs() >= 1e15 {
        return format!("{v}");
    }
    let fixed = format!("{v:.9}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "-0" | "" => "0".to_owned(),
        t => t.to_owned(),
    }
}

/// Fills in states that a toolkit leaves out, judged on the whole capture.
/// GTK 4 (4.8) sets `sensitive` but never `enabled`, and `showing` only on
/// its windows. When no element has `enabled` and some have `sensitive`,
/// `enabled` follows `sensitive`. When no element but a window has
/// `showing` and some have `visible`, an element shows when it is visible,
/// has a size (or no extents at all) and its parent shows (a window keeps
/// its own `showing`). GTK 3 and
/// Chromium set all four and are left as they are.
///
/// Qt 5 marks no page tab `selected`: it names the page tab list after the
/// current tab instead. When no tab of a list is selected and exactly one
/// is named as the list is, that one is.
fn fill_in_states(recs: &mut [Rec]) {
    use uidelta_model::State;
    for i in 0..recs.len() {
        if Role::from_name(&recs[i].basic.raw_role) != Role::PageTabList
            || recs[i].basic.name.is_empty()
        {
            continue;
        }
        let tabs: Vec<usize> = recs[i]
            .children
            .iter()
            .copied()
            .filter(|&c| {
                !recs[c].vanished && Role::from_name(&recs[c].basic.raw_role) == Role::PageTab
            })
            .collect();
        if tabs
            .iter()
            .any(|&t| recs[t].basic.states.contains(State::Selected))
        {
            continue;
        }
        let named: Vec<usize> = tabs
            .into_iter()
            .filter(|&t| recs[t].basic.name == recs[i].basic.name)
            .collect();
        if let [current] = named[..] {
            recs[current].basic.states.insert(State::Selected);
        }
    }
    let any = |recs: &[Rec], s: State| {
        recs.iter()
            .any(|r| !r.vanished && r.basic.states.contains(s))
    };
    if !any(recs, State::Enabled) && any(recs, State::Sensitive) {
        for r in recs.iter_mut() {
            if r.basic.states.contains(State::Sensitive) {
                r.basic.states.insert(State::Enabled);
            }
        }
    }
    if !showing_left_out(recs) {
        return;
    }
    // Records come level by level: a parent before its children.
    for i in 0..recs.len() {
        // The application itself shows whatever of it shows; a window
        // (the capture's root included) says for itself.
        let shows = recs[i].basic.states.contains(State::Showing)
            || Role::from_name(&recs[i].basic.raw_role) == Role::Application;
        for c in recs[i].children.clone() {
            if is_window_rec(&recs[c]) {
                continue;
            }
            // GTK 4.8 keeps hidden stack and notebook pages, and the list
            // rows it holds in reserve, `visible`, with no size.
            let sized = recs[c].bounds.is_none_or(|b| b.w > 0 && b.h > 0);
            let visible = recs[c].basic.states.contains(State::Visible);
            let shown = visible && sized && !recs[c].in_reserve && shows;
            recs[c].basic.states.set(State::Showing, shown);
        }
    }
}

fn is_window_rec(r: &Rec) -> bool {
    let role = Role::from_name(&r.basic.raw_role);
    role.is_window() || role == Role::Application
}

/// Whether the toolkit leaves `showing` out (GTK 4.8): no element but a
/// window has it, and some are `visible`.
fn showing_left_out(recs: &[Rec]) -> bool {
    use uidelta_model::State;
    let live = || recs.iter().filter(|r| !r.vanished);
    !live().any(|r| !is_window_rec(r) && r.basic.states.contains(State::Showing))
        && live().any(|r| r.basic.states.contains(State::Visible))
}

/// Where an element is: its extents, else (a notebook's page object has
/// none) those of its first child that has some; `None` when that place
/// is empty.
fn place(recs: &[Rec], i: usize) -> Option<Rect> {
    recs[i]
        .bounds
        .or_else(|| recs[i].children.iter().find_map(|&c| recs[c].bounds))
        .filter(|b| b.w > 0 && b.h > 0)
}

/// GTK 4's `ToolkitName` (GTK 3's, through ATK, is `gtk`).
const GTK4: &str = "GTK";

/// Whether `name` is a GTK or libadwaita type name (`GtkButton`,
/// `AdwHeaderBar`): GTK 4.8 names a widget that has no accessible name
/// after its type, which says nothing a role does not.
fn is_type_name(name: &str) -> bool {
    ["Gtk", "Adw"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// The label of a name GTK 4.8 gives a button with a mnemonic: its label
/// as written, underscore included, then as shown (`_Next Next`); `None`
/// for any other name.
fn mnemonic_doubled(name: &str) -> Option<&str> {
    name.match_indices(' ').find_map(|(i, _)| {
        let (written, shown) = (&name[..i], &name[i + 1..]);
        (written.contains('_') && !shown.is_empty() && written.replace('_', "") == shown)
            .then_some(shown)
    })
}

/// Roles named after what they show, as GTK 3 (through ATK) and screen
/// readers name them.
fn named_by_content(role: Role) -> bool {
    matches!(
        role,
        Role::PushButton
            | Role::ToggleButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::PageTab
            | Role::Link
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

/// GTK 4.8 leaves a button whose content is a label nameless (so its type
/// name, dropped on reading), and names every notebook tab `Tab`: such an
/// element is named after the labels inside it, in order, as GTK 3 names
/// it. Labels inside another element named by its content (a button in a
/// tab) are that element's. A button whose label takes a mnemonic
/// (`use-underline`) but has none GTK 4.8 names after the label twice, as
/// written and as shown (`"9 9"`, see [`mnemonic_doubled`] for one with a
/// mnemonic): it is named once, when its label says so.
fn name_from_content(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut names = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let own = role(r);
        let named = !r.basic.name.trim().is_empty() && own != Role::PageTab;
        if !named_by_content(own) || (named && said_twice(&r.basic.name).is_none()) {
            continue;
        }
        let mut labels = Vec::new();
        let mut stack: Vec<usize> = r.children.iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            if child.vanished || named_by_content(role(child)) {
                continue;
            }
            let text = child.basic.name.trim();
            if role(child) == Role::Label && !text.is_empty() {
                labels.push(text.to_owned());
            }
            stack.extend(child.children.iter().rev());
        }
        let content = labels.join(" ");
        if !labels.is_empty() && (!named || said_twice(&r.basic.name) == Some(&content)) {
            names.push((i, content));
        }
    }
    for (i, name) in names {
        recs[i].basic.name = name;
    }
}

/// `text` when a name is `text`, a space and `text` again; `None` otherwise.
fn said_twice(name: &str) -> Option<&str> {
    let half = name.len().checked_sub(1)? / 2;
    let (first, rest) = name.split_at_checked(half)?;
    rest.strip_prefix(' ')
        .filter(|second| !first.is_empty() && *second == first)
        .map(|_| first)
}

/// A nameless label that holds one text run and nothing else (Chromium's
/// `<label>`) is named after the text, which then says nothing more:
/// `label "Colour"`, one line where it was two.
fn name_labels_after_their_text(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    for i in 0..recs.len() {
        let r = &recs[i];
        if r.vanished || role(r) != Role::Label || !r.basic.name.trim().is_empty() {
            continue;
        }
        let [c] = r.children[..] else {
            continue;
        };
        let text = &recs[c];
        if text.vanished
            || role(text) != Role::Static
            || !text.children.is_empty()
            || text.basic.name.trim().is_empty()
        {
            continue;
        }
        recs[i].basic.name = recs[c].basic.name.clone();
        recs[c].says_again = true;
    }
}

/// A label or text run with nothing in it that only repeats the name of the
/// button, tab, check box, link, menu item or heading it is in, directly or
/// inside nameless boxes (GTK 4 exports a button's label as its child;
/// Chromium's AT-SPI tree a heading's text as its child), says nothing twice,
/// and is left out of the tree, as Chromium's text is (see `uidelta-cdp`).
/// The element it is in is the one to act on. So is the label of a field
/// (`labelled-by`) that gave the field its name: the field says it.
fn leave_out_repeated_labels(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut repeats = Vec::new();
    let bare_label = |r: &Rec| !r.vanished && role(r) == Role::Label && r.children.is_empty();
    let labels: HashMap<(&str, &str), usize> = recs
        .iter()
        .enumerate()
        .filter(|(_, r)| bare_label(r))
        .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
        .collect();
    for r in recs.iter() {
        let Some((bus, path)) = &r.labelled_by else {
            continue;
        };
        let name = r.basic.name.trim();
        match labels.get(&(bus.as_str(), path.as_str())) {
            Some(&l) if !name.is_empty() && recs[l].basic.name.trim() == name => repeats.push(l),
            _ => {}
        }
    }
    for r in recs.iter() {
        let name = r.basic.name.trim();
        if name.is_empty() || !(named_by_content(role(r)) || role(r) == Role::Heading) {
            continue;
        }
        let mut stack: Vec<usize> = r.children.clone();
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            match role(child) {
                // Chromium's text run (`static`) of a heading, a link or a
                // button says its name again.
                Role::Label | Role::Static
                    if child.children.is_empty() && child.basic.name.trim() == name =>
                {
                    repeats.push(c);
                }
                Role::Filler | Role::Panel if child.basic.name.trim().is_empty() => {
                    stack.extend(&child.children);
                }
                _ => {}
            }
        }
    }
    for c in repeats {
        recs[c].says_again = true;
    }
}

/// Qt 5 says `showing` and `visible` of a widget that is not on the
/// screen (a page of a tab widget that is not the current one, the list of
/// a closed combo box), and places it at 0,0 with no size; the cells of a
/// hidden item view keep the `showing` and `visible` of their last place.
/// Such an element, and all that is in it, is neither.
fn hide_unplaced(recs: &mut [Rec]) {
    use uidelta_model::State;
    let nowhere = Some(Rect::new(0, 0, 0, 0));
    let mut hidden = vec![false; recs.len()];
    // Records come level by level: a parent before its children.
    for i in 0..recs.len() {
        if is_window_rec(&recs[i]) {
            continue;
        }
        if recs[i].bounds == nowhere {
            hidden[i] = true;
        }
        if hidden[i] {
            recs[i].basic.states.remove(State::Showing);
            recs[i].basic.states.remove(State::Visible);
            for c in recs[i].children.clone() {
                hidden[c] = true;
            }
        }
    }
}

/// LibreOffice, with a native menu bar (its gtk3 plugin), places what is
/// in a window's root pane as if its own menu bar, which it keeps there
/// with no room, stood where the native one is: every element of the pane
/// is reported higher than it shows, by the native bar's height (the tool
/// bar's Bold at y 91 shows at 116, under a bar 25 high), and a click at
/// its centre lands on what is above it. Such a pane, and all in it, is
/// moved down by the height of the native bar that shares the copy's top.
fn place_below_native_bar(recs: &mut [Rec]) {
    let parent = parents(recs);
    let ancestors = |mut i: usize| {
        let mut chain = vec![i];
        while let Some(p) = parent[i] {
            chain.push(p);
            i = p;
        }
        chain
    };
    let mut moves = Vec::new();
    for (copy, r) in recs.iter().enumerate() {
        let (Some(at), true) = (r.bounds, r.left_out) else {
            continue;
        };
        let native = recs.iter().enumerate().find(|(_, n)| {
            Role::from_name(&n.basic.raw_role) == Role::MenuBar
                && !n.left_out
                && n.bounds.is_some_and(|b| b.h > 0 && b.y == at.y)
        });
        let Some((native, bar)) = native else {
            continue;
        };
        let Some(down) = bar.bounds.map(|b| b.h) else {
            continue;
        };
        // The copy's side of the element both are in: the root pane.
        let theirs = ancestors(native);
        let ours = ancestors(copy);
        if let Some(k) = ours
            .iter()
            .position(|a| theirs.contains(a))
            .filter(|&k| k > 0)
        {
            moves.push((ours[k - 1], down));
        }
    }
    for (pane, down) in moves {
        let mut stack = vec![pane];
        while let Some(i) = stack.pop() {
            if let Some(b) = recs[i].bounds.as_mut() {
                b.y += down;
            }
            stack.extend(&recs[i].children);
        }
    }
}

/// Each record's parent.
fn parents(recs: &[Rec]) -> Vec<Option<usize>> {
    let mut parent = vec![None; recs.len()];
    for (i, r) in recs.iter().enumerate() {
        for &c in &r.children {
            parent[c] = Some(i);
        }
    }
    parent
}

/// Siblings that say they are visible in one and the same place: the
/// pages of a stack or a notebook, of which one shows. Each group with the
/// nearest ancestor that has a place, to ask what shows there.
fn stacked(recs: &[Rec], parent: &[Option<usize>]) -> Vec<(usize, Rect, Vec<usize>)> {
    use uidelta_model::State;
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let mut groups: Vec<(Rect, Vec<usize>)> = Vec::new();
        for &c in &r.children {
            if recs[c].vanished || !recs[c].basic.states.contains(State::Visible) {
                continue;
            }
            let Some(at) = place(recs, c) else { continue };
            match groups.iter_mut().find(|(g, _)| *g == at) {
                Some((_, members)) => members.push(c),
                None => groups.push((at, vec![c])),
            }
        }
        let mut asked = Some(i);
        while let Some(a) = asked {
            if recs[a].bounds.is_some_and(|b| b.w > 0 && b.h > 0) {
                break;
            }
            asked = parent[a];
        }
        let Some(asked) = asked else { continue };
        out.extend(
            groups
                .into_iter()
                .filter(|(_, members)| members.len() > 1)
                .map(|(at, members)| (asked, at, members)),
        );
    }
    out
}

/// The role of an application's top-level object: a window. Qt 5 gives a
/// top-level widget that is not a dialog or main window (a plain `QWidget`,
/// as in its calculator) the role of any container, `filler`; it is the
/// application's window all the same (its raw role stays `filler`).
fn as_window(role: Role) -> Role {
    match role {
        Role::Filler | Role::Panel => Role::Frame,
        other => other,
    }
}

/// `attributes` without those that restate what the element says anyway:
/// Chromium's `hidden` (the absence of `showing`) and its `description`
/// (the description). Each would be a second line of every such change.
fn unrestated(mut attributes: Vec<(String, String)>, description: &str) -> Vec<(String, String)> {
    attributes.retain(|(k, v)| k != "hidden" && !(k == "description" && v == description));
    attributes
}

/// Builds the tree in preorder from the walk's records.
fn assemble(mut recs: Vec<Rec>) -> uidelta_model::Tree {
    let data = |r: &mut Rec| NodeData {
        role: Role::from_name(&r.basic.raw_role),
        raw_role: std::mem::take(&mut r.basic.raw_role),
        name: std::mem::take(&mut r.basic.name),
        value: r.value.take(),
        description: std::mem::take(&mut r.basic.description),
        states: r.basic.states,
        bounds: r.bounds,
        attributes: unrestated(std::mem::take(&mut r.attributes), &r.basic.description),
        identity: Some(format!("{}{}", r.bus, r.path)),
    };
    let mut root = data(&mut recs[0]);
    let whole_app = root.role == Role::Application;
    if !whole_app {
        root.role = as_window(root.role);
    }
    let mut builder = TreeBuilder::with_capacity(root, recs.len());
    let top_levels: Vec<usize> = if whole_app {
        recs[0].children.clone()
    } else {
        Vec::new()
    };
    let mut stack: Vec<Vec<usize>> = vec![recs[0].children.iter().rev().copied().collect()];
    while let Some(frame) = stack.last_mut() {
        match frame.pop() {
            Some(i)
                if recs[i].vanished
                    || recs[i].says_again
                    || recs[i].left_out
                    || recs[i].is_placeholder() => {}
            Some(i) => {
                let mut node = data(&mut recs[i]);
                if top_levels.contains(&i) {
                    node.role = as_window(node.role);
                }
                builder.open(node);
                let children = recs[i].children.iter().rev().copied().collect();
                stack.push(children);
            }
            None => {
                stack.pop();
                builder.close();
            }
        }
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::{State, StateSet};

    /// Records in walk order: (role, states, children).
    fn recs(spec: &[(&str, &[State], &[usize])]) -> Vec<Rec> {
        spec.iter()
            .map(|(role, states, children)| Rec {
                basic: Basic {
                    raw_role: (*role).to_owned(),
                    states: StateSet::of(states),
                    ..Basic::default()
                },
                children: children.to_vec(),
                ..Rec::default()
            })
            .collect()
    }

    /// A record: role, name, children.
    fn rec(role: &str, name: &str, children: &[usize]) -> Rec {
        Rec {
            basic: Basic {
                raw_role: role.to_owned(),
                name: name.to_owned(),
                ..Basic::default()
            },
            children: children.to_vec(),
            ..Rec::default()
        }
    }

    fn has(r: &Rec, s: State) -> bool {
        r.basic.states.contains(s)
    }

    #[test]
    fn stateless_hidden_placeholders_are_left_out_with_their_subtrees() {
        let mut r = recs(&[
            ("tool bar", &[State::Showing], &[1, 3]),
            ("push button", &[], &[2]),
            ("notification", &[], &[]),
            ("push button", &[State::Showing], &[]),
        ]);
        r[1].attributes = vec![("hidden".into(), "true".into())];
        r[2].attributes = vec![("hidden".into(), "true".into())];
        let tree = assemble(r);
        let roles: Vec<Role> = tree.nodes().iter().map(|n| n.role).collect();
        assert_eq!(roles, [Role::ToolBar, Role::PushButton]);
        assert!(tree.nodes()[1].states.contains(State::Showing));
        // Without `hidden:true`, no states say nothing, and it stays.
        let kept = assemble(recs(&[
            ("tool bar", &[State::Showing], &[1]),
            ("push button", &[], &[]),
        ]));
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn libreoffice_content_moves_below_its_native_menu_bar() {
        let mut r = vec![
            rec("frame", "Writer", &[1, 2]),
            rec("menu bar", "", &[]),
            rec("root pane", "Writer", &[3, 5]),
            rec("filler", "", &[4]),
            rec("menu bar", "", &[]),
            rec("push button", "Bold", &[]),
        ];
        let at = |x, y, w, h| Some(Rect::new(x, y, w, h));
        r[0].bounds = at(57, 50, 1165, 924);
        r[1].bounds = at(57, 50, 1141, 25);
        r[2].bounds = at(57, 50, 1165, 899);
        r[4].bounds = at(57, 50, 1165, 0);
        r[4].left_out = true;
        r[5].bounds = at(648, 91, 33, 35);
        place_below_native_bar(&mut r);
        let ys: Vec<Option<i32>> = r.iter().map(|r| r.bounds.map(|b| b.y)).collect();
        // The window and its native bar stay; the pane and all in it move
        // down by the bar's height.
        assert_eq!(
            ys,
            [Some(50), Some(50), Some(75), None, Some(75), Some(116)]
        );

        // Without a copy of no room (LibreOffice without a native bar), or
        // with none in a native bar's place, nothing moves.
        r[4].left_out = false;
        place_below_native_bar(&mut r);
        assert_eq!(r[5].bounds, at(648, 116, 33, 35));
    }

    #[test]
    fn attributes_that_restate_states_or_the_description_are_left_out() {
        let attrs = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            unrestated(
                attrs(&[
                    ("description", "file:///a.html"),
                    ("hidden", "true"),
                    ("posinset", "2"),
                ]),
                "file:///a.html"
            ),
            attrs(&[("posinset", "2")])
        );
        assert_eq!(
            unrestated(attrs(&[("description", "other")]), "file:///a.html"),
            attrs(&[("description", "other")])
        );
    }

    #[test]
    fn gtk4_type_names_and_doubled_mnemonics_are_no_names() {
        for name in [
            "GtkButton",
            "GtkBuiltinIcon",
            "AdwHeaderBar",
            "GtkLevelBar2",
        ] {
            assert!(is_type_name(name), "{name}");
        }
        for name in [
            "Gtk",
            "Gtkbutton",
            "GtkButton 2",
            "MyGtkButton",
            "Tab",
            "",
            "Gtk Demo",
        ] {
            assert!(!is_type_name(name), "{name}");
        }
        assert_eq!(mnemonic_doubled("_Next Next"), Some("Next"));
        assert_eq!(mnemonic_doubled("Save _As Save As"), Some("Save As"));
        assert_eq!(mnemonic_doubled("_Cancel Cancel"), Some("Cancel"));
        for name in ["Next Next", "_Next", "_Next Back", "snake_case name", "_ "] {
            assert_eq!(mnemonic_doubled(name), None, "{name}");
        }
    }

    #[test]
    fn a_nameless_label_around_one_text_run_is_named_after_it() {
        let mut recs = vec![
            rec("document web", "Form", &[1, 3, 5, 8]),
            rec("label", "", &[2]),
            rec("static", "Colour", &[]),
            rec("label", "Size", &[4]),
            rec("static", "Size of it", &[]),
            rec("label", "", &[6, 7]),
            rec("static", "Two", &[]),
            rec("static", "runs", &[]),
            rec("label", "", &[]),
        ];
        name_labels_after_their_text(&mut recs);
        let tree = assemble(recs);
        let lines: Vec<(Role, &str)> = tree
            .nodes()
            .iter()
            .map(|n| (n.role, n.name.as_str()))
            .collect();
        // Not a label with a name of its own, with two runs, or empty.
        assert_eq!(
            lines,
            [
                (Role::DocumentWeb, "Form"),
                (Role::Label, "Colour"),
                (Role::Label, "Size"),
                (Role::Static, "Size of it"),
                (Role::Label, ""),
                (Role::Static, "Two"),
                (Role::Static, "runs"),
                (Role::Label, ""),
            ]
        );
    }

    #[test]
    fn a_text_run_that_repeats_its_heading_is_left_out() {
        let mut recs = vec![
            rec("document web", "Sign up", &[1, 3, 5]),
            rec("heading", "Sign up", &[2]),
            rec("static", "Sign up", &[]),
            rec("heading", "Terms", &[4]),
            rec("static", "Terms of use", &[]),
            rec("paragraph", "Sign up", &[6]),
            rec("static", "Sign up", &[]),
        ];
        leave_out_repeated_labels(&mut recs);
        let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
        // Not the text of a heading that says more, nor a paragraph's text.
        assert_eq!(left_out, [2]);
    }

    #[test]
    fn a_label_that_repeats_its_button_is_left_out() {
        let mut recs = vec![
            rec("frame", "Window", &[1, 3, 5, 8, 9]),
            rec("push button", "Next", &[2]),
            rec("label", "Next", &[]),
            rec("check box", "Wrap", &[4]),
            rec("label", "Wrap lines", &[]),
            rec("push button", "Open", &[6, 7]),
            rec("label", " Open ", &[]),
            rec("label", "Ctrl+O", &[]),
            rec("label", "Window", &[]),
            rec("push button", "Nick", &[10, 13]),
            rec("panel", "", &[11, 12]),
            rec("label", "Nick", &[]),
            rec("filler", "", &[]),
            rec("panel", "Sort", &[14]),
            rec("label", "Nick", &[]),
        ];
        leave_out_repeated_labels(&mut recs);
        let mut left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
        left_out.sort_unstable();
        // Labels repeating their button, directly or in a nameless box; not
        // a label saying more than its check box, another label of a
        // button, a label in a window (not named after its content) or in
        // a named box.
        assert_eq!(left_out, [2, 6, 11]);
        let tree = assemble(recs);
        let names: Vec<&str> = tree.nodes().iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Window",
                "Next",
                "Wrap",
                "Wrap lines",
                "Open",
                "Ctrl+O",
                "Window",
                "Nick",
                "",
                "",
                "Sort",
                "Nick"
            ]
        );
    }

    #[test]
    fn the_label_that_named_a_field_is_left_out() {
        let at = |mut r: Rec, path: &str| {
            r.bus = ":1.9".into();
            r.path = path.into();
            r
        };
        let labelled = |mut r: Rec, label: &str| {
            r.labelled_by = Some((":1.9".into(), label.into()));
            r
        };
        let mut recs = vec![
            at(
                rec("dialog", "Interactive Dialog", &[1, 2, 3, 4, 5, 6]),
                "/0",
            ),
            // Named by its label, which says nothing more: left out.
            labelled(at(rec("text", "Entry 1", &[]), "/1"), "/2"),
            at(rec("label", "Entry 1", &[]), "/2"),
            // Its own name, not the label's: the label stays.
            labelled(at(rec("text", "Search", &[]), "/3"), "/4"),
            at(rec("label", "Find", &[]), "/4"),
            // Labelled by a label with more in it: it stays.
            labelled(at(rec("slider", "Volume", &[]), "/5"), "/6"),
            at(rec("label", "Volume", &[7]), "/6"),
            at(rec("link", "more", &[]), "/7"),
        ];
        leave_out_repeated_labels(&mut recs);
        let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
        assert_eq!(left_out, [2]);
    }

    #[test]
    fn gtk4_buttons_and_tabs_are_named_after_their_labels() {
        let mut recs = vec![
            rec("page tab list", "Tab list", &[1, 3]),
            rec("page tab", "Tab", &[2]),
            rec("label", "page 1", &[]),
            rec("page tab", "Tab", &[4]),
            rec("filler", "", &[5, 6, 7]),
            rec("label", "Sans Regular", &[]),
            rec("separator", "", &[]),
            rec("push button", "", &[8]),
            rec("label", "Close", &[]),
        ];
        name_from_content(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        // A tab's labels, those inside a filler too; a button's label is
        // the button's, not the tab's it is in.
        assert_eq!(
            names,
            [
                "Tab list",
                "page 1",
                "page 1",
                "Sans Regular",
                "",
                "Sans Regular",
                "",
                "Close",
                "Close"
            ]
        );
    }

    #[test]
    fn gtk4_buttons_named_twice_after_their_labels_are_named_once() {
        let mut recs = vec![
            rec("panel", "", &[1, 3, 5, 7, 9]),
            rec("push button", "9 9", &[2]),
            rec("label", "9", &[]),
            rec("push button", "sin sin", &[4]),
            rec("label", "sin", &[]),
            // Twice over, but not its label twice: it stays.
            rec("push button", "Bora Bora", &[6]),
            rec("label", "Bora Bora", &[]),
            rec("push button", "Ha Ha", &[8]),
            rec("label", "Laugh", &[]),
            // A name of its own.
            rec("push button", "Add", &[10]),
            rec("label", "+", &[]),
        ];
        name_from_content(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "",
                "9",
                "9",
                "sin",
                "sin",
                "Bora Bora",
                "Bora Bora",
                "Ha Ha",
                "Laugh",
                "Add",
                "+"
            ]
        );
        assert_eq!(said_twice("= ="), Some("="));
        assert_eq!(said_twice("Save As Save As"), Some("Save As"));
        for name in ["", " ", "9", "99", "9  9", "9 8", "a b a", "é é é"] {
            assert_eq!(said_twice(name), None, "{name}");
        }
        assert_eq!(said_twice("é é"), Some("é"));
    }

    #[test]
    fn values_read_as_meant() {
        let steps = (0..19).fold(0.0_f64, |v, _| v + 0.05);
        assert_ne!(format!("{steps}"), "0.95");
        assert_eq!(number(steps), "0.95");
        assert_eq!(number(75.0), "75");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(0.8), "0.8");
        assert_eq!(number(1.0 / 3.0), "0.333333333");
        assert_eq!(number(-1e-12), "0");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(2.5e20), "250000000000000000000");
    }

    #[test]
    fn states_a_toolkit_leaves_out_are_filled_in_from_the_whole_capture() {
        use State::{Enabled, Selected, Sensitive, Showing, Visible};
        // GTK 4.8: sensitive, visible; showing only on the shown window.
        let mut gtk4 = recs(&[
            ("application", &[], &[1, 2]),
            ("frame", &[Sensitive, Visible, Showing], &[3]),
            ("dialog", &[Sensitive, Visible], &[4]),
            ("panel", &[Sensitive, Visible], &[5]),
            ("push button", &[Sensitive, Visible], &[]),
            ("push button", &[Visible], &[]),
        ]);
        fill_in_states(&mut gtk4);
        // In the shown window: showing; enabled when sensitive.
        assert!(has(&gtk4[3], Enabled) && has(&gtk4[3], Showing));
        assert!(!has(&gtk4[5], Enabled) && has(&gtk4[5], Showing));
        // In a window that does not show: enabled, not showing.
        assert!(!has(&gtk4[2], Showing));
        assert!(has(&gtk4[4], Enabled) && !has(&gtk4[4], Showing));

        // GTK 4.8 keeps a hidden notebook page visible, with no size; a
        // page object with no extents at all is judged by its parent.
        let mut pages = recs(&[
            ("frame", &[Visible, Showing], &[1, 2]),
            ("panel", &[Visible], &[3]),
            ("panel", &[Visible], &[4]),
            ("text", &[Visible], &[]),
            ("text", &[Visible], &[]),
        ]);
        pages[2].bounds = Some(Rect::new(224, 83, 0, 0));
        pages[3].bounds = Some(Rect::new(224, 83, 566, 507));
        pages[4].bounds = Some(Rect::new(224, 83, 0, 0));
        fill_in_states(&mut pages);
        assert!(has(&pages[1], Showing) && has(&pages[3], Showing));
        assert!(!has(&pages[2], Showing) && !has(&pages[4], Showing));

        // Qt 5: the page tab list is named after the current tab, and no
        // tab is selected.
        let mut tabs = recs(&[
            ("page tab list", &[Visible, Showing], &[1, 2]),
            ("page tab", &[Visible, Showing], &[]),
            ("page tab", &[Visible, Showing], &[]),
        ]);
        tabs[0].basic.name = "Table".into();
        tabs[1].basic.name = "Tree View".into();
        tabs[2].basic.name = "Table".into();
        fill_in_states(&mut tabs);
        assert!(!has(&tabs[1], Selected) && has(&tabs[2], Selected));
        // A toolkit that says which tab is selected is believed.
        tabs[2].basic.states.remove(Selected);
        tabs[1].basic.states.insert(Selected);
        fill_in_states(&mut tabs);
        assert!(has(&tabs[1], Selected) && !has(&tabs[2], Selected));

        // Qt 5: a hidden page's item view is showing at 0,0 with no size,
        // and its cells keep the showing of their last place.
        let mut qt = recs(&[
            ("dialog", &[Visible, Showing], &[1, 2]),
            ("table", &[Visible, Showing], &[3]),
            ("list", &[Visible, Showing], &[]),
            ("table cell", &[Visible, Showing], &[]),
        ]);
        qt[1].bounds = Some(Rect::new(0, 0, 0, 0));
        qt[2].bounds = Some(Rect::new(315, 457, 359, 254));
        qt[3].bounds = Some(Rect::new(339, 479, 103, 30));
        hide_unplaced(&mut qt);
        assert!(has(&qt[0], Showing) && has(&qt[2], Showing) && has(&qt[2], Visible));
        assert!(!has(&qt[1], Showing) && !has(&qt[3], Showing));
        assert!(!has(&qt[1], Visible) && !has(&qt[3], Visible));

        // A capture of one window that does not show.
        let mut hidden = recs(&[
            ("dialog", &[Sensitive, Visible], &[1]),
            ("push button", &[Sensitive, Visible], &[]),
        ]);
        fill_in_states(&mut hidden);
        assert!(!has(&hidden[1], Showing));

        // GTK 3 says everything itself: nothing changes.
        let spec: &[(&str, &[State], &[usize])] = &[
            ("application", &[], &[1]),
            ("frame", &[Enabled, Sensitive, Visible, Showing], &[2, 3]),
            ("push button", &[Enabled, Sensitive, Visible, Showing], &[]),
            ("push button", &[Sensitive, Visible], &[]),
        ];
        let mut gtk3 = recs(spec);
        fill_in_states(&mut gtk3);
        for (r, (_, states, _)) in gtk3.iter().zip(spec) {
            assert_eq!(r.basic.states, StateSet::of(states));
        }
    }
}
