//! A live mirror of a page's accessibility tree: after a whole read, a
//! capture reads again only what changed.
//!
//! The change script (the `events` module) notes the DOM nodes that changed
//! since the last capture, each with what of it to read again: itself (an
//! attribute such as `aria-checked`, a value typed, the focus), its
//! children (nodes inserted or removed), or its whole subtree (a class or a
//! style changed, a transition ended). A capture asks for them first
//! ([`take`]): the DOM nodes come back as backend node ids, which are also
//! the ids of their accessibility nodes. The mirror then reads those nodes
//! again (`Accessibility.getPartialAXTree`), with their ancestors whose
//! names come from their contents (a button's name changes with its text),
//! the children of those whose children changed
//! (`Accessibility.getChildAXNodes`), and the whole subtree of anything new,
//! one level per round trip. A node the DOM names but the accessibility
//! tree does not hold (it was not rendered) has its nearest ancestor in the
//! tree listed again. The boxes and the few DOM attributes the tree lacks
//! are read for the nodes read again (`DOM.getBoxModel`,
//! `DOM.describeNode`); the others keep theirs, so bounds of nodes that
//! moved without changing (below an inserted item) are as of the whole
//! read. Then the tree is assembled as after a whole read.
//!
//! Style rules that show or hide by state (`:hover`, `:checked`), by a
//! sibling or by an attribute change the tree without a mutation of what
//! they show: the script follows them ([`STATE_RULES`]) and marks what
//! they showed or hid.
//!
//! Whatever the script cannot vouch for is read whole: a new document (the
//! script's epoch changed), more than [`MAX_DIRTY`] nodes changed, a
//! navigation within the document (`:target`), a modal dialog opened or
//! closed (everything else leaves the tree), style sheets changed or style
//! rules it cannot follow, pages with frames, a mirror older than
//! [`MAX_AGE`], and more than [`MAX_READ`] nodes to read again.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::layout::{element_attributes, to_rect, Layout};
use super::wire::{self, ask, Raw};
use super::{AxNode, AxTree, AxValue, FrameInfo, FrameNodes, Readings};
use crate::error::Result;
use crate::protocol::Session;

/// Most DOM nodes the script notes between two captures; past that the
/// next capture is whole.
pub(crate) const MAX_DIRTY: usize = 200;

/// Most accessibility nodes read again; past that a whole read is cheaper.
pub(crate) const MAX_READ: usize = 3000;

/// A mirror older than this is read whole again.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(120);

/// Nodes new to the mirror are read again by themselves (with their boxes)
/// at each capture this long after they came: a node may be laid out, or
/// leave a modal dialog's shade, a moment after it is inserted, without a
/// change the script sees.
pub(crate) const SETTLING: Duration = Duration::from_secs(1);

/// Most nodes read again while they settle.
const MAX_SETTLING: usize = 200;

/// The object group of the capture's questions to the page.
const GROUP: &str = "uidelta-mirror";

/// The question to the change script.
const TAKE: &str = "(() => { const f = globalThis[Symbol.for('uidelta.dirty')]; \
                    return typeof f === 'function' ? f(true) : null; })()";

/// The same question when the page is read whole anyway: the script starts
/// afresh and says only its epoch, in one round trip.
const RESET: &str = "(() => { const f = globalThis[Symbol.for('uidelta.dirty')]; \
                     return typeof f === 'function' ? f(false) : null; })()";

/// Below this many nodes a page is read whole (with `MirrorUse::On`): a
/// whole read of a small page costs less than the round trips of a read
/// in part (measured on the browser benchmark's pages: 2-30 ms whole,
/// 3-60 ms in part).
pub(crate) const MIN_NODES: usize = 1500;

/// Roles whose names Chromium may compute from their contents: when
/// something below them changes, they are read again.
const NAMED_FROM_CONTENTS: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "listitem",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
    "LabelText",
    "legend",
    "caption",
    "DescriptionListTerm",
    "term",
];

/// Most elements that style rules by state may show or hide, compared at
/// each capture; past that the page is read whole.
pub(crate) const MAX_RESTYLED: usize = 3000;

