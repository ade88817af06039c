//! The connection to the accessibility bus and the one way every call is
//! made: with a timeout, and with errors that name the application.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{de::DeserializeOwned, Serialize};
use zbus::zvariant::{DynamicType, OwnedValue, Type};

use crate::capture::{AppRef, ROOT_PATH};
use crate::error::{Error, Result};
use crate::interfaces::{action, application, peer, properties, Method, Property};
use crate::toolkit::Profile;

/// How long one D-Bus call may take by default. An application that needs
/// longer is hung or stopped, and is reported as such.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection to the accessibility bus.
#[derive(Clone, Debug)]
pub struct Bus {
    conn: zbus::Connection,
    /// Its address, as connected to.
    address: Arc<str>,
    timeout: Duration,
    /// Direct connections to applications, by unique bus name and use
    /// (`None`: the application offers none); see [`Bus::call_direct`] and
    /// [`Bus::reading`].
    peers: Arc<Mutex<Peers>>,
    /// Applications (by unique bus name) whose last capture found a
    /// container read by its visible part (see [`crate::visible`]).
    huge: Arc<Mutex<std::collections::HashSet<String>>>,
    /// The kinds of event asked of the registry on this connection, by the
    /// registry's unique name (see [`Bus::listened_for`]).
    registered: Arc<Mutex<std::collections::HashSet<(String, &'static str)>>>,
    /// Set by [`Bus::reading`]: calls to this application go over this
    /// direct connection.
    reader: Option<Arc<(String, zbus::Connection)>>,
    /// Set by [`Bus::keep_actions_with`]: the program whose `__keep-action`
    /// command makes accessible actions (see there).
    keeper: Option<Arc<std::path::Path>>,
    /// Each application's toolkit, read once (see [`Bus::profile`]).
    profiles: Arc<Mutex<HashMap<String, Profile>>>,
    /// What holds each root pane, by application and path, as captures
    /// found them (see [`Bus::note_holders`]).
    holders: Arc<Mutex<HashMap<(String, String), String>>>,
    /// Widgets that show where they are reported in a root pane that does
    /// not, by application and path (see [`Bus::note_in_place`]).
    in_place: Arc<Mutex<std::collections::HashSet<(String, String)>>>,
}

/// Direct connections by application and use; `None`: it offers none.
type Peers = HashMap<(String, Use), Option<zbus::Connection>>;

/// What a direct connection is for. Each use has its own, because GTK
/// holds a connection's dispatch while a handler run by a call on it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Use {
    /// Actions (`DoAction`), which run the application's handlers.
    Act,
    /// Reads (captures), which must go on while a handler runs.
    Read,
}

/// Who a call is for, for error messages: `gtk3-widget-factory (pid 4242)`.
#[derive(Clone, Debug)]
pub struct Target<'a> {
    /// What is being done: `capturing`, `clicking`.
    pub doing: &'static str,
    /// Application name and pid, as printed.
    pub who: &'a str,
}

impl Bus {
    /// Connects to the accessibility bus of the session: `AT_SPI_BUS_ADDRESS`
    /// if set, else the address the session bus's `org.a11y.Bus` gives
    /// (`session` if given, else `DBUS_SESSION_BUS_ADDRESS`).
    pub async fn connect(session: Option<&str>) -> Result<Bus> {
        let direct = std::env::var("AT_SPI_BUS_ADDRESS")
            .ok()
            .filter(|a| !a.is_empty());
        let (address, from) = match (session, direct) {
            (None, Some(a)) => (a, " (from AT_SPI_BUS_ADDRESS)"),
            _ => (a11y_address(session).await?, ""),
        };
        let conn = zbus::connection::Builder::address(address.as_str())
            .map_err(|e| Error::Connect {
                detail: format!("bad accessibility bus address `{address}`: {e}"),
            })?
            .build();
        let conn = tokio::time::timeout(CALL_TIMEOUT * 2, conn)
            .await
            .map_err(|_| Error::Connect {
                detail: format!("no answer from the accessibility bus at {address}{from}"),
            })?
            .map_err(|e| Error::Connect {
                detail: format!(
                    "cannot reach the accessibility bus at {address}{from}: {}",
                    io_detail(&e)
                ),
            })?;
        Ok(Bus {
            conn,
            address: address.into(),
            timeout: CALL_TIMEOUT,
            peers: Arc::default(),
            profiles: Arc::default(),
            huge: Arc::default(),
            holders: Arc::default(),
            in_place: Arc::default(),
            registered: Arc::default(),
            reader: None,
            keeper: None,
        })
    }

