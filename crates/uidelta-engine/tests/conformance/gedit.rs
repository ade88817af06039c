//! gedit
