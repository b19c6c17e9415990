//! `chunktui bench`: the workbench's own latency, measured the way a user
//! feels it. A parameter key goes through `update`, the chunker thread (the
//! real one: chunking time included), back through `update`, and is drawn
//! on ratatui's TestBackend; we time key to finished frame. Then the time to
//! the first frame of a 10 MB file (the text shows before chunks arrive).

use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::tui::app::model::Model;
use crate::tui::app::msg::Msg;
use crate::tui::features::params::non_model_strategies;
use crate::tui::jobs::runtime::Runtime;
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
  - for every strategy that needs no model, --changes size changes (the + and - keys): the
    time from the key press to the finished frame, re-chunking included (p50, p95, max;
    target p95 < 16 ms);
  - the time to the first frame of a --big-mb MB file (FILE repeated), and to its chunks
    (target < 1 s).
Time a release build (cargo build --release): a debug build is several times slower.

Examples:
  chunktui bench ../shared/corpus/en_rust_book.md       the README's numbers (1.2 MB Markdown)
  chunktui bench samples/guide.md --changes 10 --big-mb 1")]
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
}

type Term = Terminal<TestBackend>;

fn draw(term: &mut Term, m: &Model, theme: &Theme) -> Result<()> {
    term.draw(|f| view::draw(m, theme, f)).map_err(|e| Error::Io(format!("draw: {e}")))?;
    Ok(())
}

/// Feed messages to `update` until pane 0 shows its newest chunks.
fn settle(m: &mut Model, rt: &Runtime) -> Result<()> {
    while m.panes[0].pending() || m.panes[0].shown_rev == 0 && m.panes[0].error.is_none() {
        let msg = rt.rx.recv_timeout(Duration::from_secs(120)).map_err(|_| Error::Io("chunker timed out".into()))?;
        for cmd in update::update(m, msg) {
            rt.exec(cmd);
        }
    }
    Ok(())
}

fn pct(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let path = &args.file;
    let doc = Document::load(path, false)?;
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
    let config = ChunkConfig::default();
    let mut m = Model::new(doc, config.clone(), config.clone(), screen);
    for cmd in update::start(&mut m) {
        rt.exec(cmd);
    }
    settle(&mut m, &rt)?;
    let mut all = Vec::new();
    println!("{:<28} {:>8} {:>11} {:>11} {:>11}", "strategy", "chunks", "p50", "p95", "max");
    for strategy in non_model_strategies() {
        m.panes[0].config.strategy = strategy;
        let mut lat = Vec::with_capacity(args.changes);
        for i in 0..args.changes + 1 {
            let key = if i % 2 == 0 { '+' } else { '-' };
            let t0 = Instant::now();
            for cmd in update::update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE))) {
                rt.exec(cmd);
            }
            draw(&mut term, &m, &theme)?;
            settle(&mut m, &rt)?;
            draw(&mut term, &m, &theme)?;
            if i > 0 {
                lat.push(t0.elapsed()); // the first change warms up the strategy
            }
        }
        lat.sort();
        let chunks =
            if let Some(e) = &m.panes[0].error { format!("error: {e}") } else { m.panes[0].chunks.len().to_string() };
        println!(
            "{:<28} {:>8} {:>11} {:>11} {:>11}",
            strategy.name(),
            chunks,
            ms(pct(&lat, 0.5)),
            ms(pct(&lat, 0.95)),
            ms(lat[lat.len() - 1])
        );
        all.extend(lat);
    }
    all.sort();
    println!(
        "{:<28} {:>8} {:>11} {:>11} {:>11}   (target p95 < 16 ms)",
        "all",
        "",
        ms(pct(&all, 0.5)),
        ms(pct(&all, 0.95)),
        ms(all[all.len() - 1])
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
    settle(&mut m, &rt)?;
    draw(&mut term, &m, &theme)?;
    let chunked = t0.elapsed();
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
