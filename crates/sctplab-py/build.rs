//! Records the git commit the extension was built from (run.json's `git_commit`), since an
//! installed package no longer sits in its repository.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(false);
    println!("cargo:rustc-env=SCTPLAB_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=SCTPLAB_GIT_DIRTY={dirty}");
    if let Some(top) = git(&["rev-parse", "--show-toplevel"]) {
        println!("cargo:rerun-if-changed={top}/.git/HEAD");
        println!("cargo:rerun-if-changed={top}/.git/index");
        // Source edits change the dirty flag without touching the index.
        println!("cargo:rerun-if-changed={top}/crates");
    }
}
