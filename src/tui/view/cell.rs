//! Cell helpers shared by everything drawn over the text (the document
//! pane, the probe's badges, the overlays).

use ratatui::buffer::{Cell, CellWidth};

/// Blank a cell that spans more than one column (a wide glyph, by its
/// symbol or as [`Row`] set it), keeping its style: for a box drawn over
/// its right half.
pub fn blank_if_wide(cell: &mut Cell) {
    if cell.cell_width() > 1 {
        let style = cell.style();
        cell.reset();
        cell.set_symbol(" ").set_style(style);
    }
}
