//! The wrapped-line layout: the document cut into visual lines by display
//! width (the terminal's, [`char_width`]; wide CJK glyphs count 2 and are never
//! split), computed once per (text, width) and reused by every frame.

use unicode_categories::UnicodeCategories;
use unicode_width::UnicodeWidthChar;

/// Columns a tab takes on screen.
pub const TAB_WIDTH: usize = 4;

/// Display width of one char as the document view draws it: the columns the
/// terminal moves its cursor by. That is unicode-width's answer but for the
/// chars it counts as none that terminals (tmux, xterm, VTE, foot: wcwidth)
/// draw: spacing marks it folds into the glyph before (Bengali া U+09BE,
/// Tamil ா U+0BBE, ...), the wide Hangul tone marks 〮〯 and the soft hyphen.
pub fn char_width(c: char) -> usize {
    match c {
        '\t' => TAB_WIDTH,
        c if (c as u32) < 0x7f && c >= ' ' => 1,
        c if c.is_control() => 0,
        c => match c.width() {
            Some(0) => match c {
                '\u{302e}' | '\u{302f}' => 2,
                '\u{ad}' => 1,
                c if c.is_mark_spacing_combining() => 1,
                _ => 0,
            },
            w => w.unwrap_or(0),
        },
    }
}

/// Whether the view draws `c` over the glyph before it, in that glyph's
/// cell: a char of no columns (combining marks, joiners, variation
/// selectors). The spacing marks above take cells of their own, as they
/// take columns of their own in the terminal.
pub fn joins_previous(c: char) -> bool {
    !c.is_control() && char_width(c) == 0
}

/// Whether `c` belongs to the glyph before it (a mark of any kind): no line
/// starts with it.
fn extends_glyph(c: char) -> bool {
    !c.is_control() && c != '\u{ad}' && c.width() == Some(0)
}

