//! `chunktui bench` (filled in below).

#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

pub fn run(_args: &BenchArgs) -> crate::Result<()> {
    Err(crate::Error::input("`chunktui bench` is not available yet"))
}