/// The part of the change script (the `events` module) that follows the
/// style rules that show or hide without a mutation of what they show:
/// rules by state (`li:hover > ul { display: block }`, `:checked + .panel`,
/// `:focus-within`, `:has()`, `:empty`, `:invalid`), by an attribute the
/// script reads as a change of its element alone (`[aria-expanded=true] +
/// .panel`), by a sibling (`.open ~ .panel`) or by place among siblings
/// (`li:not(:last-child)::after { content: ", " }`). Such a rule that sets
/// display, visibility or generated content names, by its last compound
/// with those conditions taken as met, the elements it may show or hide. At
/// each question their computed display, visibility and generated content
/// are compared with the last question's, and those that changed are
/// marked with their subtrees. A change of the style sheets themselves (one
/// added, removed or disabled, a rule inserted or deleted) makes the page
/// read whole, as does a rule that cannot be followed so (nested rules,
/// `@scope`, `:host`, `::slotted`, `::part`, an escaped character) and
/// more than [`MAX_RESTYLED`] elements to compare. The rules of a sheet of
/// another origin, which the page cannot read, are followed from its text
/// once the capture gave it ([`give_sheets`]); until then, and for good if
/// it cannot be had, the page is read whole. The elements are compared only when something happened that
/// may change them (the script marked a node, the pointer moved, a
/// scroll). It needs `mark`, `roots` (the shadow roots watched) and
/// `SELF_ONLY` of the script; `restyled(marked)` says whether the page
/// must be read whole.
pub(crate) const STATE_RULES: &str = r#"
  const restyled = (() => {
    const STATE = /:(hover|focus|focus-within|focus-visible|active|checked|target|target-within|has|valid|invalid|placeholder-shown|open|closed|popover-open|indeterminate|default|defined|enabled|disabled|empty|user-invalid|user-valid|autofill|fullscreen|modal|read-only|read-write|required|optional|in-range|out-of-range|state|playing|paused|picture-in-picture|blank|first-child|last-child|only-child|first-of-type|last-of-type|only-of-type|nth-child|nth-last-child|nth-of-type|nth-last-of-type)(?![\w-])/;
    const ATTRIBUTE = new RegExp('\\[\\s*(' + [...SELF_ONLY].join('|') + ')\\s*[\\]~|^$*=]', 'i');
    const DYNAMIC = (sel) => STATE.test(sel) || ATTRIBUTE.test(sel);
    const FOLLOWED = ['display', 'visibility', 'content', 'contentVisibility'];
    const PSEUDO = { before: 1, after: 2, marker: 4 };
    const DEEP = 8;
    // Where the bracket or parenthesis opened at `open` closes, or -1.
    const closing = (s, open) => {
      let depth = 0;
      for (let i = open; i < s.length; i++) {
        if (s[i] === '(' || s[i] === '[') depth++;
        else if ((s[i] === ')' || s[i] === ']') && --depth === 0) return i;
      }
      return -1;
    };
    // A selector list split at its top-level commas.
    const split = (list) => {
      const out = [];
      let depth = 0, from = 0;
      for (let i = 0; i < list.length; i++) {
        const c = list[i];
        if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth--;
        else if (c === ',' && depth === 0) { out.push(list.slice(from, i)); from = i + 1; }
      }
      out.push(list.slice(from));
      return out;
    };
    // A complex selector's last compound, and whether a sibling combinator
    // comes before it.
    const last = (sel) => {
      sel = sel.trim();
      let depth = 0, from = 0, sibling = false;
      for (let i = 0; i < sel.length; i++) {
        const c = sel[i];
        if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth--;
        else if (depth === 0 && /[\s>+~]/.test(c)) { from = i + 1; if (c === '+' || c === '~') sibling = true; }
      }
      return [sel.slice(from), sibling];
    };
    // A compound with its states and changing attributes taken as met:
    // [selector, pseudo elements whose content counts], or null.
    const loosen = (sel) => {
      let out = '', pseudos = 0, i = 0;
      while (i < sel.length) {
        const c = sel[i];
        if (c === '[') {
          const end = closing(sel, i);
          if (end < 0) return null;
          const part = sel.slice(i, end + 1);
          out += ATTRIBUTE.test(part) ? ':is(*)' : part;
          i = end + 1;
          continue;
        }
        if (c !== ':') { out += c; i++; continue; }
        const m = /^::?([\w-]+)(\()?/.exec(sel.slice(i));
        if (!m) return null;
        const name = m[1].toLowerCase();
        let end = i + m[0].length - 1;
        if (m[2]) { end = closing(sel, end); if (end < 0) return null; }
        const inner = m[2] ? sel.slice(i + m[0].length, end) : '';
        if (PSEUDO[name]) { pseudos |= PSEUDO[name]; out += ':is(*)'; }
        else if (m[0].startsWith('::') || name === 'first-line' || name === 'first-letter') out += ':is(*)';
        else if (name === 'has' || name === 'state' || STATE.test(':' + name)) out += ':is(*)';
        else if (name === 'not') out += DYNAMIC(inner) ? ':is(*)' : sel.slice(i, end + 1);
        else if (/^(is|where|matches|-webkit-any)$/.test(name) && DYNAMIC(inner)) {
          const parts = split(inner).map((p) => loosen(last(p)[0]));
          if (parts.some((p) => !p)) return null;
          for (const p of parts) pseudos |= p[1];
          out += ':is(' + parts.map((p) => p[0]).join(',') + ')';
        } else out += sel.slice(i, end + 1);
        i = end + 1;
      }
      try { document.createDocumentFragment().querySelector(out); } catch (e) { return null; }
      return [out, pseudos];
    };
    // The sheets of another origin, which the page cannot read: their
    // text as the capture gave it (`Page.getResourceContent`), as sheets of
    // the script's own (null: it could not be had), and those wanted.
    const texts = new Map();
    const wanted = new Set();
    // A sheet's rules, or null when they cannot be read.
    const rulesOf = (sheet) => {
      try { return sheet.cssRules; } catch (e) {}
      const href = sheet.href;
      if (!href) return null;
      if (!texts.has(href)) { wanted.add(href); return null; }
      const own = texts.get(href);
      return own ? own.cssRules : null;
    };
    const follows = (style) => {
      for (const p of FOLLOWED) if (style[p]) return true;
      return false;
    };
    // The rules of `rules` to follow, added to `out`; false when one
    // cannot be followed.
    const collect = (rules, root, out, nested) => {
      for (const r of rules) {
        if ('start' in r && 'end' in r) return false;
        if (r.styleSheet) {
          const inner = rulesOf(r.styleSheet);
          if (!inner || !collect(inner, root, out, nested)) return false;
          continue;
        }
        const sel = r.selectorText;
        if (sel && r.style && follows(r.style)) {
          for (const one of split(sel)) {
            const [subject, sibling] = last(one);
            if (!sibling && !DYNAMIC(one)) continue;
            if (nested || /&|:host|::slotted|::part|\\/.test(one)) return false;
            const loose = loosen(subject);
            if (!loose) return false;
            // Whether the rule may give a box of its own (`display:
            // contents`) or skip its contents (`content-visibility`):
            // then the computed style is compared, not only whether it
            // shows.
            const deep = r.style.display === 'contents' || !!r.style.contentVisibility;
            out.push([root, loose[0], loose[1] | (deep ? DEEP : 0)]);
          }
        }
        if (r.cssRules && r.cssRules.length && !collect(r.cssRules, root, out, nested || !!sel)) return false;
      }
      return true;
    };
    // Every style sheet that applies, each as its root, itself, and what
    // tells that it changed.
    const WIDTH = 5;
    const sheets = () => {
      const out = [];
      const add = (root) => {
        for (const list of [root.styleSheets, root.adoptedStyleSheets])
          for (const sheet of list || []) {
            let count = -1;
            try { count = sheet.cssRules.length; } catch (e) {}
            out.push(root, sheet, count, sheet.disabled, sheet.media ? sheet.media.mediaText : '');
          }
      };
      add(document);
      // Shadow roots gone since are forgotten.
      let kept = 0;
      for (const ref of roots) {
        const root = ref.deref();
        if (!root) continue;
        roots[kept++] = ref;
        if (root.host && root.host.isConnected) add(root);
      }
      roots.length = kept;
      return out;
    };
    let seenSheets = null;
    let followed = null;
    let seen = new WeakMap();
    // What an element shows: whether it shows at all (`checkVisibility`
    // is several times cheaper than reading its computed style), its
    // computed display and content visibility where a rule may change
    // those alone, and its generated contents.
    const look = (el, pseudos) => {
      let sig = el.checkVisibility({ visibilityProperty: true }) ? 'v' : 'h';
      if (pseudos & DEEP) {
        const cs = getComputedStyle(el);
        sig += cs.display + '|' + cs.contentVisibility;
      }
      for (const [name, bit] of Object.entries(PSEUDO))
        if (pseudos & bit) {
          const ps = getComputedStyle(el, '::' + name);
          sig += '|' + ps.content + '|' + ps.display;
        }
      return sig;
    };
    // Whether anything that may change what such a rule matches happened
    // since the last question, besides what the script marks (mutations,
    // inputs, the focus, transitions): the pointer over another element,
    // a scroll, the window resized, media played or paused.
    let stirred = true;
    const stir = () => { stirred = true; };
    for (const type of ['mouseover', 'mouseout', 'scroll', 'resize', 'fullscreenchange', 'play',
                        'pause', 'ended'])
      addEventListener(type, stir, { capture: true, passive: true });
    // `marked`: whether the script marked anything (or gave up marking)
    // since the last question.
    const check = (marked) => {
      try {
        const now = sheets();
        const changed = !seenSheets || now.length !== seenSheets.length
          || now.some((x, k) => x !== seenSheets[k]);
        if (!changed && !stirred && !marked && followed) return false;
        stirred = false;
        if (changed) {
          seenSheets = now;
          seen = new WeakMap();
          followed = [];
          let all = true;
          for (let k = 0; k < now.length; k += WIDTH) {
            const rules = rulesOf(now[k + 1]);
            if (!rules || !collect(rules, now[k], followed, false)) all = false;
          }
          if (!all) followed = null;
        }
        if (!followed) return true;
        const elements = new Map();
        for (const [root, sel, pseudos] of followed)
          for (const el of root.querySelectorAll(sel)) {
            elements.set(el, (elements.get(el) || 0) | pseudos);
            if (elements.size > __MAX_RESTYLED__) { seenSheets = null; return true; }
          }
        for (const [el, pseudos] of elements) {
          const sig = look(el, pseudos);
          const was = seen.get(el);
          if (was !== undefined && was !== sig) mark(el, 4);
          seen.set(el, sig);
        }
        return changed;
      } catch (e) {
        seenSheets = null;
        return true;
      }
    };
    // The capture's side: the sheets wanted, and their texts given (by
    // URL; anything but a string is a sheet that could not be had). The
    // rules are collected again at once, and what the elements show then
    // is what the next question compares with: the capture reads the page
    // whole right after.
    const give = (given) => {
      for (const href of wanted) {
        const text = given && given[href];
        let own = null;
        // A sheet of its own ignores `@import`: such a text is not followed.
        if (typeof text === 'string' && !/@import/i.test(text))
          try { own = new CSSStyleSheet(); own.replaceSync(text); } catch (e) { own = null; }
        texts.set(href, own);
      }
      wanted.clear();
      seenSheets = null;
      check(true);
    };
    Object.defineProperty(globalThis, Symbol.for('uidelta.styles'), {
      value: { wanted: () => Array.from(wanted), give },
    });
    check.wanting = () => wanted.size > 0;
    return check;
  })();
"#;

/// The main frame's nodes and layout as of the last capture.
pub(crate) struct PageMirror {
    /// The change script's epoch (one per document).
    pub epoch: String,
    pub frame: FrameInfo,
    nodes: Vec<AxNode>,
    /// Node id -> place in `nodes`.
    index: FxHashMap<String, usize>,
    /// Backend node id -> the nodes whose name, description or relations
    /// it is part of (a label -> its field). Kept as nodes are read again;
    /// ids of nodes gone since are skipped.
    referrers: FxHashMap<i64, Vec<String>>,
    /// What the nodes not read again since read as.
    readings: Readings,
    /// Nodes new since a read in part, with when they came (see
    /// [`SETTLING`]).
    settling: Vec<(String, Instant)>,
    /// Whether no read in part followed the whole read yet.
    after_whole: bool,
    pub layout: Layout,
    /// When the tree was last read whole.
    pub since: Instant,
    /// A read of the page was given up (a JavaScript dialog blocked it)
    /// after the page's changes were taken: the tree is the page as last
    /// read, to show behind the dialog, and the next capture reads the
    /// page whole.
    pub stale: bool,
}

/// What the change script says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Dirty {
    /// No script in the page (nothing observed it yet).
    Absent,
    /// Read the page whole.
    Whole(String),
    /// The document's URL now (without its fragment), and these backend
    /// node ids changed, each with how (1 itself, 2 its children, 4 its
    /// subtree).
    Part(String, String, Vec<(i64, u8)>),
}

