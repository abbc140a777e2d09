//! `fastodbc_bench`: the benchmark's instruments, built and installed into .venv for the
//! benchmarks and their tests only (`make bench-ext`); fastodbc's wheel never contains them.

mod decoders;
mod floor;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
fn fastodbc_bench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    decoders::add_decoder_functions(m)?;
    m.add_function(wrap_pyfunction!(decoders::decode_loop_ns, m)?)?;
    m.add_function(wrap_pyfunction!(floor::object_rows, m)?)?;
    Ok(())
}
