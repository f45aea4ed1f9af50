//! Pages that draw with WebGL, in real headless Chromium with WebGL in software (SwiftShader):
//! a test page that opens one in a frame, waits for its CodinGame SDK viewer (`data-sdk`), runs
//! actions and reports what it shows; screenshots of a page as a user opens it; and their
//! pixels (PNG decoded here: the screenshots are Chromium's own 8-bit PNGs).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags that give Debian's headless Chromium WebGL in software.
const WEBGL: [&str; 2] = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

/// The window (and the test page's frame) every page is opened in.
pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 1400;

/// What the test page saw of a replay page (see [`harness`]).
#[derive(Debug)]
pub struct Look {
    /// `data-sdk`: `drawn` or `text` (or `loading`: it never finished).
    pub sdk: String,
    /// The note above the viewer (why the game is text, or nothing).
    pub note: String,
    /// The key frame the canvas shows.
    pub frame: Option<u64>,
    /// "frame J of F" under the canvas, and "step K of N" of the text steps.
    pub frame_text: String,
    pub step_text: String,
    /// The canvas in the window: x, y, width, height (CSS pixels).
    pub rect: [u32; 4],
    /// What the game's viewer reported as errors.
    pub errors: String,
    pub console: Vec<String>,
}

/// A test page with `page` in a frame the size of the window: once the page's SDK viewer has
/// drawn or given up, `actions` run (`click(id)` presses a button of the page), then the page
/// is reported (as JSON in `#out`).
fn harness(dir: &Path, page: &str, actions: &str) -> PathBuf {
    let path = dir.join("harness.html");
    std::fs::write(
        &path,
        format!(
            r#"<html><body style="margin:0"><iframe id="f" src="{page}" style="position:absolute;left:0;top:0;border:0;width:{WIDTH}px;height:{HEIGHT}px"></iframe><pre id="out"></pre><script>
var out = document.getElementById('out');
document.getElementById('f').onload = function () {{
  var frame = this;
  (function ready() {{
    var d = frame.contentDocument;
    var sdk = d && d.body && d.body.getAttribute('data-sdk');
    if (sdk !== 'drawn' && sdk !== 'text') return setTimeout(ready, 20);
    function click(id) {{ d.getElementById(id).click(); }}
    {actions}
    setTimeout(function () {{
      var c = d.getElementById('sdk-canvas'), r = c ? c.getBoundingClientRect() : {{ left: 0, top: 0, width: 0, height: 0 }};
      var text = function (id) {{ var e = d.getElementById(id); return e ? e.textContent : ''; }};
      out.textContent = JSON.stringify({{
        sdk: d.body.getAttribute('data-sdk'), note: text('sdk-note'),
        frame: c && c.getAttribute('data-frame') !== null ? +c.getAttribute('data-frame') : null,
        frame_text: text('sdk-where'), step_text: text('where'), errors: text('sdk-errors'),
        rect: [r.left, r.top, r.width, r.height].map(Math.round)
      }});
    }}, 200);
  }})();
}};
</script></body></html>"#
        ),
    )
    .unwrap();
    path
}

/// Chromium's command for a window of the test size, WebGL in software (unless `webgl` is
/// false: then none at all), the page's scripts given 20 s of virtual time.
fn chromium_at(browser: &str, profile: &Path, webgl: bool) -> Command {
    let mut cmd = Command::new(browser);
    cmd.args(["--headless", "--no-sandbox", "--hide-scrollbars"])
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()));
    if webgl {
        cmd.args(WEBGL);
    } else {
        cmd.arg("--disable-webgl");
    }
    cmd
}

/// Opens `page` in the test page ([`harness`]), runs `actions`, and reports what it saw.
pub fn look(browser: &str, page: &str, actions: &str, webgl: bool) -> Look {
    let dir = tempfile::tempdir().unwrap();
    let harness = harness(dir.path(), page, actions);
    let out = chromium_at(browser, &dir.path().join("profile"), webgl)
        .arg("--allow-file-access-from-files")
        .arg("--dump-dom")
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("the test page reported nothing: {dom}\n{console:?}"))
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rect = |i: usize| v["rect"][i].as_u64().unwrap_or(0) as u32;
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Look {
        sdk: text("sdk"),
        note: text("note"),
        frame: v["frame"].as_u64(),
        frame_text: text("frame_text"),
        step_text: text("step_text"),
        rect: [rect(0), rect(1), rect(2), rect(3)],
        errors: text("errors"),
        console,
    }
}

