#[cfg(target_arch = "x86_64")] pub mod questdb;
