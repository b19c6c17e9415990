//! The `chunktui` binary: parse, dispatch, and turn every error into one
//! line on stderr with exit code 2. Argument errors too: clap's own several
//! lines (usage, tips) are rewritten as one `chunktui: error:` line naming
//! the problem and the fix; `--help` and `--version` print as clap prints them.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match chunktui::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return argument_error(err),
    };
    let outcome = chunktui::cli::run(cli);
    // What the embeddings endpoint was asked, and what the cache saved.
    let embed = chunktui::embed_usage::usage();
    if !embed.is_empty() {
        eprintln!("chunktui: {}", embed.line());
    }
    // What LLM work cost, and every repair or fallback: never silent.
    #[cfg(feature = "llm")]
    {
        let usage = chunktui::llm::usage();
        if !usage.is_empty() {
            eprintln!("chunktui: {}", usage.line());
        }
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // A check that found what it fails on (`diff --fail-on changed`): its
        // report is printed; the one line says why the status is 1.
        Err(chunktui::Error::Changed(why)) => {
            eprintln!("chunktui: {}", chunktui::error::printable(&why));
            ExitCode::from(1)
        }
        Err(err) => {
            // A file name in a message may hold escape sequences: never sent raw.
            let msg = chunktui::error::printable(&err.to_string());
            let mut lines = msg.lines();
            eprintln!("chunktui: error: {}", lines.next().unwrap_or("unknown error"));
            for line in lines {
                eprintln!("chunktui: error: {line}");
            }
            ExitCode::from(2)
        }
    }
}

/// Help and version as clap prints them (exit 0); every argument error as
/// one line, exit 2 (a command group without its command, like a bare
/// `chunktui config`, is an error too, not a page of help).
fn argument_error(err: clap::Error) -> ExitCode {
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        // clap's own exit() ignores a failed write; a full disk or a closed
        // pipe must not look like a printed help page.
        use std::io::Write;
        let shown = err.print().and_then(|()| std::io::stdout().flush());
        return match shown {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("chunktui: error: {}", chunktui::export::write_error("standard output", &e));
                ExitCode::from(2)
            }
        };
    }
    eprintln!("chunktui: error: {}", chunktui::error::printable(&one_line(&err)));
    ExitCode::from(2)
}

/// A clap error as `problem: fix`.
fn one_line(err: &clap::Error) -> String {
    let get = |kind| err.get(kind).map(plain).filter(|s| !s.is_empty());
    let help = format!("see `{} --help`", command_of(err));
    let flag = get(ContextKind::InvalidArg).map(|a| a.split_whitespace().next().unwrap_or_default().to_string());
    let flag = flag.unwrap_or_default();
    let value = get(ContextKind::InvalidValue).unwrap_or_default();
    let line = match err.kind() {
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(err).map(|e| e.to_string()).unwrap_or_default();
            if why.starts_with(&flag) && !flag.is_empty() {
                // chunktui's own value parsers word the whole message.
                why
            } else if why.is_empty() {
                format!("{flag} does not take '{value}': {help}")
            } else {
                format!("{flag} does not take '{value}' ({why}): {help}")
            }
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            let arg = get(ContextKind::InvalidArg).unwrap_or_default();
            format!("{flag} needs a value: give it as `{arg}` ({help})")
        }
        ErrorKind::InvalidValue => {
            let valid = get(ContextKind::ValidValue).map(|v| format!(": use one of {v}")).unwrap_or_default();
            let guess = get(ContextKind::SuggestedValue).map(|v| format!(" (did you mean '{v}'?)")).unwrap_or_default();
            format!("{flag} does not take '{value}'{guess}{valid}")
        }
        ErrorKind::UnknownArgument => {
            let guess = get(ContextKind::SuggestedArg).map(|v| format!(" (did you mean '{v}'?)")).unwrap_or_default();
            if flag.parse::<f64>().is_ok() {
                // A negative number after an option that takes none.
                let args: Vec<String> = std::env::args().collect();
                match args.iter().position(|a| *a == flag).and_then(|i| i.checked_sub(1)).map(|i| &args[i]) {
                    Some(opt) if opt.starts_with("--") => {
                        format!("{opt} must be a whole number ≥ 0, not {flag}: {help}")
                    }
                    _ => format!("'{flag}' is not an option (a negative number is no value here): {help}"),
                }
            } else if flag.starts_with('-') {
                format!("unknown option '{flag}'{guess}: {help}")
            } else {
                format!("unexpected argument '{flag}' (one FILE at a time){guess}: {help}")
            }
        }
        ErrorKind::InvalidSubcommand => {
            let name = get(ContextKind::InvalidSubcommand).unwrap_or_default();
            let guess =
                get(ContextKind::SuggestedSubcommand).map(|v| format!(" (did you mean '{v}'?)")).unwrap_or_default();
            format!("unknown command '{name}'{guess}: {help}")
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = get(ContextKind::InvalidArg).unwrap_or_else(|| "an argument".into());
            format!("`{}` needs {missing}: {help}", command_of(err))
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let valid = get(ContextKind::ValidSubcommand).unwrap_or_else(|| subcommands_of(&command_of(err)));
            let valid = if valid.is_empty() { valid } else { format!(" ({valid})") };
            format!("`{}` needs a command{valid}: {help}", command_of(err))
        }
        ErrorKind::ArgumentConflict => match get(ContextKind::PriorArg) {
            // clap names the same option twice as a conflict with itself.
            Some(prior) if prior.split_whitespace().next() == flag.split_whitespace().next() => {
                format!("{flag} is given twice: keep one ({help})")
            }
            Some(prior) => format!("{flag} cannot be used with {prior}: drop one of them ({help})"),
            None => format!("{flag} cannot be used here: {help}"),
        },
        ErrorKind::NoEquals => format!("{flag} takes its value after '=': {flag}=VALUE ({help})"),
        _ => {
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            format!("{}: {help}", first.trim_start_matches("error:").trim())
        }
    };
    line.replace('\n', " ")
}

fn plain(v: &ContextValue) -> String {
    match v {
        ContextValue::Strings(list) => list.join(", "),
        other => other.to_string(),
    }
}

/// The command the error is about (`chunktui chunk`): from clap's usage line
/// (`Usage: chunktui chunk [OPTIONS] <FILE>`), else the subcommands named on
/// the command line.
fn command_of(err: &clap::Error) -> String {
    let usage = err.get(ContextKind::Usage).map(|u| u.to_string()).unwrap_or_default();
    let first = usage.lines().next().unwrap_or_default();
    let words: Vec<&str> =
        first.trim_start_matches("Usage:").split_whitespace().take_while(|w| !w.starts_with(['[', '<', '-'])).collect();
    if !words.is_empty() {
        return words.join(" ");
    }
    let mut path = vec!["chunktui".to_string()];
    let mut cmd = <chunktui::cli::Cli as clap::CommandFactory>::command();
    for arg in std::env::args().skip(1) {
        if arg == "--" {
            break;
        }
        let Some(sub) = cmd.find_subcommand(&arg).cloned() else { continue };
        path.push(arg);
        cmd = sub;
    }
    path.join(" ")
}

/// The subcommands of `chunktui config` and the like, comma-separated.
fn subcommands_of(path: &str) -> String {
    let mut cmd = <chunktui::cli::Cli as clap::CommandFactory>::command();
    for name in path.split_whitespace().skip(1) {
        match cmd.find_subcommand(name) {
            Some(sub) => cmd = sub.clone(),
            None => return String::new(),
        }
    }
    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).filter(|n| *n != "help").collect();
    names.join(", ")
}
