//! Exposes PyO3's interpreter cfgs to this crate: `Py_GIL_DISABLED` marks a build for a
//! free-threaded CPython (3.13t), where a few things are done differently (`FREE_THREADED`).
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
