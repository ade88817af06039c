//! file_chooser
