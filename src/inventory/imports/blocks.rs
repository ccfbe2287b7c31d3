//! The blocks open around each logical line of a file, for the readers that judge a line by
//! what encloses it: the import statements ([`super::statements`]) and the version tests that
//! raise at import ([`super::version_tests`]).
//!
//! In: a file's logical lines ([`super::lines::logical_lines`]). Out: each line in order with
//! the blocks open around it, outermost first ([`Open`]): a compound statement's header opens
//! one ([`header`]: `def`, `if`, `try:` ...), the next line indented no deeper than the header
//! closes it.

use super::ImportGuard;
use super::guards::{Block, Words, header};
use super::lines::Logical;

/// A block open around a line.
#[derive(Clone, Copy)]
pub(super) struct Open {
    /// Its header's indentation.
    pub indent: usize,
    /// Its header's index in the logical lines.
    pub at: usize,
    /// What it says of the lines inside it.
    pub block: Block,
}

/// Calls `visit` with each logical line's index, the line and the blocks open around it
/// (outermost first).
pub(super) fn walk_blocks<'a>(
    lines: &[Logical<'a>],
    mut visit: impl FnMut(usize, &Logical<'a>, &[Open]),
) {
    walk_blocks_closing(lines, |at, logical, open, _| visit(at, logical, open));
}

/// [`walk_blocks`], with the outermost block the line closed too: the one open at its own
/// indentation before it, whose clause it may continue (the `try:` an `except` follows, the
/// `if` an `else:` follows).
pub(super) fn walk_blocks_closing<'a>(
    lines: &[Logical<'a>],
    mut visit: impl FnMut(usize, &Logical<'a>, &[Open], Option<Open>),
) {
    let words = Words::new(lines);
    let mut open: Vec<Open> = Vec::new();
    for (at, logical) in lines.iter().enumerate() {
        let mut closed = None;
        while open.last().is_some_and(|o| o.indent >= logical.indent) {
            closed = open.pop();
        }
        visit(at, logical, &open, closed);
        if let Some(block) = header(lines, at, &words) {
            open.push(Open {
                indent: logical.indent,
                at,
                block,
            });
        }
    }
}

/// What the `try:` bodies among `open` catch of a failing import: the widest guard, or
/// [`ImportGuard::None`] outside every `try:`.
pub(super) fn caught_by(open: &[Open]) -> ImportGuard {
    open.iter()
        .filter_map(|o| match o.block {
            Block::Try(guard) => Some(guard),
            _ => None,
        })
        .max()
        .unwrap_or(ImportGuard::None)
}

/// Whether a line with `open` around it is inside a function.
pub(super) fn in_def(open: &[Open]) -> bool {
    open.iter().any(|o| matches!(o.block, Block::Def(_)))
}

#[cfg(test)]
mod tests {
    use super::super::lines::logical_lines;
    use super::*;

    /// Each logical line's number, the numbers of the header lines open around it, whether it
    /// is in a function and what catches its failing import.
    fn walked(source: &str) -> Vec<(usize, Vec<usize>, bool, ImportGuard)> {
        let lines = logical_lines(source);
        let mut out = Vec::new();
        walk_blocks(&lines, |_, logical, open| {
            let headers = open.iter().map(|o| lines[o.at].line).collect();
            out.push((logical.line, headers, in_def(open), caught_by(open)));
        });
        out
    }

    #[test]
    fn a_block_closes_at_the_next_line_no_deeper_than_its_header() {
        let source = "\
try:
    import numpy as np
except ImportError:
    np = None
def f():
    try:
        if np:
            import scipy
    except ModuleNotFoundError:
        pass
    return (1,
        2)
x = 1
";
        use ImportGuard::{Any, MissingModule, None};
        assert_eq!(
            walked(source),
            [
                (1, vec![], false, None),
                (2, vec![1], false, Any),
                (3, vec![], false, None),
                (4, vec![3], false, None),
                (5, vec![], false, None),
                (6, vec![5], true, None),
                (7, vec![5, 6], true, MissingModule),
                (8, vec![5, 6, 7], true, MissingModule),
                (9, vec![5], true, None),
                (10, vec![5, 9], true, None),
                (11, vec![5], true, None),
                (13, vec![], false, None),
            ]
        );
    }
}