/// Punctuation that should not start a line (CJK line-breaking rules, the cheap part).
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '。' | '，'
            | '、'
            | '；'
            | '：'
            | '！'
            | '？'
            | '」'
            | '』'
            | '）'
            | '》'
            | '〉'
            | '】'
            | '〕'
            | '”'
            | '’'
            | '．'
            | '…'
            | '～'
            | 'ー'
    )
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
    /// Wrap at word boundaries: after spaces and tabs, and around wide (CJK)
    /// glyphs, never putting closing punctuation (。，！？」…) first on a line.
    /// A word longer than the width is cut between chars; a space that does
    /// not fit hangs past the edge (it is not drawn) so lines never start with it.
    pub fn new(text: &str, width: usize, doc_rev: u64) -> Layout {
        let width = width.max(1);
        let mut lines = Vec::with_capacity(text.len() / 48 + 1);
        let (mut start, mut w) = (0usize, 0usize);
        // Last break opportunity on this line: (byte, width before it).
        let mut brk: Option<(usize, usize)> = None;
        let (mut prev_space, mut prev_wide) = (false, false);
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            // ASCII fast path; a 10 MB file wraps in tens of milliseconds.
            let (c, cw, len) = if b < 0x80 {
                if b == b'\n' {
                    lines.push((start as u32, i as u32));
                    i += 1;
                    start = i;
                    w = 0;
                    brk = None;
                    (prev_space, prev_wide) = (false, false);
                    continue;
                }
                (b as char, char_width(b as char), 1)
            } else {
                let c = text[i..].chars().next().expect("char boundary");
                (c, char_width(c), c.len_utf8())
            };
            let space = c == ' ' || c == '\t';
            let wide = cw >= 2;
            // Closing punctuation and marks of the glyph before stay on its line.
            let closing = is_closing(c) || extends_glyph(c);
            if i > start && !closing && (prev_space || wide || (prev_wide && !space)) {
                brk = Some((i, w));
            }
            if w + cw > width && i > start {
                if space {
                    // Hang the space: the line ends after it.
                    lines.push((start as u32, (i + 1) as u32));
                    i += 1;
                    start = i;
                    w = 0;
                    brk = None;
                    (prev_space, prev_wide) = (true, false);
                    continue;
                }
                // A break with only zero-width chars before it shortens nothing.
                match brk.filter(|&(at, before)| at > start && before > 0) {
                    Some((at, before)) => {
                        lines.push((start as u32, at as u32));
                        start = at;
                        w -= before;
                        // The word after the break is itself too long: cut it here.
                        if w + cw > width && i > start {
                            lines.push((start as u32, i as u32));
                            start = i;
                            w = 0;
                        }
                    }
                    None => {
                        lines.push((start as u32, i as u32));
                        start = i;
                        w = 0;
                    }
                }
                brk = None;
            }
            w += cw;
            i += len;
            if cw > 0 {
                (prev_space, prev_wide) = (space, wide);
            }
        }
        if start < text.len() || lines.is_empty() {
            lines.push((start as u32, text.len() as u32));
        }
        Layout { width, doc_rev, lines }
    }

    /// The rows `text` wraps to in `width` columns, as slices of it: for a
    /// short text drawn in a panel, wrapped as the document is.
    pub fn rows(text: &str, width: usize) -> Vec<&str> {
        let layout = Layout::new(text, width, 0);
        layout.lines.iter().map(|&(s, e)| &text[s as usize..e as usize]).collect()
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
        for (i, c) in text.get(s as usize..e as usize)?.char_indices() {
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

    fn wrap(text: &str, width: usize) -> Vec<&str> {
        Layout::rows(text, width)
    }

    #[test]
    fn english_wraps_between_words_and_cuts_only_long_words() {
        assert_eq!(wrap("the cat went into the house", 10), ["the cat ", "went into ", "the house"]);
        assert_eq!(wrap("a supercalifragilistic word", 8), ["a ", "supercal", "ifragili", "stic ", "word"]);
        // A space that does not fit hangs on the line before.
        assert_eq!(wrap("hello world", 5), ["hello ", "world"]);
        assert_eq!(wrap("tab\tthen", 6), ["tab\t", "then"]);
    }

    #[test]
    fn cjk_wraps_anywhere_but_keeps_closing_punctuation_off_line_starts() {
        assert_eq!(wrap("中文字中文字", 4), ["中文", "字中", "文字"]);
        // '。' would start line 2: the char before it moves down with it.
        assert_eq!(wrap("一二。三", 4), ["一", "二。", "三"]);
        assert_eq!(wrap("中文abc def", 6), ["中文", "abc ", "def"]);
        assert_eq!(wrap("说“你好”。", 6), ["说“你", "好”。"]);
    }

    #[test]
    fn byte_ranges_cover_the_text_in_order() {
        let text = "Some words, 中文句子。 More words here and there!\n\nend";
        for w in 1..30 {
            let l = Layout::new(text, w, 0);
            let mut at = 0;
            for &(s, e) in &l.lines {
                assert!(s as usize >= at && s <= e, "{w}: {:?}", l.lines);
                assert!(text.is_char_boundary(s as usize) && text.is_char_boundary(e as usize));
                at = e as usize;
            }
            let joined: usize =
                l.lines.iter().map(|&(s, e)| (e - s) as usize).sum::<usize>() + text.matches('\n').count();
            assert_eq!(joined, text.len(), "{w}");
        }
    }

    #[test]
    fn no_line_is_wider_than_the_width_but_for_a_hanging_space_or_one_glyph() {
        // A break with only a mark before it, or a word after the break still
        // too long for the line, once left the line wider than the pane: the
        // terminal wrapped its last glyph onto the next row.
        let text = "\t\ta ব……word…。x…中x…  \u{902}ব。。。”………word…a。a\na bbbbbbbbbbbbbbbb。c";
        for width in 1..30 {
            for line in wrap(text, width) {
                let glyphs = line.chars().filter(|&c| char_width(c) > 0).count();
                let w: usize = line.trim_end_matches([' ', '\t']).chars().map(char_width).sum();
                assert!(w <= width || glyphs == 1, "{width}: {line:?} is {w} columns");
            }
        }
    }

    #[test]
    fn empty_lines_are_kept() {
        let l = Layout::new("a\n\nb\n", 10, 0);
        assert_eq!(l.lines, [(0, 1), (2, 2), (3, 4)]);
    }
}
