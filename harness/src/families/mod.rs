pub mod qwp;
