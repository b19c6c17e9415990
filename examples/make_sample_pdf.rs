//! Writes samples/report.pdf: our own four-page report, with tables laid out
//! in columns and a paragraph that runs from page 2 on to page 3, for the
//! PDF tests and for trying `chunktui samples/report.pdf`.
//!
//!     cargo run --example make_sample_pdf
//!
//! The file is byte-for-byte reproducible (no dates, no random ids, no
//! compression); tests/extract.rs checks the committed copy against
//! [`build`]. The text uses the standard Helvetica font, so it is ASCII.

use pdf_extract::content::{Content, Operation};
use pdf_extract::{Dictionary, Document, Object, Stream};

/// One thing drawn on a page.
enum Item {
    /// A line of text at (x, y), in points from the bottom left, at a size.
    Text(f32, f32, f32, &'static str),
    /// A filled grey rectangle (x, y, width, height): a drawing, not text.
    Box(f32, f32, f32, f32),
}
use Item::{Box as Rect, Text};

const LEFT: f32 = 72.0;

/// Lines of a paragraph from `y` down, 14 pt apart, at 11 pt.
fn paragraph(y: f32, lines: &[&'static str]) -> Vec<Item> {
    lines.iter().enumerate().map(|(i, l)| Text(LEFT, y - 14.0 * i as f32, 11.0, l)).collect()
}

/// Table rows from `y` down, 13 pt apart, cells at the column positions.
fn table(y: f32, columns: &[f32], rows: &[&[&'static str]]) -> Vec<Item> {
    let mut items = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (cell, &x) in row.iter().zip(columns) {
            items.push(Text(x, y - 13.0 * r as f32, 10.0, cell));
        }
    }
    items
}

fn pages() -> Vec<Vec<Item>> {
    let cols = [LEFT, 200.0, 330.0, 430.0];
    let mut p1 = vec![Text(LEFT, 720.0, 16.0, "Quarterly Report of the River Valley Cooperative")];
    p1.extend(paragraph(
        680.0,
        &[
            "This report covers the summer quarter. It was written by the board for the",
            "general assembly and sums up the harvest, the water turns and the accounts.",
        ],
    ));
    p1.extend(paragraph(
        630.0,
        &[
            "The season began late after a wet spring. Sowing on the lower fields waited",
            "until the middle of April, and the first cut of hay came two weeks after the",
            "usual date. Members shared machines without a single double booking.",
        ],
    ));
    p1.push(Rect(LEFT, 420.0, 300.0, 120.0));
    p1.extend(paragraph(400.0, &["Figure 1 shows the valley map drawn by the surveyors."]));

    let mut p2 = vec![Text(LEFT, 720.0, 14.0, "Harvest by field")];
    p2.extend(table(
        690.0,
        &cols,
        &[
            &["Field", "Crop", "Tonnes", "Steward"],
            &["North Meadow", "Winter wheat", "61.2", "A. Okafor"],
            &["Mill Acre", "Potatoes", "88.0", "J. Lindqvist"],
            &["Long Strip", "Clover", "0.0", "M. Haddad"],
            &["Riverside", "Barley", "39.5", "L. Ming"],
            &["Upper Terrace", "Oats", "22.8", "P. Novak"],
        ],
    ));
    p2.extend(paragraph(
        560.0,
        &[
            "Wheat did better than planned on the North Meadow, where the new drainage",
            "kept the roots dry through the wet weeks. The dry spell in July cut the barley",
            "yield on the Riverside field by a fifth, and after a long meeting the",
        ],
    ));
    let mut p3 = paragraph(
        720.0,
        &[
            "stewards agreed to share the remaining water by turns until the rains came.",
            "No field lost its crop, and the turns were kept to the hour.",
        ],
    );
    p3.push(Text(LEFT, 670.0, 14.0, "Accounts"));
    p3.extend(table(
        640.0,
        &cols,
        &[
            &["Item", "Income", "Costs", "Balance"],
            &["Grain sales", "41200", "0", "41200"],
            &["Machines", "0", "9350", "-9350"],
            &["Water fees", "3100", "2800", "300"],
        ],
    ));
    p3.extend(paragraph(
        560.0,
        &[
            "The accounts close with a surplus. The board proposes to put half of it into",
            "the machine fund and to pay the rest back to members as a harvest bonus.",
        ],
    ));
    let mut p4 = vec![Text(LEFT, 720.0, 14.0, "Outlook")];
    p4.extend(paragraph(
        690.0,
        &[
            "Next quarter the clover on the Long Strip will be ploughed in, and the",
            "Upper Terrace goes to winter rye. The assembly meets on the first Monday.",
        ],
    ));
    vec![p1, p2, p3, p4]
}

fn content(items: &[Item]) -> Content {
    let mut ops = Vec::new();
    for item in items {
        match *item {
            Text(x, y, size, s) => {
                ops.push(Operation::new("BT", vec![]));
                ops.push(Operation::new("Tf", vec!["F1".into(), size.into()]));
                ops.push(Operation::new("Td", vec![x.into(), y.into()]));
                ops.push(Operation::new("Tj", vec![Object::string_literal(s)]));
                ops.push(Operation::new("ET", vec![]));
            }
            Rect(x, y, w, h) => {
                ops.push(Operation::new("g", vec![0.8.into()]));
                ops.push(Operation::new("re", vec![x.into(), y.into(), w.into(), h.into()]));
                ops.push(Operation::new("f", vec![]));
                ops.push(Operation::new("g", vec![0.into()]));
            }
        }
    }
    Content { operations: ops }
}

fn dict(entries: Vec<(&str, Object)>) -> Dictionary {
    let mut d = Dictionary::new();
    for (k, v) in entries {
        d.set(k, v);
    }
    d
}

/// A PDF of these pages (each a list of items), with Helvetica as /F1.
fn pdf_of(pages: &[Vec<Item>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dict(vec![
        ("Type", "Font".into()),
        ("Subtype", "Type1".into()),
        ("BaseFont", "Helvetica".into()),
        ("Encoding", "WinAnsiEncoding".into()),
    ]));
    let resources = doc.add_object(dict(vec![("Font", dict(vec![("F1", font.into())]).into())]));
    let mut kids = Vec::new();
    for items in pages {
        let bytes = content(items).encode().expect("content encodes");
        let content_id = doc.add_object(Stream::new(Dictionary::new(), bytes));
        let page = doc.add_object(dict(vec![
            ("Type", "Page".into()),
            ("Parent", pages_id.into()),
            ("Contents", content_id.into()),
        ]));
        kids.push(Object::from(page));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dict(vec![
            ("Type", "Pages".into()),
            ("Kids", kids.into()),
            ("Count", count.into()),
            ("Resources", resources.into()),
            ("MediaBox", vec![0.into(), 0.into(), 612.into(), 792.into()].into()),
        ])),
    );
    let catalog = doc.add_object(dict(vec![("Type", "Catalog".into()), ("Pages", pages_id.into())]));
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("a PDF in memory saves");
    out
}

/// The sample report.
pub fn build() -> Vec<u8> {
    pdf_of(&pages())
}

/// A page with a drawing and no text: what a scanned page looks like to a
/// text extractor.
pub fn image_only() -> Vec<u8> {
    pdf_of(&[vec![Rect(72.0, 300.0, 400.0, 400.0)]])
}

#[allow(dead_code)]
fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/report.pdf");
    let bytes = build();
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    println!("wrote {} ({} bytes)", path.display(), bytes.len());
}
