use super::*;
use crate::referee::sdk::record::SdkFrame;

/// A view as a game's class path holds it: the engine's Drawer (requiring `pixi`), its PIXI,
/// a game module that writes `</script>`, an image.
fn view(pixi: &str) -> ViewFiles {
    let mut v = ViewFiles::default();
    let mut put = |p: &str, t: &str| {
        v.files.insert(p.to_string(), t.as_bytes().to_vec());
    };
    put(
        "core/Drawer.js",
        &format!(
            "import {{ assets }} from '../assets.js'\nimport * as config from '../config.js'\n\
             import {{ demo }} from '../demo.js'\nexport class Drawer {{ static get requirements () \
             {{ return {{ PIXI: '{pixi}' }} }} }}"
        ),
    );
    put("lib/pixi6.js", "var PIXI = {};");
    put(
        "config.js",
        "import { M } from './game/M.js'\nexport const modules = [M]",
    );
    put(
        "game/M.js",
        "export class M { t () { return '</script>' } }",
    );
    put(
        "demo.js",
        "export const demo = { agents: ['https://static.codingame.com'] }",
    );
    put("assets/board.png", "PNG");
    put("statement.html", "not a module");
    v
}

/// The object `arbiterSdkView` is called with in a bundle's text.
fn data(text: &str) -> Value {
    let json = text
        .split_once("arbiterSdkView(")
        .unwrap()
        .1
        .strip_suffix(");\n")
        .unwrap();
    serde_json::from_str(json).unwrap()
}

#[test]
fn a_viewer_holds_the_modules_the_drawer_reaches_its_pixi_and_the_assets() {
    let text = bundle("take", &view("PIXI6")).unwrap();
    assert!(!text.contains("</script"), "safe inside a script element");
    let d = data(&text);
    assert_eq!(d["entry"], "core/Drawer.js");
    assert_eq!(d["pixi"], "var PIXI = {};");
    let modules: Vec<&String> = d["modules"].as_object().unwrap().keys().collect();
    assert_eq!(
        modules,
        [
            "assets.js",
            "config.js",
            "core/Drawer.js",
            "demo.js",
            "game/M.js"
        ]
    );
    assert!(d["modules"]["core/Drawer.js"]
        .as_str()
        .unwrap()
        .contains("from 'arbiter-sdk:/config.js'"));
    // The game's demo is replaced: its avatars would be fetched from CodinGame.
    assert_eq!(d["modules"]["demo.js"], "export const demo = null;\n");
    assert!(d["modules"]["assets.js"]
        .as_str()
        .unwrap()
        .contains("\"board.png\":\"data:image/png;base64,UE5H\""));
    assert_eq!(
        d["modules"]["game/M.js"],
        "export class M { t () { return '</script>' } }"
    );
}

#[test]
fn a_view_that_cannot_be_drawn_says_why() {
    let mut no_game = view("PIXI6");
    no_game.files.remove("config.js");
    assert_eq!(bundle("g", &no_game), Err(NoView::NoGameView));
    let mut no_engine = view("PIXI6");
    no_engine.files.remove("core/Drawer.js");
    assert_eq!(bundle("g", &no_engine), Err(NoView::NoEngineViewer));
    assert_eq!(bundle("g", &view("PIXI")), Err(NoView::OldEngine));
    assert_eq!(
        bundle("g", &view("PIXI5")),
        Err(NoView::NoPixi("pixi5.js".into()))
    );
    let text = none(&NoView::NoGameView);
    assert!(data(&text)["none"]
        .as_str()
        .unwrap()
        .starts_with("the game has no view of its own"));
}