    /// Makes accessible actions ([`Bus::do_action`]) through a helper
    /// process, `program __keep-action DEST PATH INDEX` (see
    /// [`keep_action`]), that outlives this one until the action's handler
    /// has returned. For a short-lived process (a command line): GTK runs
    /// the handler inside the dispatch of the connection the action came
    /// over, and a handler that runs a modal dialog holds it until the
    /// dialog closes; if that connection closes meanwhile (the process
    /// ends), the next key pressed in the application hangs it for good.
    pub fn keep_actions_with(&mut self, program: std::path::PathBuf) {
        self.keeper = Some(program.into());
    }

    /// Performs action `index` of the element at `path` of `dest`
    /// (`DoAction`) over the application's direct connection (see
    /// [`Bus::call_direct`]), or through the helper process of
    /// [`Bus::keep_actions_with`]. Returns what the application answered.
    pub async fn do_action(
        &self,
        target: &Target<'_>,
        dest: &str,
        path: &str,
        index: i32,
    ) -> Result<bool> {
        let Some(program) = self.keeper.clone() else {
            return self
                .call_direct(target, dest, path, action::DO_ACTION, &(index,))
                .await;
        };
        let failed = |detail: String| Error::Call {
            doing: target.doing,
            target: target.who.to_owned(),
            method: "DoAction",
            detail,
        };
        let spawned = std::process::Command::new(&*program)
            .args(["__keep-action", dest, path, &index.to_string()])
            .env("AT_SPI_BUS_ADDRESS", &*self.address)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                tracing::debug!(error = %e, program = %program.display(), "no action helper");
                return self
                    .call_direct(target, dest, path, action::DO_ACTION, &(index,))
                    .await;
            }
        };
        let Some(out) = child.stdout.take() else {
            return Err(failed("the helper has no output".into()));
        };
        let answer = tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).map(|_| line)
        });
        let line = match tokio::time::timeout(self.timeout * 2, answer).await {
            Ok(Ok(Ok(line))) => line,
            _ => {
                let _ = child.kill();
                return Err(Error::Timeout {
                    doing: target.doing,
                    target: target.who.to_owned(),
                    method: "DoAction",
                    after: self.timeout * 2,
                });
            }
        };
        // The helper goes on alone (it is reaped when this process ends).
        let line = line.trim();
        match line.split_once(": ") {
            _ if line == "true" => Ok(true),
            _ if line == "false" => Ok(false),
            Some(("timeout", _)) => Err(Error::Timeout {
                doing: target.doing,
                target: target.who.to_owned(),
                method: "DoAction",
                after: self.timeout,
            }),
            Some(("gone", detail)) => Err(Error::Gone {
                doing: target.doing,
                target: target.who.to_owned(),
                detail: detail.to_owned(),
            }),
            Some((_, detail)) => Err(failed(detail.to_owned())),
            None => Err(failed(format!("the helper answered `{line}`"))),
        }
    }

    /// The same connection with another per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Bus {
        self.timeout = timeout;
        self
    }

    /// The address of the accessibility bus.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The per-call timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The underlying connection, for event subscriptions.
    pub fn connection(&self) -> &zbus::Connection {
        &self.conn
    }

    /// The bus daemon's own id: the same for as long as one daemon runs,
    /// another when the bus was started again (even at the same address).
    pub fn daemon_id(&self) -> String {
        self.conn.server_guid().to_string()
    }

    /// Whether the bus daemon still answers on this connection (a ping
    /// to it): [`Error::Lost`] when the connection is closed or broken, as
    /// it is once the daemon has ended. A daemon that is merely slow is not
    /// lost.
    pub async fn check(&self) -> Result<()> {
        let ping = self.conn.call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus.Peer"),
            "Ping",
            &(),
        );
        match tokio::time::timeout(self.timeout, ping).await {
            Ok(Err(e @ (zbus::Error::InputOutput(_) | zbus::Error::Handshake(_)))) => {
                Err(Error::Lost {
                    address: self.address.to_string(),
                    detail: io_detail(&e),
                })
            }
            Ok(Err(zbus::Error::MethodError(name, _, _)))
                if name.as_str().ends_with(".Disconnected") =>
            {
                Err(Error::Lost {
                    address: self.address.to_string(),
                    detail: "disconnected".into(),
                })
            }
            // An answer of any kind, or none yet: the daemon is there.
            _ => Ok(()),
        }
    }

    /// Calls `method` with `args` on the object at `path` of application
    /// `dest`, and decodes the answer as the method declares it.
    pub async fn call<A, R>(
        &self,
        target: &Target<'_>,
        dest: &str,
        path: &str,
        method: Method<A, R>,
        args: &A,
    ) -> Result<R>
    where
        A: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        match self.reader.as_deref() {
            Some((app, conn)) if app == dest => {
                self.call_on(conn, None, target, path, method, args).await
            }
            _ => {
                self.call_on(&self.conn, Some(dest), target, path, method, args)
                    .await
            }
        }
    }

    /// Reads one property of the object at `path` of application `dest`
    /// (`Properties.Get`; never `GetAll`, see [`crate::interfaces`]).
    pub async fn property(
        &self,
        target: &Target<'_>,
        dest: &str,
        path: &str,
        property: Property,
    ) -> Result<OwnedValue> {
        self.call(
            target,
            dest,
            path,
            properties::GET,
            &(property.iface, property.name),
        )
        .await
    }

    /// Sets one property of the object at `path` of application `dest`.
    pub async fn set_property(
        &self,
        target: &Target<'_>,
        dest: &str,
        path: &str,
        property: Property,
        value: zbus::zvariant::Value<'static>,
    ) -> Result<()> {
        self.call(
            target,
            dest,
            path,
            properties::SET,
            &(property.iface, property.name, value),
        )
        .await
    }

    /// This bus, with the calls to application `dest` made over a direct
    /// connection of their own when the application offers one: they skip
    /// the bus daemon's hop (about half the work of a capture). Events stay
    /// on the bus. The connection is not the one [`Bus::call_direct`]
    /// uses, so reads go on while an action's handler runs.
    pub async fn reading(&self, target: &Target<'_>, dest: &str) -> Bus {
        let reader = self
            .peer(target, dest, Use::Read)
            .await
            .map(|conn| Arc::new((dest.to_owned(), conn)));
        Bus {
            reader,
            ..self.clone()
        }
    }

    /// [`Bus::call`] over the application's own direct connection when it
    /// offers one (AT-SPI's `GetApplicationBusAddress`), else over the bus.
    ///
    /// For calls that run the application's handlers (`DoAction`): GTK runs
    /// them inside the dispatch of the call's connection, and a handler that
    /// runs a modal dialog (`gtk_dialog_run`) holds that dispatch until the
    /// dialog closes. Made on the direct connection, such a call leaves the
    /// bus connection free, so the application goes on answering captures
    /// (the dialog can be read) and its key listener, which calls the
    /// registry over the bus, does not deadlock.
    pub async fn call_direct<A, R>(
        &self,
        target: &Target<'_>,
        dest: &str,
        path: &str,
        method: Method<A, R>,
        args: &A,
    ) -> Result<R>
    where
        A: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        match self.peer(target, dest, Use::Act).await {
            Some(peer) => self.call_on(&peer, None, target, path, method, args).await,
            None => self.call(target, dest, path, method, args).await,
        }
    }

    /// Whether the application `dest` answers a `Peer.Ping` over the bus
    /// within `within`. One whose handler holds the dispatch of its bus
    /// connection (a modal dialog run inside an accessible action's call)
    /// does not. [`Error::Gone`] when it has left the bus; `who` names it
    /// in that error.
    pub async fn answers(&self, who: &str, dest: &str, within: Duration) -> Result<bool> {
        let target = &Target {
            doing: "pinging",
            who,
        };
        let ping = self.clone().with_timeout(within);
        let reply: Result<()> = ping
            .call_on(&self.conn, Some(dest), target, ROOT_PATH, peer::PING, &())
            .await;
        match reply {
            Ok(()) => Ok(true),
            Err(Error::Timeout { .. }) => Ok(false),
            Err(e @ Error::Gone { .. }) => Err(e),
            // Any other answer is an answer.
            Err(_) => Ok(true),
        }
    }

    /// Whether events of `kind` (`object:`) were asked of the registry
    /// whose unique name is `registry` on this connection already. The
    /// registry keeps every `RegisterEvent` until the connection closes,
    /// and tells every application of each: asked at every subscription,
    /// the lists of the registry and of every application would grow with
    /// each. A registry started again (another unique name) knows none.
    pub(crate) fn listened_for(&self, registry: &str, kind: &'static str) -> bool {
        self.registered
            .lock()
            .is_ok_and(|registered| registered.contains(&(registry.to_owned(), kind)))
    }

    /// Records that events of `kind` were asked of the registry whose
    /// unique name is `registry` on this connection.
    pub(crate) fn mark_listened_for(&self, registry: &str, kind: &'static str) {
        if let Ok(mut registered) = self.registered.lock() {
            registered.insert((registry.to_owned(), kind));
        }
    }

    /// Records that application `dest` holds a container too big to read
    /// whole, as a capture found (for as long as this connection lives:
    /// a capture of one of its windows says nothing of the others).
    pub(crate) fn mark_holds_huge(&self, dest: &str) {
        if let Ok(mut huge) = self.huge.lock() {
            huge.insert(dest.to_owned());
        }
    }

    /// Records the object whose children list each root pane, as a
    /// capture found them (each as application and path, the holder by its
    /// path in the same application): LibreOffice's root pane names its
    /// window as its parent, while the window lists it inside the box below
    /// its native menu bar, whose place says where the pane shows (see
    /// [`crate::Actor::shown_below_reported`]). Kept for as long as this
    /// connection lives, or the application: a window's boxes stay where
    /// they are.
    pub(crate) fn note_holders(&self, held: impl IntoIterator<Item = (String, String, String)>) {
        if let Ok(mut holders) = self.holders.lock() {
            for (dest, pane, holder) in held {
                holders.insert((dest, pane), holder);
            }
        }
    }

    /// The path of the object that lists root pane `pane` of application
    /// `dest` among its children, as the last capture that read it found.
    pub(crate) fn holder(&self, dest: &str, pane: &str) -> Option<String> {
        let holders = self.holders.lock().ok()?;
        holders.get(&(dest.to_owned(), pane.to_owned())).cloned()
    }

    /// Records widgets a capture found in their place inside a root pane
    /// reported higher than it shows (each as application and path; see
    /// `toolkit::libreoffice::welded_in_place`): what is in them is not
    /// moved where the pointer aims. Kept as holders are.
    pub(crate) fn note_in_place(&self, widgets: impl IntoIterator<Item = (String, String)>) {
        if let Ok(mut in_place) = self.in_place.lock() {
            in_place.extend(widgets);
        }
    }

    /// Whether a capture found the object `path` of `dest` in its place
    /// (see [`Bus::note_in_place`]).
    pub(crate) fn is_in_place(&self, dest: &str, path: &str) -> bool {
        self.in_place
            .lock()
            .is_ok_and(|in_place| in_place.contains(&(dest.to_owned(), path.to_owned())))
    }

    /// Whether application `dest` was last seen holding a container too
    /// big to read whole: a search of its windows through `Collection`
    /// would walk all of that container (AT-SPI's ATK bridge does not stop
    /// at `manages-descendants`) and not come back.
    pub(crate) fn holds_huge(&self, dest: &str) -> bool {
        self.huge.lock().is_ok_and(|huge| huge.contains(dest))
    }

    /// Closes the direct connections to applications that `listed` does
    /// not hold any more (they left the bus).
    pub fn forget_peers_but(&self, listed: &[&str]) {
        if let Ok(mut peers) = self.peers.lock() {
            peers.retain(|(dest, _), _| listed.contains(&dest.as_str()));
        }
        if let Ok(mut profiles) = self.profiles.lock() {
            profiles.retain(|dest, _| listed.contains(&dest.as_str()));
        }
        if let Ok(mut holders) = self.holders.lock() {
            holders.retain(|(dest, _), _| listed.contains(&dest.as_str()));
        }
        if let Ok(mut in_place) = self.in_place.lock() {
            in_place.retain(|(dest, _)| listed.contains(&dest.as_str()));
        }
    }

    /// The toolkit of `app` and its rules (see [`crate::toolkit`]), read
    /// once per application (`Application.ToolkitName` and
    /// `ToolkitVersion`). An application that does not say, or cannot be
    /// asked now, has the profile of no toolkit, and is asked again next
    /// time.
    pub async fn profile(&self, app: &AppRef) -> Profile {
        if let Some(known) = self
            .profiles
            .lock()
            .ok()
            .and_then(|p| p.get(&app.bus_name).cloned())
        {
            return known;
        }
        let label = app.label();
        let target = &Target {
            doing: "reading the toolkit of",
            who: &label,
        };
        let property = |property: Property| async move {
            self.property(target, &app.bus_name, ROOT_PATH, property)
                .await
                .map(|v| String::try_from(v).unwrap_or_default())
        };
        let (name, version) = futures_util::join!(
            property(application::TOOLKIT_NAME),
            property(application::TOOLKIT_VERSION)
        );
        let Ok(name) = name else {
            return Profile::default();
        };
        let profile = Profile::detect(&name, &version.unwrap_or_default(), &app.name);
        tracing::debug!(app = %app.label(), ?profile, "toolkit");
        if let Ok(mut profiles) = self.profiles.lock() {
            profiles.insert(app.bus_name.clone(), profile.clone());
        }
        profile
    }

    /// The direct connection to the application `dest` for `what`, opened
    /// on first use.
    async fn peer(&self, target: &Target<'_>, dest: &str, what: Use) -> Option<zbus::Connection> {
        let key = (dest.to_owned(), what);
        if let Some(known) = self.peers.lock().ok()?.get(&key) {
            return known.clone();
        }
        // An application that does not answer now is asked again next time.
        let address: String = self
            .call(
                target,
                dest,
                ROOT_PATH,
                application::GET_APPLICATION_BUS_ADDRESS,
                &(),
            )
            .await
            .ok()?;
        let peer = match address.as_str() {
            "" => None,
            address => connect_peer(address, self.timeout).await,
        };
        self.peers.lock().ok()?.insert(key, peer.clone());
        peer
    }

    async fn call_on<A, R>(
        &self,
        conn: &zbus::Connection,
        dest: Option<&str>,
        target: &Target<'_>,
        path: &str,
        method: Method<A, R>,
        args: &A,
    ) -> Result<R>
    where
        A: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let call = conn.call_method(dest, path, Some(method.iface), method.name, args);
        let method = method.name;
        let reply = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| Error::Timeout {
                doing: target.doing,
                target: target.who.to_owned(),
                method,
                after: self.timeout,
            })?
            .map_err(|e| classify(e, target, method, self.timeout))?;
        reply.body().deserialize::<R>().map_err(|e| Error::Call {
            doing: target.doing,
            target: target.who.to_owned(),
            method,
            detail: format!("unexpected reply: {e}"),
        })
    }
}

