//! Change events of applications, as a stream.
//!
//! AT-SPI applications only emit the events someone registered for, so
//! subscribing first registers `object:`, `window:` and `focus:` with the
//! registry, then listens for the signals. The engine settles the UI on this
//! stream: it waits until it has been quiet for a while.
//!
//! Events are read off the connection as they arrive, whoever reads them
//! later: zbus holds a reply behind the signals queued before it, so
//! signals left unread would stop every call on the connection.
//!
//! What each event tells the engine ([`EventKind`]) is read off its name
//! here ([`UiEvent::event_kind`]): bounds moving, noise such as tooltips and
//! the caret, focus changes, and changes.

use std::time::Instant;

use futures_util::stream::{select_all, StreamExt};
use tokio::sync::{mpsc, oneshot};
use uidelta_backend::EventKind;
use zbus::message::Type as MessageType;
use zbus::zvariant::{Structure, Value};
use zbus::{MatchRule, MessageStream};

use crate::actions::NodeAddr;
use crate::bus::{Bus, Target};
use crate::error::{Error, Result};
use crate::interfaces::{dbus, registry, REGISTRY_NAME, REGISTRY_PATH};

/// One change event: `object:state-changed:checked` from an element.
#[derive(Clone, Debug, PartialEq)]
pub struct UiEvent {
    /// `object:children-changed:add`, `window:activate`, `focus:`.
    pub kind: String,
    /// The element it is about.
    pub source: NodeAddr,
    /// AT-SPI's first detail (for a state change: 1 set, 0 cleared).
    pub detail1: i32,
    /// AT-SPI's second detail.
    pub detail2: i32,
    /// The rectangle the event carries (`x`, `y`, width, height), when its
    /// data is one: `bounds-changed`'s, which GTK fills with the widget's
    /// allocation, relative to the window it draws in (not its place on
    /// screen).
    pub rect: Option<[i32; 4]>,
    /// When it arrived.
    pub at: Instant,
}

impl UiEvent {
    /// What the event tells the engine: bounds changing is
    /// [`EventKind::Motion`], tooltips, the caret and the like are
    /// [`EventKind::Noise`], a change of the `focused` state is
    /// [`EventKind::Focus`], and anything else is a [`EventKind::Change`].
    pub fn event_kind(&self) -> EventKind {
        event_kind(&self.kind)
    }

    /// How many characters the event says were inserted into a text:
    /// `text-changed:insert` carries their count as its second detail
    /// (its data is the text itself); 0 for other events.
    pub fn inserted(&self) -> usize {
        if self.kind.starts_with("object:text-changed:insert") {
            usize::try_from(self.detail2).unwrap_or(0)
        } else {
            0
        }
    }
}

/// Events that say nothing about an application's state, by the start of
/// their names. Bounds changing is motion, read before these. A text's
/// selection changing is a change (a field says the text selected in it):
/// ctrl+A in a field of an application whose process is not watched
/// (Gecko) sends nothing else, and its answer came at the cap. One that
/// leaves nothing an answer shows changed (a selection made and undone)
/// is looked past: the wait for a first change goes on.
const NOISE: [&str; 8] = [
    "object:visible-data-changed",
    "object:text-caret-moved",
    "object:state-changed:has-tooltip",
    "object:state-changed:armed",
    "object:state-changed:animated",
    "object:state-changed:stale",
    "object:state-changed:defunct",
    "object:state-changed:opaque",
];

