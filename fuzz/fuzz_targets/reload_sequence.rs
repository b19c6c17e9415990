//! Fuzz target: arbitrary bytes -> a workbench session of reloads (texts of
//! any length, growing and shrinking), worker answers delivered late, out of
//! order, for older texts or never, keys, clicks, resizes and draws into
//! buffers down to 1x1, all through `update()` and the draw functions. The
//! model is checked after every message with the property test's rules
//! (tests/reload_replay/mod.rs, included by path): chunks, token counts,
//! selection, layout and scroll all belong to the text on screen. Any panic
//! is a finding too.
//!
//! Input layout: bytes 0-3 set up the first model (strategy, size, overlap,
//! flags: compare, document kind); the rest is a list of operations, each an
//! opcode byte and its arguments (see `next_op`); a text is a length byte,
//! a repeat byte and that many bytes (lossy UTF-8), so short inputs can make
//! long documents.
//!
//! With cargo-fuzz (`cargo fuzz run reload_sequence`) this is a libFuzzer
//! target. Built plainly (`cargo run --bin reload_sequence -- DIR_OR_FILE...`)
//! it replays files, e.g. fuzz/seeds-reload/ or a saved crash.
#![cfg_attr(fuzzing, no_main)]

#[path = "../../tests/reload_replay/mod.rs"]
#[allow(dead_code)]
mod reload_replay;

use chunktui::document::DocKind;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use reload_replay::{initial, Op, Session};

/// Operations per input at most: enough for many reload cycles, short
/// enough to keep executions fast.
const MAX_OPS: usize = 64;

/// Keys of the default keymap and the prompts, and a few that mean nothing.
const KEYS: [KeyCode; 42] = {
    use KeyCode::*;
    [
        Char('j'),
        Char('k'),
        Char('n'),
        Char('N'),
        Char('+'),
        Char('-'),
        Char('<'),
        Char('>'),
        Char('['),
        Char(']'),
        Char('{'),
        Char('}'),
        Char('s'),
        Char('S'),
        Char('u'),
        Char('t'),
        Char('p'),
        Char('o'),
        Char('O'),
        Char('c'),
        Char('y'),
        Char('.'),
        Char(','),
        Char('T'),
        Char('/'),
        Char('?'),
        Char('e'),
        Char('E'),
        Char('q'),
        Char('G'),
        Char('x'),
        Char('中'),
        Up,
        Down,
        PageUp,
        PageDown,
        Home,
        End,
        Enter,
        Esc,
        Backspace,
        Tab,
    ]
};

const KINDS: [DocKind; 3] = [DocKind::Markdown, DocKind::Text, DocKind::Code];

/// Reads the input front to back; past the end every read is None.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    /// A length byte, a repeat byte (1..=16), then that many bytes as text.
    fn text(&mut self) -> Option<String> {
        let len = self.byte()? as usize;
        let times = 1 + self.byte()? as usize % 16;
        let take = len.min(self.0.len());
        let (piece, rest) = self.0.split_at(take);
        self.0 = rest;
        Some(String::from_utf8_lossy(piece).repeat(times))
    }
}

fn next_op(b: &mut Bytes) -> Option<Op> {
    Some(match b.byte()? % 11 {
        0 | 1 => Op::Reload(b.text()?, KINDS[b.byte()? as usize % KINDS.len()]),
        2 => Op::ReloadFailed,
        3 | 4 => Op::Answer(b.byte()? as usize),
        5 => Op::Drop(b.byte()? as usize),
        6 => Op::Forged(b.byte()? as usize, b.text()?),
        7 => Op::Key(KeyEvent::new(KEYS[b.byte()? as usize % KEYS.len()], KeyModifiers::NONE)),
        8 => Op::Click(b.byte()? as u16 % 200, b.byte()? as u16 % 60),
        9 => match b.byte()? {
            x if x & 1 == 0 => Op::Wheel(x & 2 == 0),
            _ => Op::Resize(1 + b.byte()? as u16 % 200, 1 + b.byte()? as u16 % 60),
        },
        _ => Op::Draw(1 + b.byte()? as u16 % 200, 1 + b.byte()? as u16 % 60, b.byte()? & 1 == 1),
    })
}

pub fn check(data: &[u8]) {
    let mut b = Bytes(data);
    let (Some(strategy), Some(size), Some(overlap), Some(flags)) = (b.byte(), b.byte(), b.byte(), b.byte()) else {
        return;
    };
    let text = b.text().unwrap_or_default();
    let kind = KINDS[(flags >> 1) as usize % KINDS.len()];
    let m = initial(text, kind, strategy as usize, 1 + size as usize, overlap as usize, flags & 1 == 1);
    let mut session = Session::start(m).unwrap_or_else(|e| panic!("at start: {e}"));
    // Draws happen at the input's own Draw operations and once at the end.
    session.draw_each_step = false;
    for step in 0..MAX_OPS {
        let Some(op) = next_op(&mut b) else { break };
        if let Err(e) = session.apply(op.clone()) {
            panic!("step {step} ({op:?}): {e}");
        }
    }
    if let Err(e) = session.settle() {
        panic!("settling: {e}");
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): every reload sequence kept its invariants");
}

#[cfg(not(fuzzing))]
mod replay;