/// A peer-to-peer connection to an application's own socket; `None` when
/// it cannot be made in time (the bus is used then).
async fn connect_peer(address: &str, timeout: Duration) -> Option<zbus::Connection> {
    let builder = zbus::connection::Builder::address(address).ok()?.p2p();
    match tokio::time::timeout(timeout, builder.build()).await {
        Ok(Ok(conn)) => Some(conn),
        _ => None,
    }
}

/// Whether an error means the object is gone but the application is alive
/// (a node destroyed while we walked): such nodes are skipped.
pub fn object_vanished(e: &Error) -> bool {
    match e {
        Error::Call { detail, .. } => {
            detail.contains("UnknownObject")
                || detail.contains("UnknownMethod")
                || detail.contains("UnknownInterface")
                || detail.contains("Unknown object")
        }
        _ => false,
    }
}

fn classify(e: zbus::Error, target: &Target<'_>, method: &'static str, after: Duration) -> Error {
    let detail = e.to_string();
    let gone = match &e {
        zbus::Error::MethodError(name, _, _) => {
            let n = name.as_str();
            n.ends_with("ServiceUnknown")
                || n.ends_with("NoReply")
                || n.ends_with("NameHasNoOwner")
                || n.ends_with("Disconnected")
        }
        zbus::Error::InputOutput(_) => true,
        _ => false,
    };
    if matches!(e, zbus::Error::InputOutput(ref io) if io.kind() == std::io::ErrorKind::TimedOut) {
        return Error::Timeout {
            doing: target.doing,
            target: target.who.to_owned(),
            method,
            after,
        };
    }
    if gone {
        Error::Gone {
            doing: target.doing,
            target: target.who.to_owned(),
            detail,
        }
    } else {
        Error::Call {
            doing: target.doing,
            target: target.who.to_owned(),
            method,
            detail,
        }
    }
}