impl Dirty {
    pub fn epoch(&self) -> Option<&str> {
        match self {
            Dirty::Absent => None,
            Dirty::Whole(e) | Dirty::Part(e, _, _) => Some(e),
        }
    }
}

/// The `result` of an answer.
fn value(answer: Result<Raw>) -> Option<Value> {
    match answer.ok()? {
        Raw::Json(v) => Some(v),
        Raw::Text(text) => wire::result::<Value>(&text).ok(),
    }
}

/// The question for the style sheets of another origin the change script
/// wants (see [`STATE_RULES`]).
const WANTED: &str = "(() => { const s = globalThis[Symbol.for('uidelta.styles')]; \
                      return s ? s.wanted() : []; })()";

/// Most sheets of another origin given to the change script at once, and
/// the longest text of one.
const MAX_SHEETS: usize = 32;
const MAX_SHEET_TEXT: usize = 4 << 20;

/// Gives the change script the texts of the style sheets of another origin
/// it wants (the page cannot read their rules; the browser holds their
/// text: `Page.getResourceContent`), so that it can follow their rules by
/// state. A sheet whose text cannot be had is given as such: the page
/// then stays read whole, without asking again.
async fn give_sheets(session: &Session) -> Result<()> {
    let asked = ask(
        session,
        &[
            (
                "Runtime.evaluate",
                json!({"expression": WANTED, "returnByValue": true}),
            ),
            ("Page.getFrameTree", json!({})),
        ],
    )
    .await?;
    let mut asked = asked.into_iter().map(value);
    let hrefs: Vec<String> = asked
        .next()
        .flatten()
        .and_then(|a| a["result"]["value"].as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|h| h.as_str().map(str::to_owned))
        .filter(|h| h.starts_with("http:") || h.starts_with("https:") || h.starts_with("file:"))
        .take(MAX_SHEETS)
        .collect();
    let frame = asked
        .next()
        .flatten()
        .and_then(|t| t["frameTree"]["frame"]["id"].as_str().map(str::to_owned));
    let (Some(frame), false) = (frame, hrefs.is_empty()) else {
        return Ok(());
    };
    let mut calls: Vec<(&'static str, Value)> = vec![("Page.enable", json!({}))];
    calls.extend(hrefs.iter().map(|url| {
        (
            "Page.getResourceContent",
            json!({"frameId": frame, "url": url}),
        )
    }));
    let answers = ask(session, &calls).await?;
    let mut given = serde_json::Map::new();
    for (href, answer) in hrefs.iter().zip(answers.into_iter().skip(1).map(value)) {
        let text = answer.and_then(|a| sheet_text(&a));
        if text.is_none() {
            tracing::debug!("the text of the style sheet {href} could not be had");
        }
        given.insert(href.clone(), text.map_or(Value::Null, Value::String));
    }
    let give = format!(
        "(() => {{ const s = globalThis[Symbol.for('uidelta.styles')]; \
         if (s) s.give({}); }})()",
        Value::Object(given)
    );
    // Not disabled with the texts asked: Chromium drops the answers still
    // being read.
    ask(
        session,
        &[
            ("Runtime.evaluate", json!({"expression": give})),
            ("Page.disable", json!({})),
        ],
    )
    .await?;
    Ok(())
}

/// The text of a `Page.getResourceContent` answer, if it is one and not
/// too long.
fn sheet_text(answer: &Value) -> Option<String> {
    use base64::Engine;
    let content = answer["content"].as_str()?;
    let text = if answer["base64Encoded"].as_bool().unwrap_or(false) {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(content)
            .ok()?;
        String::from_utf8(bytes).ok()?
    } else {
        content.to_owned()
    };
    (text.len() <= MAX_SHEET_TEXT).then_some(text)
}

/// The script's "whole" when it also wants the texts of style sheets of
/// another origin.
const WANTS_SHEETS: u64 = 2;

/// Tells the change script to start afresh, for a page read whole anyway:
/// says only its epoch (as [`Dirty::Whole`]).
pub(crate) async fn reset(session: &Session) -> Result<Dirty> {
    let asked = ask(
        session,
        &[(
            "Runtime.evaluate",
            json!({"expression": RESET, "returnByValue": true}),
        )],
    )
    .await?;
    let answer = asked.into_iter().next().and_then(value);
    let epoch = answer
        .as_ref()
        .and_then(|a| a["result"]["value"][0].as_str().map(str::to_owned))
        .filter(|e| !e.is_empty());
    if answer.is_some_and(|a| a["result"]["value"][1].as_u64() == Some(WANTS_SHEETS)) {
        give_sheets(session).await?;
    }
    Ok(epoch.map_or(Dirty::Absent, Dirty::Whole))
}

/// Asks the change script what changed since it was asked last, and
/// starts it afresh.
pub(crate) async fn take(session: &Session) -> Result<Dirty> {
    let asked = ask(
        session,
        &[(
            "Runtime.evaluate",
            json!({"expression": TAKE, "objectGroup": GROUP, "returnByValue": false}),
        )],
    )
    .await?;
    let Some(answer) = asked.into_iter().next().and_then(value) else {
        return Ok(Dirty::Absent);
    };
    let Some(array) = answer["result"]["objectId"].as_str().map(str::to_owned) else {
        return Ok(Dirty::Absent);
    };
    let asked = ask(
        session,
        &[(
            "Runtime.getProperties",
            json!({"objectId": array, "ownProperties": true}),
        )],
    )
    .await?;
    let properties = asked.into_iter().next().and_then(value);
    let mut items: Vec<(usize, Value)> = properties
        .as_ref()
        .and_then(|p| p["result"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["name"].as_str()?.parse().ok()?, p["value"].clone())))
        .collect();
    items.sort_by_key(|(k, _)| *k);
    let release = ("Runtime.releaseObjectGroup", json!({"objectGroup": GROUP}));
    let dirty = read_items(&items);
    let Dirty::Part(epoch, url, _) = &dirty else {
        let _ = ask(session, &[release]).await;
        if items.get(1).and_then(|(_, v)| v["value"].as_u64()) == Some(WANTS_SHEETS) {
            give_sheets(session).await?;
        }
        return Ok(dirty);
    };
    // Each node's backend id.
    let nodes: Vec<(&str, u8)> = items[3..]
        .chunks(2)
        .filter_map(|pair| {
            let object = pair[0].1["objectId"].as_str()?;
            let how = pair.get(1)?.1["value"].as_u64()?;
            Some((object, u8::try_from(how).ok()?))
        })
        .collect();
    let mut calls: Vec<(&'static str, Value)> = nodes
        .iter()
        .map(|(object, _)| ("DOM.describeNode", json!({"objectId": object})))
        .collect();
    calls.push(release);
    let answers = ask(session, &calls).await?;
    let mut out = Vec::with_capacity(nodes.len());
    for ((_, how), answer) in nodes.iter().zip(answers) {
        // A node gone since is covered by its parent's change.
        if let Some(id) = value(answer).and_then(|a| a["node"]["backendNodeId"].as_i64()) {
            out.push((id, *how));
        }
    }
    Ok(Dirty::Part(epoch.clone(), url.clone(), out))
}

/// The script's answer, in order: epoch, whole, URL, then node and how.
fn read_items(items: &[(usize, Value)]) -> Dirty {
    let in_order = items.iter().enumerate().all(|(k, (i, _))| k == *i);
    let epoch = items.first().and_then(|(_, v)| v["value"].as_str());
    let whole = items.get(1).and_then(|(_, v)| v["value"].as_u64());
    let url = items.get(2).and_then(|(_, v)| v["value"].as_str());
    match (in_order, epoch, whole, url) {
        (true, Some(epoch), Some(0), Some(url)) if items.len() % 2 == 1 && !epoch.is_empty() => {
            Dirty::Part(epoch.to_owned(), url.to_owned(), Vec::new())
        }
        // Whole, or not as the script writes it: read whole.
        (true, Some(epoch), Some(_), _) if !epoch.is_empty() => Dirty::Whole(epoch.to_owned()),
        _ => Dirty::Absent,
    }
}

/// What a partial read did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PartRead {
    /// Accessibility nodes read again.
    pub nodes: usize,
    /// Round trips to the page.
    pub rounds: usize,
}

