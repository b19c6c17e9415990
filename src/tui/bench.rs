//! `chunktui bench`: the workbench's own latency, measured the way a user
//! feels it. A parameter key goes through `update`, the chunker thread (the
//! real one: chunking time included), back through `update`, and is drawn
//! on ratatui's TestBackend; we time key to the frame that shows the new
//! cut on screen (the first chunks of a strategy that streams, else all of
//! them), with the screen at the top of the document and in its middle, and
//! key to the frame with the whole result. Then the time to the first frame
//! of a 10 MB file (the text shows before chunks arrive).

use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::tui::features::params::non_model_strategies;
use crate::tui::jobs::runtime::Runtime;
use crate::tui::msg::Msg;
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use crate::tui::{app::update, view};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::Terminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

// The document is required: the numbers mean little without knowing what
// was chunked, and no document outside the repository can be assumed.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
What it measures, with the real chunker thread and an off-screen terminal:
  - for every strategy that needs no model, each starting from the settings given (--config and
    the chunking flags, e.g. --unit tokens; the defaults otherwise), --changes size changes (the + and - keys), with
    the screen at the top of the document and again in its middle: the time from the key
    press to the frame that shows the new chunks on screen (p50, p95, max; the headline p95 is
    the larger of the top's and the middle's; target < 16 ms, and the last line says which
    strategies meet it), and to the frame with every chunk counted (the full pass: stats, list);
  - the time to the first frame of a --big-mb MB file (FILE repeated), and to its chunks
    (target < 1 s).
Time a release build (cargo build --release): a debug build is several times slower.

Examples:
  chunktui bench ../shared/corpus/en_rust_book.md       docs/speed.md's numbers (1.2 MB Markdown)
  chunktui bench samples/guide.md --changes 10 --big-mb 1
  chunktui bench big.md -s sentence,langchain-token       two strategies only
  chunktui bench big.md --unit tokens --size 256 -s recursive,langchain-recursive   in cl100k tokens")]
pub struct BenchArgs {
    /// Document to time (Markdown or text); also repeated to make the big file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Parameter changes timed per strategy.
    #[arg(long, default_value_t = 40, value_name = "N")]
    pub changes: usize,
    /// Size of the generated file for the first-frame time, in MB.
    #[arg(long, default_value_t = 10, value_name = "MB")]
    pub big_mb: usize,
    /// Terminal size used for drawing.
    #[arg(long, default_value_t = 120)]
    pub width: u16,
    #[arg(long, default_value_t = 40)]
    pub height: u16,
    /// Time only these strategies (comma-separated names; default: every
    /// strategy that needs no model).
    #[arg(long, short = 's', value_delimiter = ',', value_name = "NAMES")]
    pub strategy: Vec<String>,
}

type Term = Terminal<TestBackend>;

fn draw(term: &mut Term, m: &Model, theme: &Theme) -> Result<()> {
    term.draw(|f| view::draw(m, theme, f)).map_err(|e| Error::Io(format!("draw: {e}")))?;
    Ok(())
}

/// Feed messages to `update` until pane 0 shows its newest chunks; draw
/// and note the time (since `t0`) once the screen shows the new cut, be it
/// only its first chunks. Returns (screen, full) times.
fn settle(m: &mut Model, rt: &Runtime, term: &mut Term, theme: &Theme, t0: Instant) -> Result<(Duration, Duration)> {
    let mut screen = None;
    while crate::tui::view::counting(m, 0) {
        let drawn_new = m.panes[0].drawn_part().is_some();
        if screen.is_none() && drawn_new {
            draw(term, m, theme)?;
            screen = Some(t0.elapsed());
        }
        let msg = rt.rx.recv_timeout(Duration::from_secs(120)).map_err(|_| Error::Io("chunker timed out".into()))?;
        for cmd in update::update(m, msg) {
            rt.exec(cmd);
        }
    }
    draw(term, m, theme)?;
    let full = t0.elapsed();
    Ok((screen.unwrap_or(full), full))
}

/// Press `+` and `-` in turn, `changes` times after one to warm up: the
/// (screen, full) times of each.
fn changes(m: &mut Model, rt: &Runtime, term: &mut Term, theme: &Theme, n: usize) -> Result<Vec<(Duration, Duration)>> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n + 1 {
        let key = if i % 2 == 0 { '+' } else { '-' };
        let t0 = Instant::now();
        for cmd in update::update(m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE))) {
            rt.exec(cmd);
        }
        draw(term, m, theme)?;
        let t = settle(m, rt, term, theme, t0)?;
        if i > 0 {
            times.push(t); // the first change warms up the strategy
        }
    }
    Ok(times)
}

