// Records the target triple so run manifests can say where they ran.
fn main() {
    println!(
        "cargo:rustc-env=CROSSDEC_ENGINE_TARGET={}",
        std::env::var("TARGET").expect("cargo sets TARGET")
    );
}