/// What the event named `kind` (`object:state-changed:checked`) tells the
/// engine (see [`UiEvent::event_kind`]); the names in [`NOISE`] are noise.
/// So are property changes that say nothing a capture does not learn from
/// other events: an object's `accessible-parent` (an object that joins or
/// leaves the tree makes its parent send `children-changed`; GTK 3 sets
/// the parent of every accessible it makes, and makes a tree view's cells
/// when they are first read, a few dozen at a time), and properties AT-SPI
/// does not define (its own are named `accessible-...`): a toolkit's
/// plumbing passed on as it is, such as GTK 3's `widget` and `renderer`
/// of accessibles coming and going. The older `focus:` event, sent beside
/// the state change, is a change.
fn event_kind(kind: &str) -> EventKind {
    let said_elsewhere = kind
        .strip_prefix("object:property-change:")
        .is_some_and(|p| p == "accessible-parent" || !p.starts_with("accessible-"));
    if kind.starts_with("object:bounds-changed") {
        EventKind::Motion
    } else if said_elsewhere || NOISE.iter().any(|n| kind.starts_with(n)) {
        EventKind::Noise
    } else if kind.starts_with("object:state-changed:focused") {
        EventKind::Focus
    } else {
        EventKind::Change
    }
}

/// Events of one application (or of all), until dropped.
pub struct Events {
    rx: mpsc::Receiver<UiEvent>,
    _subscription: Subscription,
}

impl Events {
    /// Events held for a reader that falls behind; past that, new ones are
    /// dropped rather than holding up the connection.
    pub const HELD: usize = 4096;

    /// The next event; `None` once the application left the bus, or the
    /// bus connection is gone.
    pub async fn next(&mut self) -> Option<UiEvent> {
        self.rx.recv().await
    }

    /// An event that already arrived, without waiting.
    pub fn try_next(&mut self) -> Option<UiEvent> {
        self.rx.try_recv().ok()
    }
}

/// Listening for events, until dropped.
pub struct Subscription {
    task: tokio::task::JoinHandle<()>,
    /// Asks the listening task to answer once it has handed on every
    /// event that had arrived.
    flush: mpsc::UnboundedSender<oneshot::Sender<()>>,
}

