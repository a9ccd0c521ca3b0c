//! The README's test command is exactly the one CI runs (`.ci/run`), so the two cannot drift.

fn fenced_sh_commands(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```sh") {
            inside = true;
        } else if line.trim_start().starts_with("```") {
            inside = false;
        } else if inside && !line.trim().is_empty() {
            out.push(line.trim().to_string());
        }
    }
    out
}

#[test]
fn readme_test_command_is_the_ci_command() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let commands = fenced_sh_commands(&readme);
    assert!(
        commands.contains(&"cargo run --release".to_string()),
        "{commands:?}"
    );
    let test_cmd = commands
        .iter()
        .find(|c| c.starts_with("cargo test"))
        .expect("README names a test command");
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .expect(".ci/run has commands");
    assert_eq!(
        last, test_cmd,
        ".ci/run must end with the README's test command"
    );
}
