//! The viewer's `assets.js`, as the SDK's runner writes it from the game's `assets/` folder
//! (`Renderer.generateAssetsFile`): its images by name, its sprite sheets (`.json`) and bitmap
//! fonts (`.fnt`), each sheet's and font's own image left out of the images. Here every file is
//! a `data:` URL (a sheet's and a font's image inside them), so that PIXI loads them in a page
//! opened as a file, where it could fetch nothing.

use super::super::frames::base64;
use super::modules::resolve;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The view folder's subfolder the runner reads assets from.
const ASSETS: &str = "assets/";

/// The MIME type PIXI reads a file's kind from (it takes a `data:` URL's kind from the part
/// after the `/`, up to a `;`).
fn mime(path: &str, bytes: &[u8]) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        // A bitmap font in XML, or in its text format.
        "fnt" if bytes.trim_ascii_start().starts_with(b"<") => "text/xml",
        "fnt" => "text/plain",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        _ => "application/octet-stream",
    }
}

/// `bytes` as a `data:` URL of the kind `path`'s name says.
pub fn data_url(path: &str, bytes: &[u8]) -> String {
    format!("data:{};base64,{}", mime(path, bytes), base64(bytes))
}

/// A file an asset names (a sheet's `meta.image`, a font's page): as the runner resolves it,
/// from the assets folder, else beside the file that names it.
fn named<'a>(
    files: &'a BTreeMap<String, Vec<u8>>,
    by: &str,
    name: &str,
) -> Option<(String, &'a [u8])> {
    [resolve(&format!("{ASSETS}x"), name), resolve(by, name)]
        .into_iter()
        .flatten()
        .find_map(|p| files.get(&p).map(|b| (p, b.as_slice())))
}

/// A bitmap font's text with each page's `file="..."` a `data:` URL of that image; the images
/// it used.
fn font_with_pages(
    files: &BTreeMap<String, Vec<u8>>,
    path: &str,
    text: &str,
    used: &mut BTreeSet<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("file=\"") {
        let start = at + "file=\"".len();
        let Some(len) = rest[start..].find('"') else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = &rest[start..start + len];
        match named(files, path, name) {
            Some((image, bytes)) => {
                out.push_str(&data_url(&image, bytes));
                used.insert(image);
            }
            None => out.push_str(name),
        }
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// The text of the viewer's `assets.js` for the view `files`.
pub fn module(files: &BTreeMap<String, Vec<u8>>) -> String {
    let mut images = Map::new();
    let mut sprites = Vec::new();
    let mut fonts = Vec::new();
    let mut used = BTreeSet::new();
    let mut others = Vec::new();
    for (path, bytes) in files.range(ASSETS.to_string()..) {
        let Some(name) = path.strip_prefix(ASSETS) else {
            break;
        };
        let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        match ext.as_str() {
            "json" => {
                // A sheet names its image in meta.image; a JSON without one is not a sheet
                // (the runner would stop on it: here it is left out).
                let Ok(mut sheet) = serde_json::from_slice::<Value>(bytes) else {
                    continue;
                };
                let image = sheet["meta"]["image"].as_str().map(str::to_string);
                let Some((image, png)) = image.and_then(|i| named(files, path, &i)) else {
                    continue;
                };
                sheet["meta"]["image"] = json!(data_url(&image, png));
                used.insert(image);
                let text = serde_json::to_vec(&sheet).expect("JSON values serialise");
                sprites.push(json!(data_url(path, &text)));
            }
            "fnt" => {
                let text = String::from_utf8_lossy(bytes);
                let font = font_with_pages(files, path, &text, &mut used);
                fonts.push(json!(data_url(path, font.as_bytes())));
            }
            _ => others.push((name, path, bytes)),
        }
    }
    for (name, path, bytes) in others {
        if !used.contains(path) {
            images.insert(name.to_string(), json!(data_url(path, bytes)));
        }
    }
    let assets = json!({ "images": images, "sprites": sprites, "fonts": fonts });
    format!("export const assets = {assets};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(url: &str) -> Vec<u8> {
        use base64::Engine;
        let b64 = url.split_once(";base64,").unwrap().1;
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    }

    #[test]
    fn sheets_and_fonts_carry_their_images_which_leave_the_images() {
        let mut files = BTreeMap::new();
        files.insert("assets/board.png".to_string(), b"PNG1".to_vec());
        files.insert("assets/sheet.png".to_string(), b"PNG2".to_vec());
        files.insert(
            "assets/sheet.json".to_string(),
            br#"{"frames":{},"meta":{"image":"sheet.png"}}"#.to_vec(),
        );
        files.insert("assets/fonts/f.png".to_string(), b"PNG3".to_vec());
        files.insert(
            "assets/fonts/f.fnt".to_string(),
            br#"<font><pages><page id="0" file="f.png"/></pages></font>"#.to_vec(),
        );
        files.insert("assets/notes.json".to_string(), b"[1, 2]".to_vec());
        files.insert(
            "config.js".to_string(),
            b"export const modules = []".to_vec(),
        );
        let text = module(&files);
        let json = text
            .strip_prefix("export const assets = ")
            .and_then(|t| t.strip_suffix(";\n"))
            .unwrap();
        let v: Value = serde_json::from_str(json).unwrap();
        let images: Vec<&String> = v["images"].as_object().unwrap().keys().collect();
        assert_eq!(images, ["board.png"]);
        assert_eq!(decoded(v["images"]["board.png"].as_str().unwrap()), b"PNG1");
        assert!(v["images"]["board.png"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"));
        let sheet_url = v["sprites"][0].as_str().unwrap();
        assert!(sheet_url.starts_with("data:application/json;base64,"));
        let sheet: Value = serde_json::from_slice(&decoded(sheet_url)).unwrap();
        assert_eq!(
            decoded(sheet["meta"]["image"].as_str().unwrap()),
            b"PNG2",
            "the sheet's image is inside it"
        );
        let font_url = v["fonts"][0].as_str().unwrap();
        assert!(font_url.starts_with("data:text/xml;base64,"));
        let font = String::from_utf8(decoded(font_url)).unwrap();
        let page = font
            .split("file=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(decoded(page), b"PNG3", "the font's page beside the font");
        assert_eq!(
            v["sprites"].as_array().unwrap().len(),
            1,
            "not a sheet: left out"
        );
    }
}
