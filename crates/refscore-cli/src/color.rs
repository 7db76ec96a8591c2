//! Terminal colours, only when standard output is a terminal and
//! `NO_COLOR` is unset.

use std::io::IsTerminal;

/// ANSI styling, or nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Palette {
    on: bool,
}

impl Palette {
    pub(crate) fn detect() -> Self {
        let on = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Palette { on }
    }

    /// No styling (for tests).
    #[cfg(test)]
    pub(crate) fn plain() -> Self {
        Palette { on: false }
    }

    /// ANSI styling on (for tests).
    #[cfg(test)]
    pub(crate) fn colored() -> Self {
        Palette { on: true }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub(crate) fn red(self, t: &str) -> String {
        self.paint("31", t)
    }

    pub(crate) fn green(self, t: &str) -> String {
        self.paint("32", t)
    }

    pub(crate) fn yellow(self, t: &str) -> String {
        self.paint("33", t)
    }

    pub(crate) fn bold(self, t: &str) -> String {
        self.paint("1", t)
    }

    pub(crate) fn dim(self, t: &str) -> String {
        self.paint("2", t)
    }
}
