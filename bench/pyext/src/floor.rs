//! The benchmark's Python object floor (`bench/`, issue 3): what CPython itself needs to build a
//! result's rows, with no database and no ODBC. A fetch cannot cost less than the driver's own
//! time (odbc-floor) plus this.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDate, PyDateTime, PyList, PyTime};

/// The first bytes of every dump `object_rows` reads (bench/worker.py `encode_rows`).
const MAGIC: &[u8] = b"object rows 1\n";

const TAG_NONE: u8 = 0;
const TAG_INT: u8 = 1;
const TAG_FLOAT: u8 = 2;
const TAG_BOOL: u8 = 3;
const TAG_STR: u8 = 4;
const TAG_BYTES: u8 = 5;
const TAG_DATE: u8 = 6;
const TAG_DATETIME: u8 = 7;
const TAG_TIME: u8 = 8;
const TAG_DECIMAL: u8 = 9;

/// Why a value could not be built. Small and `Copy`, so the per-value path keeps its result in
/// registers; the `PyErr` is made once, at the end.
#[derive(Clone, Copy)]
enum Bad {
    /// The dump ends inside a value.
    Truncated,
    Tag(u8),
    StrKind(u8),
    /// Text that does not fit its str kind (non-ASCII bytes, code points past U+10FFFF).
    StrText(u8),
    DecimalText,
    /// A constructor failed: its exception is set.
    Python,
}

/// A bounds-checked little-endian reader over the dump: a read past the end is `None`.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let bytes = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(bytes)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.array()?))
    }

    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.array()?))
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.array()?))
    }

    /// A u32 length, then that many bytes.
    fn sized(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}

/// A new reference from a CPython constructor, or `Bad::Python` for its NULL (exception set).
fn checked(obj: *mut ffi::PyObject) -> Result<*mut ffi::PyObject, Bad> {
    if obj.is_null() {
        Err(Bad::Python)
    } else {
        Ok(obj)
    }
}

/// A pyo3 constructor's result as a new reference; its error is restored as the exception set.
fn owned<T>(py: Python<'_>, made: PyResult<Bound<'_, T>>) -> Result<*mut ffi::PyObject, Bad> {
    match made {
        Ok(obj) => Ok(obj.into_any().into_ptr()),
        Err(e) => {
            e.restore(py);
            Err(Bad::Python)
        }
    }
}

/// A `str` of `nchars` code points, `data` holding them at the width `max_char` selects
/// (nchars × 1, 2 or 4 bytes), copied into the data area of a `PyUnicode_New(nchars, max_char)`
/// string: the least any client can do to produce it.
fn new_str(nchars: usize, max_char: ffi::Py_UCS4, data: &[u8]) -> Result<*mut ffi::PyObject, Bad> {
    let n = ffi::Py_ssize_t::try_from(nchars).map_err(|_| Bad::Truncated)?;
    // SAFETY: `PyUnicode_New` returns a new compact string (checked for NULL) whose data area
    // holds exactly `nchars` elements of the width `max_char` selects; every caller passes
    // `data` of exactly that many bytes (read bounds-checked), copied once before the object
    // is handed to Python. The empty string is a shared singleton and is not written to.
    unsafe {
        let obj = checked(ffi::PyUnicode_New(n, max_char))?;
        if !data.is_empty() {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                ffi::PyUnicode_DATA(obj).cast::<u8>(),
                data.len(),
            );
        }
        Ok(obj)
    }
}