/// One question about the accessibility tree.
enum Ask {
    /// A node by its id (a backend node id).
    Node(String),
    /// A node's children; with `true`, their whole subtrees after them.
    Children(String, bool),
}

/// The children of these roles are not read: text boxes and markers,
/// which the tree leaves out.
fn reads_children(node: &AxNode) -> bool {
    !matches!(
        AxValue::str(&node.role),
        "StaticText" | "InlineTextBox" | "ListMarker"
    )
}

/// The nodes of an answer of `getPartialAXTree` or `getChildAXNodes`, read
/// from its text into typed nodes (a list's answer names all its children).
fn nodes_of(answer: Result<Raw>) -> Option<Vec<AxNode>> {
    match answer.ok()? {
        Raw::Text(text) => wire::result::<AxTree>(&text).ok().map(|t| t.nodes),
        Raw::Json(mut v) => serde_json::from_value(v.get_mut("nodes")?.take()).ok(),
    }
}

/// Brings `mirror` up to date with the changes `dirty` names. `None` when
/// that is not worth it or not possible: then the page is read whole.
pub(crate) async fn update(
    session: &Session,
    mirror: &mut PageMirror,
    dirty: &[(i64, u8)],
) -> Result<Option<PartRead>> {
    let mut read = PartRead::default();
    let index = &mirror.index;
    let Some(root) = mirror.nodes.iter().position(|n| n.parent.is_none()) else {
        return Ok(None);
    };
    let root_id = mirror.nodes[root].id.clone();
    // Nodes read again (`selves`): each with its children the mirror does
    // not hold, and some with their whole subtrees (`whole`).
    let mut selves: Vec<String> = vec![root_id.clone()];
    let mut whole: HashSet<String> = HashSet::new();
    let mut unknown: Vec<i64> = Vec::new();
    for &(backend, how) in dirty {
        let id = backend.to_string();
        let Some(&at) = index.get(&id) else {
            unknown.push(backend);
            continue;
        };
        selves.push(id.clone());
        if how & 4 != 0 {
            whole.insert(id.clone());
        }
        // Ancestors that may be named after what changed.
        let mut parent = mirror.nodes[at].parent.clone();
        while let Some(p) = parent {
            let Some(&pi) = index.get(&p) else { break };
            let ancestor = &mirror.nodes[pi];
            let role = AxValue::str(&ancestor.role);
            if NAMED_FROM_CONTENTS.contains(&role)
                || !AxValue::text(&ancestor.name).trim().is_empty()
            {
                selves.push(p.clone());
            }
            parent = ancestor.parent.clone();
        }
    }
    // Nodes still settling; one gone since is no reason to read whole.
    let settling: HashSet<String> = mirror
        .settling
        .iter()
        .filter(|(id, at)| at.elapsed() < SETTLING && index.contains_key(id))
        .map(|(id, _)| id.clone())
        .collect();
    selves.extend(settling.iter().cloned());
    // A node not in the tree: its nearest ancestor that is lists its
    // children again.
    if !unknown.is_empty() {
        let calls: Vec<(&'static str, Value)> = unknown
            .iter()
            .map(|b| {
                (
                    "Accessibility.getPartialAXTree",
                    json!({"backendNodeId": b, "fetchRelatives": true}),
                )
            })
            .collect();
        read.rounds += 1;
        for (b, answer) in unknown.iter().zip(ask(session, &calls).await?) {
            // A node not rendered, nor anything above it up to the root:
            // nothing of the tree changed.
            let Some(nodes) = nodes_of(answer) else {
                continue;
            };
            let by_id: HashMap<&str, &AxNode> = nodes.iter().map(|n| (n.id.as_str(), n)).collect();
            let mut at = by_id
                .get(b.to_string().as_str())
                .and_then(|n| n.parent.clone());
            let mut found = None;
            while let Some(p) = at {
                if index.contains_key(&p) {
                    found = Some(p);
                    break;
                }
                at = by_id.get(p.as_str()).and_then(|n| n.parent.clone());
            }
            // Nothing above it is in the tree (it is in the head): the
            // tree did not change.
            if let Some(p) = found {
                selves.push(p);
            }
        }
    }
    selves.sort();
    selves.dedup();
    let mut fresh: HashMap<String, AxNode> = HashMap::new();
    // Round one: the nodes themselves, and the children of those read
    // whole. Then, round by round: the children of a node read again that
    // the mirror does not hold (by themselves, by id: a list of 10,000
    // items that gained one reads one), and the whole subtrees of those.
    let mut asks: Vec<Ask> = selves.iter().map(|id| Ask::Node(id.clone())).collect();
    asks.extend(whole.iter().map(|id| Ask::Children(id.clone(), true)));
    let mut asked: HashSet<String> = selves.iter().cloned().collect();
    let mut listed: HashSet<String> = whole.clone();
    // Nodes new to the mirror, whose subtrees are read whole.
    let mut new: HashSet<String> = HashSet::new();
    while !asks.is_empty() {
        let mut calls: Vec<(&'static str, Value)> = Vec::new();
        // `getChildAXNodes` needs the domain on (kept on: then Chromium
        // keeps its tree between calls).
        let enable = asks.iter().any(|a| matches!(a, Ask::Children(..)));
        if enable {
            calls.push(("Accessibility.enable", json!({})));
        }
        for ask in &asks {
            calls.push(match ask {
                Ask::Node(id) => {
                    let Some(backend) = id.parse::<i64>().ok().filter(|b| *b > 0) else {
                        return Ok(None);
                    };
                    (
                        "Accessibility.getPartialAXTree",
                        json!({"backendNodeId": backend, "fetchRelatives": false}),
                    )
                }
                Ask::Children(id, _) => ("Accessibility.getChildAXNodes", json!({ "id": id })),
            });
        }
        read.rounds += 1;
        let mut answers = ask(session, &calls).await?.into_iter();
        if enable {
            answers.next();
        }
        // What arrived, and whether its whole subtree is read.
        let mut arrived: Vec<(String, bool)> = Vec::new();
        for (asked_for, answer) in asks.iter().zip(answers) {
            let Some(nodes) = nodes_of(answer) else {
                if matches!(asked_for, Ask::Node(id) if settling.contains(id)) {
                    continue;
                }
                return Ok(None);
            };
            match asked_for {
                Ask::Node(id) => {
                    let Some(node) = nodes.into_iter().find(|n| &n.id == id) else {
                        if settling.contains(id) {
                            continue;
                        }
                        return Ok(None);
                    };
                    arrived.push((id.clone(), new.contains(id)));
                    fresh.insert(id.clone(), node);
                }
                Ask::Children(parent, all) => {
                    for mut child in nodes {
                        child.parent = Some(parent.clone());
                        arrived.push((child.id.clone(), *all || !index.contains_key(&child.id)));
                        fresh.insert(child.id.clone(), child);
                    }
                }
            }
        }
        let mut next = Vec::new();
        for (id, all) in arrived {
            let Some(node) = fresh.get(&id) else { continue };
            if !reads_children(node) || node.children.is_empty() {
                continue;
            }
            if all {
                if listed.insert(id.clone()) {
                    next.push(Ask::Children(id, true));
                }
                continue;
            }
            for child in &node.children {
                if fresh.contains_key(child) || index.contains_key(child) {
                    continue;
                }
                if child.parse::<i64>().is_ok_and(|b| b > 0) {
                    // A new node and its children in the same round trip:
                    // its whole subtree is read.
                    if asked.insert(child.clone()) {
                        new.insert(child.clone());
                        next.push(Ask::Node(child.clone()));
                        if listed.insert(child.clone()) {
                            next.push(Ask::Children(child.clone(), true));
                        }
                    }
                } else if listed.insert(id.clone()) {
                    next.push(Ask::Children(id.clone(), false));
                }
            }
        }
        if fresh.len() > MAX_READ || read.rounds > 64 {
            return Ok(None);
        }
        asks = next;
    }
    // Nodes named or described by what changed (a field by its label's
    // text) are read again too.
    let mut touched: HashSet<i64> = dirty.iter().map(|(b, _)| *b).collect();
    let index = &mirror.index;
    touched.extend(fresh.values().filter_map(|n| n.backend));
    for &(backend, _) in dirty {
        let mut at = index.get(&backend.to_string()).copied();
        while let Some(i) = at {
            touched.extend(mirror.nodes[i].backend);
            at = mirror.nodes[i]
                .parent
                .as_ref()
                .and_then(|p| index.get(p))
                .copied();
        }
    }
    // What is no longer there: the children a node read again lost, with
    // everything below them.
    let mut gone: Vec<usize> = Vec::new();
    for node in fresh.values() {
        let Some(&was) = index.get(&node.id) else {
            continue;
        };
        let now: HashSet<&str> = node.children.iter().map(String::as_str).collect();
        gone.extend(
            mirror.nodes[was]
                .children
                .iter()
                .filter(|c| !now.contains(c.as_str()))
                .filter_map(|c| index.get(c).copied()),
        );
    }
    while let Some(i) = gone.pop() {
        touched.extend(mirror.nodes[i].backend);
        gone.extend(
            mirror.nodes[i]
                .children
                .iter()
                .filter_map(|c| index.get(c).copied()),
        );
        if gone.len() > MAX_READ {
            return Ok(None);
        }
    }
    let mut referring: Vec<String> = touched
        .iter()
        .filter_map(|b| mirror.referrers.get(b))
        .flatten()
        .filter(|id| !fresh.contains_key(*id) && index.contains_key(*id))
        .cloned()
        .collect();
    referring.sort();
    referring.dedup();
    if !referring.is_empty() {
        let mut calls = Vec::new();
        for id in &referring {
            let Ok(backend) = id.parse::<i64>() else {
                return Ok(None);
            };
            calls.push((
                "Accessibility.getPartialAXTree",
                json!({"backendNodeId": backend, "fetchRelatives": false}),
            ));
        }
        read.rounds += 1;
        for (id, answer) in referring.iter().zip(ask(session, &calls).await?) {
            let node = nodes_of(answer).and_then(|n| n.into_iter().find(|n| &n.id == id));
            let Some(node) = node else {
                return Ok(None);
            };
            fresh.insert(id.clone(), node);
        }
    }
    read.nodes = fresh.len();
    let added: Vec<String> = fresh
        .keys()
        .filter(|id| !mirror.index.contains_key(*id) && id.parse::<i64>().is_ok_and(|b| b > 0))
        .cloned()
        .collect();
    // The first time after a whole read: its layout was read before its
    // accessibility tree, so a node that came in between is held without
    // its box. Below what changed since, such nodes have theirs read.
    let mut unboxed: Vec<&AxNode> = Vec::new();
    if std::mem::take(&mut mirror.after_whole) {
        let mut stack: Vec<usize> = dirty
            .iter()
            .filter_map(|(b, _)| mirror.index.get(&b.to_string()).copied())
            .collect();
        let mut seen: HashSet<usize> = HashSet::new();
        while let Some(i) = stack.pop() {
            if !seen.insert(i) || seen.len() > MAX_READ {
                continue;
            }
            let node = &mirror.nodes[i];
            if !fresh.contains_key(&node.id)
                && node
                    .backend
                    .is_some_and(|b| !mirror.layout.bounds.contains_key(&b))
            {
                unboxed.push(node);
            }
            stack.extend(
                node.children
                    .iter()
                    .filter_map(|c| mirror.index.get(c).copied()),
            );
        }
    }
    let unboxed: Vec<AxNode> = unboxed.into_iter().cloned().collect();
    for node in &unboxed {
        mirror.readings.remove(&node.id);
    }
    relayout(
        session,
        &mut mirror.layout,
        fresh.values().chain(unboxed.iter()),
    )
    .await?;
    read.rounds += 1;
    splice(mirror, fresh, &root_id);
    let now = Instant::now();
    mirror
        .settling
        .retain(|(_, at)| now.duration_since(*at) < SETTLING);
    mirror
        .settling
        .extend(added.into_iter().map(|id| (id, now)));
    let over = mirror.settling.len().saturating_sub(MAX_SETTLING);
    mirror.settling.drain(..over);
    Ok(Some(read))
}

/// Reads the boxes and DOM attributes of the nodes read again.
async fn relayout<'a>(
    session: &Session,
    layout: &mut Layout,
    nodes: impl Iterator<Item = &'a AxNode>,
) -> Result<()> {
    let mut calls: Vec<(&'static str, Value)> = Vec::new();
    let mut asked: Vec<(i64, bool)> = Vec::new();
    for node in nodes {
        let Some(backend) = node.backend else {
            continue;
        };
        calls.push(("DOM.getBoxModel", json!({ "backendNodeId": backend })));
        let element = AxValue::str(&node.role) != "StaticText";
        if element {
            calls.push(("DOM.describeNode", json!({ "backendNodeId": backend })));
        }
        asked.push((backend, element));
    }
    if calls.is_empty() {
        return Ok(());
    }
    let mut answers = ask(session, &calls).await?.into_iter();
    for (backend, element) in asked {
        let model = answers.next().and_then(value);
        let border: Option<Vec<f64>> = model
            .as_ref()
            .and_then(|m| m["model"]["border"].as_array())
            .map(|q| q.iter().filter_map(Value::as_f64).collect());
        match border.filter(|q| q.len() == 8) {
            Some(q) => {
                let span = |k: usize| {
                    let v = [q[k], q[k + 2], q[k + 4], q[k + 6]];
                    let lo = v.iter().copied().fold(f64::MAX, f64::min);
                    (lo, v.iter().copied().fold(f64::MIN, f64::max) - lo)
                };
                let ((x, w), (y, h)) = (span(0), span(1));
                layout.bounds.insert(backend, to_rect(x, y, w, h));
            }
            None => {
                layout.bounds.remove(&backend);
            }
        }
        if element {
            let described = answers.next().and_then(value);
            let node = described.as_ref().map(|d| &d["node"]);
            let tag = node
                .and_then(|n| n["nodeName"].as_str())
                .unwrap_or_default();
            let list: Vec<&str> = node
                .and_then(|n| n["attributes"].as_array())
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let found = element_attributes(
                tag,
                list.chunks(2)
                    .map(|p| (p[0], p.get(1).copied().unwrap_or_default())),
            );
            if found.is_empty() {
                layout.attributes.remove(&backend);
            } else {
                layout.attributes.insert(backend, found);
            }
        }
    }
    Ok(())
}

/// Notes what `node`'s name, description and relations are made of.
fn note_referrer(referrers: &mut FxHashMap<i64, Vec<String>>, node: &AxNode) {
    for backend in node.refers_to() {
        let list = referrers.entry(backend).or_default();
        if !list.contains(&node.id) {
            list.push(node.id.clone());
        }
    }
}

/// Puts the nodes read again in the mirror's place and drops what is no
/// longer reached from the root. The nodes' order does not matter (their
/// children say it): a node dropped takes the last one in its place.
fn splice(mirror: &mut PageMirror, fresh: HashMap<String, AxNode>, root_id: &str) {
    for (id, node) in &fresh {
        mirror.readings.remove(id);
        note_referrer(&mut mirror.referrers, node);
    }
    let nodes = &mut mirror.nodes;
    let index = &mut mirror.index;
    for (id, node) in fresh {
        match index.get(&id) {
            Some(&i) => nodes[i] = node,
            None => {
                index.insert(id, nodes.len());
                nodes.push(node);
            }
        }
    }
    // Which nodes the root still reaches; each one's parent as it is now.
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<usize> = index.get(root_id).copied().into_iter().collect();
    if let Some(&root) = stack.first() {
        nodes[root].parent = None;
    }
    let mut children = Vec::new();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut reached[i], true) {
            continue;
        }
        children.clear();
        children.extend(
            nodes[i]
                .children
                .iter()
                .filter_map(|c| index.get(c).copied()),
        );
        for &c in &children {
            if reached[c] {
                continue;
            }
            if nodes[c].parent.as_deref() != Some(nodes[i].id.as_str()) {
                nodes[c].parent = Some(nodes[i].id.clone());
            }
            stack.push(c);
        }
    }
    for dead in (0..nodes.len()).rev().filter(|&i| !reached[i]) {
        index.remove(&nodes[dead].id);
        nodes.swap_remove(dead);
        if let Some(moved) = nodes.get(dead) {
            if let Some(at) = index.get_mut(&moved.id) {
                *at = dead;
            }
        }
    }
}

