//! The AT-SPI methods and properties uidelta uses, each declared once: its
//! interface, its name, and the types of its arguments and of its answer.
//! [`Bus::call`](crate::Bus::call) takes a [`Method`] and its arguments, and
//! decodes the answer as the method declares it; properties are read one
//! at a time ([`Bus::property`](crate::Bus::property)), never with
//! `GetAll` (Qt 5.15 crashes on `GetAll` of the Accessible interface).
//!
//! Roles, states and interfaces travel as the numbers and names the
//! application sends, and are read into the model by the `state` module: a
//! role or an interface newer than this list is kept, not an error that
//! loses the whole answer.

use std::collections::HashMap;
use std::marker::PhantomData;

use serde::Deserialize;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Type};

/// `org.a11y.atspi.Accessible`.
pub const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
/// `org.a11y.atspi.Action`.
pub const ACTION: &str = "org.a11y.atspi.Action";
/// `org.a11y.atspi.Application`.
pub const APPLICATION: &str = "org.a11y.atspi.Application";
/// `org.a11y.atspi.Cache`.
pub const CACHE: &str = "org.a11y.atspi.Cache";
/// `org.a11y.atspi.Collection`.
pub const COLLECTION: &str = "org.a11y.atspi.Collection";
/// `org.a11y.atspi.Component`.
pub const COMPONENT: &str = "org.a11y.atspi.Component";
/// `org.a11y.atspi.EditableText`.
pub const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
/// `org.a11y.atspi.Registry`.
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
/// `org.a11y.atspi.Selection`.
pub const SELECTION: &str = "org.a11y.atspi.Selection";
/// `org.a11y.atspi.Table`.
pub const TABLE: &str = "org.a11y.atspi.Table";
/// `org.a11y.atspi.Text`.
pub const TEXT: &str = "org.a11y.atspi.Text";
/// `org.a11y.atspi.Value`.
pub const VALUE: &str = "org.a11y.atspi.Value";
/// `org.freedesktop.DBus.Properties`, through which properties are read
/// and set.
pub const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// The bus name of the accessibility registry.
pub const REGISTRY_NAME: &str = "org.a11y.atspi.Registry";
/// The object path of the registry's event interface.
pub const REGISTRY_PATH: &str = "/org/a11y/atspi/registry";
/// The object path of an application's cache.
pub const CACHE_PATH: &str = "/org/a11y/atspi/cache";

/// An object on the bus: the unique name of its application, and its path.
pub type ObjRef = (String, OwnedObjectPath);

/// One D-Bus method of AT-SPI: called with `A`, answering `R`.
pub struct Method<A, R> {
    /// Its interface: `org.a11y.atspi.Accessible`.
    pub iface: &'static str,
    /// Its name: `GetChildren`.
    pub name: &'static str,
    types: PhantomData<fn(A) -> R>,
}

impl<A, R> Clone for Method<A, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, R> Copy for Method<A, R> {}

impl<A, R> std::fmt::Debug for Method<A, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.iface, self.name)
    }
}

const fn method<A, R>(iface: &'static str, name: &'static str) -> Method<A, R> {
    Method {
        iface,
        name,
        types: PhantomData,
    }
}

/// One property of an AT-SPI interface, read through
/// `org.freedesktop.DBus.Properties.Get` as a variant (applications differ
/// in the exact type they send: a number may come as `i` or `u`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its interface: `org.a11y.atspi.Accessible`.
    pub iface: &'static str,
    /// Its name: `Name`.
    pub name: &'static str,
}

const fn property(iface: &'static str, name: &'static str) -> Property {
    Property { iface, name }
}

/// `org.a11y.atspi.Accessible`.
pub mod accessible {
    use super::*;

    /// The children, in order.
    pub const GET_CHILDREN: Method<(), Vec<ObjRef>> = method(ACCESSIBLE, "GetChildren");
    /// The role number (`ATSPI_ROLE_*`).
    pub const GET_ROLE: Method<(), u32> = method(ACCESSIBLE, "GetRole");
    /// The states, as two 32-bit words of bits.
    pub const GET_STATE: Method<(), Vec<u32>> = method(ACCESSIBLE, "GetState");
    /// The names of the interfaces it implements.
    pub const GET_INTERFACES: Method<(), Vec<String>> = method(ACCESSIBLE, "GetInterfaces");
    /// Its object attributes (`tag`, `level`, ...).
    pub const GET_ATTRIBUTES: Method<(), HashMap<String, String>> =
        method(ACCESSIBLE, "GetAttributes");
    /// Its relations: the relation number and the objects at its other end.
    pub const GET_RELATION_SET: Method<(), Vec<(u32, Vec<ObjRef>)>> =
        method(ACCESSIBLE, "GetRelationSet");
    /// Its index among its parent's children.
    pub const GET_INDEX_IN_PARENT: Method<(), i32> = method(ACCESSIBLE, "GetIndexInParent");
    /// Its name.
    pub const NAME: Property = property(ACCESSIBLE, "Name");
    /// Its description.
    pub const DESCRIPTION: Property = property(ACCESSIBLE, "Description");
    /// How many children it has.
    pub const CHILD_COUNT: Property = property(ACCESSIBLE, "ChildCount");
    /// Its parent, an [`ObjRef`].
    pub const PARENT: Property = property(ACCESSIBLE, "Parent");
}

