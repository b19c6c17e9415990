//! (Being written: see issue #48.)

use crate::error::Error;
use crate::strategy::Spec;

pub const SPEC: Spec = Spec { name: "json", help: "(being written)", ..Spec::new(|_| Err(Error::config("json is not built yet"))) };