impl PageMirror {
    /// How many accessibility nodes it holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// A mirror of a whole read of a page of one frame. The layout's DOM
    /// (what the next whole read finds out again) is not kept.
    pub fn new(epoch: String, frame: FrameNodes, mut layout: Layout) -> PageMirror {
        layout.dom = Default::default();
        let index = frame
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.clone(), i))
            .collect();
        let mut referrers = FxHashMap::default();
        for node in &frame.nodes {
            note_referrer(&mut referrers, node);
        }
        PageMirror {
            epoch,
            frame: frame.frame,
            nodes: frame.nodes,
            index,
            referrers,
            readings: Readings::default(),
            settling: Vec::new(),
            after_whole: true,
            layout,
            since: Instant::now(),
            stale: false,
        }
    }

    /// The frame's nodes and their readings for assembling, which
    /// [`PageMirror::put_back`] returns.
    pub fn frame_nodes(&mut self) -> (FrameNodes, Readings) {
        let frame = FrameNodes {
            frame: self.frame.clone(),
            nodes: std::mem::take(&mut self.nodes),
            ..FrameNodes::default()
        };
        (frame, std::mem::take(&mut self.readings))
    }

    pub fn put_back(&mut self, frame: FrameNodes, mut readings: Readings) {
        self.nodes = frame.nodes;
        // Readings of nodes gone since are let go now and then.
        if readings.len() > 2 * self.nodes.len() + 1000 {
            readings.clear();
        }
        self.readings = readings;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_answer_is_read_strictly() {
        let item = |k: usize, v: Value| (k, v);
        let s = |t: &str| json!({"type": "string", "value": t});
        let n = |x: u64| json!({"type": "number", "value": x});
        assert_eq!(
            read_items(&[item(0, s("e1")), item(1, n(0)), item(2, s("http://x/"))]),
            Dirty::Part("e1".into(), "http://x/".into(), vec![])
        );
        assert_eq!(
            read_items(&[item(0, s("e1")), item(1, n(1))]),
            Dirty::Whole("e1".into())
        );
        // Out of order, no epoch, or a node without its how: not trusted.
        assert_eq!(
            read_items(&[item(1, n(0)), item(0, s("e1"))]),
            Dirty::Absent
        );
        assert_eq!(read_items(&[item(0, n(3)), item(1, n(0))]), Dirty::Absent);
        assert_eq!(read_items(&[item(0, s("")), item(1, n(0))]), Dirty::Absent);
        // No URL, or a node without its how: read whole.
        assert_eq!(
            read_items(&[item(0, s("e1")), item(1, n(0))]),
            Dirty::Whole("e1".into())
        );
        assert_eq!(
            read_items(&[
                item(0, s("e1")),
                item(1, n(0)),
                item(2, s("http://x/")),
                item(3, json!({}))
            ]),
            Dirty::Whole("e1".into())
        );
        assert_eq!(read_items(&[]), Dirty::Absent);
        // Whole, wanting the texts of sheets of another origin.
        assert_eq!(
            read_items(&[
                item(0, s("e1")),
                item(1, n(WANTS_SHEETS)),
                item(2, s("http://x/"))
            ]),
            Dirty::Whole("e1".into())
        );
    }

    #[test]
    fn a_sheets_text_is_taken_plain_or_from_base64_and_not_too_long() {
        assert_eq!(
            sheet_text(&json!({"content": "a:hover { display: none }", "base64Encoded": false})),
            Some("a:hover { display: none }".into())
        );
        assert_eq!(
            sheet_text(&json!({"content": "YTpob3ZlciB7fQ==", "base64Encoded": true})),
            Some("a:hover {}".into())
        );
        assert_eq!(
            sheet_text(&json!({"content": "not base64!", "base64Encoded": true})),
            None
        );
        assert_eq!(sheet_text(&json!({"error": "no resource"})), None);
        let long = "x".repeat(MAX_SHEET_TEXT + 1);
        assert_eq!(sheet_text(&json!({ "content": long })), None);
    }
}