/// `org.a11y.atspi.Action`.
pub mod action {
    use super::*;

    /// Each action's localized name, description and key binding.
    pub const GET_ACTIONS: Method<(), Vec<(String, String, String)>> = method(ACTION, "GetActions");
    /// The name of the action at an index.
    pub const GET_NAME: Method<(i32,), String> = method(ACTION, "GetName");
    /// Runs the action at an index; whether the application did.
    pub const DO_ACTION: Method<(i32,), bool> = method(ACTION, "DoAction");
}

/// `org.a11y.atspi.Application`.
pub mod application {
    use super::*;

    /// The address of the application's own D-Bus server (empty: none).
    pub const GET_APPLICATION_BUS_ADDRESS: Method<(), String> =
        method(APPLICATION, "GetApplicationBusAddress");
    /// Its toolkit's name: `GTK`, `Qt`, `Chromium`.
    pub const TOOLKIT_NAME: Property = property(APPLICATION, "ToolkitName");
    /// Its toolkit's version.
    pub const TOOLKIT_VERSION: Property = property(APPLICATION, "ToolkitVersion");
}

/// One object as an application's cache gives it (`GetItems`).
#[derive(Clone, Debug, Deserialize, Type)]
pub struct CacheItem {
    /// The object.
    pub object: ObjRef,
    /// Its application.
    pub app: ObjRef,
    /// Its parent.
    pub parent: ObjRef,
    /// Its index among its parent's children.
    pub index: i32,
    /// How many children it has (-1: it does not say).
    pub children: i32,
    /// The names of the interfaces it implements.
    pub interfaces: Vec<String>,
    /// Its name.
    pub name: String,
    /// Its role number.
    pub role: u32,
    /// Its description.
    pub description: String,
    /// Its states, as two 32-bit words of bits.
    pub states: Vec<u32>,
}

/// `org.a11y.atspi.Cache`.
pub mod cache {
    use super::*;

    /// Every object the application has made, in one answer.
    pub const GET_ITEMS: Method<(), Vec<CacheItem>> = method(CACHE, "GetItems");
}

/// `org.a11y.atspi.Collection`.
pub mod collection {
    use super::*;

    /// A match rule: states and how they match, attributes and how, roles
    /// and how, interfaces and how, and whether to invert it.
    pub type MatchRule = (
        Vec<i32>,
        i32,
        HashMap<String, String>,
        i32,
        Vec<i32>,
        i32,
        Vec<String>,
        i32,
        bool,
    );

    /// The objects under this one that match a rule: the rule, the sort
    /// order, how many at most, and whether to look below the children.
    pub const GET_MATCHES: Method<(MatchRule, u32, i32, bool), Vec<ObjRef>> =
        method(COLLECTION, "GetMatches");
}

/// `org.a11y.atspi.Component`.
pub mod component {
    use super::*;

    /// Its extents (x, y, width, height) in a coordinate type (0: screen).
    pub const GET_EXTENTS: Method<(u32,), (i32, i32, i32, i32)> = method(COMPONENT, "GetExtents");
    /// The object under a point (x, y, coordinate type).
    pub const GET_ACCESSIBLE_AT_POINT: Method<(i32, i32, u32), ObjRef> =
        method(COMPONENT, "GetAccessibleAtPoint");
    /// Gives it keyboard focus.
    pub const GRAB_FOCUS: Method<(), bool> = method(COMPONENT, "GrabFocus");
    /// Scrolls it into view (a scroll type: 6 is anywhere).
    pub const SCROLL_TO: Method<(u32,), bool> = method(COMPONENT, "ScrollTo");
}

/// `org.a11y.atspi.EditableText`.
pub mod editable_text {
    use super::*;

    /// Inserts text at an offset (offset, text, its length in characters).
    pub const INSERT_TEXT: Method<(i32, String, i32), bool> = method(EDITABLE_TEXT, "InsertText");
    /// Replaces all its text.
    pub const SET_TEXT_CONTENTS: Method<(String,), bool> = method(EDITABLE_TEXT, "SetTextContents");
    /// Deletes the text between two offsets.
    pub const DELETE_TEXT: Method<(i32, i32), bool> = method(EDITABLE_TEXT, "DeleteText");
}