/// One value of the dump (its tag already read) as a new reference.
fn value<'py>(
    py: Python<'py>,
    r: &mut Reader<'_>,
    tag: u8,
    decimal: &mut Option<Bound<'py, PyAny>>,
) -> Result<*mut ffi::PyObject, Bad> {
    use Bad::Truncated;
    match tag {
        TAG_NONE => Ok(py.None().into_ptr()),
        TAG_INT => {
            let v = r.i64().ok_or(Truncated)?;
            // SAFETY: returns a new reference or NULL with an exception set.
            checked(unsafe { ffi::PyLong_FromLongLong(v) })
        }
        TAG_FLOAT => {
            let v = r.f64().ok_or(Truncated)?;
            // SAFETY: as PyLong_FromLongLong.
            checked(unsafe { ffi::PyFloat_FromDouble(v) })
        }
        TAG_BOOL => {
            let v = r.u8().ok_or(Truncated)?;
            Ok(PyBool::new(py, v != 0).to_owned().into_ptr())
        }
        TAG_STR => {
            // The dump gives the str's PEP 393 storage so that nothing here decodes: 0 ASCII
            // (max char 127) and 1 Latin-1 (255) store a byte a code point, 2 and 4 store
            // UCS-2 and UCS-4. The two kinds whose contents CPython relies on are checked, so
            // no input makes an invalid str: ASCII text (a word-wise check, ~15 instructions
            // for 55 bytes against ~170 to build the str) and UCS-4 code points (<= U+10FFFF).
            let kind = r.u8().ok_or(Truncated)?;
            let (width, max_char) = match kind {
                0 => (1, 127),
                1 => (1, 255),
                2 => (2, 65535),
                4 => (4, 1_114_111),
                _ => return Err(Bad::StrKind(kind)),
            };
            let nchars = r.u32().ok_or(Truncated)? as usize;
            let len = nchars.checked_mul(width).ok_or(Truncated)?;
            let data = r.take(len).ok_or(Truncated)?;
            let valid = match kind {
                0 => data.is_ascii(),
                4 => data
                    .chunks_exact(4)
                    .all(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) <= 0x10FFFF),
                _ => true,
            };
            if !valid {
                return Err(Bad::StrText(kind));
            }
            new_str(nchars, max_char, data)
        }
        TAG_BYTES => {
            let data = r.sized().ok_or(Truncated)?;
            let len = ffi::Py_ssize_t::try_from(data.len()).map_err(|_| Truncated)?;
            // SAFETY: copies `len` bytes from `data`, which holds exactly that many; returns a
            // new reference or NULL with an exception set.
            checked(unsafe { ffi::PyBytes_FromStringAndSize(data.as_ptr().cast(), len) })
        }
        TAG_DATE => {
            let (Some(year), Some(month), Some(day)) = (r.i32(), r.u8(), r.u8()) else {
                return Err(Truncated);
            };
            owned(py, PyDate::new(py, year, month, day))
        }
        TAG_DATETIME => {
            let date = (r.i32(), r.u8(), r.u8());
            let time = (r.u8(), r.u8(), r.u8(), r.u32());
            let (Some(year), Some(month), Some(day)) = date else {
                return Err(Truncated);
            };
            let (Some(hour), Some(minute), Some(second), Some(us)) = time else {
                return Err(Truncated);
            };
            owned(
                py,
                PyDateTime::new(py, year, month, day, hour, minute, second, us, None),
            )
        }
        TAG_TIME => {
            let (Some(hour), Some(minute), Some(second), Some(us)) =
                (r.u8(), r.u8(), r.u8(), r.u32())
            else {
                return Err(Truncated);
            };
            owned(py, PyTime::new(py, hour, minute, second, us, None))
        }
        TAG_DECIMAL => {
            let text = r.sized().ok_or(Truncated)?;
            if !text.is_ascii() {
                return Err(Bad::DecimalText);
            }
            let cls = match decimal {
                Some(cls) => cls,
                None => {
                    let cls = py.import("decimal").and_then(|m| m.getattr("Decimal"));
                    decimal.insert(owned(py, cls).map(|p| {
                        // SAFETY: `owned` returned a new reference to a live object.
                        unsafe { Bound::from_owned_ptr(py, p) }
                    })?)
                }
            };
            // SAFETY: the text is ASCII (checked above), as a max char of 127 requires.
            let arg = unsafe { Bound::from_owned_ptr(py, new_str(text.len(), 127, text)?) };
            let args = [arg.as_ptr()];
            // SAFETY: `cls` and `arg` are live objects held by this frame for the call; the
            // argument vector has the one element its length says; the result is a new
            // reference or NULL with an exception set.
            checked(unsafe {
                ffi::PyObject_Vectorcall(cls.as_ptr(), args.as_ptr(), 1, std::ptr::null_mut())
            })
        }
        _ => Err(Bad::Tag(tag)),
    }
}

