pub mod families;