/// The I/O error inside `e` alone (`Broken pipe`), else all of it.
fn io_detail(e: &zbus::Error) -> String {
    match e {
        zbus::Error::InputOutput(io) => io.to_string(),
        e => e.to_string(),
    }
}

async fn a11y_address(session: Option<&str>) -> Result<String> {
    // Where the session bus was looked for, and how to point elsewhere.
    let tried = match session {
        Some(a) => format!("the session bus at {a}"),
        None => match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
            Ok(a) if !a.is_empty() => {
                format!("the session bus at {a} (from DBUS_SESSION_BUS_ADDRESS)")
            }
            _ => "the session bus (DBUS_SESSION_BUS_ADDRESS is not set, so at \
                  $XDG_RUNTIME_DIR/bus)"
                .to_owned(),
        },
    };
    let fix = "; start the session bus there, or set DBUS_SESSION_BUS_ADDRESS to its \
               address, or AT_SPI_BUS_ADDRESS to the accessibility bus's";
    let builder = match session {
        Some(a) => zbus::connection::Builder::address(a),
        None => zbus::connection::Builder::session(),
    }
    .map_err(|e| Error::Connect {
        detail: format!("no {tried}: {e}{fix}"),
    })?;
    let session_conn = tokio::time::timeout(CALL_TIMEOUT * 2, builder.build())
        .await
        .map_err(|_| Error::Connect {
            detail: format!("{tried} did not answer"),
        })?
        .map_err(|e| Error::Connect {
            detail: format!("cannot reach {tried}: {}{fix}", io_detail(&e)),
        })?;
    let call = session_conn.call_method(
        Some("org.a11y.Bus"),
        "/org/a11y/bus",
        Some("org.a11y.Bus"),
        "GetAddress",
        &(),
    );
    let reply = tokio::time::timeout(CALL_TIMEOUT * 2, call)
        .await
        .map_err(|_| Error::Connect {
            detail: "org.a11y.Bus.GetAddress did not answer; is at-spi2-core installed?".into(),
        })?
        .map_err(|e| Error::Connect {
            detail: format!(
                "org.a11y.Bus.GetAddress failed ({e}); install at-spi2-core \
                 (`apt-get install -y at-spi2-core`)"
            ),
        })?;
    let address = reply
        .body()
        .deserialize::<String>()
        .map_err(|e| Error::Connect {
            detail: format!("org.a11y.Bus.GetAddress: unexpected reply: {e}"),
        })?;
    say_an_assistive_technology_is_here(&session_conn).await;
    Ok(address)
}