#[test]
fn key_frames_are_drawn_after_their_steps_and_tooltips_go_to_their_key_frame() {
    let frame = |answer, forfeits, view: &str, tips: &[(usize, &str)]| SdkFrame {
        answer,
        forfeits,
        summary: Vec::new(),
        tooltips: tips.iter().map(|(s, t)| (*s, t.to_string())).collect(),
        view: view.to_string(),
        turn: 0,
    };
    let log = SdkLog {
        frames: vec![
            frame(0, 0, "KEY_FRAME 0\n{\"global\":{},\"frame\":{}}", &[]),
            frame(0, 0, "KEY_FRAME 1\n{}", &[]),
            // Both players answer in one turn: the first answer's frame is intermediate.
            frame(1, 0, "INTERMEDIATE_FRAME 2", &[(1, "$1 waits")]),
            frame(2, 0, "KEY_FRAME 3\n{\"a\":1}", &[(0, "$0 scores")]),
            frame(2, 1, "KEY_FRAME 4\n{\"a\":2}", &[]),
            // Past the record's cap: no view, and none drawn after it.
            frame(3, 1, "", &[(0, "lost")]),
            frame(4, 1, "KEY_FRAME 6\n{}", &[]),
        ],
        views_cut: 1,
        turns: 0,
        params: Vec::new(),
    };
    let rec: GameRecord = serde_json::from_value(json!({
        "game_id": 0, "pair_id": 0, "game": "take", "variant": "codingame-sdk", "seats": 2,
        "seed": 1, "bots": ["ann", "bob"], "clocks": crate::results::records::Clocks::of(
            &crate::referee::RefereeConfig::default()),
        "opening": [], "moves": [], "seat": [], "wall_us": [], "cpu_us": [], "reason": "win", "detail": "", "ranks": [0, 1],
        "scores": [1, 0], "forfeits": [], "stderr": ["", ""], "stderr_bytes": [0, 0],
        "duration_ms": 0,
    }))
    .unwrap();
    let v = frames_json(&rec, &log);
    assert_eq!(v["frames"].as_array().unwrap().len(), 4);
    assert_eq!(v["frames"][2], "KEY_FRAME 3\n{\"a\":1}");
    assert_eq!(v["at"], json!([0, 0, 2, 3]));
    assert_eq!(
        v["tips"],
        json!([[2, 1, "bob waits"], [2, 0, "ann scores"]])
    );
    assert_eq!(v["cut"], 2);
}

#[test]
fn a_page_of_one_game_runs_the_viewer_before_the_games_data() {
    use super::super::viewer::{page_with_viewer, Viewer};
    let rec: GameRecord = serde_json::from_value(json!({
        "game_id": 3, "pair_id": 0, "game": "take", "variant": "codingame-sdk", "seats": 2,
        "seed": 1, "bots": ["ann", "bob"], "clocks": crate::results::records::Clocks::of(
            &crate::referee::RefereeConfig::default()),
        "opening": [], "moves": [], "seat": [], "wall_us": [], "cpu_us": [], "reason": "win",
        "detail": "", "ranks": [0, 1], "scores": [1, 0], "forfeits": [], "stderr": ["", ""],
        "stderr_bytes": [0, 0], "duration_ms": 0,
        "external": { "referee": "java", "inputs": [], "stderr": "",
            "sdk": { "frames": [{ "answer": 0, "view": "KEY_FRAME 0\n{}" }] } },
    }))
    .unwrap();
    let viewer = bundle("take", &view("PIXI6")).unwrap();
    let order = |page: &str, first: &str| {
        let (v, d) = (
            page.find(first).unwrap(),
            page.find("arbiterGame(3,").unwrap(),
        );
        assert!(v < d, "the viewer comes before the data");
        assert!(
            page.find("window.arbiterSdkView").unwrap() < v,
            "after the script"
        );
    };
    let inline = page_with_viewer(&rec, None, Viewer::Inline(&viewer)).unwrap();
    order(&inline, "arbiterSdkView({\"entry\"");
    let served = page_with_viewer(&rec, Some("/"), Viewer::Src("/sdk-view.js")).unwrap();
    order(&served, "<script src=\"/sdk-view.js\"></script>");
    let none = page_with_viewer(&rec, None, Viewer::None).unwrap();
    assert!(!none.contains("arbiterSdkView({") && !none.contains("sdk-view.js\"></script>"));
}
