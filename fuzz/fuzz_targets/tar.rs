//! The tar reader for sdists' PKG-INFO (fed whole and in small pieces): no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner_pypi::sdist::tar_member;

fuzz_target!(|data: &[u8]| {
    let is_pkg_info = |path: &str| path.ends_with("/PKG-INFO");
    let _ = tar_member(data, is_pkg_info);
    let _ = tar_member(chunked(data), is_pkg_info);
});

/// The same bytes through a `Read` that hands them out in odd-sized pieces, as the gzip
/// decoder in front of it does for `.tar.gz` sdists.
fn chunked(data: &[u8]) -> impl std::io::Read + '_ {
    struct Chunks<'a>(&'a [u8]);
    impl std::io::Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    Chunks(data)
}