/// `object_rows(data)`: the rows of a dump written by bench/worker.py's `encode_rows` (header
/// `b"object rows 1\n"`, u64 rows, u32 columns, then a tag and a payload per value) as a list of
/// tuples, built with nothing but the work any client returning them must do: one constructor a
/// value (`PyLong_FromLongLong`, `PyFloat_FromDouble`, `PyUnicode_New` + one copy, ...), one
/// tuple a row (left out of the cyclic GC, as fastodbc's rows are), one pre-sized list.
/// `bench/worker.py` times it in a fresh process, so it also pays the new heap's page faults,
/// as a client does. A truncated or malformed dump raises `ValueError`.
#[pyfunction]
pub fn object_rows<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyList>> {
    let malformed = |what: String| PyValueError::new_err(format!("object rows: {what}"));
    let mut r = Reader { data, pos: 0 };
    if r.take(MAGIC.len()) != Some(MAGIC) {
        return Err(malformed("not a dump of object rows (bad magic)".into()));
    }
    let (Some(nrows), Some(ncols)) = (r.u64(), r.u32()) else {
        return Err(malformed("truncated header".into()));
    };
    let ncols = ncols as usize;
    if nrows > 0 && ncols == 0 {
        return Err(malformed("rows without columns".into()));
    }
    // Every value takes at least its tag byte: a row count the data cannot hold is refused
    // before the list is allocated.
    let left = data.len() - r.pos;
    let nrows = usize::try_from(nrows)
        .ok()
        .filter(|&n| n.checked_mul(ncols).is_some_and(|values| values <= left))
        .ok_or_else(|| {
            malformed(format!(
                "{nrows} rows of {ncols} columns cannot fit in {left} bytes"
            ))
        })?;
    let mut decimal = None;
    let mut at = 0;
    // SAFETY: every pointer comes from a CPython constructor checked for NULL; each slot of the
    // new list and tuples is set exactly once (SET_ITEM steals the reference), and a list or
    // tuple freed part-filled skips its NULL slots.
    let built: Result<Bound<'py, PyList>, Bad> = unsafe {
        (|| {
            let list = checked(ffi::PyList_New(nrows as ffi::Py_ssize_t))?;
            let list = Bound::from_owned_ptr(py, list);
            for row in 0..nrows {
                let tuple = checked(ffi::PyTuple_New(ncols as ffi::Py_ssize_t))?;
                let tuple = Bound::from_owned_ptr(py, tuple);
                ffi::PyObject_GC_UnTrack(tuple.as_ptr().cast());
                for col in 0..ncols {
                    at = r.pos;
                    let tag = r.u8().ok_or(Bad::Truncated)?;
                    let v = value(py, &mut r, tag, &mut decimal)?;
                    ffi::PyTuple_SET_ITEM(tuple.as_ptr(), col as ffi::Py_ssize_t, v);
                }
                ffi::PyList_SET_ITEM(list.as_ptr(), row as ffi::Py_ssize_t, tuple.into_ptr());
            }
            Ok(list.downcast_into_unchecked())
        })()
    };
    let list = built.map_err(|bad| match bad {
        Bad::Python => PyErr::fetch(py),
        Bad::Truncated => malformed(format!(
            "truncated: the value at offset {at} runs past the end ({} bytes)",
            data.len()
        )),
        Bad::Tag(tag) => malformed(format!("unknown tag {tag} at offset {at}")),
        Bad::StrKind(kind) => malformed(format!("unknown str kind {kind} at offset {at}")),
        Bad::StrText(kind) => malformed(format!("str at offset {at} does not fit its kind {kind}")),
        Bad::DecimalText => malformed(format!("the Decimal text at offset {at} is not ASCII")),
    })?;
    if r.pos != data.len() {
        return Err(malformed(format!(
            "{} bytes after the last row",
            data.len() - r.pos
        )));
    }
    Ok(list)
}
