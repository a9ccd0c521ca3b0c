//! A real window (issue #17 item 13): the built binary, on a virtual display, on a new
//! database, opened on the sample's battle page (`POWDERHORN_START=battle:<scenario>`). The
//! screen is captured and must show the table — the cloth's colour over a good share of the
//! window and many colours, not a blank or black window. Kittest proves the logic; this proves
//! the app opens and draws through winit, glow and Mesa on a machine like a user's.
//!
//! Needs `Xvfb`, `xdotool` and ImageMagick's `import` (`.ci/run` installs them with the GL and X
//! libraries); without `Xvfb` it says why and passes. Bounded to 60 s; the app and Xvfb are
//! ended by their own process ids however the test ends.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The table cloth (`ui::table::terrain::CLOTH`).
const CLOTH: [u8; 3] = [0x7d, 0x8f, 0x5a];
/// The whole test, Xvfb to the last capture.
const BUDGET: Duration = Duration::from_secs(60);

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// Processes this test started, ended (by their ids) when it ends, passed or not.
struct Started(Vec<Child>);

impl Drop for Started {
    fn drop(&mut self) {
        // The app first, then the display it draws on.
        for child in self.0.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn socket(display: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X11-unix/X{display}"))
}

/// Starts Xvfb on a display no one uses; its number.
fn start_xvfb(started: &mut Started, deadline: Instant) -> u32 {
    let first = 140 + std::process::id() % 100;
    for display in (first..first + 40)
        .filter(|d| !socket(*d).exists() && !Path::new(&format!("/tmp/.X{d}-lock")).exists())
    {
        let Ok(child) = Command::new("Xvfb")
            .arg(format!(":{display}"))
            .args(["-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        else {
            continue;
        };
        started.0.push(child);
        while Instant::now() < deadline {
            if socket(display).exists() {
                return display;
            }
            let exited = started
                .0
                .last_mut()
                .is_some_and(|c| c.try_wait().ok().flatten().is_some());
            if exited {
                break; // taken after all: try the next one
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Some(mut c) = started.0.pop() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    panic!("Xvfb did not start on any display from :{first}");
}

/// The window's id once `xdotool` finds it; `Err` with the exit status if the app ended first.
fn wait_for_window(
    display: u32,
    app: &mut Child,
    deadline: Instant,
) -> Result<String, std::process::ExitStatus> {
    while Instant::now() < deadline {
        if let Ok(Some(status)) = app.try_wait() {
            return Err(status);
        }
        let found = Command::new("xdotool")
            .args(["search", "--name", "Powderhorn"])
            .env("DISPLAY", format!(":{display}"))
            .output();
        if let Ok(out) = found {
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some(id) = text.split_whitespace().next() {
                return Ok(id.to_string());
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("no Powderhorn window within the time allowed");
}

/// A capture of the window as (width, height, RGB bytes), from ImageMagick's PPM.
fn capture(display: u32, window: &str, out: &Path) -> Option<(usize, usize, Vec<u8>)> {
    let status = Command::new("import")
        .args(["-window", window, "-depth", "8"])
        .arg(format!("ppm:{}", out.display()))
        .env("DISPLAY", format!(":{display}"))
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    parse_ppm(&std::fs::read(out).ok()?)
}

/// A binary PPM (P6, 8 bits): the header is four whitespace-separated fields.
fn parse_ppm(bytes: &[u8]) -> Option<(usize, usize, Vec<u8>)> {
    let mut fields = Vec::new();
    let mut i = 0;
    while fields.len() < 4 {
        while bytes.get(i)?.is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while !bytes.get(i)?.is_ascii_whitespace() {
            i += 1;
        }
        fields.push(std::str::from_utf8(bytes.get(start..i)?).ok()?.to_string());
    }
    let (w, h) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
    if fields[0] != "P6" || fields[3] != "255" {
        return None;
    }
    let pixels = bytes.get(i + 1..i + 1 + w * h * 3)?.to_vec();
    Some((w, h, pixels))
}

/// (share of cloth-coloured pixels, share of the commonest colour, distinct colours).
fn looks(pixels: &[u8]) -> (f64, f64, usize) {
    let mut counts = std::collections::HashMap::new();
    let mut cloth = 0usize;
    for p in pixels.chunks_exact(3) {
        let near = p.iter().zip(CLOTH).all(|(a, b)| a.abs_diff(b) <= 6);
        cloth += usize::from(near);
        *counts.entry([p[0], p[1], p[2]]).or_insert(0usize) += 1;
    }
    let n = (pixels.len() / 3).max(1) as f64;
    let top = counts.values().copied().max().unwrap_or(0);
    (cloth as f64 / n, top as f64 / n, counts.len())
}

#[test]
fn the_built_app_opens_the_samples_battle_and_draws_the_table_in_a_real_window() {
    for tool in ["Xvfb", "xdotool", "import"] {
        if !on_path(tool) {
            eprintln!(
                "skipped: `{tool}` is not on PATH (`.ci/run` installs xvfb, xdotool and \
                 imagemagick)"
            );
            return;
        }
    }
    let begun = Instant::now();
    let deadline = begun + BUDGET;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut started = Started(Vec::new());
    let display = start_xvfb(&mut started, deadline);

    let db = dir.path().join("new.sqlite");
    // A display just started on a loaded machine may refuse the first connection: an app that
    // ends before its window is started again (at most three times), and what it said is kept
    // for the failure message.
    let mut said = Vec::new();
    let mut window = None;
    for attempt in 1..=3 {
        let log = dir.path().join(format!("app-{attempt}.log"));
        let app = Command::new(env!("CARGO_BIN_EXE_powderhorn"))
            .arg("--db")
            .arg(&db)
            .env("DISPLAY", format!(":{display}"))
            .env_remove("WAYLAND_DISPLAY")
            .env("POWDERHORN_START", "battle:1809-ebelsberg")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("the app starts");
        started.0.push(app);
        let app = started.0.last_mut().expect("just pushed");
        match wait_for_window(display, app, deadline) {
            Ok(id) => {
                window = Some(id);
                break;
            }
            Err(status) => {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                said.push(format!("attempt {attempt}: {status}: {}", text.trim()));
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    let Some(window) = window else {
        panic!(
            "the app exited before opening its window:\n{}",
            said.join("\n")
        );
    };
    if !said.is_empty() {
        eprintln!("opened after a retry:\n{}", said.join("\n"));
    }

    // The first frames may still be blank: capture until the table shows or time runs out.
    let shot = dir.path().join("shot.ppm");
    let mut last = None;
    while Instant::now() < deadline {
        if let Some((w, h, pixels)) = capture(display, &window, &shot) {
            let (cloth, top, colours) = looks(&pixels);
            last = Some((w, h, cloth, top, colours));
            if cloth >= 0.05 && top < 0.9 && colours >= 50 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let Some((w, h, cloth, top, colours)) = last else {
        panic!("no capture of the window could be made");
    };
    eprintln!(
        "window {w}×{h}: cloth {:.1}% of it, commonest colour {:.1}%, {colours} colours, \
         after {:.1} s",
        cloth * 100.0,
        top * 100.0,
        begun.elapsed().as_secs_f64()
    );
    assert!(w >= 900 && h >= 500, "a window of {w}×{h}");
    assert!(
        cloth >= 0.05,
        "the table cloth covers {:.1}% of the window (at least 5% when the table shows)",
        cloth * 100.0
    );
    assert!(
        top < 0.9,
        "one colour covers {:.1}%: a blank or black window",
        top * 100.0
    );
    assert!(colours >= 50, "only {colours} colours in the window");
    // The database was created and the battle stored in it.
    assert!(db.exists());
    drop(started);
}