/// Sets the session's `org.a11y.Status.IsEnabled`, as a screen reader
/// does when it starts: applications that join the accessibility bus only
/// when one is running (Gecko's: Firefox and Thunderbird) join it then,
/// those already running included; the first connection of a session
/// waits half a second for them. (Qt 5 looks at its environment alone.)
/// A session that refuses leaves the applications that joined anyway,
/// which is logged.
async fn say_an_assistive_technology_is_here(session: &zbus::Connection) {
    /// How long applications are given to join once told, the first time.
    const JOINING: Duration = Duration::from_millis(500);
    const STATUS: &str = "org.a11y.Status";
    const BUS: Option<&str> = Some("org.a11y.Bus");
    const PROPERTIES: Option<&str> = Some("org.freedesktop.DBus.Properties");
    let get = session.call_method(
        BUS,
        "/org/a11y/bus",
        PROPERTIES,
        "Get",
        &(STATUS, "IsEnabled"),
    );
    if let Ok(Ok(reply)) = tokio::time::timeout(CALL_TIMEOUT, get).await {
        let value = reply.body().deserialize::<OwnedValue>();
        if value.is_ok_and(|v| bool::try_from(&*v).unwrap_or(false)) {
            return;
        }
    }
    let body = (STATUS, "IsEnabled", zbus::zvariant::Value::from(true));
    let set = session.call_method(BUS, "/org/a11y/bus", PROPERTIES, "Set", &body);
    match tokio::time::timeout(CALL_TIMEOUT, set).await {
        Ok(Ok(_)) => {
            // Firefox registers within 200 ms of being told.
            tracing::debug!("set org.a11y.Status.IsEnabled; waiting for applications to join");
            tokio::time::sleep(JOINING).await;
        }
        Ok(Err(e)) => tracing::info!(error = %e, "the session refused org.a11y.Status.IsEnabled"),
        Err(_) => tracing::info!("setting org.a11y.Status.IsEnabled did not answer"),
    }
}