/// What a page opened alone (a server's: a test page of files cannot look into it) shows once
/// its scripts ran: read from its DOM (no rectangle).
pub fn look_alone(browser: &str, url: &str) -> Look {
    let dir = tempfile::tempdir().unwrap();
    let out = chromium_at(browser, &dir.path().join("profile"), true)
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let attr = |name: &str| {
        dom.split(&format!("{name}=\""))
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_default()
            .to_string()
    };
    let inner = |id: &str| {
        dom.split(&format!("id=\"{id}\""))
            .nth(1)
            .and_then(|s| s.split_once('>'))
            .and_then(|(_, s)| s.split('<').next())
            .unwrap_or_default()
            .to_string()
    };
    Look {
        sdk: attr("data-sdk"),
        note: inner("sdk-note"),
        frame: attr("data-frame").parse().ok(),
        frame_text: inner("sdk-where"),
        step_text: inner("where"),
        rect: [0; 4],
        errors: inner("sdk-errors"),
        console: String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect(),
    }
}

/// An RGB picture.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<[u8; 3]>,
}

impl Picture {
    /// The pixels inside `rect` (x, y, width, height).
    pub fn crop(&self, rect: [u32; 4]) -> Vec<[u8; 3]> {
        let [x, y, w, h] = rect;
        assert!(
            w > 0 && h > 0 && x + w <= self.width && y + h <= self.height,
            "{rect:?}"
        );
        (y..y + h)
            .flat_map(|r| (x..x + w).map(move |c| (r, c)))
            .map(|(r, c)| self.rgb[(r * self.width + c) as usize])
            .collect()
    }
}

/// A PNG as headless Chromium writes its screenshots (8-bit RGB or RGBA, not interlaced).
fn decode_png(bytes: &[u8]) -> Picture {
    use std::io::Read;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let (mut at, mut idat) = (8, Vec::new());
    let (mut width, mut height, mut channels) = (0, 0, 0);
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap());
                height = u32::from_be_bytes(data[4..8].try_into().unwrap());
                assert_eq!(data[8], 8, "8-bit");
                assert_eq!(data[12], 0, "not interlaced");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width as usize * channels;
    let mut prev = vec![0u8; stride];
    let mut rgb = Vec::with_capacity((width * height) as usize);
    for row in raw.chunks(stride + 1) {
        let (filter, line) = (row[0], &row[1..]);
        let mut cur = vec![0u8; stride];
        for i in 0..stride {
            let a = if i >= channels { cur[i - channels] } else { 0 };
            let (b, c) = (prev[i], if i >= channels { prev[i - channels] } else { 0 });
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            cur[i] = line[i].wrapping_add(predicted);
        }
        rgb.extend(cur.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        prev = cur;
    }
    Picture { width, height, rgb }
}

/// A screenshot of `url` opened alone as a user opens it (no flag but WebGL in software).
pub fn screenshot(browser: &str, url: &str) -> Picture {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let out = chromium_at(browser, &dir.path().join("profile"), true)
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .output()
        .unwrap();
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!(
            "no screenshot of {url} ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let picture = decode_png(&bytes);
    assert_eq!((picture.width, picture.height), (WIDTH, HEIGHT));
    picture
}

/// A screenshot of the test page showing `page` after `actions`.
pub fn screenshot_after(browser: &str, page: &str, actions: &str) -> Picture {
    let dir = tempfile::tempdir().unwrap();
    let harness = harness(dir.path(), page, actions);
    let png = dir.path().join("shot.png");
    chromium_at(browser, &dir.path().join("profile"), true)
        .arg("--allow-file-access-from-files")
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    decode_png(&std::fs::read(&png).unwrap())
}

/// Whether a picture is a drawing, not a blank canvas: many colours, none taking nearly all.
pub fn drawn(pixels: &[[u8; 3]]) -> bool {
    let mut counts = std::collections::HashMap::new();
    for p in pixels {
        *counts.entry(*p).or_insert(0usize) += 1;
    }
    let most = counts.values().max().copied().unwrap_or(0);
    counts.len() >= 16 && most * 10 < pixels.len() * 9
}

/// The share of pixels that differ between two pictures of the same size.
pub fn differ(a: &[[u8; 3]], b: &[[u8; 3]]) -> f64 {
    assert_eq!(a.len(), b.len());
    let n = a.iter().zip(b).filter(|(x, y)| x != y).count();
    n as f64 / a.len() as f64
}

pub fn errors_of(console: &[String]) -> Vec<&String> {
    console
        .iter()
        .filter(|l| l.to_lowercase().contains("error"))
        .collect()
}
