//! Module names a compiled extension builds in code instead of holding them as C strings.
//!
//! In: an extension module's bytes (an x86-64 ELF file: its `.text` and `.rodata` sections) and
//! which top-level modules count. Out: the places ([`Assembly`]) where its code loads a 16-byte
//! constant that starts a dotted module name (`pandas.core.arra`), and whether such a place
//! builds a given module name ([`Assembly::builds`]).
//!
//! A C++ compiler materialises a short `std::string` literal without its C string: duckdb
//! 0.8.1's `PandasCoreArraysArrowCacheItem::LoadSubtypes` (in
//! `duckdb.cpython-311-x86_64-linux-gnu.so`) creates a string of 30 bytes (`mov $0x1e,%edi`),
//! loads its first 16 bytes from a 16-byte-aligned constant in `.rodata` (`movdqa
//! 0x8a8dd8(%rip),%xmm0` at 0x1ba60b0 reads `pandas.core.arra` at 0x244ee90) and stores the rest
//! from instruction operands (`movabs $0x776f7272612e7379` = `ys.arrow`, `movl $0x7974642e` =
//! `.dty`, `mov $0x6570` = `pe`), then hands `pandas.core.arrays.arrow.dtype` to
//! `PythonImportCacheItem::LoadModule`. No whole string names that module, nor `pandas` alone.
//! GCC 12 builds the same literal from two overlapping 16-byte constants (the second ends
//! the name: `rays.arrow.dtype`). Both shapes are read, and nothing looser: the name's first
//! 16 bytes are the aligned constant a 16-byte load (`movdqa`, `movdqu`, `movups`, `movaps`)
//! reads through a RIP-relative address; its length is an immediate operand (`mov $len`) within
//! [`WINDOW`] bytes before that load; and its remaining bytes (at most 16) are either a second such
//! constant ending the name, or the 8-, 4-, 2- and 1-byte pieces of it in order as immediate
//! operands after the load (the 8-byte one through `movabs`). Only names of 16 to 32 bytes are
//! read (a longer one takes more constants; a shorter one has no constant at all), and only the
//! names a caller asks about ([`Assembly::builds`]): a module another dist ships, never a
//! string guessed from the bytes alone.

use std::collections::BTreeMap;

/// How many code bytes either side of the 16-byte load are read.
const WINDOW: usize = 64;
/// The constant a name starts with, in bytes.
const HEAD: usize = 16;

/// A place in an extension's code that loads a 16-byte constant starting a dotted module name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Assembly {
    /// The constant (`pandas.core.arra`).
    pub head: String,
    /// Its address in the extension (`objdump -s --start-address`).
    pub head_at: u64,
    /// The address of the load instruction (`objdump -d --start-address`).
    pub load_at: u64,
    /// Up to [`WINDOW`] code bytes before the load.
    before: Vec<u8>,
    /// Up to [`WINDOW`] code bytes after it.
    after: Vec<u8>,
    /// The 16-byte constants other such loads in `after` read.
    constants: Vec<Vec<u8>>,
}

impl Assembly {
    /// Whether the code here builds `module` (see the module's documentation).
    pub(crate) fn builds(&self, module: &str) -> bool {
        let name = module.as_bytes();
        let len = name.len();
        if !(HEAD..=2 * HEAD).contains(&len) || &name[..HEAD] != self.head.as_bytes() {
            return false;
        }
        if !self.sets_length(len) {
            return false;
        }
        let tail = &name[HEAD..];
        if tail.is_empty() {
            return true;
        }
        self.constants.iter().any(|c| c[..] == name[len - HEAD..]) || self.immediates(tail)
    }

    /// Whether the code before the load puts `len` in a register or a 32-bit memory slot as an
    /// immediate operand (`mov $0x1e,%edi`: `bf 1e 00 00 00`; `movq $0x1e,0x8(%rsp)`).
    fn sets_length(&self, len: usize) -> bool {
        let Ok(len) = u32::try_from(len) else {
            return false;
        };
        let length = len.to_le_bytes();
        let code = &self.before;
        memchr::memmem::find_iter(code, &length).any(|at| {
            let mov_to_register = at > 0 && (0xb8..=0xbf).contains(&code[at - 1]);
            mov_to_register || (2..=7).any(|back| at >= back && store_imm32_at(&code[at - back..]))
        })
    }