/// The `__keep-action DEST PATH INDEX` command of a program that makes
/// actions for a short-lived one ([`Bus::keep_actions_with`]): performs the
/// action over a direct connection of its own, prints `true`, `false`,
/// `timeout: ...`, `gone: ...` or `error: ...` on a line of standard output, then keeps that connection
/// open, and sends nothing on it, while the handler may still be running:
/// as long as a window that the action opened is shown, or 2 s when it
/// opened none; at most `limit`. (Anything arriving on the connection while
/// the handler holds its dispatch, a ping included, lets the next key
/// hang GTK, as its closing does.) The application's windows are read over
/// another direct connection.
pub async fn keep_action(dest: &str, path: &str, index: i32, limit: Duration) -> Result<()> {
    use std::io::Write;
    /// How long a window the action opens may take to show.
    const OPENS: Duration = Duration::from_secs(2);
    let bus = Bus::connect(None).await?;
    let target = Target {
        doing: "acting on",
        who: dest,
    };
    let reading = bus.reading(&target, dest).await;
    let actor = crate::Actor::new(&reading, dest);
    let root = crate::NodeAddr {
        bus: dest.to_owned(),
        path: ROOT_PATH.to_owned(),
    };
    let shown = || async {
        let mut out = Vec::new();
        for w in actor.children(&root).await? {
            if actor
                .states(&w)
                .await?
                .contains(uidelta_model::State::Showing)
            {
                out.push(w);
            }
        }
        Result::Ok(out)
    };
    let before = shown().await.unwrap_or_default();
    // One line: `true`, `false`, or the error's kind and message.
    let answer = match bus.do_action(&target, dest, path, index).await {
        Ok(done) => done.to_string(),
        Err(e @ Error::Timeout { .. }) => format!("timeout: {e}"),
        Err(Error::Gone { detail, .. }) => format!("gone: {detail}"),
        Err(e) => format!("error: {e}"),
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{answer}").and_then(|()| out.flush());
    drop(out);
    let start = std::time::Instant::now();
    let mut opened = false;
    while start.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(250)).await;
        // An application that is gone, or cannot be read: nothing to keep.
        let Ok(now) = shown().await else {
            break;
        };
        let new = now.iter().any(|w| !before.contains(w));
        opened |= new;
        if (opened && !new) || (!opened && start.elapsed() > OPENS) {
            break;
        }
    }
    Ok(())
}
