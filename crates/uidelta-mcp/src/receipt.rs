//! The optional log directory (`uidelta mcp --log-dir DIR`): per action
//! tool call, `NNNN-<tool>.txt` with the diff text the call answered with,
//! and `NNNN-<tool>.png`, a screenshot on which added elements are boxed
//! green, modified ones yellow and removed ones red (where they were).
//!
//! Logging never fails a call: a problem is traced and told in the answer
//! as a `# log: ...` line.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use uidelta_diff::{Change, Diff};
use uidelta_model::Rect;

use crate::files::{self, CreateError, PrivateDir};
use crate::Error;

/// How long the screenshot of a receipt may take.
const SCREENSHOT_LIMIT: Duration = Duration::from_secs(10);
/// How many taken names a receipt passes over before it gives up.
const TAKEN_LIMIT: usize = 100;
/// The width of a box's outline, in pixels.
const LINE: i64 = 3;

/// Green: added.
pub const ADDED: [u8; 3] = [0, 255, 0];
/// Yellow: modified.
pub const MODIFIED: [u8; 3] = [255, 255, 0];
/// Red: removed, at the old place.
pub const REMOVED: [u8; 3] = [255, 0, 0];

/// A log directory and the counter its file names start with, shared by
/// every client of one server. The directory is private to this user (see
/// `crate::files`); files are new, mode 0600, and a name taken already
/// (by an earlier run, or a planted link) is passed over.
#[derive(Debug)]
pub struct LogDir {
    dir: PathBuf,
    next: AtomicU64,
}

/// What one action leaves in the log.
#[derive(Clone, Debug, Default)]
pub struct Receipt {
    /// The diff text, exactly as `ui_diff` answers it.
    pub text: String,
    /// The boxes to draw, in screen coordinates, with their colours.
    pub boxes: Vec<(Rect, [u8; 3])>,
}

impl Receipt {
    /// The receipt of `diff`, whose text is `text`: removed boxes first, so
    /// that what is there now is drawn over what went away.
    pub fn of(diff: &Diff, text: String) -> Receipt {
        let mut boxes = Vec::new();
        for pass in [REMOVED, MODIFIED, ADDED] {
            for change in &diff.changes {
                let (bounds, colour) = match change {
                    Change::Removed(r) => {
                        (r.subtree.first().and_then(|n| n.element.bounds), REMOVED)
                    }
                    Change::Modified(m) => (m.element.bounds, MODIFIED),
                    Change::Added(a) => (a.subtree.first().and_then(|n| n.element.bounds), ADDED),
                };
                if colour != pass {
                    continue;
                }
                if let Some(b) = bounds.filter(|b| b.w > 0 && b.h > 0) {
                    boxes.push((b, colour));
                }
            }
        }
        Receipt { text, boxes }
    }
}

impl LogDir {
    /// Logs into `dir`, created (private to this user) and checked at each
    /// write; numbers go on from the highest already there.
    pub fn new(dir: impl Into<PathBuf>) -> LogDir {
        let dir = files::absolute(dir.into());
        let next = AtomicU64::new(highest_number(&dir) + 1);
        LogDir { dir, next }
    }