    /// Whether `tail`'s 8-, 4-, 2- and 1-byte pieces are immediate operands after the load, in
    /// order of their offsets in the name (an 8-byte one as `movabs`'s).
    fn immediates(&self, tail: &[u8]) -> bool {
        let mut at = 0;
        for size in [8, 4, 2, 1] {
            if tail.len() - at < size {
                continue;
            }
            let piece = &tail[at..at + size];
            let found = if size == 8 {
                self.after.windows(10).any(|w| {
                    matches!(w[0], 0x48 | 0x49) && (0xb8..=0xbf).contains(&w[1]) && &w[2..] == piece
                })
            } else {
                contains(&self.after, piece)
            };
            if !found {
                return false;
            }
            at += size;
        }
        at == tail.len()
    }
}

/// Whether `code` starts with `mov $imm32, mem` (`c7 /0`) whose immediate operand ends it
/// (`c7 44 24 08` + 4 bytes: `movl $imm,0x8(%rsp)`), so that the bytes after its address
/// operand are the immediate, not a displacement.
fn store_imm32_at(code: &[u8]) -> bool {
    let (Some(&0xc7), Some(&modrm)) = (code.first(), code.get(1)) else {
        return false;
    };
    if modrm & 0x38 != 0 {
        return false;
    }
    let (mode, rm) = (modrm >> 6, modrm & 7);
    let sib = usize::from(mode != 3 && rm == 4);
    let base = code.get(2).map_or(0, |b| b & 7);
    let disp = match mode {
        0 if rm == 5 || (sib == 1 && base == 5) => 4,
        1 => 1,
        2 => 4,
        _ => 0,
    };
    code.len() == 2 + sib + disp
}

/// Whether `needle` occurs in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// A section of an ELF file: its address, and where its bytes lie in `bytes`.
#[derive(Debug, Clone, Copy)]
struct Section {
    addr: u64,
    offset: usize,
    size: usize,
}

impl Section {
    fn bytes<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.offset..self.offset + self.size]
    }
}

/// The `.text` and `.rodata` sections of a little-endian x86-64 ELF64 file, when both lie
/// inside `bytes` (a file read up to a cap may end before them).
fn code_and_constants(bytes: &[u8]) -> Option<(Section, Section)> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    if bytes.get(..6)? != b"\x7fELF\x02\x01" || u16_at(0x12)? != 0x3e {
        return None;
    }
    let shoff = usize::try_from(u64_at(0x28)?).ok()?;
    let (entsize, count) = (usize::from(u16_at(0x3a)?), usize::from(u16_at(0x3c)?));
    let header = |i: usize| shoff.checked_add(i.checked_mul(entsize)?);
    let section = |i: usize| -> Option<(u32, Section)> {
        let at = header(i)?;
        let s = Section {
            addr: u64_at(at + 16)?,
            offset: usize::try_from(u64_at(at + 24)?).ok()?,
            size: usize::try_from(u64_at(at + 32)?).ok()?,
        };
        (s.offset.checked_add(s.size)? <= bytes.len()).then_some((u32_at(at)?, s))
    };
    let (_, names) = section(usize::from(u16_at(0x3e)?))?;
    let names = names.bytes(bytes);
    let named = |wanted: &[u8]| {
        (0..count).find_map(|i| {
            let (name, s) = section(i)?;
            let rest = names.get(usize::try_from(name).ok()?..)?;
            let end = memchr::memchr(0, rest)?;
            (&rest[..end] == wanted).then_some(s)
        })
    };
    Some((named(b".text")?, named(b".rodata")?))
}

/// The 16-byte-aligned constants of `.rodata` that start a dotted module name whose top-level
/// module `tops` accepts (every byte a letter, digit, `_` or `.`, a dot among them), by address.
fn name_heads(bytes: &[u8], rodata: Section, tops: &dyn Fn(&str) -> bool) -> BTreeMap<u64, String> {
    let data = rodata.bytes(bytes);
    let skip = ((HEAD as u64 - rodata.addr % HEAD as u64) % HEAD as u64) as usize;
    let mut out = BTreeMap::new();
    for (n, chunk) in data
        .get(skip..)
        .unwrap_or_default()
        .chunks_exact(HEAD)
        .enumerate()
    {
        let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.';
        if !(chunk[0].is_ascii_alphabetic() || chunk[0] == b'_') || !chunk.iter().all(word) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(chunk) else {
            continue;
        };
        let Some((top, _)) = text.split_once('.') else {
            continue;
        };
        if tops(top) {
            out.insert(rodata.addr + (skip + n * HEAD) as u64, text.to_string());
        }
    }
    out
}