impl Subscription {
    /// Returns once every event that had reached this process when it was
    /// called has been handed to the sink (at once when the subscription
    /// has ended). With a round trip to the application over the bus
    /// first, that is every event the application sent before answering
    /// it: the bus keeps one sender's messages in order.
    pub async fn flush(&self) {
        let (done, answered) = oneshot::channel();
        if self.flush.send(done).is_ok() {
            let _ = answered.await;
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.task.abort();
    }
}

const KINDS: [(&str, &str); 3] = [
    ("object:", "org.a11y.atspi.Event.Object"),
    ("window:", "org.a11y.atspi.Event.Window"),
    ("focus:", "org.a11y.atspi.Event.Focus"),
];

/// Subscribes to object, window and focus events of the application with
/// unique bus name `app` (all applications when `None`), holding up to
/// [`Events::HELD`] of them for the reader.
pub async fn subscribe(bus: &Bus, app: Option<&str>) -> Result<Events> {
    let (tx, rx) = mpsc::channel(Events::HELD);
    let subscription = subscribe_with(bus, app, move |event| {
        !matches!(
            tx.try_send(event),
            Err(mpsc::error::TrySendError::Closed(_))
        )
    })
    .await?;
    Ok(Events {
        rx,
        _subscription: subscription,
    })
}

/// Subscribes to object, window and focus events of the application with
/// unique bus name `app` (all applications when `None`), handing each to
/// `sink` as it arrives; `sink` returns false to stop listening. The events
/// of one application end when it leaves the bus (`sink` is then dropped).
///
/// The bus connection is shared: its replies wait behind the events of
/// every subscription until they are read off. So the events are read off
/// as they come, and `sink` must never wait (it queues them, or drops
/// them).
pub async fn subscribe_with(
    bus: &Bus,
    app: Option<&str>,
    mut sink: impl FnMut(UiEvent) -> bool + Send + 'static,
) -> Result<Subscription> {
    let target = Target {
        doing: "subscribing to events on",
        who: "the accessibility registry",
    };
    // Each stream is read from the moment it exists: while the next match
    // rule is being added, events already arrive on the earlier ones, and
    // a stream left unread for 1,024 of them (an application busy with a
    // big change) would stop the connection, the answer to that very
    // `AddMatch` included.
    let (add, mut added) = mpsc::unbounded_channel::<MessageStream>();
    let (flush, mut flushes) = mpsc::unbounded_channel::<oneshot::Sender<()>>();
    let task = tokio::spawn(async move {
        let mut merged = select_all(Vec::<MessageStream>::new());
        let mut adding = true;
        loop {
            // Events first: a flush is answered only when none is ready.
            tokio::select! {
                biased;
                msg = merged.next(), if !merged.is_empty() => {
                    let go_on = match msg {
                        Some(msg) => forward(msg, &mut sink),
                        // Every stream ended: so do the events.
                        None => adding,
                    };
                    if !go_on {
                        return;
                    }
                }
                stream = added.recv(), if adding => match stream {
                    Some(stream) => merged.push(stream),
                    // Every stream is in.
                    None => adding = false,
                },
                Some(done) = flushes.recv() => {
                    let _ = done.send(());
                }
                else => return,
            }
        }
    });
    let subscription = Subscription { task, flush };
    // Which registry runs now: one that was started again must be asked
    // for the events anew. Not known: asked anyway.
    let owner: Option<String> = bus
        .call(
            &target,
            dbus::NAME,
            dbus::PATH,
            dbus::GET_NAME_OWNER,
            &(REGISTRY_NAME.to_owned(),),
        )
        .await
        .ok();
    for (event, iface) in KINDS {
        let mut rule = MatchRule::builder()
            .msg_type(MessageType::Signal)
            .interface(iface)
            .map_err(|e| connect_error(iface, e))?;
        if let Some(app) = app {
            rule = rule.sender(app).map_err(|e| connect_error(app, e))?;
        }
        let stream = listen(bus, rule.build(), 1024, iface).await?;
        // The task ends only once `add` is dropped, or its sink refused.
        let _ = add.send(stream);
        // Asked once per connection and registry: it holds it until then.
        let known = owner.as_deref().is_some_and(|o| bus.listened_for(o, event));
        if !known {
            bus.call(
                &target,
                REGISTRY_NAME,
                REGISTRY_PATH,
                registry::REGISTER_EVENT,
                &(event.to_string(),),
            )
            .await?;
            if let Some(owner) = &owner {
                bus.mark_listened_for(owner, event);
            }
        }
    }
    if let Some(app) = app {
        let _ = add.send(departure(bus, app).await?);
    }
    Ok(subscription)
}

/// Passes one message of the merged streams to `sink`; false when the
/// subscription ends: the application left the bus, the stream failed, or
/// the sink wants no more.
fn forward(msg: zbus::Result<zbus::Message>, sink: &mut impl FnMut(UiEvent) -> bool) -> bool {
    let Ok(msg) = msg else {
        return false;
    };
    if left_the_bus(&msg) {
        return false;
    }
    match decode(&msg) {
        Some(event) => sink(event),
        None => true,
    }
}

/// A stream of the signals `rule` matches, queueing at most `queued`;
/// `AddMatch` bounded in time like every call.
async fn listen(
    bus: &Bus,
    rule: MatchRule<'_>,
    queued: usize,
    what: &str,
) -> Result<MessageStream> {
    let stream = MessageStream::for_match_rule(rule, bus.connection(), Some(queued));
    match tokio::time::timeout(bus.timeout() * 2, stream).await {
        Ok(stream) => stream.map_err(|e| connect_error(what, e)),
        Err(_) => Err(Error::Connect {
            detail: format!(
                "listening for {what}: the bus did not answer within {} ms",
                (bus.timeout() * 2).as_millis()
            ),
        }),
    }
}

/// The bus's word that the connection `app` names closed: the
/// application exited, and its events end (the engine stops waiting for
/// them at once).
async fn departure(bus: &Bus, app: &str) -> Result<MessageStream> {
    let rule = MatchRule::builder()
        .msg_type(MessageType::Signal)
        .sender("org.freedesktop.DBus")
        .and_then(|r| r.interface("org.freedesktop.DBus"))
        .and_then(|r| r.member("NameOwnerChanged"))
        .and_then(|r| r.arg(0, app))
        .map_err(|e| connect_error(&format!("the departure of {app}"), e))?;
    listen(bus, rule.build(), 8, &format!("the departure of {app}")).await
}

/// Whether `msg` says that a name lost its owner (`NameOwnerChanged` with
/// no new owner).
fn left_the_bus(msg: &zbus::Message) -> bool {
    let header = msg.header();
    if header.member().map(|m| m.as_str()) != Some("NameOwnerChanged") {
        return false;
    }
    let body = msg.body();
    matches!(
        body.deserialize::<(&str, &str, &str)>(),
        Ok((_, _, new_owner)) if new_owner.is_empty()
    )
}

fn connect_error(what: &str, e: zbus::Error) -> Error {
    Error::Connect {
        detail: format!("listening for {what}: {e}"),
    }
}

fn decode(msg: &zbus::Message) -> Option<UiEvent> {
    let header = msg.header();
    let iface = header
        .interface()?
        .as_str()
        .rsplit('.')
        .next()?
        .to_lowercase();
    let member = kebab(header.member()?.as_str());
    let sender = header.sender()?.as_str().to_owned();
    let path = header.path()?.as_str().to_owned();
    let body = msg.body();
    let fields = body.deserialize::<Structure<'_>>().ok()?;
    let fields = fields.fields();
    let detail = match fields.first() {
        Some(Value::Str(s)) => s.as_str().to_owned(),
        _ => String::new(),
    };
    let int = |i: usize| match fields.get(i) {
        Some(Value::I32(v)) => *v,
        _ => 0,
    };
    let kind = if member.is_empty() || iface == "focus" {
        format!("{iface}:{detail}")
    } else if detail.is_empty() {
        format!("{iface}:{member}")
    } else {
        format!("{iface}:{member}:{detail}")
    };
    Some(UiEvent {
        kind,
        source: NodeAddr { bus: sender, path },
        detail1: int(1),
        detail2: int(2),
        rect: fields.get(3).and_then(rect),
        at: Instant::now(),
    })
}

/// A rectangle carried as an event's data: a structure of four `i32`s,
/// in a variant.
fn rect(data: &Value<'_>) -> Option<[i32; 4]> {
    let Value::Value(inner) = data else {
        return None;
    };
    let Value::Structure(fields) = &**inner else {
        return None;
    };
    let mut out = [0; 4];
    let [x, y, w, h] = fields.fields() else {
        return None;
    };
    for (slot, field) in out.iter_mut().zip([x, y, w, h]) {
        let Value::I32(v) = field else {
            return None;
        };
        *slot = *v;
    }
    Some(out)
}

/// `StateChanged` -> `state-changed`.
fn kebab(member: &str) -> String {
    let mut out = String::with_capacity(member.len() + 4);
    for (i, c) in member.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{decode, event_kind};
    use std::collections::HashMap;
    use uidelta_backend::EventKind;
    use zbus::zvariant::Value;

    /// An AT-SPI event as the bus carries it: `(siiva{sv})`.
    fn signal(member: &str, data: Value<'_>) -> zbus::Message {
        let props: HashMap<&str, Value<'_>> = HashMap::new();
        let built = zbus::Message::signal(
            "/org/a11y/atspi/accessible/7",
            "org.a11y.atspi.Event.Object",
            member,
        )
        .and_then(|b| b.sender(":1.5"))
        .and_then(|b| b.build(&("", 1i32, 2i32, data, props)));
        match built {
            Ok(m) => m,
            Err(e) => panic!("building a test signal: {e}"),
        }
    }

    /// A `TextChanged` signal: `detail` (`insert`, `delete`) of `length`
    /// characters at offset 4, carrying `text`.
    fn text_changed(detail: &str, length: i32, text: &str) -> zbus::Message {
        let props: HashMap<&str, Value<'_>> = HashMap::new();
        let built = zbus::Message::signal(
            "/org/a11y/atspi/accessible/7",
            "org.a11y.atspi.Event.Object",
            "TextChanged",
        )
        .and_then(|b| b.sender(":1.5"))
        .and_then(|b| b.build(&(detail, 4i32, length, Value::new(text), props)));
        match built {
            Ok(m) => m,
            Err(e) => panic!("building a test signal: {e}"),
        }
    }

    #[test]
    fn an_insertion_says_how_many_characters_it_inserted() {
        let inserted = |m: &zbus::Message| decode(m).map(|e| (e.kind.clone(), e.inserted()));
        assert_eq!(
            inserted(&text_changed("insert", 3, "héé")),
            Some(("object:text-changed:insert".to_owned(), 3))
        );
        // GTK marks changes the program made, not the user, as `system`.
        assert_eq!(
            inserted(&text_changed("insert:system", 1, "x")),
            Some(("object:text-changed:insert:system".to_owned(), 1))
        );
        // A deletion inserts nothing; nor does a count that makes no sense.
        assert_eq!(
            inserted(&text_changed("delete", 2, "ab")).map(|e| e.1),
            Some(0)
        );
        assert_eq!(
            inserted(&text_changed("insert", -1, "")).map(|e| e.1),
            Some(0)
        );
        assert_eq!(
            decode(&signal("StateChanged", Value::new(0i32))).map(|e| e.inserted()),
            Some(0)
        );
    }

    #[test]
    fn a_bounds_change_carries_its_rectangle() {
        let moved = decode(&signal(
            "BoundsChanged",
            Value::new((10i32, 20i32, 30i32, 40i32)),
        ));
        let moved = moved.map(|e| (e.kind, e.source.path, e.detail1, e.detail2, e.rect));
        assert_eq!(
            moved,
            Some((
                "object:bounds-changed".to_owned(),
                "/org/a11y/atspi/accessible/7".to_owned(),
                1,
                2,
                Some([10, 20, 30, 40])
            ))
        );
        // Data of any other shape is no rectangle.
        for data in [
            Value::new(0i32),
            Value::new((1i32, 2i32, 3i32)),
            Value::new("x"),
        ] {
            let event = decode(&signal("StateChanged", data));
            assert_eq!(event.map(|e| e.rect), Some(None));
        }
    }

    #[test]
    fn noise_is_recognised() {
        assert_eq!(
            event_kind("object:state-changed:has-tooltip"),
            EventKind::Noise
        );
        assert_eq!(event_kind("object:text-caret-moved"), EventKind::Noise);
        assert_eq!(
            event_kind("object:text-selection-changed"),
            EventKind::Change
        );
        assert_eq!(event_kind("object:bounds-changed"), EventKind::Motion);
        assert_eq!(
            event_kind("object:state-changed:checked"),
            EventKind::Change
        );
        assert_eq!(event_kind("object:children-changed:add"), EventKind::Change);
        // The properties a capture reads are changes; an object's parent,
        // and a toolkit's own properties, are not.
        for property in ["accessible-name", "accessible-value", "accessible-role"] {
            let kind = format!("object:property-change:{property}");
            assert_eq!(event_kind(&kind), EventKind::Change, "{kind}");
        }
        for property in ["accessible-parent", "widget", "renderer"] {
            let kind = format!("object:property-change:{property}");
            assert_eq!(event_kind(&kind), EventKind::Noise, "{kind}");
        }
    }

    #[test]
    fn focus_changes_are_told_from_other_events() {
        assert_eq!(event_kind("object:state-changed:focused"), EventKind::Focus);
        assert_eq!(
            event_kind("object:state-changed:focusable"),
            EventKind::Change
        );
        assert_eq!(event_kind("focus:"), EventKind::Change);
        assert_eq!(event_kind("window:activate"), EventKind::Change);
    }

    #[test]
    fn members_become_kebab_case() {
        assert_eq!(super::kebab("StateChanged"), "state-changed");
        assert_eq!(super::kebab("ChildrenChanged"), "children-changed");
        assert_eq!(super::kebab("Activate"), "activate");
    }
}
