//! The wrapped-line layout: the document cut into visual lines by display
//! width (unicode-width; wide CJK glyphs count 2 and are never split), computed
//! once per (text, width) and reused by every frame.

use unicode_width::UnicodeWidthChar;

/// Columns a tab takes on screen.
pub const TAB_WIDTH: usize = 4;

/// Display width of one char as the document view draws it.
pub fn char_width(c: char) -> usize {
    match c {
        '\t' => TAB_WIDTH,
        c if (c as u32) < 0x7f && c >= ' ' => 1,
        c if c.is_control() => 0,
        c => c.width().unwrap_or(0),
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// The width the text was wrapped to (text columns, without the gutter).
    pub width: usize,
    /// Which document revision this layout belongs to.
    pub doc_rev: u64,
    /// Byte range of each visual line, newline excluded.
    pub lines: Vec<(u32, u32)>,
}

impl Layout {
    pub fn new(text: &str, width: usize, doc_rev: u64) -> Layout {
        let width = width.max(1);
        let mut lines = Vec::with_capacity(text.len() / 48 + 1);
        let (mut start, mut w) = (0usize, 0usize);
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            // ASCII fast path; a 10 MB file wraps in tens of milliseconds.
            let (cw, len) = if b < 0x80 {
                if b == b'\n' {
                    lines.push((start as u32, i as u32));
                    i += 1;
                    start = i;
                    w = 0;
                    continue;
                }
                (char_width(b as char), 1)
            } else {
                let c = text[i..].chars().next().expect("char boundary");
                (char_width(c), c.len_utf8())
            };
            if w + cw > width && i > start {
                lines.push((start as u32, i as u32));
                start = i;
                w = 0;
            }
            w += cw;
            i += len;
        }
        if start < text.len() || lines.is_empty() {
            lines.push((start as u32, text.len() as u32));
        }
        Layout { width, doc_rev, lines }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The visual line holding byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.lines.partition_point(|l| l.0 as usize <= at).saturating_sub(1)
    }

    /// First byte of a visual line (the end of the text past the last line).
    pub fn start_of(&self, line: usize) -> usize {
        self.lines.get(line).map_or_else(|| self.lines.last().map_or(0, |l| l.1 as usize), |l| l.0 as usize)
    }

    /// The byte under column `col` of visual line `line` (the line's end when past it).
    pub fn byte_at(&self, text: &str, line: usize, col: usize) -> Option<usize> {
        let &(s, e) = self.lines.get(line)?;
        let mut x = 0;
        for (i, c) in text[s as usize..e as usize].char_indices() {
            x += char_width(c);
            if x > col {
                return Some(s as usize + i);
            }
        }
        Some(e as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_by_display_width_and_keeps_wide_glyphs_whole() {
        let text = "ab中文字\nxy";
        let l = Layout::new(text, 5, 0);
        let got: Vec<&str> = l.lines.iter().map(|&(s, e)| &text[s as usize..e as usize]).collect();
        assert_eq!(got, ["ab中", "文字", "xy"]);
        assert_eq!(l.line_of(text.find('字').unwrap()), 1);
        assert_eq!(l.byte_at(text, 0, 3), Some(2));
    }

    #[test]
    fn empty_lines_are_kept() {
        let l = Layout::new("a\n\nb\n", 10, 0);
        assert_eq!(l.lines, [(0, 1), (2, 2), (3, 4)]);
    }
}
