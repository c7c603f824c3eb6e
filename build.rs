//! Turns the shell-command rules (`src/shell/rules.toml`) into JSON at build
//! time: the agent door answers a harmless command in a millisecond or two,
//! and reading the rules as JSON costs a fraction of parsing the TOML.

use std::path::PathBuf;

fn main() {
    let source = "src/shell/rules.toml";
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("src/shell/rules.toml is readable");
    let value: toml::Value = toml::from_str(&text).expect("src/shell/rules.toml is valid TOML");
    let json = serde_json::to_string(&value).expect("TOML values convert to JSON");
    #[expect(
        clippy::disallowed_methods,
        reason = "a build script has no `Env`; cargo hands it OUT_DIR"
    )]
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("rules.json"), json).expect("OUT_DIR is writable");
}
