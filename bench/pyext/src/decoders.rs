//! The fetch path's text decoders (`fastodbc_py::str_from_utf16_bytes` / `str_from_utf8`, the
//! very functions `crates/fastodbc-py/src/convert.rs` calls) exposed to Python for their
//! property tests (bench/tests/test_decoders.py) and `bench/codec_py.py`.

use std::ffi::CStr;

use fastodbc_py::{str_from_utf16_bytes, str_from_utf8};
use fastodbc_pystr::InvalidText;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;

/// Adds `decode_utf16le` and `decode_utf8` to the module. They are plain `METH_O` functions
/// rather than `#[pyfunction]`s: for an 8-character value, PyO3's argument extraction costs
/// more than the decoding, and the benchmark compares them with `bytes.decode`, which CPython
/// calls without any.
pub fn add_decoder_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let decoders: [(&'static CStr, ffi::PyCFunction, &'static CStr); 2] = [
        (
            c"decode_utf16le",
            decode_utf16le,
            c"decode_utf16le(data, /)\n--\n\nThe fetch path's UTF-16LE decoder: data.decode('utf-16-le'), strict.",
        ),
        (
            c"decode_utf8",
            decode_utf8,
            c"decode_utf8(data, /)\n--\n\nThe fetch path's UTF-8 decoder: data.decode('utf-8'), strict.",
        ),
    ];
    for (name, meth, doc) in decoders {
        // The definition must outlive the function object: leak it (two, once per process).
        let def = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: name.as_ptr(),
            ml_meth: ffi::PyMethodDefPointer { PyCFunction: meth },
            ml_flags: ffi::METH_O,
            ml_doc: doc.as_ptr(),
        }));
        // SAFETY: `def` is valid for the life of the process; the module name is a str.
        let function = unsafe {
            let f = ffi::PyCFunction_NewEx(def, std::ptr::null_mut(), m.name()?.as_ptr());
            Bound::from_owned_ptr_or_err(m.py(), f)?
        };
        m.add(name.to_str().unwrap_or_default(), function)?;
    }
    Ok(())
}

/// `str_from_utf16_bytes` or `str_from_utf8`.
type Decoder = for<'py> fn(Python<'py>, &[u8]) -> Result<PyResult<Bound<'py, PyAny>>, InvalidText>;

/// Runs a decoder on a `bytes` argument, with CPython's calling convention: a new reference,
/// or NULL with the exception set.
///
/// SAFETY: called by CPython with the GIL held and a valid object.
unsafe fn decode_bytes_arg(
    arg: *mut ffi::PyObject,
    codec: &str,
    decode: Decoder,
) -> *mut ffi::PyObject {
    let py = Python::assume_gil_acquired();
    let result = std::panic::catch_unwind(|| {
        if ffi::PyBytes_Check(arg) == 0 {
            return Err(PyTypeError::new_err("a bytes object is required"));
        }
        let data = ffi::PyBytes_AsString(arg) as *const u8;
        let len = ffi::PyBytes_Size(arg) as usize;
        // SAFETY: a bytes object's buffer holds `len` bytes and lives as long as `arg`.
        let bytes = std::slice::from_raw_parts(data, len);
        match decode(py, bytes) {
            Ok(s) => s.map(Bound::into_ptr),
            Err(e) => Err(PyValueError::new_err(format!(
                "invalid {codec} at byte {}",
                e.offset
            ))),
        }
    })
    .unwrap_or_else(|_| Err(PyRuntimeError::new_err("panic in decoder")));
    match result {
        Ok(ptr) => ptr,
        Err(e) => {
            e.restore(py);
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn decode_utf16le(
    _module: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    decode_bytes_arg(arg, "UTF-16", str_from_utf16_bytes)
}

unsafe extern "C" fn decode_utf8(
    _module: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    decode_bytes_arg(arg, "UTF-8", str_from_utf8)
}

/// `decode_loop_ns(data, codec, iterations)`: the decoders without a Python call around them,
/// for `bench/codec_py.py`. Decodes `data` `iterations` times with fastodbc's decoder, then
/// with CPython's own C decoder (`PyUnicode_DecodeUTF16` little-endian / `PyUnicode_DecodeUTF8`,
/// what `bytes.decode` runs), each result freed at once, and returns the ns per value of each.
/// A Python-level call costs ~30 ns, as much as decoding 128 characters: this separates the two.
#[pyfunction]
pub fn decode_loop_ns(
    py: Python<'_>,
    data: &Bound<'_, pyo3::types::PyBytes>,
    codec: &str,
    iterations: usize,
) -> PyResult<(f64, f64)> {
    let bytes = data.as_bytes();
    let utf16 = match codec {
        "utf-16-le" => true,
        "utf-8" => false,
        _ => {
            return Err(PyValueError::new_err(
                "codec must be 'utf-16-le' or 'utf-8'",
            ))
        }
    };
    let ours: Decoder = if utf16 {
        str_from_utf16_bytes
    } else {
        str_from_utf8
    };
    let started = std::time::Instant::now();
    for _ in 0..iterations {
        match ours(py, bytes) {
            Ok(s) => drop(s?),
            Err(e) => {
                return Err(PyValueError::new_err(format!(
                    "invalid text at byte {}",
                    e.offset
                )))
            }
        }
    }
    let fastodbc = started.elapsed().as_secs_f64();
    let ptr = bytes.as_ptr() as *const std::ffi::c_char;
    let len = bytes.len() as ffi::Py_ssize_t;
    let started = std::time::Instant::now();
    for _ in 0..iterations {
        let mut little_endian: std::ffi::c_int = -1;
        // SAFETY: `ptr` holds `len` bytes for the duration of the call (the bytes object is
        // borrowed); the result is a new reference or NULL with an exception set.
        let obj = unsafe {
            if utf16 {
                ffi::PyUnicode_DecodeUTF16(ptr, len, c"strict".as_ptr(), &mut little_endian)
            } else {
                ffi::PyUnicode_DecodeUTF8(ptr, len, c"strict".as_ptr())
            }
        };
        // SAFETY: an owned reference, or NULL with the exception set.
        drop(unsafe { Bound::from_owned_ptr_or_err(py, obj)? });
    }
    let cpython = started.elapsed().as_secs_f64();
    let per = |s: f64| s * 1e9 / iterations.max(1) as f64;
    Ok((per(fastodbc), per(cpython)))
}
