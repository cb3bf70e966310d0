// Compile the model into a static library with nnc (the NNC environment
// variable names it, default the nnc on the PATH) and link it.
use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let nnc = env::var("NNC").unwrap_or_else(|_| "nnc".to_string());
    let lib = out.join("libsample.a");
    let status = Command::new(&nnc)
        .args(["compile", "--emit", "lib", "-o"])
        .arg(&lib)
        .arg("model.nnl")
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {}", nnc, e));
    if !status.success() {
        panic!("{} compile failed: {}", nnc, status);
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=sample");
    println!("cargo:rustc-link-lib=m");
    println!("cargo:rerun-if-changed=model.nnl");
    println!("cargo:rerun-if-changed=weights");
    println!("cargo:rerun-if-env-changed=NNC");
}
