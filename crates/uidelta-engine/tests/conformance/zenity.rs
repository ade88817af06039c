//! zenity
