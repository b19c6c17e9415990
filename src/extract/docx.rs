//! Word (.docx) extraction. (Being written: see issue #48.)

use super::Extracted;
use crate::error::{Error, Result};

pub fn extract(_bytes: &[u8], name: &str) -> Result<Extracted> {
    Err(Error::input(format!("{name}: reading Word files is not built yet")))
}