/// The 16-byte loads through a RIP-relative address in `code` (`0f 6f`, `0f 10`, `0f 28` with a
/// `disp32(%rip)` operand, under any prefix): (the offset in `code` of the instruction's first
/// byte, of its end, the address it reads).
fn rip_loads(code: &[u8], addr: u64) -> Vec<(usize, usize, u64)> {
    let mut out = Vec::new();
    for op in memchr::memchr3_iter(0x6f, 0x10, 0x28, code) {
        if op == 0 || code[op - 1] != 0x0f || code.get(op + 1).is_none_or(|m| m & 0xc7 != 0x05) {
            continue;
        }
        let Some(disp) = code.get(op + 2..op + 6) else {
            continue;
        };
        let disp = i32::from_le_bytes([disp[0], disp[1], disp[2], disp[3]]);
        let end = op + 6;
        let mut start = op - 1;
        if start > 0 && (0x40..=0x4f).contains(&code[start - 1]) {
            start -= 1;
        }
        if start > 0 && matches!(code[start - 1], 0x66 | 0xf2 | 0xf3) {
            start -= 1;
        }
        let target = (addr + end as u64).wrapping_add_signed(i64::from(disp));
        out.push((start, end, target));
    }
    out
}

/// The places in an extension's code that load a 16-byte constant starting a dotted module name
/// whose top-level module `tops` accepts ([`Assembly`]); none for a file that is not an x86-64
/// ELF file or whose sections lie past `bytes`' end.
pub(crate) fn assemblies(bytes: &[u8], tops: &dyn Fn(&str) -> bool) -> Vec<Assembly> {
    let Some((text, rodata)) = code_and_constants(bytes) else {
        return Vec::new();
    };
    let heads = name_heads(bytes, rodata, tops);
    if heads.is_empty() {
        return Vec::new();
    }
    let code = text.bytes(bytes);
    let loads = rip_loads(code, text.addr);
    let constant = |at: u64| {
        let from = usize::try_from(at.checked_sub(rodata.addr)?).ok()?;
        rodata
            .bytes(bytes)
            .get(from..from + HEAD)
            .map(<[u8]>::to_vec)
    };
    let mut out = Vec::new();
    for (i, &(start, end, target)) in loads.iter().enumerate() {
        let Some(head) = heads.get(&target) else {
            continue;
        };
        let after_end = (end + WINDOW).min(code.len());
        let constants = loads[i + 1..]
            .iter()
            .take_while(|(s, _, _)| *s < after_end)
            .filter_map(|&(_, _, t)| constant(t))
            .collect();
        out.push(Assembly {
            head: head.clone(),
            head_at: target,
            load_at: text.addr + start as u64,
            before: code[start.saturating_sub(WINDOW)..start].to_vec(),
            after: code[end..after_end].to_vec(),
            constants,
        });
    }
    out
}

/// The modules a file list holds (`a/b.py`, `a/b/__init__.py`, `a/b.<tag>.so`: `a.b`) whose
/// name starts with `head`, at most 32 bytes long: those an [`Assembly`] may build.
pub(crate) fn modules_starting<'p>(
    paths: impl IntoIterator<Item = &'p String>,
    head: &str,
) -> Vec<String> {
    let mut out: Vec<String> = paths
        .into_iter()
        .filter_map(|path| {
            let stem = if let Some(stem) = path.strip_suffix(".py") {
                stem.strip_suffix("/__init__").unwrap_or(stem)
            } else if super::extensions::is_extension_module(path) {
                let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
                let file = file.split('.').next().unwrap_or(file);
                &path[..dir.len() + usize::from(!dir.is_empty()) + file.len()]
            } else {
                return None;
            };
            let module = stem.replace('/', ".");
            (module.starts_with(head) && module.len() <= 2 * HEAD).then_some(module)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
