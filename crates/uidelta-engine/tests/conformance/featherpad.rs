//! featherpad