/// `org.a11y.atspi.Registry`.
pub mod registry {
    use super::*;

    /// Asks applications to send events of a kind (`object:children-changed`).
    pub const REGISTER_EVENT: Method<(String,), ()> = method(REGISTRY, "RegisterEvent");
}

/// `org.a11y.atspi.Selection`.
pub mod selection {
    use super::*;

    /// Selects the child at an index.
    pub const SELECT_CHILD: Method<(i32,), bool> = method(SELECTION, "SelectChild");
    /// Deselects the child at an index.
    pub const DESELECT_CHILD: Method<(i32,), bool> = method(SELECTION, "DeselectChild");
    /// Whether the child at an index is selected.
    pub const IS_CHILD_SELECTED: Method<(i32,), bool> = method(SELECTION, "IsChildSelected");
}

/// `org.a11y.atspi.Table`.
pub mod table {
    use super::*;

    /// The row of the cell at a child index.
    pub const GET_ROW_AT_INDEX: Method<(i32,), i32> = method(TABLE, "GetRowAtIndex");
    /// The column of the cell at a child index.
    pub const GET_COLUMN_AT_INDEX: Method<(i32,), i32> = method(TABLE, "GetColumnAtIndex");
    /// The cell at a row and column.
    pub const GET_ACCESSIBLE_AT: Method<(i32, i32), ObjRef> = method(TABLE, "GetAccessibleAt");
    /// Adds a row to the selection.
    pub const ADD_ROW_SELECTION: Method<(i32,), bool> = method(TABLE, "AddRowSelection");
    /// Takes a row out of the selection.
    pub const REMOVE_ROW_SELECTION: Method<(i32,), bool> = method(TABLE, "RemoveRowSelection");
    /// How many rows it has.
    pub const N_ROWS: Property = property(TABLE, "NRows");
    /// How many columns it has.
    pub const N_COLUMNS: Property = property(TABLE, "NColumns");
}

/// `org.a11y.atspi.Text`.
pub mod text {
    use super::*;

    /// The text between two offsets (-1: the end).
    pub const GET_TEXT: Method<(i32, i32), String> = method(TEXT, "GetText");
    /// How many stretches of text are selected.
    pub const GET_N_SELECTIONS: Method<(), i32> = method(TEXT, "GetNSelections");
    /// Where a selected stretch starts and ends.
    pub const GET_SELECTION: Method<(i32,), (i32, i32)> = method(TEXT, "GetSelection");
    /// How many characters it has.
    pub const CHARACTER_COUNT: Property = property(TEXT, "CharacterCount");
    /// Where the caret is (a property: the interface has no method for it).
    pub const CARET_OFFSET: Property = property(TEXT, "CaretOffset");
    /// Puts the caret at an offset, with nothing selected.
    pub const SET_CARET_OFFSET: Method<(i32,), bool> = method(TEXT, "SetCaretOffset");
    /// Sets a selected stretch (its number, start, end).
    pub const SET_SELECTION: Method<(i32, i32, i32), bool> = method(TEXT, "SetSelection");
}

/// `org.a11y.atspi.Value`.
pub mod value {
    use super::*;

    /// The current value, a number.
    pub const CURRENT_VALUE: Property = property(VALUE, "CurrentValue");
}

/// `org.freedesktop.DBus.Properties`.
pub(crate) mod properties {
    use super::*;

    /// Reads one property (interface, name).
    pub const GET: Method<(&'static str, &'static str), OwnedValue> = method(PROPERTIES, "Get");
    /// Sets one property (interface, name, value).
    pub const SET: Method<(&'static str, &'static str, zbus::zvariant::Value<'static>), ()> =
        method(PROPERTIES, "Set");
    /// Reads every property of an interface at once.
    pub const GET_ALL: Method<(&'static str,), HashMap<String, OwnedValue>> =
        method(PROPERTIES, "GetAll");
}

/// `org.freedesktop.DBus.Peer`.
pub(crate) mod peer {
    use super::*;

    /// Answers nothing, at once: whether the peer's dispatch is free.
    pub const PING: Method<(), ()> = method("org.freedesktop.DBus.Peer", "Ping");
}

/// `org.freedesktop.DBus`, the bus daemon itself.
pub(crate) mod dbus {
    use super::*;

    /// The bus daemon's name.
    pub const NAME: &str = "org.freedesktop.DBus";
    /// The bus daemon's object.
    pub const PATH: &str = "/org/freedesktop/DBus";
    /// The process id of a connection, by its unique name.
    pub const GET_CONNECTION_UNIX_PROCESS_ID: Method<(String,), u32> =
        method(NAME, "GetConnectionUnixProcessID");
    /// The unique name that owns a well-known name now.
    pub const GET_NAME_OWNER: Method<(String,), String> = method(NAME, "GetNameOwner");
}
