//! The Elm loop's own parts: the one [`model::Model`], the messages and
//! commands ([`msg`]), the pure [`update::update`] that turns one into the
//! other, the key bindings it reads, and the signals that end it.

pub mod keymap;
pub mod model;
pub mod msg;
pub mod signals;
pub mod update;
