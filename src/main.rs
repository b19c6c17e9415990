//! The `chunktui` binary: parse, dispatch, and turn every error into one
//! line on stderr with exit code 2.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = chunktui::cli::Cli::parse();
    match chunktui::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let msg = err.to_string();
            let mut lines = msg.lines();
            eprintln!("chunktui: error: {}", lines.next().unwrap_or("unknown error"));
            for line in lines {
                eprintln!("chunktui: error: {line}");
            }
            ExitCode::from(2)
        }
    }
}