fn pct(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The target's line: which strategies keep the screen's p95 under 16 ms.
fn verdict(screen_p95: &[(&str, Duration)]) -> String {
    const TARGET: Duration = Duration::from_millis(16);
    let missed: Vec<String> =
        screen_p95.iter().filter(|(_, d)| *d >= TARGET).map(|(name, d)| format!("{name} {}", ms(*d))).collect();
    let slowest = screen_p95.iter().max_by_key(|(_, d)| *d);
    match (missed.is_empty(), slowest) {
        (_, None) => "target: the new chunks on screen within 16 ms (p95): no strategy timed".to_string(),
        (true, Some((name, d))) => {
            format!(
                "target: the new chunks on screen within 16 ms (p95): met by every strategy (slowest: {name}, {})",
                ms(*d)
            )
        }
        (false, _) => format!("target: the new chunks on screen within 16 ms (p95): MISSED by {}", missed.join(", ")),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Time the workbench on `args.file`, each strategy starting from `start`
/// (the command line's chunking settings).
pub fn run(args: &BenchArgs, start: ChunkConfig) -> Result<()> {
    let path = &args.file;
    let doc = Document::load(path, false)?;
    let doc_kind = doc.kind;
    let screen = Rect::new(0, 0, args.width, args.height);
    let theme = Theme::dark();
    let mut term = Terminal::new(TestBackend::new(args.width, args.height)).map_err(|e| Error::Io(e.to_string()))?;
    println!(
        "parameter change -> frame, {} ({} bytes), {}x{}, {} changes per strategy",
        path.display(),
        doc.text.len(),
        args.width,
        args.height,
        args.changes
    );
    let rt = Runtime::new(None);
    let config = start;
    let mut m = Model::new(doc, config.clone(), config.clone(), screen);
    for cmd in update::start(&mut m) {
        rt.exec(cmd);
    }
    settle(&mut m, &rt, &mut term, &theme, Instant::now())?;
    let (mut all_top, mut all_middle, mut all_full) = (Vec::new(), Vec::new(), Vec::new());
    // Each strategy's screen p95 (top and middle together), for the verdict.
    let mut verdicts: Vec<(&str, Duration)> = Vec::new();
    let row = |name: &str, chunks: &str, top: &[Duration], middle: &[Duration], full: &[Duration]| {
        let sorted = |d: &[Duration]| {
            let mut d = d.to_vec();
            d.sort();
            d
        };
        let screen = sorted(&[top, middle].concat());
        let (top, middle, full) = (sorted(top), sorted(middle), sorted(full));
        // The headline: the worse of the two screens' p95.
        let p95 = pct(&top, 0.95).max(pct(&middle, 0.95));
        println!(
            "{name:<26} {chunks:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            ms(p95),
            ms(pct(&top, 0.5)),
            ms(pct(&top, 0.95)),
            ms(pct(&middle, 0.95)),
            ms(screen[screen.len() - 1]),
            ms(pct(&full, 0.95)),
        );
        p95
    };
    println!("{:<26} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}", "", "", "screen:", "", "", "", "", "full pass:");
    println!(
        "{:<26} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "strategy", "chunks", "p95", "top p50", "top p95", "mid p95", "max", "p95"
    );
    let all: Vec<_> = non_model_strategies().into_iter().filter(|k| k.spec().reads(doc_kind)).collect();
    if let Some(unknown) = args.strategy.iter().find(|s| !all.iter().any(|k| k.name() == s.as_str())) {
        let names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        return Err(Error::Config(format!("bench: unknown strategy {unknown:?}: choose from {}", names.join(", "))));
    }
    for strategy in all.into_iter().filter(|k| args.strategy.is_empty() || args.strategy.iter().any(|s| s == k.name()))
    {
        // Each strategy from the same settings, not those the one before left.
        m.panes[0].config = config.clone();
        m.panes[0].config.strategy = strategy;
        m.panes[0].config.normalize();
        // The same changes with the screen at the top, then in the middle.
        m.top = 0;
        let (top, mut full): (Vec<Duration>, Vec<Duration>) =
            changes(&mut m, &rt, &mut term, &theme, args.changes)?.into_iter().unzip();
        m.top = m.layout.len() / 2;
        let (middle, full_middle): (Vec<Duration>, Vec<Duration>) =
            changes(&mut m, &rt, &mut term, &theme, args.changes)?.into_iter().unzip();
        full.extend(full_middle);
        let chunks =
            if let Some(e) = &m.panes[0].error { format!("error: {e}") } else { m.panes[0].chunks.len().to_string() };
        verdicts.push((strategy.name(), row(strategy.name(), &chunks, &top, &middle, &full)));
        all_top.extend(top);
        all_middle.extend(middle);
        all_full.extend(full);
    }
    row("all", "", &all_top, &all_middle, &all_full);
    println!("{}", verdict(&verdicts));
    println!(
        "screen: key press to the frame showing the new chunks on screen, with the screen at the top of the \
         document and in its middle (p95: the larger of the two); full pass: to the frame where the statistics \
         and the chunk list have every chunk too"
    );

    // Time to first frame on a big file: load, wrap, draw (chunks come later).
    let base = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    let big = std::env::temp_dir().join(format!("chunktui-bench-{}.md", std::process::id()));
    let mut text = String::with_capacity(args.big_mb << 20);
    while text.len() < args.big_mb << 20 {
        text.push_str(&base);
        text.push_str("\n\n");
    }
    std::fs::write(&big, &text).map_err(|e| Error::io(&big, &e))?;
    drop(text);
    let t0 = Instant::now();
    let doc = Document::load(&big, false)?;
    let bytes = doc.text.len();
    let mut m = Model::new(doc, config.clone(), config, screen);
    draw(&mut term, &m, &theme)?;
    let first = t0.elapsed();
    for cmd in update::start(&mut m) {
        rt.exec(cmd);
    }
    let (_, chunked) = settle(&mut m, &rt, &mut term, &theme, t0)?;
    let _ = std::fs::remove_file(&big);
    println!(
        "first frame, {} MB file ({} bytes): {}   (target < 1 s); with its {} chunks: {}",
        bytes >> 20,
        bytes,
        ms(first),
        m.panes[0].chunks.len(),
        ms(chunked)
    );
    Ok(())
}