    /// Logs into `dir`, created and checked now: a symbolic link, a
    /// directory of another user, or one open to others is refused.
    pub fn open(dir: impl Into<PathBuf>) -> Result<LogDir, Error> {
        let log = LogDir::new(dir);
        PrivateDir::open(&log.dir).map_err(|e| Error::Config(format!("log directory: {e}")))?;
        Ok(log)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `receipt` of a call of `tool`, over `screenshot` (a PNG of the
    /// whole screen, or why there is none). Answers with the two paths, or
    /// what went wrong.
    pub async fn write(
        &self,
        tool: &str,
        receipt: Receipt,
        screenshot: impl std::future::Future<Output = Result<Vec<u8>, String>>,
    ) -> Result<(PathBuf, PathBuf), String> {
        let dir = PrivateDir::open(&self.dir)?;
        let mut taken = 0;
        let (stem, txt) = loop {
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            let stem = format!("{n:04}-{tool}");
            match dir.create(&format!("{stem}.txt"), receipt.text.as_bytes()) {
                Ok(txt) => break (stem, txt),
                Err(CreateError::Exists(path)) if taken < TAKEN_LIMIT => {
                    tracing::warn!(
                        "{} exists already; the receipt takes the next number",
                        path.display()
                    );
                    taken += 1;
                }
                Err(e) => return Err(e.to_string()),
            }
        };
        let png_name = format!("{stem}.png");
        let png = dir.path_of(&png_name);
        let shot = match tokio::time::timeout(SCREENSHOT_LIMIT, screenshot).await {
            Ok(Ok(shot)) => shot,
            Ok(Err(e)) => return Err(format!("taking the screenshot for {}: {e}", png.display())),
            Err(_) => {
                return Err(format!(
                    "the screenshot for {} took more than {} s",
                    png.display(),
                    SCREENSHOT_LIMIT.as_secs()
                ))
            }
        };
        let boxes = receipt.boxes;
        let png = tokio::task::spawn_blocking(move || {
            let drawn = draw_boxes(&shot, &boxes)?;
            dir.create(&png_name, &drawn).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("drawing the receipt {}: {e}", png.display()))??;
        Ok((txt, png))
    }
}

/// The highest `NNNN` of the `NNNN-tool.*` files in `dir` (0: none).
fn highest_number(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let (n, _) = name.to_str()?.split_once('-')?;
            n.parse::<u64>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// `png` (any PNG) as 8-bit RGBA with `boxes` outlined, clipped to the
/// image; screen coordinates are the image's.
pub fn draw_boxes(png: &[u8], boxes: &[(Rect, [u8; 3])]) -> Result<Vec<u8>, String> {
    let mut decoder = png::Decoder::new(Cursor::new(png));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("decoding the screenshot: {e}"))?;
    let size = reader
        .output_buffer_size()
        .ok_or("decoding the screenshot: it is too large")?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("decoding the screenshot: {e}"))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = info.color_type.samples();
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in buf.chunks(info.line_size).take(h) {
        for px in row.chunks(channels).take(w) {
            rgba.extend_from_slice(&match *px {
                [g] => [g, g, g, 255],
                [g, a] => [g, g, g, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0, 0, 0, 255],
            });
        }
    }
    for &(rect, colour) in boxes {
        outline(&mut rgba, w, h, rect, colour);
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("encoding the receipt: {e}"))?;
    writer
        .write_image_data(&rgba)
        .map_err(|e| format!("encoding the receipt: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("encoding the receipt: {e}"))?;
    Ok(out)
}

/// A `LINE`-pixel outline just inside `rect`, clipped to the `w`x`h` image.
fn outline(rgba: &mut [u8], w: usize, h: usize, rect: Rect, colour: [u8; 3]) {
    let (x0, y0) = (i64::from(rect.x), i64::from(rect.y));
    let (x1, y1) = (x0 + i64::from(rect.w), y0 + i64::from(rect.h));
    let line = LINE.min(i64::from(rect.w.min(rect.h)) / 2).max(1);
    let mut fill = |xa: i64, ya: i64, xb: i64, yb: i64| {
        let (xa, xb) = (xa.max(0), xb.min(w as i64));
        let (ya, yb) = (ya.max(0), yb.min(h as i64));
        for y in ya..yb {
            for x in xa..xb {
                let at = (y as usize * w + x as usize) * 4;
                rgba[at..at + 3].copy_from_slice(&colour);
                rgba[at + 3] = 255;
            }
        }
    };
    fill(x0, y0, x1, y0 + line);
    fill(x0, y1 - line, x1, y1);
    fill(x0, y0, x0 + line, y1);
    fill(x1 - line, y0, x1, y1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: u32, h: u32, colour: png::ColorType) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(colour);
        e.set_depth(png::BitDepth::Eight);
        let n = (w * h) as usize * colour.samples();
        let mut writer = e.write_header().expect("header");
        writer.write_image_data(&vec![40; n]).expect("data");
        writer.finish().expect("finish");
        out
    }

    fn pixel(png: &[u8], x: usize, y: usize) -> [u8; 3] {
        let mut reader = png::Decoder::new(Cursor::new(png))
            .read_info()
            .expect("decodes");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!(info.color_type, png::ColorType::Rgba);
        let at = (y * info.width as usize + x) * 4;
        [buf[at], buf[at + 1], buf[at + 2]]
    }

    #[test]
    fn boxes_are_outlined_and_clipped() {
        for colour in [
            png::ColorType::Rgb,
            png::ColorType::Rgba,
            png::ColorType::Grayscale,
        ] {
            let drawn = draw_boxes(
                &solid(50, 40, colour),
                &[
                    (Rect::new(10, 10, 20, 10), ADDED),
                    (Rect::new(-5, 30, 100, 100), REMOVED),
                ],
            )
            .expect("drawn");
            assert_eq!(pixel(&drawn, 10, 10), ADDED);
            assert_eq!(pixel(&drawn, 29, 19), ADDED);
            assert_eq!(pixel(&drawn, 12, 12), ADDED);
            assert_eq!(pixel(&drawn, 15, 15), [40, 40, 40], "inside is left");
            assert_eq!(pixel(&drawn, 20, 30), REMOVED, "clipped top edge");
            assert_eq!(pixel(&drawn, 0, 31), REMOVED, "clipped on the left");
            assert_eq!(pixel(&drawn, 20, 36), [40, 40, 40]);
        }
        assert!(draw_boxes(b"not a png", &[]).is_err());
    }
}
